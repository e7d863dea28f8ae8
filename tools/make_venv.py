"""Create .venv, or repair it, and install requirements.txt into it (make setup; make lab and make test call it).

    python3 tools/make_venv.py            # create .venv (or repair it) and install everything, with progress
    python3 tools/make_venv.py --check    # exit 0 when .venv is complete; otherwise say why and exit 1
    python3 tools/make_venv.py --remove   # make clean: delete .venv, only if this script made it
    python3 tools/make_venv.py --lang zh-Hant   # the messages in Chinese (make lab EDITION=zh-Hant)

It runs under the Python that is to create the environment (make's PYTHON, python3 by default), and
checks that Python's version before it creates anything: requirements.txt's pins need Python 3.11 or
newer. That Python may be old (stock macOS has 3.9), so this file runs on Python 3.6 and newer
(tests/matrix/test_setup.py runs it with 3.9; the Makefile turns away anything older before running it).

Nothing is deleted that this script did not make. Before it creates an environment it writes the stamp
.made-by-make_venv into the empty folder, and only a folder with that stamp, or with pyvenv.cfg and the
.installed stamp of a finished install (what this script made before it wrote the first stamp), is ever
deleted and rebuilt. Any other folder (a project of yours, ~/.local, a venv you made yourself) is left
as it is, with a message saying what is in it.

An environment this script made is used as it is when it is complete: its python runs, is new enough,
has pip, and the stamp .venv/.installed says an install finished there. Anything less (a setup
interrupted with Ctrl-C, a .venv made by an older Python, a python whose base install was removed) is
deleted and built afresh; no `make clean` needed. A complete .venv whose stamp is older than
requirements.txt is updated in place.
"""

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import time

NEEDS = (3, 11)
# The pins in requirements.txt whose Requires-Python is >=3.11 (tests/matrix/test_setup.py checks this list
# and that no pin needs more).
NEEDED_BY = ("numpy==2.4.6", "matplotlib==3.11.2", "ipykernel==7.4.0")
SUGGESTED = "3.12"
STAMP = ".installed"  # written when an install has finished
MADE = ".made-by-make_venv"  # written into the empty folder before `python -m venv` runs in it
MADE_TEXT = (
    "This folder is a Python virtual environment that tools/make_venv.py (make setup) of the GPU Setup & Cloud\n"
    "course made. make setup may delete and rebuild it, and make clean delete it.\n"
)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the course's folder (the checkout)
FONT_CACHE = "import matplotlib.pyplot"  # built now, not as a stderr message inside a notebook under test
PROBE = "import sys; print('%d.%d.%d' % sys.version_info[:3]); sys.stdout.flush(); import pip"
LANGUAGES = ("en", "zh-Hans", "zh-Hant")

