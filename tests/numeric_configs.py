"""Settings that change PyTorch's floating-point results on one x86 CPU, as another learner's CPU would.

Used by tests/matrix/test_numeric_configs.py (every lesson under strict nbval with each setting) and by
benchmarks/numeric_configs.py (which shows what each setting changes on the machine it runs on).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NumericConfig:
    env: dict[str, str]
    what_it_does: str


CONFIGS: dict[str, NumericConfig] = {
    "aten-default": NumericConfig(
        {"ATEN_CPU_CAPABILITY": "default"},
        "PyTorch's own CPU kernels (element-wise maths, sums, softmax, the optimizers' updates) run their "
        "plain C++ build instead of the AVX2/AVX-512 one: other vector widths, so sums add up in another order",
    ),
    "aten-avx2": NumericConfig(
        {"ATEN_CPU_CAPABILITY": "avx2"},
        "the AVX2 build of PyTorch's kernels: what an AMD or older Intel CPU runs; on an AVX-512 machine "
        "(like the one that recorded the outputs) this changes results, on an AVX2-only machine it is the default",
    ),
    "onednn-sse41": NumericConfig(
        {"ONEDNN_MAX_CPU_ISA": "SSE41"},
        "oneDNN (convolutions, bf16/fp16 matmuls and autocast on the CPU) limited to SSE4.1 kernels: no AVX, "
        "no AVX-512, no AMX",
    ),
    "mkl-compatible": NumericConfig(
        {"MKL_CBWR": "COMPATIBLE"},
        "MKL, which does PyTorch's fp32 matrix multiplications on x86, in its conditional-reproducibility mode "
        "on its most compatible (SSE2) code path: other blocking, no fused multiply-add, on Intel and AMD alike "
        "(MKL_ENABLE_INSTRUCTIONS=SSE4_2, the other way to limit it, changes nothing on an AMD CPU)",
    ),
    "threads-1": NumericConfig(
        {"OMP_NUM_THREADS": "1"},
        "one thread: a matmul or a sum is split into a single piece",
    ),
    "threads-3": NumericConfig(
        {"OMP_NUM_THREADS": "3"},
        "three threads, more than this machine's cores: work split into three pieces, added in another order",
    ),
}
