"""Every lesson runs with no network, from another folder, under other floating-point arithmetic, twice, and in
(fake) Colab; each lesson is run as few times as these checks allow.

The first run (test_every_lesson_passes_strict_nbval_offline_elsewhere_perturbed) is all of these at once: copies
of the lessons in a folder of their own, where nothing else of the course is, the network blocked, and
tests/numeric_configs.py's PERTURBATION set (PyTorch's plain C++ kernels on one thread: floats come out as on
another CPU); every stored output is compared under strict nbval, number by number (tests/nbval_numbers.py).
tests/matrix/test_numeric_configs.py shows that the perturbation changes results on this machine.

The second run (test_running_and_saving_every_copy_offline_leaves_the_course_clean) is the learner's: `make lab`'s
copies in my-lessons/ of a throwaway course, each run in a fresh kernel started there, offline, and saved as
JupyterLab saves it. Coming after the first, it is also each lesson's second run on this machine (nothing the
first left behind may break it), and it checks what nbval does not compare: no cell, not even one whose output
is ignored, writes to stderr or prints that the network was blocked.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import nbformat
import pytest

from lessonkit.course import install_command
from tests.matrix.conftest import LESSONS, ROOT, execute, stderr_of, text_of
from tests.matrix.test_my_lessons import LESSONS as LESSON_NAMES
from tests.matrix.test_my_lessons import git, listed, make_course, make_lab
from tests.numeric_configs import PERTURBATION

# Record what a setup cell would install (%pip) or run in a shell (the Chinese editions' apt-get for the CJK font,
# through subprocess.run(..., shell=True), or a `!` line) instead. Other subprocess calls (nvidia-smi) still run.
RECORD = """\
import subprocess as _subprocess
from IPython.core.magic import register_line_magic
_pip_calls, _shell_calls = [], []
@register_line_magic
def pip(line):
    _pip_calls.append(line)
get_ipython().system = _shell_calls.append
_real_run = _subprocess.run
def _recording_run(args, *rest, shell=False, **options):
    if not shell:
        return _real_run(args, *rest, **options)
    _shell_calls.append(args)
    return _subprocess.CompletedProcess(args, 0, "", "")
_subprocess.run = _recording_run
"""
FAKE_COLAB = (
    """\
