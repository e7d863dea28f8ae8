"""A small catalog of common GPUs (memory as sold and as nvidia-smi shows it), each number sourced (lesson 03)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

MIB = 2**20
GIB = 2**30


@dataclass(frozen=True)
class GpuSpec:
    """One GPU model from `lessonkit/data/gpus.json`; `sources` maps each field to where it came from (lesson 03)."""

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

    @property
    def usable_bytes(self) -> int:
        """Memory the driver reports (nvidia-smi's MiB), else the advertised figure read as GiB (lesson 03)."""
        if self.memory_mib_smi is not None:
            return self.memory_mib_smi * MIB
        # An approximation: memory chips come in powers of two, so a "24 GB" card carries about 24 GiB.
        return round(self.memory_gb_sold * GIB)


@lru_cache(maxsize=1)
def catalog() -> tuple[GpuSpec, ...]:
    """Every GPU in the catalog, in the order of the data file (lesson 03)."""
    text = resources.files("lessonkit").joinpath("data/gpus.json").read_text("utf-8")
    entries = json.loads(text)["gpus"]
    return tuple(
        GpuSpec(
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
        )
        for e in entries
    )


def find_gpu(name: str) -> GpuSpec:
    """Look a GPU up by catalog key ('T4'), name ('NVIDIA T4') or the name torch reports ('Tesla T4') (lesson 03)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a string such as 'T4' or 'Tesla T4', got {type(name).__name__} {name!r}")
    wanted = name.strip().casefold()
    for gpu in catalog():
        names = (gpu.key, gpu.name, *gpu.torch_names)
        if wanted in (n.casefold() for n in names):
            return gpu
    known = ", ".join(g.key for g in catalog())
    raise ValueError(f"name {name!r} is not in the GPU catalog; known keys: {known}")
