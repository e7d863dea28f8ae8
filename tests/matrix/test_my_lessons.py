"""`make lab` opens the learner's copies in my-lessons/ (tools/my_lessons.py), so their work never dirties the course.

Each test runs the real `make lab` in a throwaway git repository holding the course's Makefile, .gitignore, tools
and lessons, with a fake environment whose bin/jupyter only records how it was called (its arguments and the
JUPYTER_CONFIG_PATH it got): the copy step runs for real, JupyterLab does not start.
tests/matrix/test_notebooks_elsewhere.py executes and saves every copy instead.
"""

from __future__ import annotations

import errno
import multiprocessing
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tests.matrix.conftest import fake_venv

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import my_lessons  # noqa: E402

LESSONS = sorted(p.name for p in (ROOT / "notebooks").glob(my_lessons.LESSON_GLOB))
COURSE_FILES = [
    "Makefile",
    ".gitignore",
    "requirements.txt",
    "pyproject.toml",
    "README.md",
    "README.zh-Hans.md",
    "README.zh-Hant.md",
]
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
    record = f'printf "%s\\n" "$@" > "{tmp_path / "jupyter-args.txt"}"'
    record += f'; printf "%s" "$JUPYTER_CONFIG_PATH" > "{tmp_path / "jupyter-config-path.txt"}"'
    # .venv is ignored by the course's .gitignore, like the real one
    fake_venv(repo / ".venv", {"python": f'exec "{sys.executable}" "$@"', "jupyter": record})
    return repo


@pytest.fixture
def course(tmp_path: Path) -> Path:
    return make_course(tmp_path)


def run_make_lab(repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "JUPYTER_CONFIG_PATH")}
    return subprocess.run(["make", "lab", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=120)


def make_lab(repo: Path, *args: str) -> str:
    done = run_make_lab(repo, *args)
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


def jupyter_args(tmp_path: Path) -> list[str]:
    return (tmp_path / "jupyter-args.txt").read_text().splitlines()


def test_make_lab_copies_every_lesson_without_outputs_then_opens_the_copies(course, tmp_path):
    out = make_lab(course)
    assert listed(out, "copied") == LESSONS and listed(out, "kept") == []
    assert out.startswith("Your copies of the lessons are in my-lessons/ (JupyterLab saves your work there")
    assert "without outputs: run its cells to see them" in out
    # JupyterLab starts in the course's folder (so links out of my-lessons/ work) and opens my-lessons/
    assert jupyter_args(tmp_path)[:3] == [
        "lab",
        f"--ServerApp.root_dir={course}",
        "--LabApp.default_url=/lab/tree/my-lessons",
    ]
    stored = 0
    for name in LESSONS:
        course_nb = nbformat.read(course / "notebooks" / name, as_version=4)
        copy = nbformat.read(course / "my-lessons" / name, as_version=4)
        assert [(c.id, c.cell_type, c.source) for c in copy.cells] == [
            (c.id, c.cell_type, c.source) for c in course_nb.cells
        ]
        for cell in copy.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, f"{name} cell {cell.id}"
        assert "widgets" not in copy.metadata
        stored += sum(bool(c.get("outputs")) for c in course_nb.cells)
    assert stored > 0, "the course's notebooks keep their stored outputs"
    assert git(course, "status", "--porcelain") == ""


@pytest.mark.parametrize("edition", ["zh-Hans", "zh-Hant"])
def test_a_chinese_edition_is_copied_and_opened_in_its_own_language(course, tmp_path, edition):
    out = make_lab(course, f"EDITION={edition}")
    header = {"zh-Hans": "你的课程副本在 my-lessons/zh-Hans/ 中", "zh-Hant": "你的課程副本在 my-lessons/zh-Hant/ 中"}
    assert out.startswith(header[edition]), out
    copied = {"zh-Hans": "已复制", "zh-Hant": "已複製"}[edition]
    assert sorted(re.findall(rf"^  {copied} +(\S+)", out, flags=re.M)) == LESSONS
    assert "copied" not in out and "JupyterLab saves" not in out  # nothing of it in English
    assert jupyter_args(tmp_path)[2] == f"--LabApp.default_url=/lab/tree/my-lessons/{edition}"
    assert (course / "my-lessons" / edition / LESSONS[0]).is_file()


@pytest.mark.parametrize(("edition", "locale"), [("", None), ("zh-Hans", "zh_CN"), ("zh-Hant", "zh_TW")])
def test_jupyterlab_opens_markdown_rendered_and_a_chinese_edition_in_its_language(course, tmp_path, edition, locale):
    """The README opens rendered, so a link to ../README.md#glossary scrolls there; for a Chinese edition JupyterLab's
    own menus are in that language, from the language pack requirements.txt installs."""
    from jupyter_server.services.config.manager import ConfigManager
    from jupyterlab_server.translation_utils import get_language_packs

    make_lab(course, f"EDITION={edition}")
    config_path = (tmp_path / "jupyter-config-path.txt").read_text()
    assert config_path == str(course / "tools" / "lab-settings" / (edition or "en"))
    settings = ConfigManager(read_config_path=[str(Path(config_path) / "labconfig")]).get("default_setting_overrides")
    docmanager = settings["@jupyterlab/docmanager-extension:plugin"]
    assert docmanager["defaultViewers"] == {"markdown": "Markdown Preview"}
    translation = settings.get("@jupyterlab/translation-extension:plugin", {})
    assert translation.get("locale") == locale
    if locale:
        packs, problem = get_language_packs(locale)
        assert locale in packs and problem == "", "make setup installs JupyterLab's language pack"


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


def test_lab_args_reach_jupyterlab_as_its_options(course, tmp_path):
    make_lab(course, 'LAB_ARGS=--port 8899 --ServerApp.ip="127.0.0.1"')
    assert jupyter_args(tmp_path)[-3:] == ["--port", "8899", "--ServerApp.ip=127.0.0.1"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["EDITION=zh-CN"], "EDITION must be one of zh-Hans, zh-Hant (or empty for English), got 'zh-CN'"),
        (["LAB_ARGS=--port '8899"], "LAB_ARGS cannot be read as command-line options (No closing quotation)"),
    ],
    ids=["edition", "lab-args"],
)
def test_a_bad_edition_or_lab_args_is_refused_before_anything_is_copied(course, tmp_path, args, message):
    done = run_make_lab(course, *args)
    assert done.returncode != 0 and message in done.stderr, done.stderr
    assert not (course / "my-lessons").exists() and not (tmp_path / "jupyter-args.txt").exists()


