"""Copy the course's lessons into my-lessons/, the learner's own folder, then open them in JupyterLab (make lab).

    python tools/my_lessons.py                                   # notebooks/NN_*.ipynb -> my-lessons/
    python tools/my_lessons.py --edition zh-Hant                 # notebooks/zh-Hant/ -> my-lessons/zh-Hant/
    python tools/my_lessons.py --lab --jupyter .venv/bin/jupyter --lab-args "--port 8899"   # what make lab runs

JupyterLab saves a notebook as you run it, so the learner works on copies: my-lessons/ is git-ignored, and
notebooks/ keeps the course as it is committed (make test compares against it, make refresh rewrites it).
A lesson missing from my-lessons/ (every one on first use, a new one after `git pull`) is copied in with its
outputs cleared, so that the learner sees only what they ran; the course's notebooks keep their stored outputs.
A copy that is there is never overwritten; a broken symbolic link in its place is replaced. It prints one line
per lesson saying which it copied and which it kept, in the edition's language.

Several `make lab` at once are safe: each writes a lesson to a temporary file of its own and links it into place
only if no copy is there yet (os.link never replaces a file), so no copy is written twice or half.

JupyterLab starts in the course's folder and opens my-lessons/ (its default URL). It serves only the folder it
was started in, and the lessons link to files outside my-lessons/: `../README.md` (its glossary), the Chinese
READMEs from my-lessons/zh-Hans/, `../lessonkit/...`. Copying the README into my-lessons/ would fix one link and
leave a second README to drift; starting in the course's folder makes every link work as it does on GitHub.
Markdown files open rendered (JupyterLab's Markdown Preview), so `../README.md#glossary` scrolls to the glossary:
tools/lab-settings/<edition>/ holds those default settings, and for a Chinese edition JupyterLab's own menus in
that language (the jupyterlab-language-pack-zh-CN / -zh-TW of requirements.txt), which Settings > Language
changes back. The learner's own JupyterLab settings always win over these defaults.
"""

from __future__ import annotations

import argparse
import errno
import os
import shlex
import sys
import tempfile
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LESSON_GLOB = "[0-9][0-9]_*.ipynb"
EDITIONS = ("zh-Hans", "zh-Hant")
LAB_SETTINGS = ROOT / "tools" / "lab-settings"  # <edition or en>/labconfig/default_setting_overrides.json

