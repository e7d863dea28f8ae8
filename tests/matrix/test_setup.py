"""`make setup` (tools/make_venv.py): the Python check before anything is made, the repair of a half-made .venv,
and the two Python floors, each held to what it is derived from.

These tests need Python 3.9 (the stock macOS python3 the check must turn away) and the oldest profile's Python
(3.10, pyproject.toml's floor); tools/find_python.py looks on PATH and in pyenv, and a missing one fails the
test with what to install. No test here installs PyTorch: requirements files are empty, and a "complete"
environment is a folder whose bin/python runs the test's own interpreter.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import env_check  # noqa: E402
import make_venv  # noqa: E402
from find_python import MissingPython, find_python  # noqa: E402

NEEDS = make_venv.dotted(make_venv.NEEDS)
SCRIPT = str(ROOT / "tools" / "make_venv.py")


def python(version: str) -> Path:
    try:
        return find_python(version, "tests/matrix/test_setup.py")
    except MissingPython as exc:
        pytest.fail(str(exc))


def make(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    return subprocess.run(["make", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def setup(python: Path | str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(python), SCRIPT, *args], capture_output=True, text=True, timeout=300)


def made(venv: Path) -> None:
    """The stamp make_venv.py writes into a folder before it makes an environment there."""
    venv.mkdir(parents=True, exist_ok=True)
    (venv / make_venv.MADE).write_text(make_venv.MADE_TEXT)


def fake_venv(path: Path, *, stamp: bool = True) -> Path:
    """A complete-looking environment that make setup made: pyvenv.cfg, its stamps, and a bin/python that runs
    this test's Python."""
    (path / "bin").mkdir(parents=True)
    made(path)
    (path / "pyvenv.cfg").write_text(f"home = {Path(sys.executable).parent}\n")
    wrapper = path / "bin" / "python"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    if stamp:
        write_stamp(path)
    return path


def write_stamp(venv: Path) -> None:
    stamp = venv / make_venv.STAMP
    stamp.write_text("")
    later = time.time() + 3600  # newer than requirements.txt and pyproject.toml, whatever else is edited
    os.utime(stamp, (later, later))


def empty_requirements(tmp_path: Path) -> str:
    path = tmp_path / "requirements.txt"
    path.write_text("# nothing to install\n")
    return str(path)


# --- the Python check ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["3.9", env_check.PYTHONS["oldest"]])
def test_an_old_python_gets_one_line_and_no_venv(tmp_path, version):
    old = python(version)
    venv = tmp_path / "venv"
    done = make("setup", f"PYTHON={old}", f"VENV={venv}")
    assert done.returncode != 0
    ours = [line for line in (done.stdout + done.stderr).splitlines() if not line.startswith("make")]
    assert len(ours) == 1, done.stdout + done.stderr
    (line,) = ours
    assert f"{old} is Python {version}." in line
    assert f"need Python {NEEDS} or newer" in line and "numpy==2.4.6" in line
    assert "macOS: brew install python@3.12" in line and "Linux: sudo apt install python3.12-venv" in line
    assert line.endswith("then run: make PYTHON=python3.12 setup")
    assert not venv.exists()


def test_the_message_names_the_command_the_learner_ran_and_leaves_an_old_venv_alone(tmp_path):
    old = python("3.9")
    venv = tmp_path / "venv"
    made(venv)  # make setup made it, with that old Python
    subprocess.run([str(old), "-m", "venv", "--without-pip", str(venv)], check=True)
    done = setup(old, "--venv", str(venv), "--goal", "lab")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().endswith("make PYTHON=python3.12 lab") and done.stderr.count("\n") == 1
    assert (venv / "bin" / "python").exists(), "the old .venv must stay until a new one can be made"


@pytest.mark.parametrize("kind", ["missing", "too old to run the check"])
def test_a_missing_or_ancient_python_is_named_with_the_version_needed(tmp_path, kind):
    interpreter = tmp_path / "python2.7"
    if kind != "missing":  # Python 2.7 and 3.5 cannot even parse tools/make_venv.py: the Makefile asks first
        interpreter.write_text('#!/bin/sh\n[ "$1" = -c ] && exit 1\necho "SyntaxError: invalid syntax"; exit 1\n')
        interpreter.chmod(0o755)
    done = make("setup", f"PYTHON={interpreter}", f"VENV={tmp_path / 'venv'}")
    assert done.returncode != 0
    expected = f"{interpreter} does not run here or is older than 3.6: install Python {NEEDS} or newer, then run: "
    assert done.stderr.startswith(expected + "make PYTHON=python3.12 setup\n"), done.stderr
    assert not (tmp_path / "venv").exists()


