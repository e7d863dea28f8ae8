"""A small catalog of common GPUs: memory, bandwidth, power, peaks, Tensor Cores, links, sourced (lessons 03, 05, 06).

NVIDIA cards are kind "cuda", AMD Instinct cards kind "rocm" (PyTorch drives both through torch.cuda) and Apple
chips kind "mps"; catalog() lists the NVIDIA ones unless asked for another kind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from lessonkit._checks import check_choice
from lessonkit._data import read_json
from lessonkit.i18n import Lazy, _, lazy, text
from lessonkit.reference import colab_t4_cuda_total_memory, gpu_checks
from lessonkit.units import GIB, MIB

# The precisions the lessons time a matmul in: "fp32" on the ordinary cores, the rest on Tensor Cores.
PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
# Inference formats with a published peak but no matmul timed here: "fp8" in TFLOP/s, "int8" in TOPS.
LOW_PRECISIONS = ("fp8", "int8")
# The 6- and 4-bit floating-point formats Blackwell and CDNA 4 added (FP6, FP4: NVFP4 and the OCP MX formats).
FP4_PRECISIONS = ("fp6", "fp4")
# Double precision, on the ordinary cores: the figure an export variant (H800) or an inference part (B300) cuts.
FP64 = "fp64"
_TENSOR_PRECISIONS = ("tf32", "fp16", "bf16", "fp8", "int8", "fp6", "fp4")
_ALL_PRECISIONS = PRECISIONS + LOW_PRECISIONS + FP4_PRECISIONS + (FP64,)
KINDS = ("cuda", "rocm", "mps")


@dataclass(frozen=True)
class GpuSpec:
    """One GPU board from `lessonkit/data/gpus.json`; `sources` maps each field to where it came from (lessons 03-07).

    `bandwidth_gb_s` is the advertised memory bandwidth in GB/s (10**9 bytes per second); `other_published` holds a
    second figure the vendor also prints for a field. `tdp_w` is the board power in watts (None: not published).
    `peak_tflops` holds dense peaks (never the "with sparsity" figures) in TFLOP/s for fp32, tf32, fp16, bf16, fp8,
    fp6, fp4 and fp64; `peak_tops` the dense int8 peak in TOPS; a precision without a published figure is absent.
    `tensor_cores` says whether the Tensor Cores (AMD: Matrix Cores) take "tf32", "fp16", "bf16", "fp8", "int8",
    "fp6" and "fp4". `kind` is "cuda" (NVIDIA), "rocm" (AMD) or "mps" (Apple). `interconnect` is how a data-centre
    GPU talks to the others: {"gpu_to_gpu": "NVLink 4" or "PCIe only" or "Infinity Fabric", "gb_s": total GB/s per
    GPU, both directions, as the vendor prints it (None where it prints none), "host": the PCIe link}.
    `min_software` is the oldest toolkit that compiles for it ({"toolkit": "CUDA", "version": "12.8", "target":
    "sm_100", ...}); `ecc` what nvidia-smi shows of its memory's error correction, where recorded; `export_control`
    dated facts about who may buy it, each {"date", "fact", "source"}.
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
    tdp_w: float | None = None
    peak_tops: dict[str, float] = field(default_factory=dict, compare=False)
    other_published: dict[str, float] = field(default_factory=dict, compare=False)
    interconnect: dict[str, object] = field(default_factory=dict, compare=False)
    min_software: dict[str, str] = field(default_factory=dict, compare=False)
    ecc: str | None = None
    export_control: tuple[dict[str, str], ...] = ()

    @property
    def link_gb_s(self) -> float | None:
        """GPU-to-GPU bandwidth per GPU in GB/s, both directions, as the vendor prints it; None: unknown (lesson 10)."""
        value = self.interconnect.get("gb_s")
        return None if value is None else float(value)

    @property
    def link(self) -> str | None:
        """How this GPU talks to the others: 'NVLink 4', 'Infinity Fabric', 'PCIe only'; None if unknown (lesson 10)."""
        value = self.interconnect.get("gpu_to_gpu")
        return None if value is None else str(value)

    @property
    def usable_bytes(self) -> int:
        """Memory the driver reports (nvidia-smi's MiB), else the advertised figure read as GiB (lesson 03)."""
        if self.memory_mib_smi is not None:
            return self.memory_mib_smi * MIB
        # An approximation: memory chips come in powers of two, so a "24 GB" card carries about 24 GiB.
        return round(self.memory_gb_sold * GIB)

    @property
    def cuda_total_bytes(self) -> int | None:
        """The total CUDA (and so torch) reports for this board, where one is recorded; else None (lessons 03, 05)."""
        recorded = _recorded_cuda_totals().get(self.key) if self.kind == "cuda" else None
        return None if recorded is None else recorded[0]

    @property
    def allocatable_bytes(self) -> int:
        """The most memory a program can ask for: CUDA's total where recorded, else usable_bytes (lesson 05).

        `allocatable_basis` says which figure this is. On a Mac this is all the unified memory: Metal
        recommends one program use less, and only that Mac's torch.mps.recommended_max_memory() says how much.
        """
        return self.cuda_total_bytes or self.usable_bytes

    @property
    def allocatable_basis(self) -> str:
        """Which figure allocatable_bytes is, in words, for fits() and the fit tables to print (lesson 05)."""
        if self.kind == "mps":
            return _(
                "all its unified memory; Metal recommends one program use less: "
                "torch.mps.recommended_max_memory() on that Mac says how much"
            )
        if self.cuda_total_bytes is not None:
            return text(_recorded_cuda_totals()[self.key][1])
        if self.kind == "rocm":
            return _("the advertised {gb:g} GB read as GiB; ROCm reports a little less").format(gb=self.memory_gb_sold)
        if self.memory_mib_smi is None:
            return _("the advertised {gb:g} GB read as GiB; CUDA reports a little less").format(gb=self.memory_gb_sold)
        return _("nvidia-smi's total; CUDA reports a little less, so a tight fit may still fail")

    def peak(self, precision: str) -> float | None:
        """Dense peak in TFLOP/s (TOPS for 'int8'): PRECISIONS, LOW_PRECISIONS, FP4_PRECISIONS or 'fp64' (lesson 06)."""
        check_choice("precision", precision, _ALL_PRECISIONS)
        return (self.peak_tops if precision == "int8" else self.peak_tflops).get(precision)

    def has_tensor_cores(self, precision: str) -> bool:
        """Whether a matmul in this precision can run on the Tensor Cores ('fp32', 'fp64' never do here) (lesson 06)."""
        check_choice("precision", precision, _ALL_PRECISIONS)
        return bool(self.tensor_cores.get(precision, False))

    def ridge_point(self, precision: str) -> float | None:
        """Operations per byte at which the compute roof meets the memory roof: peak / bandwidth (lesson 06)."""
        peak = self.peak(precision)
        if peak is None or not self.bandwidth_gb_s:
            return None
        return peak * 1e12 / (self.bandwidth_gb_s * 1e9)

    def per_watt(self, precision: str) -> float | None:
        """Dense peak per watt of board power, in TFLOP/s (TOPS for 'int8') per W; None without both (lesson 05)."""
        peak = self.peak(precision)
        if peak is None or not self.tdp_w:
            return None
        return peak / self.tdp_w