TEXT = {
    "en": {
        "no_lessons": "no lessons ({glob}) in {source}: run this in the course's folder",
        "inside": "the copies' folder {dest} must not be the course's {source} or inside it",
        "a_file": "{dest} is a file, not a folder: move it away, then run this again",
        "cannot_write": "cannot write the copies into {dest}: {reason}. {hint}",
        "hint_space": "Free some disk space, then run make lab again",
        "hint_access": "Make the folder writable (or pass another one: make lab MY_LESSONS=elsewhere)",
        "hint_other": "Fix that, then run make lab again",
        "bad_edition": "EDITION must be one of {choices} (or empty for English), got {edition!r}",
        "bad_lab_args": "LAB_ARGS cannot be read as command-line options ({problem}): {args!r}",
        "header": "Your copies of the lessons are in {dest}/ (JupyterLab saves your work there; {source}/ is the "
        "course's):",
        "copied": "  copied  {name}  (new, without outputs: run its cells to see them)",
        "restored": "  copied  {name}  (in place of a broken link)",
        "kept": "  kept    {name}  (your copy, not overwritten)",
        "blocked": "  skipped {name}  (something that is not a notebook is in its place: move it away)",
        "yours": "  yours   {name}  (not a lesson of the course any more; left as it is)",
        "afresh": "To start a lesson afresh from the course's version, delete its copy; make lab copies it again.",
        "starting": "Starting JupyterLab in the course's folder {root}/ (so the lessons' links to the README work), "
        "open at {dest}/. Its address is printed below; stop it with Ctrl-C in this terminal.",
    },
    "zh-Hans": {
        "no_lessons": "{source} 中没有课程（{glob}）：请在课程文件夹中运行",
        "inside": "副本文件夹 {dest} 不能是课程的 {source}，也不能在它里面",
        "a_file": "{dest} 是一个文件，不是文件夹：请把它移走，再运行一次",
        "cannot_write": "无法把副本写入 {dest}：{reason}。{hint}",
        "hint_space": "请腾出一些磁盘空间，然后再次运行 make lab",
        "hint_access": "请让这个文件夹可写（或者换一个：make lab MY_LESSONS=别的文件夹）",
        "hint_other": "解决之后请再次运行 make lab",
        "bad_edition": "EDITION 必须是 {choices} 之一（英文版留空），而不是 {edition!r}",
        "bad_lab_args": "LAB_ARGS 无法当作命令行选项来读（{problem}）：{args!r}",
        "header": "你的课程副本在 {dest}/ 中（JupyterLab 把你的改动保存在那里；{source}/ 是课程原件）：",
        "copied": "  已复制  {name}  （新的，不含输出：运行其中的单元格就能看到）",
        "restored": "  已复制  {name}  （替换了一个失效的链接）",
        "kept": "  已保留  {name}  （你的副本，没有覆盖）",
        "blocked": "  已跳过  {name}  （它的位置上有个不是 notebook 的东西：请把它移走）",
        "yours": "  你的    {name}  （已不是本课程的课程；保持原样）",
        "afresh": "想从课程的版本重新开始某一课，就删除它的副本；make lab 会再复制一份。",
        "starting": "在课程文件夹 {root}/ 中启动 JupyterLab（这样课程里指向 README 的链接可用），打开 {dest}/。"
        "它的网址显示在下面；在这个终端中按 Ctrl-C 可以停止它。",
    },
    "zh-Hant": {
        "no_lessons": "{source} 中沒有課程（{glob}）：請在課程資料夾中執行",
        "inside": "副本資料夾 {dest} 不能是課程的 {source}，也不能在它裡面",
        "a_file": "{dest} 是一個檔案，不是資料夾：請把它移走，再執行一次",
        "cannot_write": "無法把副本寫入 {dest}：{reason}。{hint}",
        "hint_space": "請騰出一些磁碟空間，然後再次執行 make lab",
        "hint_access": "請讓這個資料夾可寫入（或者換一個：make lab MY_LESSONS=別的資料夾）",
        "hint_other": "解決之後請再次執行 make lab",
        "bad_edition": "EDITION 必須是 {choices} 之一（英文版留空），而不是 {edition!r}",
        "bad_lab_args": "LAB_ARGS 無法當作命令列選項來讀（{problem}）：{args!r}",
        "header": "你的課程副本在 {dest}/ 中（JupyterLab 把你的變更儲存在那裡；{source}/ 是課程原件）：",
        "copied": "  已複製  {name}  （新的，不含輸出：執行其中的儲存格就能看到）",
        "restored": "  已複製  {name}  （取代了一個失效的連結）",
        "kept": "  已保留  {name}  （你的副本，沒有覆寫）",
        "blocked": "  已略過  {name}  （它的位置上有個不是筆記本的東西：請把它移走）",
        "yours": "  你的    {name}  （已不是本課程的課程；維持原樣）",
        "afresh": "想從課程的版本重新開始某一課，就刪除它的副本；make lab 會再複製一份。",
        "starting": "在課程資料夾 {root}/ 中啟動 JupyterLab（這樣課程裡指向 README 的連結可用），開啟 {dest}/。"
        "它的網址顯示在下方；在這個終端機中按 Ctrl-C 可以停止它。",
    },
}


class LessonsError(Exception):
    """A problem with the folders given, worded for the learner."""


def language_of(edition: str) -> str:
    """The messages' language for an edition ('' is the English course)."""
    if edition not in ("", *EDITIONS):
        raise LessonsError(TEXT["en"]["bad_edition"].format(choices=", ".join(EDITIONS), edition=edition))
    return edition or "en"


def _text(language: str, key: str, **values: object) -> str:
    return TEXT[language][key].format(**values)


