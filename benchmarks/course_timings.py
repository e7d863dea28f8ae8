"""How long the course's own checks take on this machine: the figures the README and the lessons quote.

    python benchmarks/course_timings.py               # units, each lesson, the notebook suite and its floor
    python benchmarks/course_timings.py --install     # also a fresh .venv-style install (pip's cache helps)
    python benchmarks/course_timings.py --cells 06    # where one lesson's time goes, cell by cell
    python benchmarks/course_timings.py --install --record   # measure, then store the figures and restate them

--record writes the figures to reports/course-timings.json and rewrites the sentences that quote them: the
README's block between <!-- timings:start --> and <!-- timings:end -->, and each lesson's "**Run time:**"
line under "What you'll need". tests/test_course_timings.py checks that those sentences match the JSON.

Every figure is wall-clock seconds of the same command `make` runs, measured here and printed, never asserted:
- units: `make test-units` itself;
- the suite: `pytest notebooks/NN_*.ipynb --nbval ...` run serially, each lesson alone on the machine (make test and
  make test-notebooks run the Chinese editions too, two notebooks at a time on pytest-xdist);
- each lesson: its share of that run, from pytest's per-item times (its kernel's start and all its cells);
- the floor: the same suite where each lesson is cut down to its import statements, i.e. kernel start plus
  `import torch` and the rest, the part no lesson can avoid. The suite should take at most 2.5x the floor.
Targets (issue "make test passes on any learner's machine"): units <= 20 s, each lesson <= 15 s under nbval,
suite <= 2.5 x floor, on an idle 2-core machine without a GPU. Run it on an idle machine: other jobs slow it.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
NBVAL = ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", str(ROOT / "tests/nbval_sanitize.cfg")]
TARGETS = {"units_s": 20.0, "lesson_s": 15.0, "suite_over_floor": 2.5}
RECORD = ROOT / "reports/course-timings.json"
README_BLOCK = re.compile(r"(<!-- timings:start -->\n).*?(<!-- timings:end -->)", re.DOTALL)
RUN_TIME_LINE = re.compile(r"^- \*\*Run time:\*\* .*$", re.MULTILINE)


def readme_block(figures: dict) -> str:
    """The README's sentences about how long things take, from recorded figures."""
    slowest = max(figures["lessons_s"].values())
    install = f"a fresh install took {figures['install_s']:.0f} s, " if "install_s" in figures else ""
    return (
        f"Measured on a {figures['machine']} without a GPU ({figures['date']}, `benchmarks/course_timings.py`): "
        f"{install}`make test-units` {figures['units_s']:.0f} s, each lesson {min(figures['lessons_s'].values()):.0f} "
        f"to {slowest:.0f} s under nbval, the whole notebook suite {figures['suite_s']:.0f} s "
        f"({figures['suite_over_floor']:.1f}× the {figures['floor_s']:.0f} s that starting the kernels and importing "
        f"PyTorch take on their own).\n"
    )


def run_time_line(figures: dict, lesson: str) -> str:
    """The line each lesson's "What you'll need" states its own run time in."""
    return (
        f"- **Run time:** about {figures['lessons_s'][lesson]:.0f} s from top to bottom on a {figures['machine']} "
        f"without a GPU (measured with `benchmarks/course_timings.py`); a GPU or a faster CPU takes less."
    )


def restate(figures: dict) -> list[Path]:
    """Rewrite the README block and each lesson's run-time line from `figures`; return the files changed."""
    changed = []
    readme = ROOT / "README.md"
    text = readme.read_text("utf-8")
    new = README_BLOCK.sub(lambda m: m[1] + readme_block(figures) + m[2], text)
    if new != text:
        readme.write_text(new, "utf-8")
        changed.append(readme)
    for path in LESSONS:
        nb = nbformat.read(path, as_version=4)
        (cell,) = [c for c in nb.cells if c.cell_type == "markdown" and "## What you'll need" in c.source]
        line = run_time_line(figures, path.name)
        source = RUN_TIME_LINE.sub(line, cell.source) if RUN_TIME_LINE.search(cell.source) else f"{cell.source}\n{line}"
        if source != cell.source:
            cell.source = source
            nbformat.write(nb, path)
            changed.append(path)
    return changed


def machine_name() -> str:
    """'2-core AMD EPYC' or the like: the CPU's model name from /proc/cpuinfo where there is one."""
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        found = re.search(r"^model name\s*:\s*(.+)$", cpuinfo.read_text(), re.MULTILINE)
        model = found[1].strip() if found else model
    model = " ".join(model.split())
    return f"{os.cpu_count()}-core {model}"


def timed(cmd: list[str], cwd: Path = ROOT) -> float:
    """Seconds `cmd` took; it must succeed."""
    env = {**os.environ, "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(cmd)}\n{done.stdout[-3000:]}{done.stderr[-2000:]}")
    return elapsed


def pytest(*args: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.pytest_startup", *args]


def imports_only(path: Path) -> nbformat.NotebookNode:
    """`path` cut down to one cell holding every import statement of its code cells."""
    lines = []
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        source = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        lines += [
            ast.get_source_segment(source, node) for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)
        ]
    return nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("\n".join(lines))],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    )


