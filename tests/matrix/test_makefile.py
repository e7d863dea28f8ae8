"""The Makefile: strict comparison on a CPU and errors only where a GPU is; a hanging nvidia-smi never holds make up;
make clean deletes only the environment make setup made, inside the checkout; no variable a learner sets reaches a
shell as code; make doctor runs lessonkit's doctor from .venv.

In the matrix, not the unit tests: every test runs real `make` (and the Python tools its recipes start) in copies
of the course, about 20 CPU-seconds and a 10-second nvidia-smi timeout in all."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.matrix.conftest import fake_venv

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

# Values with what a shell would read as code: a quote that closes the one a recipe put around a value (issue 25's
# REPO='"; touch PWNED; echo "'), `;`, a command substitution ($$ is make's `$`), backticks, and a make reference
# ($(...) with one `$`, which make reads as an undefined variable). Each breaks out of one way of pasting a value
# into a command line, inside "..." or unquoted. (A value with an odd number of quotes is a weaker probe: the
# shell refuses the whole pasted line as a syntax error, so nothing runs even where pasting is unsafe.)
HOSTILE = {
    "double-quoted": 'x"; touch {canary}; echo "$$(touch {canary}2)$(touch {canary}4)',
    "unquoted": "x; touch {canary}; echo $$(touch {canary}2) `touch {canary}3`",
}


def clean_env(**extra: str) -> dict[str, str]:
    """os.environ without make's own variables (set when the tests run under make) and with `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "NBVAL_MODE")}
    env.update(extra)
    return env