# --- what counts as a complete .venv, checked by Python 3.9 --------------------------------------------------


def without_pip(venv: Path, interpreter: Path | str = sys.executable) -> None:
    subprocess.run([str(interpreter), "-m", "venv", "--without-pip", str(venv)], check=True)


def broken(venv: Path, kind: str) -> None:
    if kind == "no pip":
        without_pip(venv)
        write_stamp(venv)
    elif kind == "made by 3.9":
        without_pip(venv, python("3.9"))
        write_stamp(venv)
    elif kind == "python does not run":
        fake_venv(venv)
        (venv / "bin" / "python").unlink()
        (venv / "bin" / "python").symlink_to(venv / "gone" / "python3.11")
    elif kind == "no stamp":
        fake_venv(venv, stamp=False)
    elif kind == "interrupted before pyvenv.cfg":
        made(venv)
        (venv / "bin").mkdir(parents=True)
        (venv / "lib").mkdir()


@pytest.mark.parametrize(
    "kind, why",
    [
        ("no pip", r"it has no pip \(an earlier setup was interrupted, or it was made with --without-pip\)"),
        ("made by 3.9", rf"it was made with Python 3\.9\.\d+ and the course needs {NEEDS} or newer"),
        ("python does not run", r"its python does not run \(FileNotFoundError"),
        ("no stamp", r"no \.installed stamp in it: an earlier setup did not finish"),
        ("interrupted before pyvenv.cfg", r"is half-made \(no pyvenv\.cfg\): an earlier setup was interrupted"),
    ],
)
def test_an_incomplete_venv_is_found(tmp_path, kind, why):
    venv = tmp_path / "venv"
    broken(venv, kind)
    done = setup(python("3.9"), "--check", "--venv", str(venv))
    assert done.returncode == 1 and re.search(why, done.stdout), done.stdout


def test_a_complete_venv_passes_the_check(tmp_path):
    done = setup(python("3.9"), "--check", "--venv", str(fake_venv(tmp_path / "venv")))
    assert done.returncode == 0 and "is complete (Python 3." in done.stdout


def test_a_folder_that_is_not_a_venv_is_never_deleted(tmp_path):
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "thesis.tex").write_text("three years")
    done = setup(sys.executable, "--venv", str(folder), "--requirements", empty_requirements(tmp_path))
    assert done.returncode == 2 and "not a virtual environment that make setup made" in done.stderr
    assert "not touching it" in done.stderr
    assert (folder / "thesis.tex").read_text() == "three years"


def thesis_folder(path: Path) -> Path:
    """What issue 25 found deleted: bin/ and lib/ (as in a venv, or ~/.local) and a thesis under share/."""
    for name in ("bin", "lib", "share/notes"):
        (path / name).mkdir(parents=True)
    (path / "share" / "notes" / "thesis.txt").write_text("three years")
    return path


@pytest.mark.parametrize("interpreter", ["this one", "3.9", "3.6"])  # 3.6: the oldest make_venv.py runs on
def test_a_folder_shaped_like_a_half_made_venv_is_left_alone_and_described(tmp_path, interpreter):
    folder = thesis_folder(tmp_path / "P")
    runs = sys.executable if interpreter == "this one" else python(interpreter)
    done = setup(runs, "--venv", str(folder), "--requirements", empty_requirements(tmp_path), "--warm-up", "")
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{folder} is not a virtual environment that make setup made" in done.stderr
    assert "(it has no .made-by-make_venv stamp and no pyvenv.cfg); it holds bin/, lib/, share/" in done.stderr
    assert (folder / "share" / "notes" / "thesis.txt").read_text() == "three years"
    check = setup(runs, "--check", "--venv", str(folder))
    assert check.returncode == 1 and "not a virtual environment that make setup made" in check.stdout


def test_a_venv_made_some_other_way_is_left_alone(tmp_path):
    venv = tmp_path / "venv"
    without_pip(venv)  # `python3 -m venv --without-pip venv`, by hand: no stamp of make setup's
    (venv / "my-notes.txt").write_text("mine")
    done = setup(sys.executable, "--venv", str(venv), "--requirements", empty_requirements(tmp_path))
    assert done.returncode == 2
    assert "no .made-by-make_venv stamp: a virtual environment made some other way" in done.stderr
    assert (venv / "my-notes.txt").exists() and (venv / "pyvenv.cfg").exists()