def relative_links(nb: nbformat.NotebookNode) -> set[str]:
    found = set()
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            found |= set(re.findall(r"\]\(([^)\s]+)\)", cell.source))
            found |= set(re.findall(r"""(?:href|src)=["']([^"']+)["']""", cell.source))
    return {link.split("#")[0] for link in found if not re.match(r"[a-z]+:|#", link)}


@pytest.mark.parametrize("edition", ["", "zh-Hans", "zh-Hant"])
def test_every_relative_link_in_the_copies_resolves_inside_the_folder_jupyterlab_serves(course, tmp_path, edition):
    """JupyterLab serves only its root folder: each link out of my-lessons/ (the README, its glossary) must land
    inside it, and a link to another lesson must stay among the copies."""
    make_lab(course, f"EDITION={edition}")
    (root,) = [arg.split("=", 1)[1] for arg in jupyter_args(tmp_path) if arg.startswith("--ServerApp.root_dir=")]
    copies = course / "my-lessons" / edition
    seen = set()
    for copy in sorted(copies.glob(my_lessons.LESSON_GLOB)):
        for link in relative_links(nbformat.read(copy, as_version=4)):
            seen.add(link)
            target = Path(os.path.normpath(copy.parent / link))
            assert target.exists(), f"{copy.name}: {link} -> {target} is missing"
            assert Path(root) in target.parents, f"{copy.name}: {link} -> {target} is outside JupyterLab's {root}"
            if target.suffix == ".ipynb":
                assert target.parent == copy.parent, f"{copy.name}: {link} leaves the copies"
    readme = "../README.md" if not edition else f"../../README.{edition}.md"
    assert readme in seen and "05_choosing_a_gpu_and_a_cloud.ipynb" in seen, seen


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


# --- several make lab at once, a full or read-only folder, a broken link (issue 25) --------------------------


def sync_when_told(source: Path, dest: Path, start, errors) -> None:
    start.wait()
    try:
        my_lessons.sync(source, dest)
    except BaseException as exc:  # noqa: BLE001  (reported to the test)
        errors.put(f"{type(exc).__name__}: {exc}")


