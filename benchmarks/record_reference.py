"""Record lesson 02's CPU-vs-GPU fp32 matmul size sweep on this machine's CUDA GPU (part of make gpu-check).

    python benchmarks/record_reference.py            # measure; the report goes to reports/
    python benchmarks/record_reference.py --write    # ... and add the sweep to lessonkit/data/reference_results.json

It runs the GPU check's `env` and `sweep` sections (benchmarks/gpu_check.py), so the sweep is recorded with its
GPU, its date and the report it came from, exactly as `make gpu-check GPU_CHECK_ARGS="--record"` records it
along with everything else. Lesson 02 plots every recorded sweep, labelled as recorded and with those three.
Without a CUDA GPU it says so and exits 0.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import gpu_check  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--write", action="store_true", help=f"add the sweep to lessonkit/data/{gpu_check.DATA.name} (--record)"
    )
    parser.add_argument("--out", type=Path, default=gpu_check.REPORTS, help="folder for the report (reports/)")
    args = parser.parse_args(argv)
    return gpu_check.main(["--sections", "env,sweep", "--out", str(args.out), *(["--record"] if args.write else [])])


if __name__ == "__main__":
    sys.exit(main())