def test_messages_speak_the_editions_language(tmp_path):
    """make lab EDITION=zh-Hant passes the edition on: the learner reads setup's own lines in it (pip's stay
    English)."""
    folder = thesis_folder(tmp_path / "P")
    hant = setup(sys.executable, "--venv", str(folder), "--lang", "zh-Hant", "--goal", "lab")
    assert hant.returncode == 2 and "不是 make setup 建立的虛擬環境" in hant.stderr and "不會動它" in hant.stderr
    hans = setup(python("3.9"), "--venv", str(tmp_path / "new"), "--lang", "zh-Hans", "--goal", "lab")
    assert hans.returncode == 2 and "对本课程来说太旧" in hans.stderr
    assert hans.stderr.strip().endswith("make PYTHON=python3.12 lab")
    bad = setup(sys.executable, "--check", "--lang", "fr")
    assert bad.returncode == 2 and "--lang must be one of en, zh-Hans, zh-Hant, got 'fr'" in bad.stderr


def test_make_says_a_missing_python_in_the_editions_language(tmp_path):
    done = make("lab", f"PYTHON={tmp_path / 'no-python'}", f"VENV={tmp_path / 'venv'}", "EDITION=zh-Hant")
    assert done.returncode != 0
    assert f"{tmp_path / 'no-python'} 在這裡無法執行，或者比 3.6 還舊" in done.stderr
    assert done.stderr.splitlines()[0].endswith("make PYTHON=python3.12 lab")


# --- repairing ---------------------------------------------------------------------------------------------


def test_a_venv_left_without_pip_is_rebuilt_with_progress_and_a_time(tmp_path):
    """The state a Ctrl-C in the first seconds of `make setup` leaves: its stamp, then a venv without pip."""
    venv = tmp_path / "venv"
    made(venv)
    without_pip(venv)
    done = setup(sys.executable, "--venv", str(venv), "--requirements", empty_requirements(tmp_path), "--warm-up", "")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Rebuilding {venv}: it has no pip" in done.stdout
    assert "[1/2] Creating" in done.stdout and "[2/2] Installing" in done.stdout
    assert "Looking in" in done.stdout or "install" in done.stdout  # pip's own output is shown, not --quiet
    assert done.stdout.rstrip().splitlines()[-1].startswith("Setup took ")
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "--version"], check=True, capture_output=True)
    assert setup(sys.executable, "--check", "--venv", str(venv)).returncode == 0
    assert (venv / make_venv.MADE).read_text() == make_venv.MADE_TEXT


def test_a_venv_an_older_make_setup_made_is_still_ours_and_gets_the_stamp(tmp_path):
    """Before the stamp existed, make setup left pyvenv.cfg and .installed: that venv is updated, and stamped."""
    venv = fake_venv(tmp_path / "venv")
    (venv / make_venv.MADE).unlink()
    done = setup(sys.executable, "--venv", str(venv), "--requirements", empty_requirements(tmp_path), "--warm-up", "")
    assert done.returncode == 0 and f"Updating {venv} in place" in done.stdout, done.stdout + done.stderr
    assert (venv / make_venv.MADE).exists()


