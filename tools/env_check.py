"""Install lessonkit into environments shaped like a learner's and run every lesson there (make test-matrix).

    python tools/env_check.py colab     # Colab's GPU runtime: Python 3.13, tests/data/colab-pip-freeze.gpu.txt
    python tools/env_check.py oldest    # the oldest Python and versions pyproject.toml says lessonkit supports

For each profile it builds a fresh virtual environment under .envs/ with the profile's Python (PYTHONS:
`python3.X` on PATH or pyenv's; a missing one fails the run and says what to install), installs the
profile's packages, then checks that installing lessonkit (from a wheel of this repository, with its
dependencies, as a plain `pip install` would) changes none of them: first with
`pip install --dry-run --report`, then with `pip freeze` before and after. Last it runs every
English lesson under strict nbval in that environment, with the package as installed (not this folder), and
the Chinese lessons that draw a plot or show a widget in one edition (EDITION_IN_PROFILE).

The colab profile also runs the real setup cell of every English lesson with `google.colab` present, as Colab
would: the cell's install line, with GitHub replaced by a local git repository of this working tree
tagged with lessonkit/course.py's REF (`git+file://...@REF`), must install lessonkit, import it at its version,
and change none of Colab's packages (SETUP_CELLS_PROFILES). `make badges` writes one setup cell into every lesson
of an edition (tests/test_notebooks.py fails when one drifts), so each distinct cell runs once, for the lessons
that share it.

Each profile installs the torch it names, from PyPI: Colab's 2.11.0 and pyproject.toml's lower bound.
PyPI's Linux x86_64 torch is the CUDA build, so pip also installs torch's own nvidia-* wheels (an
environment is 5 to 7 GB); that build runs on a machine without a GPU, as the CPU-only CI does. Colab
reports its torch as 2.11.0+cu128; the +cu128 build is not on PyPI, so the plain 2.11.0 stands in.

Every run builds each environment afresh (a reused one could hide what lessonkit's install changed)
and deletes it once its checks pass; pip's download cache makes a second run fast. An environment
whose checks failed is kept in .envs/ to look into, and --keep keeps them all.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

from find_python import MissingPython, find_python
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
ENVS = ROOT / ".envs"
# The notebook stack nbval needs, at versions that accept the old IPython/ipykernel Colab runs.
TEST_TOOLS = ("nbval==0.11.0", "nbclient==0.11.0", "pytest==9.2.0")
NBVAL_TIMEOUT_S = 900  # every lesson takes about a minute here
SETUP_CELLS_PROFILES = ("colab",)
# One Chinese edition runs in each environment too, for its fonts and ipywidgets there (Colab's matplotlib 3.10
# reads only the Japanese face of Noto Sans CJK, so lessonkit.plotfont saves the edition's own face as a file of
# its own there; a missing glyph is a warning on stderr, which fails nbval): its
# lessons that draw a plot or show a widget (chinese_lessons), on top of every English lesson. Their code is the
# English code (tools/i18n.py allows only comments and sentences to change); make test runs every edition.
EDITION_IN_PROFILE = {"colab": "zh-Hant", "oldest": "zh-Hans"}
PLOTS_AND_WIDGETS = ("image/png", "application/vnd.jupyter.widget-view+json")
FAKE_COLAB = 'import sys, types\nsys.modules["google.colab"] = types.ModuleType("google.colab")'
REPORT = "import json, lessonkit\nprint(json.dumps([lessonkit.__version__, lessonkit.__file__]))"
# The font an edition's figures get there, and the edition's own (not Noto's Japanese face: see EDITION_IN_PROFILE).
FONT = """import json, sys
from lessonkit import plotfont
print(json.dumps([plotfont.find_font(sys.argv[1]), plotfont.FAMILIES[sys.argv[1]][0]]))"""
RUN_NOTEBOOK = """import json, sys, nbclient, nbformat
nb = nbformat.read(sys.argv[1], as_version=4)
nbclient.NotebookClient(nb, timeout=600, kernel_name="python3").execute()
print(json.dumps([[o.get("text", "") + o.get("evalue", "") for o in c.get("outputs", [])] for c in nb.cells]))
"""
WATCHED = ("torch", "numpy", "matplotlib", "ipywidgets", "ipykernel", "ipython")


def chinese_lessons(edition: str) -> list[Path]:
    """The edition's lessons whose stored outputs hold a plot or a widget."""
    found = []
    for path in sorted(ROOT.glob(f"notebooks/{edition}/[0-9][0-9]_*.ipynb")):
        cells = json.loads(path.read_text("utf-8"))["cells"]
        kinds = {kind for c in cells for out in c.get("outputs", []) for kind in out.get("data", {})}
        if kinds & set(PLOTS_AND_WIDGETS):
            found.append(path)
    return found