@lru_cache(maxsize=1)
def _recorded_cuda_totals() -> dict[str, tuple[int, Lazy]]:
    """key -> (CUDA's total in bytes, where it was recorded): a Colab T4's and any gpu-check run's (lesson 05).

    Where it was recorded is a Lazy, shown in the language lessonkit speaks when it is read.
    """
    found = {"T4": (int(colab_t4_cuda_total_memory()["value"]), lazy("the total CUDA reports on a Colab T4"))}
    for run in gpu_checks():  # `make gpu-check` records torch's total_memory where the run kept it
        if run.get("total_memory_bytes"):
            key = find_gpu(run["gpu"]).key
            where = lazy("the total CUDA reported in {report}", report=run["report"])
            found.setdefault(key, (int(run["total_memory_bytes"]), where))
    return found


def _floats(e: dict, name: str) -> dict[str, float]:
    return {str(k): float(v) for k, v in (e.get(name) or {}).items()}


def _spec(e: dict) -> GpuSpec:
    peaks, tops, tensor = _floats(e, "peak_tflops"), _floats(e, "peak_tops"), dict(e.get("tensor_cores") or {})
    allowed = {*PRECISIONS, "fp8", *FP4_PRECISIONS, FP64}
    unknown = (set(peaks) - allowed) | (set(tops) - {"int8"}) | (set(tensor) - set(_TENSOR_PRECISIONS))
    if unknown or e.get("kind", "cuda") not in KINDS:
        raise ValueError(f"gpus.json entry {e.get('key')!r} has an unknown precision or kind: {sorted(unknown)}")
    bandwidth, tdp = e.get("bandwidth_gb_s"), e.get("tdp_w")
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
        tensor_cores={str(k): bool(v) for k, v in tensor.items()},
        kind=e.get("kind", "cuda"),
        tdp_w=None if tdp is None else float(tdp),
        peak_tops=tops,
        other_published=_floats(e, "other_published"),
        interconnect=dict(e.get("interconnect") or {}),
        min_software={str(k): str(v) for k, v in (e.get("min_software") or {}).items()},
        ecc=e.get("ecc"),
        export_control=tuple(dict(fact) for fact in e.get("export_control") or ()),
    )


