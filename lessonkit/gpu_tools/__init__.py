"""The GPU vendors' own tools, read safely: nvidia-smi, amd-smi and rocm-smi (lesson 01, `lessonkit doctor`).

Each reader runs its tool once, with a time limit and a cap on what it reads, and returns a SmiResult whose
`status` says what happened (SMI_STATUSES); none of them raises on what a tool prints. lessonkit.device
chooses and describes the device; this package only talks to the tools.
"""

from lessonkit.gpu_tools._common import SMI_STATUSES, TOOLS, GpuReading, SmiResult
from lessonkit.gpu_tools.amd import amd_gpus, amd_smi, rocm_smi
from lessonkit.gpu_tools.nvidia import SMI_FIELDS, nvidia_smi

__all__ = [
    "SMI_FIELDS",
    "SMI_STATUSES",
    "TOOLS",
    "GpuReading",
    "SmiResult",
    "amd_gpus",
    "amd_smi",
    "nvidia_smi",
    "rocm_smi",
]