def floor_seconds() -> float:
    """The notebook suite cut down to each lesson's imports, run the same way (the repository's conftest too)."""
    (ROOT / "build").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="lesson-floor-", dir=ROOT / "build") as tmp:
        for path in LESSONS:
            nbformat.write(imports_only(path), Path(tmp) / path.name)
        return timed(pytest(tmp, *NBVAL))


def lesson_seconds(junit: Path) -> dict[str, float]:
    """Seconds per lesson from pytest's JUnit report: the sum of its cells' times, kernel start included."""
    import xml.etree.ElementTree as ET

    totals: dict[str, float] = {}
    for case in ET.parse(junit).iter("testcase"):
        name = Path(case.get("file") or case.get("classname", "").replace(".", "/")).name
        name = next((p.name for p in LESSONS if p.stem in (case.get("classname") or "") or p.name == name), name)
        totals[name] = totals.get(name, 0.0) + float(case.get("time", 0))
    return {p.name: round(totals[p.name], 1) for p in LESSONS}


def install_seconds() -> float:
    """A fresh virtual environment and `pip install -r requirements.txt`, as `make setup` does."""
    with tempfile.TemporaryDirectory(prefix="install-") as tmp:
        venv = Path(tmp) / "venv"
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(venv / "bin/python"), "-m", "pip", "install", "-q", "-r", "requirements.txt"], cwd=ROOT, check=True
        )
        return time.perf_counter() - start


def cell_times(number: str) -> None:
    """Each code cell's seconds in one lesson, slowest first."""
    sys.path.insert(0, str(ROOT / "tools"))
    from kernels import execute_notebook

    (path,) = [p for p in LESSONS if p.name.startswith(number)]
    nb = nbformat.read(path, as_version=4)
    total = execute_notebook(nb, path.parent, record_timing=True)
    rows = []
    for index, cell in enumerate(nb.cells):
        timing = cell.metadata.get("execution", {})
        if cell.cell_type == "code" and "iopub.execute_input" in timing:
            from datetime import datetime

            start, end = (
                datetime.fromisoformat(timing[k].rstrip("Z")) for k in ("iopub.execute_input", "shell.execute_reply")
            )
            rows.append(((end - start).total_seconds(), index, cell.source.splitlines()[0][:70]))
    print(f"{path.name}: {total:.1f} s including kernel start")
    for seconds, index, first_line in sorted(rows, reverse=True)[:15]:
        print(f"  {seconds:6.2f} s  cell {index:>3}  {first_line}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--install", action="store_true", help="also time a fresh install (minutes)")
    parser.add_argument("--cells", metavar="NN", help="only show where lesson NN's time goes")
    parser.add_argument(
        "--record",
        action="store_true",
        help=f"store the figures in {RECORD.relative_to(ROOT)} "
        "and rewrite the README's and the lessons' sentences that quote them",
    )
    args = parser.parse_args()
    if args.cells:
        cell_times(args.cells)
        return 0
    figures: dict[str, object] = {"machine": machine_name(), "date": time.strftime("%Y-%m-%d")}
    if args.install:
        figures["install_s"] = round(install_seconds(), 1)
        print(f"install (fresh venv, pip install -r requirements.txt): {figures['install_s']} s")
    # make test-units itself, as a learner runs it (its options live in the Makefile only), less
    # tests/test_course_timings.py: it checks the very record being made (milliseconds)
    units = [
        "make",
        "--no-print-directory",
        "-C",
        str(ROOT),
        "test-units",
        "PYTEST_ARGS=--ignore=tests/test_course_timings.py",
    ]
    figures["units_s"] = round(timed(units), 1)
    print(f"make test-units: {figures['units_s']} s (target <= {TARGETS['units_s']:g} s)")
    # Each lesson's own time inside one suite run: its kernel's start and every cell, from nbval's per-item
    # times (pytest's own start-up, the same for every lesson, is in the suite's figure, not in the lessons').
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "junit.xml"
        # The English lessons: the Chinese editions (notebooks/zh-*/) run the same code, each about as long again.
        english = [str(path) for path in LESSONS]
        figures["suite_s"] = round(timed(pytest(*english, *NBVAL, f"--junitxml={report}")), 1)
        lessons = lesson_seconds(report)
    for name, seconds in lessons.items():
        print(f"  {name:<48} {seconds:5.1f} s (target <= {TARGETS['lesson_s']:g} s)")
    figures["lessons_s"] = lessons
    figures["floor_s"] = round(floor_seconds(), 1)
    ratio = figures["suite_s"] / figures["floor_s"]
    figures["suite_over_floor"] = round(ratio, 2)
    print(
        f"notebook suite: {figures['suite_s']} s; its floor (kernel start + imports): {figures['floor_s']} s; "
        f"ratio {ratio:.2f} (target <= {TARGETS['suite_over_floor']:g})"
    )
    slowest = max(lessons.values())
    met = (
        figures["units_s"] <= TARGETS["units_s"]
        and slowest <= TARGETS["lesson_s"]
        and ratio <= TARGETS["suite_over_floor"]
    )
    print("all targets met" if met else "NOT all targets met")
    if args.record:
        RECORD.write_text(json.dumps(figures, indent=2) + "\n")
        for path in [RECORD, *restate(figures)]:
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
