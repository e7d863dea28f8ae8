"""Which numeric settings change the lessons' floating-point results on this CPU? Prints what each one changed.

    python benchmarks/numeric_configs.py                       # lesson 07, every setting
    python benchmarks/numeric_configs.py --lessons 02 05 06     # other lessons too
    python benchmarks/numeric_configs.py --configs aten-avx2 threads-3

Strict nbval compares the lessons' stored outputs, which were recorded on one CPU. Another CPU takes other
code paths through PyTorch's vectorised kernels, oneDNN and MKL, and adds floats in another order, so a
printed float can change in its last digit. The settings below reproduce such changes on a single x86 CPU.
For each setting this script executes the lessons in fresh kernels and reports, against a run with no
setting: which cells print other text (timings masked as nbval's sanitize file masks them), and, for lesson
06, whether the training losses differ at full precision (the lesson prints them rounded, which can hide a
change; a change at full precision is what can flip a rounded digit on some other CPU).

tests/matrix/test_numeric_configs.py runs every lesson under strict nbval with each of these settings.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from kernels import execute_notebook  # noqa: E402

from tests.numeric_configs import CONFIGS  # noqa: E402

# Lesson 07: the full-precision losses behind its rounded tables (the ones a CPU change can flip).
FINGERPRINT = {
    "06": (
        "print('FINGERPRINT', repr([h[-1] for h in runs.values()]), repr([r[-1] for r in results.values()]), "
        "repr(evaluate(model, x_check, y_check)))"
    ),
}


def sanitize(text: str) -> str:
    """Mask what differs from run to run anyway, using the patterns of tests/nbval_sanitize.cfg."""
    patterns = re.findall(r"regex: (.*)\nreplace: (.*)", (ROOT / "tests/nbval_sanitize.cfg").read_text("utf-8"))
    for regex, replace in patterns:
        text = re.sub(regex, replace, text)
    return text


def run(lesson: Path, env: dict[str, str]) -> tuple[list[str], str]:
    """Execute `lesson` with `env` added; return each cell's text output and the fingerprint line."""
    nb = nbformat.read(lesson, as_version=4)
    code = FINGERPRINT.get(lesson.name[:2])
    if code:
        nb.cells.append(nbformat.v4.new_code_cell(code))
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        execute_notebook(nb, lesson.parent, timeout=600)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    texts = []
    for cell in nb.cells:
        parts = [o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in cell.get("outputs", [])]
        texts.append(sanitize("".join(parts)))
    fingerprint = texts.pop() if code else ""
    return texts, fingerprint


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lessons", nargs="*", default=["06"], help="lesson numbers (default: 06)")
    parser.add_argument("--configs", nargs="*", default=list(CONFIGS), help=f"default: all of {list(CONFIGS)}")
    args = parser.parse_args()
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    for number in args.lessons:
        (lesson,) = sorted((ROOT / "notebooks").glob(f"{number}_*.ipynb"))
        start = time.perf_counter()
        base_texts, base_fp = run(lesson, {})
        print(f"{lesson.name}: baseline run in {time.perf_counter() - start:.1f} s")
        for name in args.configs:
            env = CONFIGS[name].env
            texts, fp = run(lesson, env)
            changed = [i for i, (a, b) in enumerate(zip(base_texts, texts)) if a != b]
            settings = " ".join(f"{k}={v}" for k, v in env.items())
            verdict = "losses CHANGED at full precision" if fp != base_fp else "losses identical"
            print(f"  {name:<9} {settings:<45} {verdict if base_fp else '':<35} cells printing other text: {changed}")
            if fp != base_fp:
                print(f"    baseline: {base_fp.strip()[:300]}\n    {name:<8}: {fp.strip()[:300]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
