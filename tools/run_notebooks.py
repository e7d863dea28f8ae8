"""Execute the course notebooks top to bottom, print each one's time, and optionally store the outputs.

python tools/run_notebooks.py                 # run every notebook, report times, change nothing
python tools/run_notebooks.py --write         # same, and save the fresh outputs (make refresh)
python tools/run_notebooks.py --write notebooks/02_cpu_vs_gpu_benchmark.ipynb
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import nbformat
from kernels import execute_notebook

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"


def run(path: Path, write: bool, timeout: int) -> float:
    nb = nbformat.read(path, as_version=4)
    elapsed = execute_notebook(nb, path.parent, timeout=timeout)
    if write:
        nbformat.write(nb, path)
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebooks/NN_*.ipynb")
    parser.add_argument("--write", action="store_true", help="store the fresh outputs in the notebooks")
    parser.add_argument("--timeout", type=int, default=300, help="seconds allowed per cell (default 300)")
    args = parser.parse_args()
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    paths = args.notebooks or sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    total = 0.0
    for path in paths:
        print(f"running {path.name} ...", end=" ", flush=True)
        elapsed = run(path, args.write, args.timeout)
        total += elapsed
        print(f"{elapsed:.1f} s{' (outputs saved)' if args.write else ''}", flush=True)
    print(f"{len(paths)} notebooks in {total:.1f} s (kernel start included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