# What a learner reads, per language (make lab EDITION=zh-Hans shows the Chinese). Plain tables, not gettext:
# this file runs before anything is installed, under any Python 3.6+.
TEXT = {
    "en": {
        "too_old": "{python} is Python {version}, too old for this course: requirements.txt's pins ({pins}) need "
        "Python {needs} or newer. Install one (macOS: brew install python@{suggested}; Linux: sudo apt install "
        "python{suggested}-venv, or pyenv install {suggested}), then run: make PYTHON=python{suggested} {goal}",
        "absent": "{venv} does not exist yet",
        "empty": "{venv} is an empty folder",
        "a_file": "{venv} is a file, not a folder",
        "a_link": "{venv} is a symbolic link (to {target}), not a folder",
        "not_ours": "{venv} is not a virtual environment that make setup made (it has no {made} stamp{and_cfg}); "
        "it holds {entries}",
        "no_cfg": " and no pyvenv.cfg",
        "cfg_no_stamp": ": a virtual environment made some other way",
        "half_made": "{venv} is half-made (no pyvenv.cfg): an earlier setup was interrupted",
        "no_run": "its python does not run ({detail})",
        "made_by_old": "it was made with Python {version} and the course needs {needs} or newer",
        "no_pip": "it has no pip (an earlier setup was interrupted, or it was made with --without-pip)",
        "no_stamp": "no {stamp} stamp in it: an earlier setup did not finish",
        "complete": "{venv} is complete (Python {version})",
        "leave_alone": "{why}: not touching it. Move it away, or pass another folder: make VENV=.venv2 {goal}",
        "no_requirements": "No requirements file {requirements}: run this from the course's folder",
        "own_python": "{why}; run this with another Python, not {venv}'s own: python3 {script}",
        "updating": "Updating {venv} in place: it is complete, so pip installs only what changed in {requirements}.",
        "rebuilding": "Rebuilding {venv}: {why}.",
        "setting_up": "Setting up {venv}: the first time takes a few minutes, mostly downloading PyTorch.",
        "creating": "Creating {venv} with {python} (Python {version})",
        "no_venv_module": "could not create {venv} with {python}; on Debian or Ubuntu install the venv module: "
        "sudo apt install python{version}-venv",
        "installing": "Installing {requirements} with pip; pip's own output follows",
        "torch_large": " (PyTorch is large: downloading and unpacking it takes most of the time)",
        "torch_cpu": "Installing PyTorch's CPU-only build ({pin}) from {index}: no CUDA libraries to download",
        "no_torch_pin": "{requirements} pins no torch==VERSION, so there is no CPU-only build to choose",
        "font_cache": "Building matplotlib's font cache",
        "running": "Running {code!r} in it",
        "done_in": "      done in {time}",
        "step_failed": "{title}: failed (exit status {code}), see the output above",
        "setup_failed": "Setup failed: {problem}. Fix that and run make {goal} again.",
        "interrupted": "Interrupted: {venv} is not complete; the next make {goal} rebuilds it.",
        "took": "Setup took {time}: {venv} is ready.",
        "min_s": "{m} min {s} s",
        "s": "{s} s",
        "removed": "Removed {venv}.",
        "nothing_to_remove": "{why}: nothing to remove.",
        "outside": "{venv} is outside the course's folder {root}: make clean removes only what is inside it",
        "is_root": "{venv} is the course's folder itself (or holds it): make clean removes only a folder inside it",
        "keep_it": "{why}: not deleting it. Delete it yourself if you mean to: rm -rf {quoted}",
        "bad_lang": "--lang must be one of {choices}, got {lang!r}",
    },
    "zh-Hans": {
        "too_old": "{python} 是 Python {version}，对本课程来说太旧：requirements.txt 固定的版本（{pins}）需要 "
        "Python {needs} 或更新版本。请先安装一个（macOS：brew install python@{suggested}；Linux：sudo apt install "
        "python{suggested}-venv，或 pyenv install {suggested}），然后运行：make PYTHON=python{suggested} {goal}",
        "absent": "{venv} 还不存在",
        "empty": "{venv} 是一个空文件夹",
        "a_file": "{venv} 是一个文件，不是文件夹",
        "a_link": "{venv} 是一个符号链接（指向 {target}），不是文件夹",
        "not_ours": "{venv} 不是 make setup 创建的虚拟环境（其中没有 {made} 标记{and_cfg}）；里面有 {entries}",
        "no_cfg": "，也没有 pyvenv.cfg",
        "cfg_no_stamp": "：这是用别的方法创建的虚拟环境",
        "half_made": "{venv} 只建了一半（没有 pyvenv.cfg）：上一次安装被中断了",
        "no_run": "其中的 python 无法运行（{detail}）",
        "made_by_old": "它是用 Python {version} 创建的，而本课程需要 {needs} 或更新版本",
        "no_pip": "其中没有 pip（上一次安装被中断了，或者创建时用了 --without-pip）",
        "no_stamp": "其中没有 {stamp} 标记：上一次安装没有完成",
        "complete": "{venv} 已经完整（Python {version}）",
        "leave_alone": "{why}：不会动它。请把它移走，或者换一个文件夹：make VENV=.venv2 {goal}",
        "no_requirements": "找不到依赖文件 {requirements}：请在课程文件夹中运行",
        "own_python": "{why}；请用另一个 Python 运行，不要用 {venv} 自己的：python3 {script}",
        "updating": "就地更新 {venv}：它是完整的，pip 只安装 {requirements} 中变化的部分。",
        "rebuilding": "重建 {venv}：{why}。",
        "setting_up": "正在准备 {venv}：第一次需要几分钟，大部分时间在下载 PyTorch。",
        "creating": "用 {python}（Python {version}）创建 {venv}",
        "no_venv_module": "无法用 {python} 创建 {venv}；在 Debian 或 Ubuntu 上请安装 venv 模块："
        "sudo apt install python{version}-venv",
        "installing": "用 pip 安装 {requirements}；下面是 pip 自己的输出（英文）",
        "torch_large": "（PyTorch 很大：下载和解压占了大部分时间）",
        "torch_cpu": "从 {index} 安装 PyTorch 的纯 CPU 版本（{pin}）：不用下载 CUDA 库",
        "no_torch_pin": "{requirements} 里没有固定 torch==版本，所以无法选择纯 CPU 版本",
        "font_cache": "生成 matplotlib 的字体缓存",
        "running": "在其中运行 {code!r}",
        "done_in": "      用时 {time}",
        "step_failed": "{title}：失败（退出码 {code}），见上面的输出",
        "setup_failed": "安装失败：{problem}。解决之后请再次运行 make {goal}。",
        "interrupted": "已中断：{venv} 不完整；下一次 make {goal} 会重建它。",
        "took": "安装用时 {time}：{venv} 已就绪。",
        "min_s": "{m} 分 {s} 秒",
        "s": "{s} 秒",
        "removed": "已删除 {venv}。",
        "nothing_to_remove": "{why}：没有要删除的。",
        "outside": "{venv} 在课程文件夹 {root} 之外：make clean 只删除课程文件夹里面的东西",
        "is_root": "{venv} 就是课程文件夹本身（或包含它）：make clean 只删除其中的文件夹",
        "keep_it": "{why}：不会删除它。如果确实要删，请自己删除：rm -rf {quoted}",
        "bad_lang": "--lang 必须是 {choices} 之一，而不是 {lang!r}",
    },
    "zh-Hant": {
        "too_old": "{python} 是 Python {version}，對本課程來說太舊：requirements.txt 固定的版本（{pins}）需要 "
        "Python {needs} 或更新版本。請先安裝一個（macOS：brew install python@{suggested}；Linux：sudo apt install "
        "python{suggested}-venv，或 pyenv install {suggested}），然後執行：make PYTHON=python{suggested} {goal}",
        "absent": "{venv} 還不存在",
        "empty": "{venv} 是一個空資料夾",
        "a_file": "{venv} 是一個檔案，不是資料夾",
        "a_link": "{venv} 是一個符號連結（指向 {target}），不是資料夾",
        "not_ours": "{venv} 不是 make setup 建立的虛擬環境（其中沒有 {made} 標記{and_cfg}）；裡面有 {entries}",
        "no_cfg": "，也沒有 pyvenv.cfg",
        "cfg_no_stamp": "：這是用別的方法建立的虛擬環境",
        "half_made": "{venv} 只建了一半（沒有 pyvenv.cfg）：上一次安裝被中斷了",
        "no_run": "其中的 python 無法執行（{detail}）",
        "made_by_old": "它是用 Python {version} 建立的，而本課程需要 {needs} 或更新版本",
        "no_pip": "其中沒有 pip（上一次安裝被中斷了，或者建立時用了 --without-pip）",
        "no_stamp": "其中沒有 {stamp} 標記：上一次安裝沒有完成",
        "complete": "{venv} 已經完整（Python {version}）",
        "leave_alone": "{why}：不會動它。請把它移走，或者換一個資料夾：make VENV=.venv2 {goal}",
        "no_requirements": "找不到相依套件檔 {requirements}：請在課程資料夾中執行",
        "own_python": "{why}；請用另一個 Python 執行，不要用 {venv} 自己的：python3 {script}",
        "updating": "就地更新 {venv}：它是完整的，pip 只安裝 {requirements} 中變動的部分。",
        "rebuilding": "重建 {venv}：{why}。",
        "setting_up": "正在準備 {venv}：第一次需要幾分鐘，大部分時間在下載 PyTorch。",
        "creating": "用 {python}（Python {version}）建立 {venv}",
        "no_venv_module": "無法用 {python} 建立 {venv}；在 Debian 或 Ubuntu 上請安裝 venv 模組："
        "sudo apt install python{version}-venv",
        "installing": "用 pip 安裝 {requirements}；下面是 pip 自己的輸出（英文）",
        "torch_large": "（PyTorch 很大：下載和解壓縮占了大部分時間）",
        "torch_cpu": "從 {index} 安裝 PyTorch 的純 CPU 版本（{pin}）：不必下載 CUDA 函式庫",
        "no_torch_pin": "{requirements} 沒有固定 torch==版本，所以無法選擇純 CPU 版本",
        "font_cache": "產生 matplotlib 的字型快取",
        "running": "在其中執行 {code!r}",
        "done_in": "      用時 {time}",
        "step_failed": "{title}：失敗（結束代碼 {code}），見上方的輸出",
        "setup_failed": "安裝失敗：{problem}。解決之後請再次執行 make {goal}。",
        "interrupted": "已中斷：{venv} 不完整；下一次 make {goal} 會重建它。",
        "took": "安裝用時 {time}：{venv} 已就緒。",
        "min_s": "{m} 分 {s} 秒",
        "s": "{s} 秒",
        "removed": "已刪除 {venv}。",
        "nothing_to_remove": "{why}：沒有要刪除的。",
        "outside": "{venv} 在課程資料夾 {root} 之外：make clean 只刪除課程資料夾裡面的東西",
        "is_root": "{venv} 就是課程資料夾本身（或包含它）：make clean 只刪除其中的資料夾",
        "keep_it": "{why}：不會刪除它。如果確實要刪，請自己刪除：rm -rf {quoted}",
        "bad_lang": "--lang 必須是 {choices} 之一，而不是 {lang!r}",
    },
}
_language = "en"


