"""`make lab` opens the learner's copies in my-lessons/ (tools/my_lessons.py), so their work never dirties the course.

Each test runs the real `make lab` in a throwaway git repository holding the course's Makefile, .gitignore, tools
and lessons, with a fake environment whose bin/jupyter only records how it was called: the copy step runs for
real, JupyterLab does not start. tests/matrix/test_my_lessons_run.py executes and saves every copy instead.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import my_lessons  # noqa: E402

LESSONS = sorted(p.name for p in (ROOT / "notebooks").glob(my_lessons.LESSON_GLOB))
COURSE_FILES = ["Makefile", ".gitignore", "requirements.txt", "pyproject.toml", "README.md"]
COURSE_DIRS = [
    "notebooks",
    "tools",
    "lessonkit",
    "reports",
    "benchmarks",
]  # what the lessons' relative links point into


def git(repo: Path, *args: str) -> str:
    config = ["-c", "user.name=Learner", "-c", "user.email=learner@example.com", "-c", "commit.gpgsign=false"]
    env = dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    return subprocess.run(["git", *config, *args], cwd=repo, env=env, capture_output=True, text=True, check=True).stdout


def make_course(tmp_path: Path) -> Path:
    """A fresh clone's worth of the course, committed, plus a fake .venv whose jupyter records its arguments."""
    repo = tmp_path / "course"
    repo.mkdir()
    for name in COURSE_FILES:
        shutil.copy(ROOT / name, repo / name)
    for name in COURSE_DIRS:
        shutil.copytree(ROOT / name, repo / name, ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the course")
    venv = repo / ".venv"  # ignored by the course's .gitignore, like the real one
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {Path(sys.executable).parent}\n")
    for name, body in {
        "python": f'exec "{sys.executable}" "$@"',
        "jupyter": f'printf "%s\\n" "$@" > "{tmp_path / "jupyter-args.txt"}"',
    }.items():
        (venv / "bin" / name).write_text(f"#!/bin/sh\n{body}\n")
        (venv / "bin" / name).chmod(0o755)
    stamp = venv / ".installed"
    stamp.touch()
    later = time.time() + 3600
    os.utime(stamp, (later, later))
    return repo


@pytest.fixture
def course(tmp_path: Path) -> Path:
    return make_course(tmp_path)


def make_lab(repo: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    done = subprocess.run(["make", "lab"], cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "make_venv.py" not in done.stdout, "the fake .venv should have counted as complete"
    return done.stdout


def listed(output: str, word: str) -> list[str]:
    return re.findall(rf"^  {word} +(\S+)", output, flags=re.M)


def learner_runs(copy: Path, marker: str) -> None:
    """What JupyterLab's autosave does to a lesson the learner ran: outputs change, the file is written."""
    nb = nbformat.read(copy, as_version=4)
    code = next(cell for cell in nb.cells if cell.cell_type == "code")
    code.outputs = [nbformat.v4.new_output("stream", name="stdout", text=marker)]
    code.execution_count = 1
    nb.cells.append(nbformat.v4.new_markdown_cell(f"My notes: {marker}"))
    nbformat.write(nb, copy)


def test_make_lab_copies_every_lesson_then_opens_the_copies(course, tmp_path):
    out = make_lab(course)
    assert listed(out, "copied") == LESSONS and listed(out, "kept") == []
    assert out.startswith("Your copies of the lessons are in my-lessons/ (JupyterLab saves your work there")
    args = (tmp_path / "jupyter-args.txt").read_text().split()
    assert args[:2] == ["lab", "my-lessons"]
    for name in LESSONS:
        assert (course / "my-lessons" / name).read_bytes() == (course / "notebooks" / name).read_bytes()


def test_the_learners_saved_work_leaves_git_clean_and_is_kept(course):
    make_lab(course)
    for name in LESSONS:
        learner_runs(course / "my-lessons" / name, f"ran {name}")
    assert git(course, "status", "--porcelain", "--untracked-files=all") == ""
    assert git(course, "diff", "--stat", "HEAD") == ""

    out = make_lab(course)
    assert listed(out, "kept") == LESSONS and listed(out, "copied") == []
    assert "delete its copy; make lab copies it again" in out
    for name in LESSONS:
        assert f"My notes: ran {name}" in (course / "my-lessons" / name).read_text()


def test_a_new_or_deleted_lesson_is_copied_in_and_the_rest_kept(course):
    make_lab(course)
    first, *rest = LESSONS
    learner_runs(course / "my-lessons" / rest[0], "mine")
    (course / "my-lessons" / first).unlink()  # the learner wants this lesson afresh
    new = "99_a_lesson_added_by_git_pull.ipynb"
    shutil.copy(course / "notebooks" / first, course / "notebooks" / new)

    out = make_lab(course)
    assert listed(out, "copied") == [first, new]
    assert listed(out, "kept") == rest
    assert "My notes: mine" in (course / "my-lessons" / rest[0]).read_text()


def test_a_copy_of_a_lesson_the_course_dropped_is_left_alone(course):
    make_lab(course)
    (course / "notebooks" / LESSONS[-1]).unlink()
    out = make_lab(course)
    assert listed(out, "yours") == [LESSONS[-1]] and (course / "my-lessons" / LESSONS[-1]).exists()


def relative_links(nb: nbformat.NotebookNode) -> set[str]:
    found = set()
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            found |= set(re.findall(r"\]\(([^)\s]+)\)", cell.source))
            found |= set(re.findall(r"""(?:href|src)=["']([^"']+)["']""", cell.source))
    return {link.split("#")[0] for link in found if not re.match(r"[a-z]+:|#", link)}


def test_every_relative_link_in_the_copies_resolves(course):
    make_lab(course)
    seen = set()
    for copy in sorted((course / "my-lessons").glob(my_lessons.LESSON_GLOB)):
        for link in relative_links(nbformat.read(copy, as_version=4)):
            seen.add(link)
            target = Path(os.path.normpath(copy.parent / link))
            assert target.exists(), f"{copy.name}: {link} -> {target} is missing"
            if target.suffix == ".ipynb":
                assert target.parent == copy.parent, f"{copy.name}: {link} leaves the copies"
    assert "../README.md" in seen and "05_choosing_a_gpu_and_a_cloud.ipynb" in seen, seen


@pytest.mark.parametrize(
    "setup, message",
    [
        (lambda root: (root / "my-lessons").write_text("x"), "my-lessons is a file, not a folder"),
        (lambda root: shutil.rmtree(root / "notebooks") or (root / "notebooks").mkdir(), "no lessons"),
    ],
    ids=["copies-folder-is-a-file", "no-lessons"],
)
def test_bad_folders_get_a_clear_message(tmp_path, setup, message):
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks")
    setup(tmp_path)
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "my_lessons.py"), "--from", "notebooks", "--to", "my-lessons"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and message in done.stderr, done.stderr


def test_the_copies_may_not_go_into_the_course():
    with pytest.raises(my_lessons.LessonsError, match="must not be the course's"):
        my_lessons.sync(ROOT / "notebooks", ROOT / "notebooks" / "mine")