def colab_versions() -> dict[str, str]:
    """Versions of the watched packages on Colab's GPU runtime, from the recorded pip freeze."""
    found = {}
    for line in (ROOT / "tests/data/colab-pip-freeze.gpu.txt").read_text("utf-8").splitlines():
        match = re.match(r"^([A-Za-z0-9_.-]+)==([^\s;+]+)", line.strip())
        if match and match[1].lower() in WATCHED:
            found[match[1].lower()] = match[2]
    return found


def oldest_versions() -> dict[str, str]:
    """The lower bounds of lessonkit's own dependencies in pyproject.toml, plus Colab's IPython stack."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    found = {}
    for dep in map(Requirement, project["dependencies"]):
        (spec,) = [s for s in dep.specifier if s.operator == ">="]
        found[dep.name.lower()] = spec.version
    colab = colab_versions()
    found.update(ipykernel=colab["ipykernel"], ipython=colab["ipython"])
    return found


PROFILES = {"colab": colab_versions, "oldest": oldest_versions}
# The Python each profile's environment is built with. colab: the version Colab's runtime runs (its pip freeze
# has audioop-lts, which needs Python >= 3.13). oldest: pyproject.toml's requires-python floor, which
# python_floor_problems() holds it to. 3.10 is the floor because rented cloud GPU images often still have it;
# 3.9 is past its end of life (October 2025) and is not tested, so it is not claimed.
PYTHONS = {"colab": "3.13", "oldest": "3.10"}


def python_floor_problems(pyproject_text: str) -> list[str]:
    """How pyproject.toml's requires-python disagrees with PYTHONS: the oldest profile must test its floor."""
    requires = tomllib.loads(pyproject_text)["project"]["requires-python"]
    allowed = SpecifierSet(requires)
    oldest = PYTHONS["oldest"]
    major, minor = map(int, oldest.split("."))
    problems = []
    if oldest not in allowed or f"{major}.{minor - 1}" in allowed:
        problems.append(
            f"pyproject.toml's requires-python is {requires!r}, but the oldest profile tests Python {oldest}: "
            f"make it '>={oldest}' or change PYTHONS['oldest'] in tools/env_check.py"
        )
    problems += [
        f"the {name} profile's Python {version} is outside pyproject.toml's requires-python {requires!r}"
        for name, version in PYTHONS.items()
        if version not in allowed
    ]
    return problems


def profile_python(name: str) -> Path:
    """The interpreter the profile's environment is built with; MissingPython says what to install."""
    return find_python(PYTHONS[name], f"tools/env_check.py's {name} profile")


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    print("  $", " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=True, text=True, **kwargs)


def freeze(python: Path) -> dict[str, str]:
    out = run([str(python), "-m", "pip", "freeze", "--all"], capture_output=True).stdout
    found = {}
    for line in out.splitlines():
        name, sep, version = line.partition("==") if "==" in line else line.partition(" @ ")
        if sep:
            found[name.strip().lower().replace("_", "-")] = version.strip()
    return found


def build_wheel(work: Path) -> Path:
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(work), str(ROOT)])
    (wheel,) = work.glob("lessonkit-*.whl")
    return wheel


def course_repository(work: Path) -> Path:
    """A git repository of this working tree (tracked and new files, as `git ls-files` lists them), tagged REF."""
    sys.path.insert(0, str(ROOT))
    from lessonkit.course import REF

    repo = work / "course"
    shutil.rmtree(repo, ignore_errors=True)
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, repo / name)
    git = ["git", "-c", "user.name=env_check", "-c", "user.email=env_check@localhost", "-C", str(repo)]
    run(["git", "init", "--quiet", str(repo)])
    run([*git, "add", "--all"])
    run([*git, "commit", "--quiet", "-m", "this working tree"])
    run([*git, "tag", REF])
    return repo