@lru_cache(maxsize=1)
def _all() -> tuple[GpuSpec, ...]:
    return tuple(_spec(e) for e in read_json("gpus.json")["gpus"])


def catalog(kind: str | tuple[str, ...] | None = "cuda") -> tuple[GpuSpec, ...]:
    """The NVIDIA GPUs in the catalog in file order; kind='rocm' gives AMD's, 'mps' Apple's chips, a tuple of kinds
    those kinds ('cuda', 'rocm'), None all of them (lessons 03, 05, 06)."""
    if kind is None:
        return _all()
    kinds = (kind,) if isinstance(kind, str) or not isinstance(kind, tuple) else kind
    for one in kinds:
        check_choice("kind", one, KINDS)
    return tuple(g for g in _all() if g.kind in kinds)


@lru_cache(maxsize=1)
def tensor_core_generations() -> tuple[dict, ...]:
    """Which number formats each GPU generation's Tensor Cores (AMD: Matrix Cores) added, with sources (lesson 06).

    Each entry: {"formats", "architecture", "compute_capability", "examples", "source"}, oldest first.
    """
    return tuple(dict(g) for g in read_json("gpus.json")["tensor_core_generations"])


def find_gpu(name: str) -> GpuSpec:
    """Find a GPU by key ('T4'), name ('NVIDIA T4'), torch's name ('Tesla T4') or Mac chip ('Apple M2') (lesson 03)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a string such as 'T4' or 'Tesla T4', got {type(name).__name__} {name!r}")
    wanted = name.strip().casefold()
    for gpu in _all():
        names = (gpu.key, gpu.name, *gpu.torch_names)
        if wanted in (n.casefold() for n in names):
            return gpu
    squeezed = _squeeze(name)  # 'RTX 4090', 'rtx-4090' and 'RTX_4090' are one name
    matches = [g for g in _all() if squeezed and squeezed in {_squeeze(n) for n in (g.key, g.name, *g.torch_names)}]
    if len(matches) == 1:
        return matches[0]
    for old, new in read_json("gpus.json").get("renamed", {}).items():
        if wanted == old.casefold():
            raise ValueError(f"name {name!r} was split into one entry per board: {', '.join(new)}")
    known = ", ".join(g.key for g in _all())
    raise ValueError(f"name {name!r} is not in the GPU catalog; known keys: {known}")


def _squeeze(name: str) -> str:
    """A GPU name without case, spaces, dashes or underscores: 'RTX 4090' -> 'rtx4090'."""
    return re.sub(r"[\s_\-]+", "", name.casefold())