def fresh_copy(lesson: Path) -> bytes:
    """The lesson as the learner first sees it: every output and execution count cleared, no stored widget state."""
    import nbformat  # imported here: it takes a second or more to load, and a bad EDITION is refused before

    nb = nbformat.read(lesson, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
            cell.metadata.pop("execution", None)
    nb.metadata.pop("widgets", None)
    return (nbformat.writes(nb) + "\n").encode("utf-8")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def place(data: bytes, copy: Path, replace: bool = False) -> bool:
    """Write `data` as `copy` whole or not at all; False when a copy appeared there first (another make lab).

    The bytes go to a temporary file of this process's own in the same folder, which is then hard-linked into
    place: os.link fails when the name exists, so a copy that another `make lab` (or the learner) put there
    meanwhile is never replaced. `replace` (a broken link in the way) renames over it instead."""
    fd, temporary = tempfile.mkstemp(dir=copy.parent, prefix=f".{copy.name}.", suffix=".partial")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes it private; a copy is an ordinary file
        if replace:
            os.replace(temporary, copy)
            return True
        try:
            os.link(temporary, copy)
        except FileExistsError:
            return False
        except OSError as exc:  # a file system without hard links (some network and FAT drives)
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
                raise
            if os.path.lexists(copy):
                return False
            os.replace(temporary, copy)
        return True
    finally:
        if os.path.lexists(temporary):
            os.unlink(temporary)


def _write_problem(exc: OSError, dest: Path, language: str) -> LessonsError:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        hint = "hint_space"
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        hint = "hint_access"
    else:
        hint = "hint_other"
    reason = exc.strerror or exc.__class__.__name__
    return LessonsError(_text(language, "cannot_write", dest=dest, reason=reason, hint=_text(language, hint)))


def sync(source: Path, dest: Path, language: str = "en") -> dict[str, list[str]]:
    """Copy every lesson of `source` that `dest` lacks; return the names copied, restored, kept, blocked, and
    only in `dest`."""
    lessons = sorted(source.glob(LESSON_GLOB))
    if not lessons:
        raise LessonsError(_text(language, "no_lessons", glob=LESSON_GLOB, source=source))
    if dest.resolve() == source.resolve() or source.resolve() in dest.resolve().parents:
        raise LessonsError(_text(language, "inside", dest=dest, source=source))
    if dest.exists() and not dest.is_dir():
        raise LessonsError(_text(language, "a_file", dest=dest))
    done: dict[str, list[str]] = {"copied": [], "restored": [], "kept": [], "blocked": [], "only_yours": []}
    try:
        dest.mkdir(parents=True, exist_ok=True)
        for lesson in lessons:
            copy = dest / lesson.name
            broken_link = copy.is_symlink() and not copy.exists()
            if os.path.lexists(copy) and not broken_link:
                done["kept" if copy.is_file() else "blocked"].append(lesson.name)
                continue
            if place(fresh_copy(lesson), copy, replace=broken_link):
                done["restored" if broken_link else "copied"].append(lesson.name)
            else:
                done["kept"].append(lesson.name)  # another make lab copied it a moment ago
    except OSError as exc:
        raise _write_problem(exc, dest, language) from exc
    course = {lesson.name for lesson in lessons}
    done["only_yours"] = sorted(p.name for p in dest.glob(LESSON_GLOB) if p.name not in course)
    return done


def report(done: dict[str, list[str]], source: Path, dest: Path, language: str = "en") -> str:
    lines = [_text(language, "header", dest=dest, source=source)]
    for key, names in (
        ("copied", done["copied"]),
        ("restored", done.get("restored", [])),
        ("kept", done["kept"]),
        ("blocked", done.get("blocked", [])),
        ("yours", done["only_yours"]),
    ):
        lines += [_text(language, key, name=name) for name in names]
    if done["kept"]:
        lines.append(_text(language, "afresh"))
    return "\n".join(lines)


def lab_command(jupyter: str, dest: Path, edition: str, lab_args: str) -> tuple[list[str], dict[str, str]]:
    """JupyterLab's command line and environment: started in the course's folder, open at the copies."""
    try:
        extra = shlex.split(lab_args)
    except ValueError as problem:
        raise LessonsError(_text(language_of(edition), "bad_lab_args", problem=problem, args=lab_args)) from None
    where = dest.resolve()
    if where == ROOT or ROOT in where.parents:
        opened = urllib.parse.quote(where.relative_to(ROOT).as_posix())
        command = [jupyter, "lab", f"--ServerApp.root_dir={ROOT}", f"--LabApp.default_url=/lab/tree/{opened}"]
    else:  # copies kept elsewhere (MY_LESSONS=/somewhere): links out of them cannot work there anyway
        command = [jupyter, "lab", str(where)]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # rented cloud GPUs often log you in as root; JupyterLab refuses it unasked
    env = dict(os.environ)
    settings = LAB_SETTINGS / (edition or "en")
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(filter(None, [str(settings), env.get("JUPYTER_CONFIG_PATH")]))
    return command + extra, env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="source", type=Path, help="the course's lessons (default: notebooks/)")
    parser.add_argument("--to", dest="dest", type=Path, help="the learner's copies (default: my-lessons/)")
    parser.add_argument("--edition", default="", help="zh-Hans or zh-Hant: that edition, in its folders and language")
    parser.add_argument("--lab", action="store_true", help="then start JupyterLab on the copies")
    parser.add_argument("--jupyter", default=str(Path(sys.executable).parent / "jupyter"), help="JupyterLab's jupyter")
    parser.add_argument("--lab-args", default="", help="more options for JupyterLab, as one string")
    args = parser.parse_args(argv)
    try:
        language = language_of(args.edition)
        source = args.source or ROOT / "notebooks"
        dest = args.dest or ROOT / "my-lessons"
        if args.edition:
            source, dest = source / args.edition, dest / args.edition
        if args.lab:
            command, env = lab_command(args.jupyter, dest, args.edition, args.lab_args)  # bad LAB_ARGS: say it first
        done = sync(source, dest, language)
    except LessonsError as exc:
        print(f"my_lessons: {exc}", file=sys.stderr)
        return 2
    print(report(done, source, dest, language), flush=True)
    if args.lab:
        print(_text(language, "starting", root=ROOT, dest=dest), flush=True)
        os.execve(command[0], command, env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