def tools_dir(tmp_path: Path, *tools: str) -> Path:
    """A bin folder holding only `tools` (links to the real ones): a PATH without anything else."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in tools:
        found = shutil.which(tool)
        if found and not (bin_dir / tool).exists():
            (bin_dir / tool).symlink_to(found)
    return bin_dir


def fake_nvidia_smi(bin_dir: Path, body: str) -> None:
    script = bin_dir / "nvidia-smi"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)


def planned_test_command(tmp_path: Path, nvidia_smi: str | None, *args: str) -> str:
    """The pytest line `make -n test` would run, with PATH holding a fake nvidia-smi (or none)."""
    bin_dir = tools_dir(tmp_path, "sh", "make", "uname", "test", "sleep")
    if nvidia_smi is not None:
        fake_nvidia_smi(bin_dir, nvidia_smi)
    out = subprocess.run(
        ["make", "-n", "test", *args], cwd=ROOT, env=clean_env(PATH=str(bin_dir)), capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout + out.stderr
    (line,) = [line for line in out.stdout.splitlines() if "-m pytest -p tests.pytest_startup tests notebooks" in line]
    return line


def test_strict_comparison_without_a_gpu(tmp_path):
    assert " --nbval " in planned_test_command(tmp_path, None)


def test_strict_comparison_when_nvidia_smi_fails(tmp_path):
    failing = 'echo "NVIDIA-SMI has failed because it couldn\'t communicate with the NVIDIA driver."; exit 9'
    assert " --nbval " in planned_test_command(tmp_path, failing)


def test_errors_only_on_a_machine_with_a_working_nvidia_gpu(tmp_path):
    line = planned_test_command(tmp_path, 'echo "GPU 0: Tesla T4 (UUID: GPU-1)"')
    assert " --nbval-lax " in line and " --nbval " not in line


def test_strict_comparison_can_be_forced_on_a_gpu_machine(tmp_path):
    line = planned_test_command(tmp_path, 'echo "GPU 0: Tesla T4 (UUID: GPU-1)"', "NBVAL_MODE=--nbval")
    assert " --nbval " in line


# --- a hanging nvidia-smi (issue 25) ------------------------------------------------------------------------

HANGS = {"sleeps": "exec sleep 1000", "prints forever": "exec yes"}


def run_make_in_own_group(args: list[str], env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    """Run make in a process group of its own; fail if anything of that group (a probe) is still alive after."""
    done = subprocess.run(
        ["make", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, start_new_session=True
    )
    return done


def group_left(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("hang", HANGS.values(), ids=HANGS.keys())
def test_make_help_returns_at_once_whatever_nvidia_smi_does(tmp_path, hang):
    bin_dir = tools_dir(tmp_path)
    fake_nvidia_smi(bin_dir, hang)
    env = clean_env(PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    for goal in (["help"], ["-n", "lab"], ["-n", "setup"], ["-n", "doctor"]):
        # The issue: `make help` never returned. 15 s is the bound issue 25 sets; it takes well under a second.
        done = subprocess.run(["make", *goal], cwd=ROOT, env=env, capture_output=True, text=True, timeout=15)
        assert done.returncode == 0, done.stderr
    assert "make lab" in subprocess.run(["make", "help"], cwd=ROOT, env=env, capture_output=True, text=True).stdout


@pytest.mark.parametrize(
    ("hang", "limit"), [(HANGS["sleeps"], None), (HANGS["prints forever"], "1")], ids=["sleeps-10s", "prints-1s"]
)
def test_make_test_gives_up_on_a_hanging_nvidia_smi_and_leaves_nothing_running(tmp_path, hang, limit):
    bin_dir = tools_dir(tmp_path, "sh", "make", "uname", "test", "sleep", "yes")
    fake_nvidia_smi(bin_dir, hang)
    env = clean_env(PATH=str(bin_dir), **({"GPU_PROBE_S": limit} if limit else {}))
    proc = subprocess.Popen(
        ["make", "-n", "test"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        out, err = proc.communicate(timeout=60)  # the probe gives up after 10 s (GPU_PROBE_S=1: 1 s)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 0, err
    assert " --nbval " in out, "no answer from nvidia-smi: no GPU, strict comparison"
    deadline = time.monotonic() + 10
    while group_left(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = group_left(proc.pid)
    if left:
        os.killpg(proc.pid, signal.SIGKILL)
    assert not left, "the hanging nvidia-smi (or its watchdog) was left running"


# --- make clean (issue 25) -------------------------------------------------------------------------------------


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """The Makefile and the tools make clean and make setup use, in a folder of their own."""
    repo = tmp_path / "course"
    (repo / "tools").mkdir(parents=True)
    shutil.copy(ROOT / "Makefile", repo / "Makefile")
    for tool in ("make_venv.py", "gpu_here.sh"):
        shutil.copy(ROOT / "tools" / tool, repo / "tools" / tool)
    return repo


def make_in(repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = clean_env(PYTHON=sys.executable)
    return subprocess.run(["make", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=120)


def test_make_clean_plans_no_unquoted_path_and_leaves_the_learners_copies_alone():
    planned = subprocess.run(
        ["make", "--no-print-directory", "-n", "clean"], cwd=ROOT, env=clean_env(), capture_output=True, text=True
    )
    assert planned.stdout.splitlines() == [
        '"$PYTHON" tools/make_venv.py --remove --venv "$VENV"',
        "rm -rf dist build *.egg-info",
    ]


def test_make_clean_removes_the_venv_that_make_setup_made(checkout):
    fake_venv(checkout / ".venv")
    (checkout / "my-lessons").mkdir()
    done = make_in(checkout, "clean")
    assert done.returncode == 0, done.stderr
    assert not (checkout / ".venv").exists() and (checkout / "my-lessons").is_dir()


def test_a_venv_with_a_space_deletes_neither_half(checkout):
    for name in ("my", "venv"):
        (checkout / name).mkdir()
        (checkout / name / "keep.txt").write_text("mine")
    fake_venv(checkout / "my venv")
    done = make_in(checkout, "clean", "VENV=my venv")
    assert done.returncode != 0 and "VENV may hold only letters, digits" in done.stderr
    for name in ("my", "venv", "my venv"):
        assert (checkout / name).is_dir(), f"{name} was deleted"
    assert (checkout / "my" / "keep.txt").read_text() == "mine"


@pytest.mark.parametrize("where", ["outside", "the checkout", "its parent"])
def test_make_clean_refuses_anything_outside_the_checkout(checkout, tmp_path, where):
    venv = {"outside": fake_venv(tmp_path / "elsewhere" / "venv"), "the checkout": checkout, "its parent": tmp_path}
    done = make_in(checkout, "clean", f"VENV={venv[where]}")
    assert done.returncode != 0
    assert "make clean removes only" in done.stderr, done.stderr
    assert venv[where].is_dir() and (checkout / "Makefile").exists()


def test_make_clean_refuses_a_folder_make_setup_did_not_make(checkout):
    mine = checkout / "notes"
    (mine / "bin").mkdir(parents=True)
    (mine / "lib").mkdir()
    (mine / "thesis.txt").write_text("three years")
    done = make_in(checkout, "clean", "VENV=notes")
    assert done.returncode != 0
    assert "notes is not a virtual environment that make setup made" in done.stderr
    assert "it holds bin/, lib/, thesis.txt" in done.stderr and "not deleting it" in done.stderr
    assert (mine / "thesis.txt").read_text() == "three years"


# --- no variable reaches a shell as code (issue 25) ------------------------------------------------------------


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """A copy of the course with a fake .venv: python is this test's, jupyter and lessonkit only record a call."""
    repo = tmp_path / "course"
    repo.mkdir()
    for name in ("Makefile", "requirements.txt", "pyproject.toml", "README.md", "README.zh-Hans.md"):
        shutil.copy(ROOT / name, repo / name)
    shutil.copy(ROOT / "README.zh-Hant.md", repo / "README.zh-Hant.md")
    for name in ("notebooks", "tools", "lessonkit", "i18n", "templates", "benchmarks"):
        shutil.copytree(ROOT / name, repo / name, ignore=shutil.ignore_patterns("__pycache__"))
    fake_venv(
        repo / ".venv",
        {
            "python": f'exec "{sys.executable}" "$@"',
            "jupyter": f'printf "%s\\n" "$@" > "{tmp_path / "jupyter-args.txt"}"',
            "lessonkit": f'printf "%s\\n" "$@" > "{tmp_path / "lessonkit-args.txt"}"',
        },
    )
    return repo


