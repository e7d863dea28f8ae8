"""lessonkit.course: one place names the repository and its ref; badges, install line and setup cell follow."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lessonkit import __version__, course

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import sync_badges  # noqa: E402


def test_colab_url_points_at_the_notebook_at_the_ref():
    url = course.colab_url("02_cpu_vs_gpu_benchmark.ipynb")
    assert url == (
        f"https://colab.research.google.com/github/{course.REPOSITORY}/blob/{course.REF}"
        "/notebooks/02_cpu_vs_gpu_benchmark.ipynb"
    )
    assert course.colab_url("notebooks/02_cpu_vs_gpu_benchmark.ipynb") == url


def test_badge_and_install_use_the_same_repository_and_ref():
    badge = course.colab_badge("01_find_your_gpu.ipynb")
    assert badge.startswith("[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](")
    assert f"{course.REPOSITORY}/blob/{course.REF}/" in badge
    assert course.install_command().endswith(
        f'"lessonkit @ git+https://github.com/{course.REPOSITORY}.git@{course.REF}"'
    )
    assert course.github_url() == f"https://github.com/{course.REPOSITORY}"


def test_the_ref_is_a_tag_or_commit_not_a_branch():
    course.check_ref(course.REF)
    assert course.REF == f"v{__version__}" or len(course.REF) == 40


def test_the_setup_cell_installs_then_checks_import_and_version():
    cell = course.setup_cell()
    assert f"    %{course.install_command()}\n" in cell
    assert cell.index("%pip") < cell.index("import lessonkit") < cell.index("raise RuntimeError")
    assert f'lessonkit.__version__ == "{__version__}"' in cell
    assert "--no-deps" not in cell


@pytest.mark.parametrize("version", [None, "0.0.9"])
def test_the_setup_cell_stops_with_a_plain_message_when_lessonkit_is_missing_or_old(version, monkeypatch):
    """Run the setup cell's Python (without the pip line) against a missing and an old lessonkit."""
    import types

    body = "\n".join(line for line in course.setup_cell().splitlines() if "%pip" not in line)
    body = body.replace('if "google.colab" in sys.modules:\n', "")
    if version is None:
        monkeypatch.setitem(sys.modules, "lessonkit", None)  # `import lessonkit` raises ImportError
    else:
        monkeypatch.setitem(sys.modules, "lessonkit", types.SimpleNamespace(__version__=version))
    with pytest.raises(RuntimeError, match=rf"needs lessonkit {__version__}, but .*Restart session.*make lab"):
        exec(body, {})


def test_the_setup_cell_is_silent_when_lessonkit_is_ready():
    body = "\n".join(line for line in course.setup_cell().splitlines() if "%pip" not in line)
    body = body.replace('if "google.colab" in sys.modules:\n', "")
    exec(body, {})


@pytest.mark.parametrize("bad", ["lesson.py", "", None, 3])
def test_notebook_name_is_checked(bad):
    with pytest.raises(ValueError, match="notebook must be a notebook file name"):
        course.colab_url(bad)


@pytest.mark.parametrize(
    "bad",
    [
        "main",
        "master",
        "HEAD",
        "",
        "v1..2",
        "-rf",
        None,
        1,
        # issue 25: branches written as refs, and names git refuses as tags
        "refs/heads/main",
        "origin/main",
        "refs/tags/../heads/main",
        "main/",
        "v1.lock",
        "v1.",
        "v1 2",
        "v1@{0}",
        "abc1234",  # an abbreviated commit id: it may name another commit one day
    ],
)
def test_a_moving_or_malformed_ref_is_refused(bad):
    with pytest.raises(ValueError, match="ref must be a tag such as 'v0.1.0' or a 40-character commit id"):
        course.check_ref(bad)


@pytest.mark.parametrize(
    "good", ["v0.1.0", "v2.0.0-rc.1", "release-2026.1", "2024", "0123456789abcdef0123456789abcdef01234567", "f" * 64]
)
def test_a_tag_or_a_full_commit_id_is_accepted(good):
    assert course.check_ref(good) == good


@pytest.mark.parametrize(
    "bad",
    ["gpu-setup", "a/b/c", "https://github.com/a/b", "a/b.git", "", None, "a/..", "a/.", "-a/b", "a-/b", "a--b/c"],
)
def test_a_malformed_repository_is_refused(bad):
    with pytest.raises(ValueError, match="repo must be a GitHub repository as owner/name"):
        course.check_repository(bad)