import sys, types
sys.modules.setdefault("google", types.ModuleType("google"))
sys.modules["google.colab"] = types.ModuleType("google.colab")
"""
    + RECORD
)
REPORT = "import json; print(json.dumps([_pip_calls, _shell_calls]))"
EDITIONS = [LESSONS, *(sorted((ROOT / "notebooks" / e).glob("[0-9][0-9]_*.ipynb")) for e in ("zh-Hans", "zh-Hant"))]


def test_the_network_block_really_blocks(no_network):
    probe = "import socket\ntry:\n    socket.getaddrinfo('pypi.org', 443)\nexcept OSError as e:\n    print(e)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=os.environ, check=True)
    assert "network access blocked" in done.stdout
    assert "getaddrinfo 'pypi.org'" in no_network.read_text()


def test_every_lesson_passes_strict_nbval_offline_elsewhere_perturbed(no_network, tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for path in LESSONS:
        shutil.copy(path, elsewhere / path.name)
    for name, value in PERTURBATION.items():
        monkeypatch.setenv(name, value)
    # The repository's conftest.py (kernels on local sockets, numbers compared as numbers) is loaded by name:
    # pytest finds conftest files only above the paths it collects, and the copies are outside the repository.
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.pytest_startup", "-p", "conftest", "-p", "no:cacheprovider"]
        + ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", str(ROOT / "tests/nbval_sanitize.cfg")]
        + ["--nbval-cell-timeout", "300", "-q", "-rfE", str(elsewhere)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    settings = " ".join(f"{k}={v}" for k, v in PERTURBATION.items())
    assert done.returncode == 0, f"strict nbval failed offline, elsewhere, with {settings}:\n{done.stdout[-8000:]}"
    cells = sum(c.cell_type == "code" for path in LESSONS for c in nbformat.read(path, as_version=4).cells)
    assert f"{cells} passed" in done.stdout.splitlines()[-1], done.stdout[-2000:]  # every code cell of every lesson
    assert no_network.read_text() == "", f"network attempts:\n{no_network.read_text()}"
    left = sorted(p.name for p in elsewhere.iterdir())
    assert left == sorted(p.name for p in LESSONS), f"the lessons left files in their working folder: {left}"


def test_running_and_saving_every_copy_offline_leaves_the_course_clean(no_network, tmp_path):
    """The learner runs every lesson in JupyterLab and it saves them: the course stays clean, the next make lab keeps
    them. Each copy `make lab` made is executed in a fresh kernel started in my-lessons/ (as JupyterLab starts it)
    and written back with nbformat, as JupyterLab's save does. The course is a throwaway git repository
    (tests/matrix/test_my_lessons.py's make_course); the fake jupyter there only records its arguments."""
    course = make_course(tmp_path)
    assert listed(make_lab(course), "copied") == LESSON_NAMES
    originals = {name: (course / "notebooks" / name).read_bytes() for name in LESSON_NAMES}
    saved = {}
    for name in LESSON_NAMES:
        copy = course / "my-lessons" / name
        nb = execute(copy, cwd=copy.parent)
        assert not stderr_of(nb), f"{name} wrote to stderr:\n{stderr_of(nb)}"
        assert "network access blocked" not in text_of(nb), name
        nbformat.write(nb, copy)
        saved[name] = copy.read_bytes()
    assert no_network.read_text() == "", f"network attempts:\n{no_network.read_text()}"
    assert sorted(p.name for p in (course / "my-lessons").iterdir()) == LESSON_NAMES, "a lesson left files behind"

    assert git(course, "status", "--porcelain", "--untracked-files=all") == ""
    assert {name: (course / "notebooks" / name).read_bytes() for name in LESSON_NAMES} == originals

    out = make_lab(course)
    assert listed(out, "kept") == LESSON_NAMES and listed(out, "copied") == []
    assert {name: (course / "my-lessons" / name).read_bytes() for name in LESSON_NAMES} == saved


def distinct_setup_cells() -> dict[str, str]:
    """Each edition's setup cell, one lesson named for each distinct one (make badges writes them all alike)."""
    found: dict[str, str] = {}
    for lessons in EDITIONS:
        for path in lessons:
            setup = next(c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code")
            found.setdefault(setup.source, str(path.relative_to(ROOT)))
    return {name: source for source, name in found.items()}


SETUP_CELLS = distinct_setup_cells()


@pytest.mark.parametrize("lesson", SETUP_CELLS)
def test_setup_cell_installs_only_in_colab(lesson, tmp_path):
    """Every lesson's setup cell, once per distinct text (tests/test_notebooks.py holds each to course.setup_cell)."""
    setup = nbformat.v4.new_code_cell(SETUP_CELLS[lesson])
    calls = {}
    for name, prelude in (("colab", FAKE_COLAB), ("local", RECORD)):
        mini = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(prelude), setup])
        mini_path = tmp_path / f"setup-{name}.ipynb"
        nbformat.write(mini, mini_path)
        nb = execute(mini_path, cwd=(ROOT / lesson).parent, epilogue=REPORT)
        calls[name] = json.loads(nb.cells[-1].outputs[0]["text"])
    pip, shell = calls["colab"]
    assert pip == [install_command().removeprefix("pip ")]
    if "/zh-" in lesson:  # the Chinese font for the plots, installed in Colab only
        assert len(shell) == 1 and "apt-get -qq install -y fonts-noto-cjk" in shell[0], shell
    else:
        assert shell == [], shell
    assert calls["local"] == [[], []]


def test_lesson_01_in_fake_colab_says_so():
    """Lesson 01 top to bottom in (fake) Colab on a CPU runtime: the setup cell takes Colab's branch (its install is
    recorded, not run) and the doctor names Colab's own menu for a GPU, not "open them in Colab"."""
    nb = execute(LESSONS[0], prelude=FAKE_COLAB, epilogue=REPORT)
    pip, shell = json.loads(nb.cells[-1].outputs[0]["text"])
    assert pip == [install_command().removeprefix("pip ")] and shell == []
    if not shutil.which("nvidia-smi"):  # a CPU runtime, as on CI
        assert "Runtime > Change runtime type > T4 GPU" in text_of(nb)
        assert "open them in Colab" not in text_of(nb)
