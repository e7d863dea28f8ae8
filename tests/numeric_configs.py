"""Settings that change PyTorch's floating-point results on one x86 CPU, as another learner's CPU would.

PERTURBATION is the one `make test-matrix` runs every lesson under (tests/matrix/test_notebooks_elsewhere.py),
and tests/matrix/test_numeric_configs.py proves that it changes results on the machine the matrix runs on.
Since stored outputs are compared number by number (tests/nbval_numbers.py: a printed decimal may move by one
unit in its last digit), one such run stands for the others: each setting below only moves floats in their
last bits, as PERTURBATION does. benchmarks/numeric_configs.py shows what each of them changes here.
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


# PyTorch's plain C++ kernels on a single thread: other vector widths and one piece per sum at once, so
# element-wise maths, reductions, the optimizers' updates and matmuls' splits all add up in another order.
PERTURBATION: dict[str, str] = {**CONFIGS["aten-default"].env, **CONFIGS["threads-1"].env}