def text(key, **values):
    """The message `key` in the chosen language, filled in."""
    return TEXT[_language][key].format(**values)


def dotted(version):
    return ".".join(str(part) for part in version)


def too_old_message(python, version, goal):
    """The one line a learner with an old Python sees, before anything is created."""
    return text(
        "too_old",
        python=python,
        version=version,
        pins=", ".join(NEEDED_BY),
        needs=dotted(NEEDS),
        suggested=SUGGESTED,
        goal=goal,
    )


def say(line=""):
    print(line, flush=True)


def minutes(seconds):
    seconds = int(round(seconds))
    return text("min_s", m=seconds // 60, s=seconds % 60) if seconds >= 60 else text("s", s=seconds)


def made_here(venv):
    """Whether `venv` is a folder this script made: its stamp, or (made before the stamp existed) pyvenv.cfg
    together with the .installed stamp of a finished install."""
    if os.path.isfile(os.path.join(venv, MADE)):
        return True
    return all(os.path.isfile(os.path.join(venv, name)) for name in ("pyvenv.cfg", STAMP))


def contents(venv, entries):
    """A few of the folder's entries, for the message that says what was found."""
    names = sorted(entries)
    shown = [name + ("/" if os.path.isdir(os.path.join(venv, name)) else "") for name in names[:6]]
    more = len(names) - len(shown)
    return ", ".join(shown) + (f" ... (+{more})" if more else "")


def diagnose(venv):
    """('absent' | 'complete' | 'rebuild' | 'foreign', why, the venv python's version or None).

    'foreign' is anything this script did not make: it is never deleted."""
    if not os.path.lexists(venv):
        return "absent", text("absent", venv=venv), None
    if os.path.islink(venv):
        return "foreign", text("a_link", venv=venv, target=os.readlink(venv)), None
    if not os.path.isdir(venv):
        return "foreign", text("a_file", venv=venv), None
    entries = set(os.listdir(venv))
    if not entries:
        return "absent", text("empty", venv=venv), None
    if not made_here(venv):
        and_cfg = text("cfg_no_stamp") if "pyvenv.cfg" in entries else text("no_cfg")
        why = text("not_ours", venv=venv, made=MADE, and_cfg=and_cfg, entries=contents(venv, entries))
        return "foreign", why, None
    if "pyvenv.cfg" not in entries:
        return "rebuild", text("half_made", venv=venv), None
    python = os.path.join(venv, "bin", "python")
    try:
        done = subprocess.run([python, "-c", PROBE], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return "rebuild", text("no_run", detail=f"{exc.__class__.__name__}: {exc}"), None
    lines = done.stdout.decode("utf-8", "replace").splitlines()
    try:
        version = tuple(int(part) for part in lines[0].split("."))
    except (IndexError, ValueError):
        last = lines[-1] if lines else f"exit status {done.returncode}"
        return "rebuild", text("no_run", detail=last.strip()), None
    if version[:2] < NEEDS:
        return "rebuild", text("made_by_old", version=dotted(version), needs=dotted(NEEDS)), version
    if done.returncode != 0:
        return "rebuild", text("no_pip"), version
    if not os.path.exists(os.path.join(venv, STAMP)):
        return "rebuild", text("no_stamp", stamp=STAMP), version
    return "complete", text("complete", venv=venv, version=dotted(version)), version


def run_step(number, total, title, cmd):
    say(f"[{number}/{total}] {title}")
    say("      $ " + " ".join(shlex.quote(part) for part in cmd))
    started = time.monotonic()
    done = subprocess.run(cmd)
    if done.returncode != 0:
        raise StepFailed(text("step_failed", title=title, code=done.returncode))
    say(text("done_in", time=minutes(time.monotonic() - started)))


class StepFailed(Exception):
    pass


def mark_as_made(venv):
    """Write the stamp that lets make setup and make clean delete this folder later."""
    with open(os.path.join(venv, MADE), "w") as stamp:
        stamp.write(MADE_TEXT)


# PyTorch's own index of CPU-only wheels (pytorch.org/get-started): on Linux, PyPI's torch is the CUDA build, which
# pulls several GB of NVIDIA libraries that a laptop without an NVIDIA GPU never uses (make setup TORCH=cpu).
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def torch_pin(requirements):
    """The `torch==VERSION` line of a requirements file, or None (make setup TORCH=cpu installs that version)."""
    with open(requirements) as lines:
        for line in lines:
            line = line.split("#", 1)[0].strip()
            if line.startswith("torch==") and ";" not in line:
                return line
    return None


def install(venv, requirements, warm_up, create, cpu_torch=False):
    """Create the venv (when `create`), install the requirements, warm up; the stamp comes last.

    With `cpu_torch`, PyTorch's CPU-only build of the pinned version is installed first, from PyTorch's own
    index; the requirements then find torch already there and leave it as it is."""
    python = os.path.join(venv, "bin", "python")
    pin = torch_pin(requirements) if cpu_torch else None
    if cpu_torch and pin is None:
        raise StepFailed(text("no_torch_pin", requirements=requirements))
    steps = (1 if create else 0) + (1 if pin else 0) + 1 + (1 if warm_up else 0)
    step = 0
    if create:
        os.makedirs(venv, exist_ok=True)
        mark_as_made(venv)  # first, so that a setup cut short anywhere after this leaves a folder known as ours
        step += 1
        version = dotted(sys.version_info[:3])
        title = text("creating", venv=venv, python=sys.executable, version=version)
        try:
            run_step(step, steps, title, [sys.executable, "-m", "venv", venv])
        except StepFailed:
            raise StepFailed(
                text("no_venv_module", venv=venv, python=sys.executable, version=dotted(sys.version_info[:2]))
            ) from None
    else:
        mark_as_made(venv)  # a .venv made before the stamp existed gets it now, before pip can be cut short
    if pin:
        step += 1
        pip = [python, "-m", "pip", "install", "--disable-pip-version-check", pin, "--index-url", CPU_INDEX]
        run_step(step, steps, text("torch_cpu", pin=pin, index=CPU_INDEX), pip)
    step += 1
    title = text("installing", requirements=requirements) + (text("torch_large") if create and not pin else "")
    run_step(step, steps, title, [python, "-m", "pip", "install", "--disable-pip-version-check", "-r", requirements])
    if warm_up:
        step += 1
        title = text("font_cache") if warm_up == FONT_CACHE else text("running", code=warm_up)
        run_step(step, steps, title, [python, "-c", warm_up])
    with open(os.path.join(venv, STAMP), "w") as stamp:
        stamp.write(time.strftime("%Y-%m-%d %H:%M:%S\n"))


def inside(path, folder):
    """Whether `path` lies strictly inside `folder`, both resolved (a symbolic link cannot point the way out)."""
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return os.path.commonpath([path, folder]) == folder and path != folder


def remove(venv):
    """make clean: delete `venv` when it is inside the course's folder and this script made it; else say why not."""
    state, why, _ = diagnose(venv)
    if state == "absent" and not os.path.lexists(venv):
        say(text("nothing_to_remove", why=why))
        return 0
    if not inside(os.path.abspath(venv), ROOT):
        real = os.path.realpath(venv)
        key = "is_root" if os.path.commonpath([real, os.path.realpath(ROOT)]) == real else "outside"
        sys.stderr.write(text(key, venv=venv, root=ROOT) + "\n")
        return 2
    if state == "foreign":
        sys.stderr.write(text("keep_it", why=why, quoted=shlex.quote(venv)) + "\n")
        return 2
    if os.path.realpath(sys.prefix) == os.path.realpath(venv):
        sys.stderr.write(text("own_python", why=why, venv=venv, script=sys.argv[0]) + "\n")
        return 2
    shutil.rmtree(venv)
    say(text("removed", venv=venv))
    return 0


def main(argv=None):
    global _language
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", default=".venv", help="the environment's folder (default: .venv)")
    parser.add_argument("--requirements", default="requirements.txt", help="what to install (requirements.txt)")
    parser.add_argument(
        "--warm-up",
        default=FONT_CACHE,
        help="Python run in the environment after the install (default builds matplotlib's font cache); '' for none",
    )
    parser.add_argument("--goal", default="setup", help="the make command the learner ran, for the messages")
    parser.add_argument("--check", action="store_true", help="only say whether the environment is complete")
    parser.add_argument("--remove", action="store_true", help="delete the environment, only if this script made it")
    parser.add_argument("--lang", default="", help="the messages' language: en (or empty), zh-Hans or zh-Hant")
    parser.add_argument(
        "--torch",
        default="",
        help="'cpu': install PyTorch's CPU-only build (Linux without an NVIDIA GPU); empty: pip's default build",
    )
    args = parser.parse_args(argv)
    if (args.lang or "en") not in LANGUAGES:
        parser.error(TEXT["en"]["bad_lang"].format(choices=", ".join(LANGUAGES), lang=args.lang))
    _language = args.lang or "en"
    if args.torch not in ("", "cpu"):
        parser.error(f"--torch must be 'cpu' or empty (make setup TORCH=cpu), got {args.torch!r}")
    if not args.venv.strip():
        parser.error(f"--venv must name a folder, got {args.venv!r}")
    venv = args.venv.rstrip("/") or "/"

    if args.remove:
        return remove(venv)
    state, why, _ = diagnose(venv)
    if args.check:
        say(why)
        return 0 if state == "complete" else 1
    if state == "foreign":
        sys.stderr.write(text("leave_alone", why=why, goal=args.goal) + "\n")
        return 2
    if state != "complete" and sys.version_info[:2] < NEEDS:
        # checked before anything is created or deleted
        sys.stderr.write(too_old_message(sys.executable, dotted(sys.version_info[:3]), args.goal) + "\n")
        return 2
    if not os.path.isfile(args.requirements):
        sys.stderr.write(text("no_requirements", requirements=args.requirements) + "\n")
        return 2

    started = time.monotonic()
    if state != "complete" and os.path.realpath(sys.prefix) == os.path.realpath(venv):
        sys.stderr.write(text("own_python", why=why, venv=venv, script=sys.argv[0]) + "\n")
        return 2
    if state == "complete":
        say(text("updating", venv=venv, requirements=args.requirements))
    elif state == "rebuild":
        say(text("rebuilding", venv=venv, why=why))
    else:
        say(text("setting_up", venv=venv))
    try:
        if state == "rebuild":
            shutil.rmtree(venv)  # diagnose() said this script made it
        install(venv, args.requirements, args.warm_up, create=state != "complete", cpu_torch=args.torch == "cpu")
    except StepFailed as exc:
        sys.stderr.write(text("setup_failed", problem=exc, goal=args.goal) + "\n")
        return 1
    except KeyboardInterrupt:
        stamp = os.path.join(venv, STAMP)
        if os.path.exists(stamp):
            os.remove(stamp)  # a pip install cut short can leave a package half-written: rebuild next time
        sys.stderr.write("\n" + text("interrupted", venv=venv, goal=args.goal) + "\n")
        return 130
    say(text("took", time=minutes(time.monotonic() - started), venv=venv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
