"""lessonkit.gpus: bandwidth, dense peaks and Tensor Cores in the catalog (lesson 05)."""

from __future__ import annotations

import pytest

import lessonkit.gpus as gpus
from lessonkit.gpus import _TENSOR_PRECISIONS, PRECISIONS, GpuSpec, catalog, find_gpu

CUDA = catalog()
APPLE = catalog(kind="mps")


def test_catalog_lists_nvidia_gpus_by_default_and_macs_on_request():
    assert all(g.kind == "cuda" for g in CUDA) and all(g.kind == "mps" for g in APPLE)
    assert catalog(kind=None) == CUDA + APPLE  # file order: the NVIDIA cards, then the Macs
    with pytest.raises(ValueError, match=r"kind must be one of \['cuda', 'mps'\], got 'tpu'"):
        catalog(kind="tpu")


@pytest.mark.parametrize("gpu", catalog(kind=None), ids=lambda g: g.key)
def test_every_performance_figure_has_a_source(gpu: GpuSpec):
    if gpu.bandwidth_gb_s is not None:
        assert gpu.sources.get("bandwidth_gb_s", "").startswith("https://"), gpu.key
    for precision in gpu.peak_tflops:
        assert gpu.sources.get(f"peak_tflops.{precision}", "").startswith("https://"), (gpu.key, precision)
    assert set(gpu.tensor_cores) == set(_TENSOR_PRECISIONS)
    assert gpu.sources.get("tensor_cores", "").startswith("https://") or not any(gpu.tensor_cores.values())
    assert gpu.notes, "every entry explains where its figures were read"


def test_every_listed_gpu_has_a_bandwidth_and_the_course_gpus_have_peaks():
    assert all(g.bandwidth_gb_s and g.bandwidth_gb_s > 0 for g in catalog(kind=None))
    for key in ("T4", "V100_SXM2_16GB", "A100_40GB", "A100_80GB", "H100_SXM", "H200", "RTX_3090", "RTX_4090"):
        assert find_gpu(key).peak("fp16") is not None, key
    assert len(APPLE) >= 4


@pytest.mark.parametrize("gpu", CUDA, ids=lambda g: g.key)
def test_tf32_and_bf16_tensor_cores_need_ampere_or_newer(gpu: GpuSpec):
    ampere_or_newer = float(gpu.compute_capability) >= 8.0
    assert gpu.tensor_cores == {"tf32": ampere_or_newer, "fp16": True, "bf16": ampere_or_newer}
    # A Tensor Core peak only exists where the Tensor Cores take that precision.
    for precision in _TENSOR_PRECISIONS:
        if gpu.peak(precision) is not None:
            assert gpu.has_tensor_cores(precision)


@pytest.mark.parametrize("gpu", CUDA, ids=lambda g: g.key)
def test_peaks_are_dense_figures_in_a_sane_order(gpu: GpuSpec):
    fp32, tf32, fp16, bf16 = (gpu.peak(p) for p in PRECISIONS)
    if fp32 and fp16:
        assert fp16 > fp32  # Tensor Cores beat the ordinary cores
    if tf32 and fp16:
        assert fp16 == pytest.approx(2 * tf32, rel=0.02)  # TF32 Tensor math runs at half the FP16 rate
    if bf16 and fp16:
        assert bf16 == fp16
    # Dense, not "with sparsity": no GPU here reaches 1000 dense FP16 TFLOP/s (the H100 is 989.4).
    assert all(v < 1000 for v in gpu.peak_tflops.values())


def test_t4_has_fp16_tensor_cores_only():
    t4 = find_gpu("Tesla T4")
    assert (t4.peak("fp32"), t4.peak("fp16"), t4.peak("tf32"), t4.peak("bf16")) == (8.1, 65.0, None, None)
    assert t4.has_tensor_cores("fp16") and not t4.has_tensor_cores("tf32") and not t4.has_tensor_cores("bf16")
    assert not t4.has_tensor_cores("fp32")
    assert t4.bandwidth_gb_s == 300.0 and t4.ridge_point("fp16") == pytest.approx(65e12 / 300e9)
    assert t4.ridge_point("tf32") is None


def test_h200_and_h100_share_compute_but_not_bandwidth():
    h100, h200 = find_gpu("NVIDIA H100 80GB HBM3"), find_gpu("NVIDIA H200")
    assert h100.peak_tflops == h200.peak_tflops and h200.peak("bf16") == 989.4
    assert (h100.bandwidth_gb_s, h200.bandwidth_gb_s) == (3350.0, 4800.0)


@pytest.mark.parametrize("gpu", APPLE, ids=lambda g: g.key)
def test_apple_entries_are_unified_memory_without_published_tflops(gpu: GpuSpec):
    assert gpu.sources["memory_gb_sold"].startswith("https://") and gpu.memory_gb_sold >= 16
    assert gpu.torch_names[0].startswith("Apple M") and gpu.compute_capability is None
    assert gpu.memory_mib_smi is None and gpu.usable_bytes == round(gpu.memory_gb_sold * 2**30)
    assert gpu.peak_tflops == {} and not any(gpu.tensor_cores.values())
    assert gpu.ridge_point("fp32") is None
    assert find_gpu(gpu.torch_names[0]) is gpu


def test_old_positional_construction_still_works():
    spec = GpuSpec("X", "X", ("X",), "Test", None, 24, None, None)
    assert spec.kind == "cuda" and spec.bandwidth_gb_s is None and spec.peak("fp16") is None
    assert not spec.has_tensor_cores("bf16")


@pytest.mark.parametrize("bad, error", [("fp64", ValueError), ("FP16", ValueError), (16, TypeError)])
def test_precision_is_checked(bad, error):
    with pytest.raises(error, match="precision must be"):
        find_gpu("T4").peak(bad)
    with pytest.raises(error, match="precision must be"):
        find_gpu("T4").has_tensor_cores(bad)


def test_malformed_entries_are_refused():
    entry = {"key": "Z", "name": "Z", "architecture": "Z", "memory_gb_sold": 1, "peak_tflops": {"fp64": 1.0}}
    with pytest.raises(ValueError, match="unknown precision or kind"):
        gpus._spec(entry)
    with pytest.raises(ValueError, match="unknown precision or kind"):
        gpus._spec({**entry, "peak_tflops": {}, "kind": "tpu"})