def planted(tmp_path: Path, kind: str) -> tuple[str, str, list[Path]]:
    """The hostile value as typed, as make hands it on (`$$` is `$`, the make reference is empty), the canaries."""
    canary = tmp_path / "PWNED"
    value = HOSTILE[kind].format(canary=canary)
    handed_on = value.replace(f"$(touch {canary}4)", "").replace("$$", "$")
    return value, handed_on, [canary, *(Path(f"{canary}{n}") for n in (2, 3, 4))]


CASES = {
    "REPO": ["badges"],
    "REF": ["badges"],
    "EDITION": ["lab"],
    "EDITION-doctor": ["doctor"],
    "LAB_ARGS": ["lab"],
    "MY_LESSONS": ["lab"],
    "VENV": ["clean"],  # the issue: make clean pasted it unquoted into rm -rf
    "PYTHON": ["setup"],
    "CHROMIUM": ["chromium"],
    "GPU_CHECK_ARGS": ["gpu-check"],
    "TORCH": ["setup"],
}


@pytest.mark.parametrize("kind", HOSTILE)
@pytest.mark.parametrize("variable", CASES)
def test_a_value_full_of_shell_code_runs_none_of_it(course, tmp_path, variable, kind):
    value, handed_on, canaries = planted(tmp_path, kind)
    name = variable.split("-")[0]
    args = [*CASES[variable], f"{name}={value}"]
    if name in ("PYTHON", "TORCH"):
        args.append(f"VENV={tmp_path / 'fresh-venv'}")  # an environment still to make, so the recipe runs
    # no apt-get on PATH: make chromium stops at "no apt-get" instead of installing anything
    bin_dir = tools_dir(tmp_path, "sh", "make", "test", "env", "cat", "rm", "printf", "uname", "sleep", "id", "touch")
    env = clean_env(PATH=str(bin_dir))
    done = subprocess.run(["make", *args], cwd=course, env=env, capture_output=True, text=True, timeout=300)
    assert not [c for c in canaries if c.exists()], f"a command planted in {name} ran: {done.stdout}{done.stderr}"
    if variable == "EDITION-doctor":  # the doctor gets it as one argument and refuses it itself
        assert (tmp_path / "lessonkit-args.txt").read_text() == f"doctor\n--lang\n{handed_on}\n"
    elif name == "LAB_ARGS":  # read as JupyterLab's options, as a shell would split them, or refused
        try:
            words = shlex.split(handed_on)
        except ValueError:
            assert done.returncode == 2 and "LAB_ARGS cannot be read as command-line options" in done.stderr
        else:
            assert done.returncode == 0, done.stderr
            assert (tmp_path / "jupyter-args.txt").read_text().splitlines()[-len(words) :] == words
    elif name == "MY_LESSONS":  # a strange folder name is only a strange folder name
        assert done.returncode == 0, done.stderr
        assert (course / handed_on / "01_find_your_gpu.ipynb").is_file()
    else:
        assert done.returncode != 0, f"{name}={value!r} should have been refused"


