"""A small catalog of common GPUs: memory, bandwidth, dense peaks, Tensor Cores, all sourced (lessons 03, 05)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from lessonkit._checks import check_choice
from lessonkit._data import read_json
from lessonkit.units import GIB, MIB

# The precisions a catalog entry can give a peak for: "fp32" on the ordinary cores, the rest on Tensor Cores.
PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
_TENSOR_PRECISIONS = ("tf32", "fp16", "bf16")
KINDS = ("cuda", "mps")


@dataclass(frozen=True)
class GpuSpec:
    """One GPU model from `lessonkit/data/gpus.json`; `sources` maps each field to where it came from (lessons 03, 05).

    `bandwidth_gb_s` is the advertised memory bandwidth in GB/s (10**9 bytes per second). `peak_tflops` holds
    dense peaks (never the "with sparsity" figures) for the precisions in PRECISIONS that have a published figure.
    `tensor_cores` says whether the Tensor Cores take "tf32", "fp16" and "bf16". `kind` is "cuda" or "mps".
    """

    key: str
    name: str
    torch_names: tuple[str, ...]
    architecture: str
    compute_capability: str | None
    memory_gb_sold: float
    memory_type: str | None
    memory_mib_smi: int | None
    sources: dict[str, str] = field(default_factory=dict, compare=False)
    notes: str | None = None
    bandwidth_gb_s: float | None = None
    peak_tflops: dict[str, float] = field(default_factory=dict, compare=False)
    tensor_cores: dict[str, bool] = field(default_factory=dict, compare=False)
    kind: str = "cuda"

    @property
    def usable_bytes(self) -> int:
        """Memory the driver reports (nvidia-smi's MiB), else the advertised figure read as GiB (lesson 03)."""
        if self.memory_mib_smi is not None:
            return self.memory_mib_smi * MIB
        # An approximation: memory chips come in powers of two, so a "24 GB" card carries about 24 GiB.
        return round(self.memory_gb_sold * GIB)

    def peak(self, precision: str) -> float | None:
        """Dense peak TFLOP/s for 'fp32', 'tf32', 'fp16' or 'bf16'; None when no figure is published (lesson 05)."""
        check_choice("precision", precision, PRECISIONS)
        return self.peak_tflops.get(precision)

    def has_tensor_cores(self, precision: str) -> bool:
        """Whether a matmul in this precision can run on the Tensor Cores ('fp32' never does) (lesson 05)."""
        check_choice("precision", precision, PRECISIONS)
        return bool(self.tensor_cores.get(precision, False))

    def ridge_point(self, precision: str) -> float | None:
        """FLOP per byte at which the compute roof meets the memory roof: peak / bandwidth (lesson 05)."""
        peak = self.peak(precision)
        if peak is None or not self.bandwidth_gb_s:
            return None
        return peak * 1e12 / (self.bandwidth_gb_s * 1e9)


def _spec(e: dict) -> GpuSpec:
    peaks = {str(k): float(v) for k, v in (e.get("peak_tflops") or {}).items()}
    tensor = {str(k): bool(v) for k, v in (e.get("tensor_cores") or {}).items()}
    unknown = (set(peaks) - set(PRECISIONS)) | (set(tensor) - set(_TENSOR_PRECISIONS))
    if unknown or e.get("kind", "cuda") not in KINDS:
        raise ValueError(f"gpus.json entry {e.get('key')!r} has an unknown precision or kind: {sorted(unknown)}")
    bandwidth = e.get("bandwidth_gb_s")
    return GpuSpec(
        key=e["key"],
        name=e["name"],
        torch_names=tuple(e.get("torch_names", ())),
        architecture=e["architecture"],
        compute_capability=e.get("compute_capability"),
        memory_gb_sold=e["memory_gb_sold"],
        memory_type=e.get("memory_type"),
        memory_mib_smi=e.get("memory_mib_smi"),
        sources=dict(e.get("sources", {})),
        notes=e.get("notes"),
        bandwidth_gb_s=None if bandwidth is None else float(bandwidth),
        peak_tflops=peaks,
        tensor_cores=tensor,
        kind=e.get("kind", "cuda"),
    )


@lru_cache(maxsize=1)
def _all() -> tuple[GpuSpec, ...]:
    return tuple(_spec(e) for e in read_json("gpus.json")["gpus"])


def catalog(kind: str | None = "cuda") -> tuple[GpuSpec, ...]:
    """The NVIDIA GPUs in the catalog in file order; kind='mps' gives the Apple chips, None all (lessons 03, 05)."""
    if kind is not None:
        check_choice("kind", kind, KINDS)
    return tuple(g for g in _all() if kind is None or g.kind == kind)


def find_gpu(name: str) -> GpuSpec:
    """Find a GPU by key ('T4'), name ('NVIDIA T4'), torch's name ('Tesla T4') or Mac chip ('Apple M2') (lesson 03)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a string such as 'T4' or 'Tesla T4', got {type(name).__name__} {name!r}")
    wanted = name.strip().casefold()
    for gpu in _all():
        names = (gpu.key, gpu.name, *gpu.torch_names)
        if wanted in (n.casefold() for n in names):
            return gpu
    known = ", ".join(g.key for g in _all())
    raise ValueError(f"name {name!r} is not in the GPU catalog; known keys: {known}")
