"""The sourced data files: GPU catalog, recorded reference results, recorded nvidia-smi printouts."""

from __future__ import annotations

import pytest

from lessonkit.gpus import GpuSpec, catalog, find_gpu
from lessonkit.reference import colab_t4_cuda_total_memory, nvidia_smi_sample, single_runs, sweeps

MIB = 2**20


def test_catalog_has_the_common_gpus():
    keys = [g.key for g in catalog()]
    common = ("T4", "L4", "A10G", "A100_40GB", "A100_80GB_SXM", "A100_80GB_PCIE", "H100_SXM", "H100_PCIE", "H200")
    for key in (*common, "RTX_3090", "RTX_4090"):
        assert key in keys
    assert len(set(keys)) == len(keys)


@pytest.mark.parametrize("gpu", catalog(), ids=lambda g: g.key)
def test_every_catalog_number_has_a_source(gpu: GpuSpec):
    for field in ("memory_gb_sold", "memory_mib_smi", "compute_capability"):
        if getattr(gpu, field) is not None:
            assert gpu.sources.get(field, "").startswith("https://"), f"{gpu.key}.{field} has no source"
    assert gpu.memory_gb_sold > 0 and gpu.torch_names
    # What the driver shows is a little less than, or equal to, the chips' power-of-two size.
    assert 0.9 * gpu.memory_gb_sold * 1024 <= gpu.memory_mib_smi <= 1.03 * gpu.memory_gb_sold * 1024


def test_find_gpu_by_key_name_or_torch_name():
    t4 = find_gpu("Tesla T4")
    assert t4 is find_gpu("T4") is find_gpu("nvidia t4 ")
    assert t4.memory_mib_smi == 15360 and t4.usable_bytes == 15360 * MIB
    assert t4.compute_capability == "7.5" and t4.architecture == "Turing"
    assert find_gpu("NVIDIA H100 80GB HBM3").key == "H100_SXM"


def test_usable_bytes_without_an_smi_figure():
    spec = GpuSpec("X", "X", ("X",), "Test", None, 24, None, None)
    assert spec.usable_bytes == 24 * 2**30


def test_find_gpu_errors_name_the_argument():
    with pytest.raises(ValueError, match=r"name 'Voodoo 2' is not in the GPU catalog; known keys: T4"):
        find_gpu("Voodoo 2")
    with pytest.raises(TypeError, match="name must be a string"):
        find_gpu(4090)


def test_recorded_t4_run_from_the_seed():
    (run,) = [r for r in single_runs() if r["id"] == "colab-t4-seed-5000"]
    assert (run["cpu_s"], run["gpu_first_run_s"], run["gpu_second_run_s"]) == (1.97, 0.21, 0.088)
    assert run["gpu"] == "Tesla T4" and run["source"]
    for sweep in sweeps():
        assert sweep["gpu"] and sweep["source"] and sweep["recorded"]
        for part in ("gpu_sweep", "cpu_sweep"):
            assert len(sweep[part]["sizes"]) == len(sweep[part]["median_s"]) > 0


def test_recorded_nvidia_smi_printouts():
    t4 = nvidia_smi_sample("t4_colab")
    assert "Tesla T4" in t4["text"] and "0MiB / 15360MiB" in t4["text"]
    assert t4["source"].startswith("https://")
    failure = nvidia_smi_sample("driver_failure")
    assert failure["text"].startswith("NVIDIA-SMI has failed because it couldn't communicate")
    with pytest.raises(ValueError, match=r"key must be one of \['driver_failure', 't4_colab'\]"):
        nvidia_smi_sample("h100")


def test_recorded_colab_t4_cuda_total():
    recorded = colab_t4_cuda_total_memory()
    assert recorded["value"] == 15835660288 and recorded["source"].startswith("https://")
    assert recorded["value"] // MIB == 15102  # a little under nvidia-smi's 15360 MiB