def test_a_complete_venv_is_updated_in_place_and_a_cut_short_update_rebuilt_next_time(tmp_path):
    venv = fake_venv(tmp_path / "venv")
    keep = venv / "learner-installed-this"
    keep.touch()
    requirements = empty_requirements(tmp_path)
    done = setup(sys.executable, "--venv", str(venv), "--requirements", requirements, "--warm-up", "import sys")
    assert done.returncode == 0 and f"Updating {venv} in place" in done.stdout and keep.exists()
    assert "[1/2] Installing" in done.stdout and "[2/2] Running 'import sys' in it" in done.stdout

    # Ctrl-C while it runs: SIGINT to the whole foreground process group, here sent by the warm-up step
    ctrl_c = "import os, signal; os.killpg(0, signal.SIGINT)"
    cut = subprocess.run(
        [sys.executable, SCRIPT, "--venv", str(venv), "--requirements", requirements, "--warm-up", ctrl_c],
        capture_output=True,
        text=True,
        timeout=120,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert cut.returncode == 130, cut.stdout + cut.stderr
    assert f"Interrupted: {venv} is not complete; the next make setup rebuilds it." in cut.stderr
    check = setup(sys.executable, "--check", "--venv", str(venv))
    assert check.returncode == 1 and "no .installed stamp" in check.stdout


# --- the Makefile hands a broken .venv to tools/make_venv.py even when its stamp is there ----------------------


def planned_setup(venv: Path) -> str:
    return make("-n", "setup", f"VENV={venv}").stdout


def test_make_leaves_a_complete_venv_alone(tmp_path):
    assert "make_venv.py" not in planned_setup(fake_venv(tmp_path / "venv"))


@pytest.mark.parametrize("kind", ["no pip", "python does not run"])
def test_make_repairs_a_stamped_venv_that_broke(tmp_path, kind):
    venv = tmp_path / "venv"
    broken(venv, kind)
    assert (venv / ".installed").exists()
    assert 'tools/make_venv.py --venv "$VENV" --goal setup --lang "$EDITION"' in planned_setup(venv)


# --- the floors ---------------------------------------------------------------------------------------------


def lower_bound(requires_python: str) -> tuple[int, ...]:
    bounds = [Version(s.version) for s in SpecifierSet(requires_python) if s.operator in (">=", ">")]
    return max(bounds).release[:2] if bounds else (0, 0)


def test_the_local_install_needs_the_python_the_check_asks_for():
    """make_venv.NEEDS is the highest Requires-Python among requirements.txt's pins, and NEEDED_BY names ones that
    need it. Read from the installed packages' metadata: run it in the environment `make setup` built."""
    floors = {}
    for line in (ROOT / "requirements.txt").read_text("utf-8").splitlines():
        if not line.strip() or line.startswith(("#", "-")):
            continue
        pin = Requirement(line)
        (wanted,) = [s.version for s in pin.specifier]
        dist = importlib.metadata.distribution(pin.name)
        assert Version(Version(dist.version).public) == Version(wanted), f"{pin.name} {dist.version}: run make setup"
        floors[str(pin)] = lower_bound(dist.metadata["Requires-Python"] or "")
    assert max(floors.values()) == make_venv.NEEDS, floors
    for pin in make_venv.NEEDED_BY:
        assert floors[pin] == make_venv.NEEDS, f"{pin} needs Python {floors[pin]}, not {make_venv.NEEDS}"


def test_the_oldest_profile_tests_pyprojects_python_floor():
    text = (ROOT / "pyproject.toml").read_text("utf-8")
    assert env_check.python_floor_problems(text) == []
    requires = tomllib.loads(text)["project"]["requires-python"]
    assert lower_bound(requires) == tuple(map(int, env_check.PYTHONS["oldest"].split(".")))
    assert "3.13" in SpecifierSet(requires), "Google Colab runs Python 3.13"
    assert env_check.PYTHONS["colab"] == "3.13"
    assert lower_bound(requires) < make_venv.NEEDS, "the package installs where the local course setup cannot"


@pytest.mark.parametrize(
    "requires, complaint",
    [
        (">=3.9", "the oldest profile tests Python 3.10"),
        (">=3.11", "the oldest profile tests Python 3.10"),
        (">=3.10,<3.13", "the colab profile's Python 3.13 is outside"),
    ],
)
def test_a_floor_that_drifts_from_the_profiles_is_caught(requires, complaint):
    problems = env_check.python_floor_problems(f'[project]\nrequires-python = "{requires}"\n')
    assert any(complaint in problem for problem in problems), problems


def test_the_oldest_profiles_python_is_found_and_is_that_version():
    found = python(env_check.PYTHONS["oldest"])
    done = subprocess.run([str(found), "-c", "import sys; print(sys.version_info[:2])"], capture_output=True, text=True)
    assert done.stdout.strip() == str(tuple(map(int, env_check.PYTHONS["oldest"].split("."))))


# --- finding interpreters ---------------------------------------------------------------------------------


def script(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


def test_a_missing_interpreter_fails_naming_what_to_install(tmp_path, monkeypatch):
    script(tmp_path / "bin" / "python3.10", "echo 3.7")  # on PATH, but the wrong Python
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "no-pyenv"))
    with pytest.raises(MissingPython) as err:
        find_python("3.10", "the oldest profile")
    message = str(err.value)
    assert message.startswith("the oldest profile needs Python 3.10 (tried ")
    assert "python3.10 (is Python 3.7)" in message and "pyenv install 3.10" in message
    assert "brew install python@3.10" in message and "apt install python3.10-venv" in message


def test_pyenvs_newest_patch_is_used_when_the_path_has_none(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "pyenv"))
    for patch in ("3.10.4", "3.10.13", "3.10.9"):
        script(tmp_path / "pyenv" / "versions" / patch / "bin" / "python3.10", "echo 3.10")
    assert find_python("3.10", "x") == tmp_path / "pyenv" / "versions" / "3.10.13" / "bin" / "python3.10"


def test_a_malformed_version_is_refused():
    with pytest.raises(ValueError, match="version must look like '3.10', not '3'"):
        find_python("3", "x")