def test_lab_args_are_read_as_words_and_quotes_never_as_code(course, tmp_path):
    canary = tmp_path / "PWNED"
    lab_args = f'--port 8899 --ServerApp.token="a b; touch {canary}" $$(touch {canary}) `touch {canary}`'
    done = subprocess.run(
        ["make", "lab", f"LAB_ARGS={lab_args}"], cwd=course, env=clean_env(), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    args = (tmp_path / "jupyter-args.txt").read_text().splitlines()
    assert args[-7:] == [
        "--port",
        "8899",
        f"--ServerApp.token=a b; touch {canary}",
        "$(touch",
        f"{canary})",
        "`touch",
        f"{canary}`",
    ]
    assert not canary.exists()


# --- make doctor (issue 24) ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("edition", "expected"), [("", ["doctor"]), ("zh-Hant", ["doctor", "--lang", "zh-Hant"])])
def test_make_doctor_runs_lessonkits_doctor_from_the_venv(course, tmp_path, edition, expected):
    done = subprocess.run(
        ["make", "doctor", f"EDITION={edition}"], cwd=course, env=clean_env(), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "lessonkit-args.txt").read_text().splitlines() == expected


def test_make_doctor_sets_up_the_venv_first_when_it_is_missing(tmp_path):
    planned = subprocess.run(
        ["make", "-n", "doctor", f"VENV={tmp_path / 'none-yet'}"], cwd=ROOT, env=clean_env(), capture_output=True,
        text=True,
    )  # fmt: skip
    lines = planned.stdout.splitlines()
    assert any("tools/make_venv.py --venv" in line for line in lines), planned.stdout
    assert lines[-1] == f"{tmp_path / 'none-yet'}/bin/lessonkit doctor "


def test_notebooks_run_two_at_a_time_each_in_one_process(tmp_path):
    """make test spreads test files over one process per core (pytest-xdist), whole files only: a notebook's cells
    share one kernel and must run in order in the process that started it."""
    line = planned_test_command(tmp_path, None)
    assert " -n auto " in line and " --dist loadfile " in line


def test_chromiums_default_reaches_the_recipe(course, tmp_path):
    """CHROMIUM's default (/usr/bin/chromium) is what `make chromium` tests and names. Defined after the Makefile's
    `export` line it arrived empty, and make e2e failed with ' is still missing' where chromium was installed."""
    bin_dir = tools_dir(tmp_path, "sh", "make", "test", "env", "cat", "id", "fc-list", "grep")
    done = subprocess.run(
        ["make", "chromium"], cwd=course, env=clean_env(PATH=str(bin_dir)), capture_output=True, text=True, timeout=120
    )
    shown = done.stdout + done.stderr
    if Path("/usr/bin/chromium").exists():
        assert done.returncode == 0 or "font" in shown, shown  # no fonts here is the fonts target's business
        assert "still missing" not in shown and "No /usr/bin/chromium" not in shown, shown
    else:
        assert "No /usr/bin/chromium and no apt-get" in shown, shown
