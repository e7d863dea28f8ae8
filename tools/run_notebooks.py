"""Execute the course notebooks top to bottom, print each one's time, and optionally store the outputs.

python tools/run_notebooks.py                 # run every notebook, report times, change nothing
python tools/run_notebooks.py --write         # same, and save the fresh outputs (make refresh)
python tools/run_notebooks.py --write notebooks/02_cpu_vs_gpu_benchmark.ipynb
python tools/run_notebooks.py --write notebooks/zh-Hant/06_*.ipynb   # a Chinese edition: needs a CJK font

A Chinese edition is recorded only with a CJK font for its figures (lessonkit.plotfont; `make fonts` installs
Noto Sans CJK on Debian or Ubuntu): without one, or when matplotlib reports a glyph missing from the font it
draws with, the run stops naming the notebook and the cell, and nothing is written.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import nbformat
from kernels import execute_notebook
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
sys.path.insert(0, str(ROOT))

from lessonkit import plotfont  # noqa: E402

MISSING_GLYPH = "missing from font"  # matplotlib's warning: "Glyph 23383 (...) missing from font(s) DejaVu Sans."


class RecordingError(RuntimeError):
    """A notebook that must not be stored: it failed, or drew text its font has no glyphs for."""


def edition_of(path: Path) -> str | None:
    """'zh-Hans' or 'zh-Hant' for a notebook of a Chinese edition (its folder, or its metadata), else None."""
    if path.parent.name in plotfont.FAMILIES:
        return path.parent.name
    language = nbformat.read(path, as_version=4).metadata.get("language")
    return language if language in plotfont.FAMILIES else None


def glyph_problems(nb: nbformat.NotebookNode) -> list[str]:
    """'cell 24 (id 879f2869): Glyph 23383 ... missing from font(s) DejaVu Sans.' for each such warning in `nb`."""
    found = []
    for number, cell in enumerate(nb.cells, 1):
        for output in cell.get("outputs", []):
            text = output.get("text", "") if output.get("output_type") == "stream" else ""
            text += "\n".join(output.get("traceback", [])) + output.get("evalue", "")
            for line in text.splitlines():
                if MISSING_GLYPH in line:
                    found.append(f"cell {number} (id {cell.get('id')}): {line.strip()[:160]}")
    return found


def tofu_problems(nb: nbformat.NotebookNode) -> list[str]:
    """'cell 46 (id 2a1af4bd): empty boxes at (314, 417) ...' for each figure drawn with missing glyphs (pixels)."""
    import base64

    from figure_check import tofu_boxes

    found = []
    for number, cell in enumerate(nb.cells, 1):
        for output in cell.get("outputs", []):
            png = output.get("data", {}).get("image/png")
            if png and (boxes := tofu_boxes(base64.b64decode(png), limit=3)):
                found.append(f"cell {number} (id {cell.get('id')}): empty boxes at {[(b[0], b[1]) for b in boxes]}")
    return found


def run(path: Path, write: bool, timeout: int) -> float:
    """Execute one notebook (strict about fonts: lessonkit.plotfont.strict()) and store it if asked and clean."""
    edition = edition_of(path)
    if edition and plotfont.find_font(edition) is None:
        raise RecordingError(
            f"{path}: no CJK font for {edition}'s figures, which would be stored with empty boxes. "
            f"Install one (`make fonts`, or {plotfont.INSTALL_COMMAND}) and run again."
        )
    nb = nbformat.read(path, as_version=4)
    os.environ[plotfont.STRICT_ENVIRONMENT] = "1"  # the kernel inherits it
    try:
        elapsed = execute_notebook(nb, path.parent, timeout=timeout)
    except CellExecutionError as error:
        failed = next((i for i, c in enumerate(nb.cells, 1) if _has_error(c)), None)
        where = f"cell {failed} (id {nb.cells[failed - 1].get('id')})" if failed else "a cell"
        raise RecordingError(f"{path}: {where} failed, nothing written:\n{error}") from None
    finally:
        os.environ.pop(plotfont.STRICT_ENVIRONMENT, None)
    problems = glyph_problems(nb) + (tofu_problems(nb) if edition else [])
    if problems:
        raise RecordingError(
            f"{path}: matplotlib drew text its font has no glyphs for (empty boxes), nothing written:\n  "
            + "\n  ".join(problems)
        )
    if write:
        nbformat.write(nb, path)
    return elapsed


def _has_error(cell: nbformat.NotebookNode) -> bool:
    return any(o.get("output_type") == "error" for o in cell.get("outputs", []))


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
        try:
            elapsed = run(path, args.write, args.timeout)
        except RecordingError as error:
            print("FAILED", flush=True)
            print(error, file=sys.stderr)
            return 1
        total += elapsed
        print(f"{elapsed:.1f} s{' (outputs saved)' if args.write else ''}", flush=True)
    print(f"{len(paths)} notebooks in {total:.1f} s (kernel start included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