def check_setup_cells(
    python: Path, env_dir: Path, before: dict[str, str], lessons: list[Path] | None = None
) -> list[str]:
    """Run every lesson's setup cell with google.colab present, installing from a local copy at REF; problems."""
    sys.path.insert(0, str(ROOT))
    from lessonkit import __version__
    from lessonkit.course import REPOSITORY

    run([str(python), "-m", "pip", "uninstall", "--quiet", "--yes", "lessonkit"])
    repo = course_repository(env_dir)
    problems = []
    sharing: dict[str, list[Path]] = {}  # each distinct setup cell, and the lessons that have it
    for path in lessons or sorted(ROOT.glob("notebooks/[0-9][0-9]_*.ipynb")):
        lesson = json.loads(path.read_text("utf-8"))
        setup = next(c for c in lesson["cells"] if c["cell_type"] == "code")
        sharing.setdefault("".join(setup["source"]), []).append(path)
    for source, paths in sharing.items():
        path = paths[0]
        print(f"  setup cell of {len(paths)} lessons: {', '.join(str(p.relative_to(ROOT)) for p in paths)}")
        github = f"git+https://github.com/{REPOSITORY}.git@"
        if github not in source:
            problems.append(f"{path.name}: the setup cell does not install from {github}...")
            continue
        source = source.replace(github, f"git+file://localhost{repo}@")  # old pip refuses an empty host
        cells = [FAKE_COLAB, source, REPORT]
        mini = {
            "cells": [
                {
                    "cell_type": "code",
                    "execution_count": None,
                    "id": f"c{i}",
                    "metadata": {},
                    "outputs": [],
                    "source": cell,
                }
                for i, cell in enumerate(cells)
            ],
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
        mini_path = env_dir / f"setup-{path.name}"
        mini_path.write_text(json.dumps(mini), "utf-8")
        done = subprocess.run(
            [str(python), "-c", RUN_NOTEBOOK, str(mini_path)],
            capture_output=True,
            text=True,
            env=dict(os.environ, PYDEVD_DISABLE_FILE_VALIDATION="1"),
            cwd=env_dir,
        )
        if done.returncode != 0:
            problems.append(f"{path.name}: the setup cell failed in fake Colab: {done.stderr.strip()[-600:]}")
            continue
        outputs = json.loads(done.stdout.strip().splitlines()[-1])
        version, where = json.loads(outputs[2][0])
        print(f"  {path.name}: setup cell installed lessonkit {version} ({where})", flush=True)
        if version != __version__ or not Path(where).is_relative_to(python.parent.parent):
            problems.append(f"{path.name}: after the setup cell, lessonkit {version} imports from {where}")
    after = freeze(python)
    changed = sorted(pkg for pkg in before.keys() | after.keys() if before.get(pkg) != after.get(pkg))
    print(f"  setup cells: pip freeze changed for {changed}")
    if changed != ["lessonkit"]:
        problems.append(
            f"the setup cells changed {sorted(set(changed) - {'lessonkit'})} (or did not install lessonkit)"
        )
    return problems


def size_gb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink()) / 1e9


