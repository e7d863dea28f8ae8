"""Install lessonkit into environments shaped like a learner's and run every lesson there (make test-matrix).

    python tools/env_check.py colab     # Colab's GPU runtime versions (tests/data/colab-pip-freeze.gpu.txt)
    python tools/env_check.py oldest    # the oldest versions pyproject.toml says lessonkit supports

For each profile it builds a fresh virtual environment under .envs/, installs the profile's
packages, then checks that installing lessonkit (from a wheel of this repository, with its
dependencies, as a plain `pip install` would) changes none of them: first with
`pip install --dry-run --report`, then with `pip freeze` before and after. Last it runs every
notebook under strict nbval in that environment, with the package as installed (not this folder).

torch is the exception: only torch 2.13.0 (CPU) can be installed on the machines this runs on, so
both profiles use it; Colab's own torch (2.11 with CUDA 12.8) is checked by version only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
ENVS = ROOT / ".envs"
TORCH = "torch==2.13.0"
# The notebook stack nbval needs, at versions that accept the old IPython/ipykernel Colab runs.
TEST_TOOLS = ("nbval==0.11.0", "nbclient==0.11.0", "pytest==9.2.0")
WATCHED = ("torch", "numpy", "matplotlib", "ipywidgets", "ipykernel", "ipython")


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


def check_profile(name: str, wheel: Path) -> list[str]:
    """Build the profile's environment, install lessonkit into it, run the notebooks; return the problems."""
    wanted = PROFILES[name]()
    print(f"\n== {name}: {', '.join(f'{k} {v}' for k, v in sorted(wanted.items()))}", flush=True)
    env_dir = ENVS / name
    shutil.rmtree(env_dir, ignore_errors=True)
    run([sys.executable, "-m", "venv", str(env_dir)])
    python = env_dir / "bin" / "python"
    pins = [f"{pkg}=={version}" for pkg, version in wanted.items() if pkg != "torch"]
    if "torch" in wanted and Version(wanted["torch"]) != Version(TORCH.split("==")[1]):
        print(f"  note: torch {wanted['torch']} cannot be installed here; using {TORCH} instead")
    run([str(python), "-m", "pip", "install", "--quiet", TORCH, *pins, *TEST_TOOLS])
    problems = []
    before = freeze(python)
    for pkg, version in wanted.items():
        if pkg != "torch" and Version(before.get(pkg, "0")) != Version(version):
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

    env = dict(os.environ, PYDEVD_DISABLE_FILE_VALIDATION="1")
    nbval = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval", "--nbval-current-env"]
    lessons = sorted(ROOT.glob("notebooks/[0-9][0-9]_*.ipynb"))
    nbval += ["--nbval-sanitize-with", "tests/nbval_sanitize.cfg", *map(str, lessons)]
    done = subprocess.run(nbval, cwd=ROOT, env=env, text=True, capture_output=True)
    print("\n".join("  | " + line for line in done.stdout.strip().splitlines()[-15:]), flush=True)
    if done.returncode != 0:
        problems.append(f"the notebooks failed under strict nbval in the {name} environment")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profiles", nargs="*", choices=sorted(PROFILES), default=sorted(PROFILES))
    args = parser.parse_args()
    work = ENVS / "wheel"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    wheel = build_wheel(work)
    failures = {name: check_profile(name, wheel) for name in args.profiles}
    print()
    for name, problems in failures.items():
        print(f"{name}: {'OK' if not problems else 'FAILED'}")
        for problem in problems:
            print(f"  - {problem}")
    return 1 if any(failures.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