def test_several_make_lab_at_once_copy_every_lesson_once_and_whole(tmp_path):
    """Two `make lab` started together raced for one temporary name: FileNotFoundError in 5 of 15 tries."""
    context = multiprocessing.get_context("fork")
    source = ROOT / "notebooks"
    want = {name: my_lessons.fresh_copy(source / name) for name in LESSONS}
    for attempt in range(8):
        dest = tmp_path / f"try{attempt}"
        start, errors = context.Barrier(3), context.Queue()
        workers = [context.Process(target=sync_when_told, args=(source, dest, start, errors)) for _ in range(3)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=120)
        assert [w.exitcode for w in workers] == [0, 0, 0]
        assert errors.empty(), errors.get()
        assert {p.name: p.read_bytes() for p in dest.iterdir()} == want, "a stray temporary file or a changed copy"


def test_a_copy_made_by_another_make_lab_meanwhile_is_kept_not_replaced(tmp_path, monkeypatch):
    """The moment between writing a lesson and putting it in place: another make lab puts its copy there first."""
    dest = tmp_path / "my-lessons"
    real_link = os.link

    def the_other_make_lab_is_quicker(src, dst, *args, **kwargs):
        Path(dst).write_text("the other make lab's copy, which the learner may already have changed")
        return real_link(src, dst, *args, **kwargs)

    monkeypatch.setattr(my_lessons.os, "link", the_other_make_lab_is_quicker)
    done = my_lessons.sync(ROOT / "notebooks", dest)
    assert done["kept"] == LESSONS and done["copied"] == []
    assert {p.name for p in dest.iterdir()} == set(LESSONS)
    assert (dest / LESSONS[0]).read_text().startswith("the other make lab's copy")


def run_tool(*args: str, preexec_fn=None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "tools" / "my_lessons.py"), "--from", str(ROOT / "notebooks"), *args],
        capture_output=True,
        text=True,
        preexec_fn=preexec_fn,
        cwd=cwd,
        timeout=120,
    )


def test_a_full_disk_gets_a_plain_message_and_leaves_no_partial_file(tmp_path):
    """A file size limit makes every write past 4 KiB fail (EFBIG), as a full disk fails it (ENOSPC)."""

    def small_files_only():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with an error instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    dest = tmp_path / "my-lessons"
    done = run_tool("--to", str(dest), preexec_fn=small_files_only)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"my_lessons: cannot write the copies into {dest}: File too large.")
    assert "Free some disk space, then run make lab again" in done.stderr and "Traceback" not in done.stderr
    assert [p.name for p in dest.iterdir()] == [], "a half-written or temporary file was left"


def unwritable_folder(tmp_path: Path) -> Path:
    """A folder this process cannot create files in: a read-only one, or, for root (who may write anywhere), a
    folder of a file system that holds no files of ours (/proc)."""
    if os.geteuid() != 0:
        folder = tmp_path / "read-only"
        folder.mkdir()
        folder.chmod(0o555)
        return folder
    folder = Path("/proc")
    try:
        (folder / "my_lessons_probe").write_text("x")
    except OSError as exc:
        assert exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOENT)
        return folder
    pytest.fail("no folder here refuses a new file, even /proc")


def test_a_read_only_folder_gets_a_plain_message(tmp_path):
    folder = unwritable_folder(tmp_path)
    done = run_tool("--to", str(folder))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith(f"my_lessons: cannot write the copies into {folder}: ")
    if not folder.samefile("/proc"):
        assert "Make the folder writable (or pass another one: make lab MY_LESSONS=elsewhere)" in done.stderr
        assert list(folder.iterdir()) == []


def test_a_broken_link_in_place_of_a_lesson_is_replaced_with_a_copy(tmp_path):
    dest = tmp_path / "my-lessons"
    dest.mkdir()
    (dest / LESSONS[0]).symlink_to(tmp_path / "gone.ipynb")
    (dest / LESSONS[1]).symlink_to(ROOT / "notebooks" / LESSONS[1])  # a working link: the learner's choice, kept
    done = run_tool("--to", str(dest))
    assert done.returncode == 0, done.stderr
    assert re.search(rf"^  copied  {LESSONS[0]}  \(in place of a broken link\)$", done.stdout, flags=re.M)
    assert re.search(rf"^  kept    {LESSONS[1]} ", done.stdout, flags=re.M)
    assert not (dest / LESSONS[0]).is_symlink() and nbformat.read(dest / LESSONS[0], as_version=4).cells
    assert (dest / LESSONS[1]).is_symlink()
