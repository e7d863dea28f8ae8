"""Record a CPU-vs-GPU fp32 matmul size sweep on this machine, for learners who have no GPU (lesson 02).

Run it on a machine with a CUDA (or Apple MPS) GPU:

    python benchmarks/record_reference.py            # print the sweep as JSON
    python benchmarks/record_reference.py --write    # also add it to lessonkit/data/reference_results.json

Lesson 02 plots every recorded sweep next to the learner's own CPU, labelled as recorded.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessonkit.device import describe_device, pick_device  # noqa: E402
from lessonkit.precision import tf32_matmuls_allowed  # noqa: E402
from lessonkit.timing import benchmark, matmul_flops, tflops  # noqa: E402

DATA = ROOT / "lessonkit/data/reference_results.json"
GPU_SIZES = (64, 128, 256, 512, 1024, 2048, 4096, 5000, 8192)
CPU_SIZES = (64, 128, 256, 512, 1024, 2048, 4096, 5000)


def sweep(device: torch.device, sizes: tuple[int, ...]) -> dict[str, list[float]]:
    """Median, IQR and cold first call of an n x n fp32 matmul for each size."""
    out: dict[str, list[float]] = {"sizes": [], "median_s": [], "iqr_s": [], "first_call_s": []}
    gen = torch.Generator().manual_seed(0)
    for n in sizes:
        a = torch.randn(n, n, generator=gen).to(device)
        b = torch.randn(n, n, generator=gen).to(device)
        m = benchmark(lambda a=a, b=b: a @ b, device=device, warmup=3, repeats=15)
        print(f"{device.type:>5} n={n:>5}: {m}  {tflops(matmul_flops(n), m.median):.2f} TFLOP/s", flush=True)
        for key, value in zip(out, (n, m.median, m.iqr, m.first_call)):
            out[key].append(value)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"append the sweep to {DATA.relative_to(ROOT)}")
    args = parser.parse_args()
    device = pick_device()
    if device.type == "cpu":
        print("No CUDA or MPS GPU here: there is nothing to record. Run this on a GPU machine.")
        return 0
    info = describe_device(device)
    print(info, flush=True)
    record = {
        "gpu": info.name,
        "recorded": dt.date.today().isoformat(),
        "torch": torch.__version__,
        "cuda": info.cuda_version,
        "driver": info.driver_version,
        "cpu": f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} threads",
        "dtype": "fp32",
        "tf32_allowed": tf32_matmuls_allowed(),
        "source": "benchmarks/record_reference.py (lessonkit.timing.benchmark: warm-up 3, 15 repeats)",
        "gpu_sweep": sweep(device, GPU_SIZES),
        "cpu_sweep": sweep(torch.device("cpu"), CPU_SIZES),
    }
    print(json.dumps(record, indent=2))
    if args.write:
        data = json.loads(DATA.read_text("utf-8"))
        data["sweeps"].append(record)
        DATA.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", "utf-8")
        print(f"added to {DATA.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