def check_profile(name: str, wheel: Path, interpreter: Path) -> list[str]:
    """Build the profile's environment, install lessonkit into it, run the notebooks; return the problems."""
    wanted = PROFILES[name]()
    versions = ", ".join(f"{k} {v}" for k, v in sorted(wanted.items()))
    print(f"\n== {name}: Python {PYTHONS[name]} ({interpreter}), {versions}", flush=True)
    env_dir = ENVS / name
    shutil.rmtree(env_dir, ignore_errors=True)
    start = time.monotonic()
    run([str(interpreter), "-m", "venv", str(env_dir)])
    python = env_dir / "bin" / "python"
    pins = [f"{pkg}=={version}" for pkg, version in wanted.items()]
    run([str(python), "-m", "pip", "install", "--quiet", *pins, *TEST_TOOLS])
    print(f"  environment built in {time.monotonic() - start:.0f} s, {size_gb(env_dir):.1f} GB", flush=True)
    problems = []
    before = freeze(python)
    for pkg, version in wanted.items():
        # a build with a local suffix (2.11.0+cu128) is still the version the profile names
        if Version(Version(before.get(pkg, "0")).public) != Version(version):
            problems.append(f"{pkg}: wanted {version}, the environment has {before.get(pkg)}")

    report_file = env_dir / "lessonkit-install-report.json"
    run([str(python), "-m", "pip", "install", "--quiet", "--dry-run", "--report", str(report_file), str(wheel)])
    planned = sorted(item["metadata"]["name"] for item in json.loads(report_file.read_text())["install"])
    print(f"  pip would install: {planned}")
    if planned != ["lessonkit"]:
        problems.append(f"installing lessonkit would also install or change: {planned}")

    run([str(python), "-m", "pip", "install", "--quiet", str(wheel)])
    after = freeze(python)
    changed = {pkg for pkg in before.keys() | after.keys() if before.get(pkg) != after.get(pkg)}
    print(f"  pip freeze changed for: {sorted(changed)}")
    if changed != {"lessonkit"}:
        problems.append(f"installing lessonkit changed {sorted(changed - {'lessonkit'})}")
    if name in SETUP_CELLS_PROFILES:
        problems += check_setup_cells(python, env_dir, before)
    edition = EDITION_IN_PROFILE[name]
    font, own = json.loads(run([str(python), "-c", FONT, edition], capture_output=True).stdout)
    print(f"  {edition}'s figures are drawn in {font}")
    if font != own:
        problems.append(f"{edition}'s figures are drawn in {font}, not in {own}")

    env = dict(os.environ, PYDEVD_DISABLE_FILE_VALIDATION="1")
    nbval = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval", "--nbval-current-env"]
    nbval += ["--nbval-cell-timeout", "120"]
    lessons = sorted(ROOT.glob("notebooks/[0-9][0-9]_*.ipynb"))
    lessons += chinese_lessons(EDITION_IN_PROFILE[name])
    nbval += ["--nbval-sanitize-with", "tests/nbval_sanitize.cfg", *map(str, lessons)]
    start = time.monotonic()
    try:  # a kernel that crashes can leave nbval waiting for ever
        done = subprocess.run(nbval, cwd=ROOT, env=env, text=True, capture_output=True, timeout=NBVAL_TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        done = subprocess.CompletedProcess(nbval, returncode=-1, stdout=out + f"\n(stopped after {NBVAL_TIMEOUT_S} s)")
    print("\n".join("  | " + line for line in done.stdout.strip().splitlines()[-15:]), flush=True)
    print(f"  notebooks ran in {time.monotonic() - start:.0f} s", flush=True)
    if done.returncode != 0:
        problems.append(f"the notebooks failed under strict nbval in the {name} environment")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profiles", nargs="*", choices=sorted(PROFILES), default=sorted(PROFILES))
    parser.add_argument("--keep", action="store_true", help="keep each environment in .envs/, even one that passed")
    args = parser.parse_args()
    problems = python_floor_problems((ROOT / "pyproject.toml").read_text("utf-8"))
    try:  # every interpreter first: a missing one fails the run before any download
        pythons = {name: profile_python(name) for name in args.profiles}
    except MissingPython as exc:
        problems.append(str(exc))
    if problems:
        print("\n".join(f"env_check: {problem}" for problem in problems), file=sys.stderr)
        return 2
    work = ENVS / "wheel"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    wheel = build_wheel(work)
    failures = {}
    for name in args.profiles:
        failures[name] = check_profile(name, wheel, pythons[name])
        if not failures[name] and not args.keep:
            shutil.rmtree(ENVS / name)  # 5 to 7 GB each: free it before building the next
    print()
    for name, problems in failures.items():
        print(f"{name}: {'OK' if not problems else 'FAILED'}")
        for problem in problems:
            print(f"  - {problem}")
    return 1 if any(failures.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