def test_publishing_at_a_commit_id_pins_the_badges_and_the_install(monkeypatch):
    commit = "0123456789abcdef0123456789abcdef01234567"
    monkeypatch.setattr(course, "REF", course.check_ref(commit))
    assert course.install_command().endswith(f'.git@{commit}"')
    assert f"/blob/{commit}/notebooks/01_find_your_gpu.ipynb" in course.colab_badge("01_find_your_gpu.ipynb")


def colab_branch(cell: str) -> str:
    """The setup cell's `if "google.colab"` block, runnable here: no pip line, one level less indented."""
    lines = cell.splitlines()
    start = lines.index('if "google.colab" in sys.modules:') + 1
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("    ") and lines[i])
    return "\n".join(line[4:] for line in lines[start:end] if "%pip" not in line)


@pytest.mark.parametrize(
    ("edition", "said"),
    [
        ("zh-Hans", "没能安装图表用的中文字体 fonts-noto-cjk（apt-get：E: Unable to locate package fonts-noto-cjk）"),
        ("zh-Hant", "沒能安裝圖表用的中文字型 fonts-noto-cjk（apt-get：E: Unable to locate package fonts-noto-cjk）"),
    ],
)
def test_a_failed_font_install_in_colab_is_said_in_the_editions_language(edition, said, tmp_path, monkeypatch, capsys):
    """Issue 25: in Colab the Chinese setup cell's apt-get failed silently, and every figure drew empty boxes."""
    calls = tmp_path / "apt-calls"
    apt = tmp_path / "apt-get"
    apt.write_text(
        f'#!/bin/sh\necho "$*" >> "{calls}"\n[ "$2" = update ] && exit 0\n'
        'echo "E: Unable to locate package fonts-noto-cjk" >&2\nexit 100\n'
    )
    apt.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    exec(colab_branch(course.setup_cell(edition)), {})
    out = capsys.readouterr().out
    assert out.startswith(said) and ("方框" in out), out
    # installed, then (the package lists may be stale in a fresh runtime) refreshed and installed again
    assert calls.read_text().splitlines() == [
        "-qq install -y fonts-noto-cjk",
        "-qq update",
        "-qq install -y fonts-noto-cjk",
    ]


def test_a_font_install_that_works_says_nothing(tmp_path, monkeypatch, capsys):
    (tmp_path / "apt-get").write_text("#!/bin/sh\nexit 0\n")
    (tmp_path / "apt-get").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    exec(colab_branch(course.setup_cell("zh-Hant")), {})
    assert capsys.readouterr().out == ""
    assert "apt-get" not in course.setup_cell("en"), "the English edition draws no Chinese"


def test_lessonkit_says_which_python_it_needs_when_imported_by_an_older_one(tmp_path):
    """Issue 25: from a source checkout, Python 3.9 failed with `TypeError: unsupported operand type(s) for |`."""
    sys.path.insert(0, str(ROOT / "tools"))
    from find_python import MissingPython, find_python

    try:
        old = find_python("3.9", "tests/test_course.py")
    except MissingPython as missing:
        pytest.fail(str(missing))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [str(old), "-c", "import lessonkit.exercises"], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: lessonkit needs Python 3.10 or newer"), done.stderr
    assert "this is Python 3.9." in last and "make lab" in last


def test_publish_rewrites_course_and_pyproject(tmp_path, monkeypatch):
    (tmp_path / "lessonkit").mkdir()
    shutil.copy(ROOT / "lessonkit" / "course.py", tmp_path / "lessonkit" / "course.py")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    monkeypatch.setattr(sync_badges, "ROOT", tmp_path)
    monkeypatch.setattr(course, "REPOSITORY", course.REPOSITORY)
    monkeypatch.setattr(course, "REF", course.REF)
    sync_badges.publish("octocat/gpu-course", "v0.2.0")
    text = (tmp_path / "lessonkit" / "course.py").read_text()
    assert 'REPOSITORY = "octocat/gpu-course"\n' in text and 'REF = "v0.2.0"\n' in text
    assert 'Course = "https://github.com/octocat/gpu-course"' in (tmp_path / "pyproject.toml").read_text()
    assert "octocat/gpu-course.git@v0.2.0" in course.install_command()
    assert "octocat/gpu-course/blob/v0.2.0/notebooks/" in course.colab_badge("01_find_your_gpu.ipynb")
    with pytest.raises(ValueError, match="ref must be"):
        sync_badges.publish("octocat/gpu-course", "main")
