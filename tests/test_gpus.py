"""lessonkit.gpus: bandwidth, board power, dense peaks and Tensor Cores in the catalog (lessons 05, 06)."""

from __future__ import annotations

import pytest

import lessonkit.gpus as gpus
from lessonkit.gpus import (
    _TENSOR_PRECISIONS,
    FP4_PRECISIONS,
    LOW_PRECISIONS,
    PRECISIONS,
    GpuSpec,
    catalog,
    find_gpu,
    tensor_core_generations,
)

CUDA = catalog()
AMD = catalog(kind="rocm")
APPLE = catalog(kind="mps")


def test_catalog_lists_nvidia_gpus_by_default_and_amd_and_macs_on_request():
    assert all(g.kind == "cuda" for g in CUDA) and all(g.kind == "mps" for g in APPLE)
    assert all(g.kind == "rocm" for g in AMD) and [g.key for g in AMD] == ["MI300X", "MI325X", "MI355X"]
    assert catalog(kind=None) == CUDA + AMD + APPLE  # file order: NVIDIA, then AMD, then the Macs
    assert catalog(("cuda", "rocm")) == CUDA + AMD
    with pytest.raises(ValueError, match=r"kind must be one of \['cuda', 'rocm', 'mps'\], got 'tpu'"):
        catalog(kind="tpu")


@pytest.mark.parametrize("gpu", catalog(kind=None), ids=lambda g: g.key)
def test_every_performance_figure_has_a_source(gpu: GpuSpec):
    for field in ("bandwidth_gb_s", "tdp_w"):
        if getattr(gpu, field) is not None:
            assert gpu.sources.get(field, "").startswith("https://"), (gpu.key, field)
    for precision in gpu.peak_tflops:
        assert gpu.sources.get(f"peak_tflops.{precision}", "").startswith("https://"), (gpu.key, precision)
    for precision in gpu.peak_tops:
        assert gpu.sources.get(f"peak_tops.{precision}", "").startswith("https://"), (gpu.key, precision)
    assert set(gpu.tensor_cores) == set(_TENSOR_PRECISIONS)
    assert gpu.sources.get("tensor_cores", "").startswith("https://") or not any(gpu.tensor_cores.values())
    assert gpu.notes, "every entry explains where its figures were read"


def test_every_listed_gpu_has_a_bandwidth_and_the_course_gpus_have_peaks_and_power():
    assert all(g.bandwidth_gb_s and g.bandwidth_gb_s > 0 for g in catalog(kind=None))
    keys = ("T4", "V100_SXM2_16GB", "A100_40GB", "A100_80GB_SXM", "A100_80GB_PCIE", "H100_SXM", "H100_PCIE", "H200")
    for key in (*keys, "H20", "RTX_3090", "RTX_4090"):
        assert find_gpu(key).peak("fp16") is not None, key
    assert all(g.tdp_w and 50 <= g.tdp_w <= 1000 for g in CUDA), "every NVIDIA board has its board power"
    assert all(g.tdp_w and 700 <= g.tdp_w <= 1400 for g in AMD), "AMD's Total Board Power, MI300X to MI355X"
    assert all(g.tdp_w is None for g in APPLE), "Apple publishes no GPU power figure"
    assert len(APPLE) >= 4


def _expected_tensor_cores(cc: float) -> dict[str, bool]:
    """Volta: FP16; Turing adds INT8 (and INT4); Ampere adds TF32 and BF16; Ada and Hopper add FP8; Blackwell
    (10.0 data centre, 12.0 GeForce) adds FP6 and FP4."""
    return {
        "tf32": cc >= 8.0,
        "fp16": cc >= 7.0,
        "bf16": cc >= 8.0,
        "fp8": cc >= 8.9,
        "int8": cc >= 7.5,
        "fp6": cc >= 10.0,
        "fp4": cc >= 10.0,
    }


def test_the_format_generations_match_the_catalog():
    """The per-generation format list lessons print is the one the catalog's Tensor Core flags follow."""
    generations = tensor_core_generations()
    nvidia = [g for g in generations if g["compute_capability"]]
    assert [g["formats"] for g in nvidia] == [["fp16"], ["int8", "int4"], ["tf32", "bf16"], ["fp8"], ["fp6", "fp4"]]
    for generation in generations:
        assert generation["source"].startswith("https://")
        for key in generation["examples"]:
            gpu = find_gpu(key)
            for fmt in generation["formats"]:
                if fmt != "int4":  # the catalog does not track int4
                    assert gpu.has_tensor_cores(fmt), (key, fmt)


@pytest.mark.parametrize("gpu", CUDA, ids=lambda g: g.key)
def test_tensor_core_formats_follow_the_architecture(gpu: GpuSpec):
    assert gpu.tensor_cores == _expected_tensor_cores(float(gpu.compute_capability))
    # A Tensor Core peak only exists where the Tensor Cores take that precision. int8 is the exception:
    # Pascal runs it on the ordinary cores (DP4A), and the P4's datasheet gives that rate.
    for precision in ("tf32", "fp16", "bf16", "fp8"):
        if gpu.peak(precision) is not None:
            assert gpu.has_tensor_cores(precision), precision
    if gpu.peak("int8") is not None and not gpu.has_tensor_cores("int8"):
        assert "DP4A" in gpu.notes


@pytest.mark.parametrize("gpu", CUDA, ids=lambda g: g.key)
def test_peaks_are_dense_figures_in_a_sane_order(gpu: GpuSpec):
    fp32, tf32, fp16, bf16, fp8, int8 = (gpu.peak(p) for p in PRECISIONS + LOW_PRECISIONS)
    if fp32 and fp16:
        assert fp16 > fp32  # Tensor Cores beat the ordinary cores
    if tf32 and fp16:
        assert fp16 == pytest.approx(2 * tf32, rel=0.02)  # TF32 Tensor math runs at half the FP16 rate
    if bf16 and fp16:
        assert bf16 == fp16
    if fp8 and fp16:
        assert fp8 == pytest.approx(2 * fp16, rel=0.02)  # 8-bit Tensor math runs at twice the 16-bit rate
    if int8 and fp16:
        assert int8 >= 0.99 * 2 * fp16  # INT8 runs at least at twice the FP16 rate (GeForce's FP16 figure is halved)
    # Dense, not "with sparsity": before Blackwell no GPU reaches 1000 dense 16-bit TFLOP/s (the H100 SXM is
    # 989.4), nor 2000 dense 8-bit TFLOP/s or TOPS (1978.9); the B200 reaches 2250 and 4500 (HGX B200 / 8 / 2).
    bound = 2.5 if float(gpu.compute_capability) >= 10 else 1.0
    assert all(v < 1000 * bound for p, v in gpu.peak_tflops.items() if p in ("fp32", "tf32", "fp16", "bf16", "fp64"))
    assert all(v < 2000 * bound for v in (fp8 or 0, int8 or 0))
    fp4 = gpu.peak("fp4")
    if fp4 and fp8:
        assert fp4 == pytest.approx(2 * fp8, rel=0.02) or fp4 == pytest.approx(4 * fp8, rel=0.02)  # GeForce: FP32 acc.


def test_t4_has_fp16_and_int8_tensor_cores_only():
    t4 = find_gpu("Tesla T4")
    assert (t4.peak("fp32"), t4.peak("fp16"), t4.peak("tf32"), t4.peak("bf16")) == (8.1, 65.0, None, None)
    assert (t4.peak("int8"), t4.peak("fp8"), t4.tdp_w) == (130.0, None, 70.0)
    assert t4.has_tensor_cores("fp16") and t4.has_tensor_cores("int8")
    assert not any(t4.has_tensor_cores(p) for p in ("fp32", "tf32", "bf16", "fp8"))
    assert t4.bandwidth_gb_s == 300.0 and t4.ridge_point("fp16") == pytest.approx(65e12 / 300e9)
    assert t4.ridge_point("tf32") is None


def test_t4_keeps_the_datasheet_bandwidth_and_records_the_other_published_figure():
    t4 = find_gpu("T4")
    assert (t4.bandwidth_gb_s, t4.other_published) == (300.0, {"bandwidth_gb_s": 320.0})
    assert "datasheet" in t4.sources["bandwidth_gb_s"] and "tesla-t4" in t4.sources["other_published.bandwidth_gb_s"]
    assert "256-bit" in t4.notes and "10 Gbps" in t4.notes  # why 320: 256 bits x 10 Gbps / 8


def test_l4_has_every_datasheet_peak():
    l4 = find_gpu("L4")
    assert [l4.peak(p) for p in PRECISIONS + LOW_PRECISIONS] == [30.3, 60.0, 121.0, 121.0, 242.5, 242.5]
    assert l4.tdp_w == 72.0 and l4.per_watt("bf16") == pytest.approx(121 / 72)


def test_the_80gb_a100_is_one_entry_per_board():
    sxm, pcie = find_gpu("NVIDIA A100-SXM4-80GB"), find_gpu("NVIDIA A100 80GB PCIe")
    assert (sxm.key, pcie.key) == ("A100_80GB_SXM", "A100_80GB_PCIE")
    assert (sxm.bandwidth_gb_s, pcie.bandwidth_gb_s, sxm.tdp_w, pcie.tdp_w) == (2039.0, 1935.0, 400.0, 300.0)
    assert sxm.peak_tflops == pcie.peak_tflops and sxm.peak("int8") == 624.0 and sxm.peak("fp8") is None
    split = "'A100_80GB' was split into one entry per board: A100_80GB_SXM, A100_80GB_PCIE"
    with pytest.raises(ValueError, match=split):
        find_gpu("A100_80GB")


def test_hopper_boards():
    h100, pcie, h800, h200 = (find_gpu(k) for k in ("NVIDIA H100 80GB HBM3", "H100_PCIE", "NVIDIA H800", "NVIDIA H200"))
    assert h100.peak_tflops == h200.peak_tflops == h800.peak_tflops and h200.peak("bf16") == 989.4
    assert (h100.peak("fp8"), h100.peak("int8"), h100.tdp_w) == (1978.9, 1978.9, 700.0)
    assert (h100.bandwidth_gb_s, h200.bandwidth_gb_s) == (3350.0, 4800.0)
    assert (pcie.memory_gb_sold, pcie.bandwidth_gb_s, pcie.peak("bf16"), pcie.tdp_w) == (80, 2000.0, 756.5, 350.0)
    h20 = find_gpu("NVIDIA H20")
    assert (h20.memory_gb_sold, h20.bandwidth_gb_s, h20.peak("bf16"), h20.tdp_w) == (96, 4000.0, 148.0, 400.0)


@pytest.mark.parametrize("gpu", APPLE, ids=lambda g: g.key)
def test_apple_entries_are_unified_memory_without_published_tflops(gpu: GpuSpec):
    assert gpu.sources["memory_gb_sold"].startswith("https://www.apple.com/") and gpu.memory_gb_sold >= 16
    assert gpu.torch_names[0].startswith("Apple M") and gpu.compute_capability is None
    assert gpu.memory_mib_smi is None and gpu.usable_bytes == round(gpu.memory_gb_sold * 2**30)
    assert gpu.peak_tflops == {} and gpu.peak_tops == {} and not any(gpu.tensor_cores.values())
    assert gpu.ridge_point("fp32") is None and gpu.per_watt("fp32") is None
    assert find_gpu(gpu.torch_names[0]) is gpu


def test_old_positional_construction_still_works():
    spec = GpuSpec("X", "X", ("X",), "Test", None, 24, None, None)
    assert spec.kind == "cuda" and spec.bandwidth_gb_s is None and spec.peak("fp16") is None
    assert spec.tdp_w is None and spec.peak("int8") is None and spec.per_watt("fp16") is None
    assert not spec.has_tensor_cores("bf16")


@pytest.mark.parametrize(
    "bad, error", [("fp128", ValueError), ("FP16", ValueError), ("int4", ValueError), (16, TypeError)]
)
def test_precision_is_checked(bad, error):
    for method in ("peak", "has_tensor_cores", "ridge_point", "per_watt"):
        with pytest.raises(error, match="precision must be"):
            getattr(find_gpu("T4"), method)(bad)


def test_malformed_entries_are_refused():
    entry = {"key": "Z", "name": "Z", "architecture": "Z", "memory_gb_sold": 1, "peak_tflops": {"fp128": 1.0}}
    with pytest.raises(ValueError, match="unknown precision or kind"):
        gpus._spec(entry)
    with pytest.raises(ValueError, match="unknown precision or kind"):
        gpus._spec({**entry, "peak_tflops": {}, "kind": "tpu"})
    with pytest.raises(ValueError, match=r"unknown precision or kind: \['int8'\]"):
        gpus._spec({**entry, "peak_tflops": {"int8": 1.0}})  # int8 is counted in TOPS, under peak_tops
    with pytest.raises(ValueError, match=r"unknown precision or kind: \['int4'\]"):
        gpus._spec({**entry, "peak_tflops": {}, "peak_tops": {"int4": 1.0}})


# --- what a program can allocate (lesson 05's fits) ----------------------------------------------


def test_the_t4_allocates_cudas_recorded_total_not_nvidia_smis():
    from lessonkit.reference import colab_t4_cuda_total_memory

    t4 = find_gpu("T4")
    recorded = colab_t4_cuda_total_memory()["value"]  # a deviceQuery on a Colab T4, with its source
    assert t4.cuda_total_bytes == t4.allocatable_bytes == recorded < t4.usable_bytes == 15360 * 2**20
    assert t4.allocatable_basis == "the total CUDA reports on a Colab T4"


@pytest.mark.parametrize("gpu", catalog(kind=None), ids=lambda g: g.key)
def test_without_a_recorded_cuda_total_the_basis_says_which_figure_is_used(gpu: GpuSpec):
    if gpu.cuda_total_bytes is not None:
        assert gpu.allocatable_bytes == gpu.cuda_total_bytes <= gpu.usable_bytes
        return
    assert gpu.allocatable_bytes == gpu.usable_bytes
    if gpu.kind == "mps":
        assert "torch.mps.recommended_max_memory()" in gpu.allocatable_basis
    elif gpu.kind == "rocm":
        assert "ROCm reports a little less" in gpu.allocatable_basis
    else:
        assert "CUDA reports a little less" in gpu.allocatable_basis


def test_a_gpu_check_run_that_kept_cudas_total_is_used(monkeypatch):
    run = {"gpu": "NVIDIA H200", "report": "reports/gpu-check-x.json", "total_memory_bytes": 150_109_880_320}
    monkeypatch.setattr(gpus, "gpu_checks", lambda: [run])
    gpus._recorded_cuda_totals.cache_clear()
    try:
        h200 = find_gpu("H200")
        assert h200.allocatable_bytes == 150_109_880_320 < h200.usable_bytes
        assert h200.allocatable_basis == "the total CUDA reported in reports/gpu-check-x.json"
        assert find_gpu("T4").cuda_total_bytes is not None  # the Colab T4's stays
    finally:
        gpus._recorded_cuda_totals.cache_clear()


@pytest.mark.parametrize("name", ["RTX 4090", "rtx-4090", "Rtx_4090", "NVIDIA GeForce RTX 4090"])
def test_a_gpu_name_may_use_spaces_dashes_or_underscores(name):
    assert find_gpu(name).key == "RTX_4090"


def test_a_name_shared_by_two_boards_is_refused():
    with pytest.raises(ValueError, match="'H100' is not in the GPU catalog"):
        find_gpu("H100")  # SXM or PCIe: the catalog will not guess


# --- the GPUs clouds rent in 2026 (issue 26) ---------------------------------------------------------------


def test_blackwell_boards():
    b200, rtx5090 = find_gpu("NVIDIA B200"), find_gpu("NVIDIA GeForce RTX 5090")
    assert (b200.memory_gb_sold, b200.memory_mib_smi, b200.bandwidth_gb_s, b200.tdp_w) == (180, 183359, 8000.0, 1000.0)
    assert [b200.peak(p) for p in ("bf16", "fp8", "fp4", "fp64")] == [2250.0, 4500.0, 9000.0, 37.0]
    assert (b200.link, b200.link_gb_s) == ("NVLink 5", 1800.0)
    assert (rtx5090.memory_mib_smi, rtx5090.bandwidth_gb_s, rtx5090.peak("fp16"), rtx5090.peak("fp4")) == (
        32607,
        1792.0,
        209.5,
        1676.0,
    )
    for gpu, target in ((b200, "sm_100"), (rtx5090, "sm_120")):  # Blackwell needs CUDA 12.8 or newer
        assert gpu.min_software["toolkit"] == "CUDA" and gpu.min_software["version"] == "12.8"
        assert gpu.min_software["target"] == target and "12.8" in gpu.min_software["pytorch"]
        assert all(gpu.has_tensor_cores(p) for p in FP4_PRECISIONS)
    assert not any(find_gpu("H200").has_tensor_cores(p) for p in FP4_PRECISIONS)


def test_the_l40s_is_a_pcie_card_with_ecc():
    l40s = find_gpu("L40S")
    assert (l40s.memory_gb_sold, l40s.memory_mib_smi, l40s.bandwidth_gb_s, l40s.tdp_w) == (48, 46068, 864.0, 350.0)
    assert (l40s.link, l40s.link_gb_s, l40s.ecc) == ("PCIe only", 64.0, "on")
    assert (l40s.peak("bf16"), l40s.peak("fp8"), l40s.peak("int8")) == (362.05, 733.0, 733.0)


def test_consumer_ecc_as_nvidia_smi_shows_it():
    """Issue 26 item 1: the RTX 4090 has ECC (off as shipped), the RTX 3090 and RTX 5090 have none."""
    assert find_gpu("RTX_4090").ecc == "off (can be switched on)"
    assert find_gpu("RTX_3090").ecc == find_gpu("RTX_5090").ecc == "none"
    assert "nvidia-smi -e 1" in find_gpu("RTX_4090").notes


@pytest.mark.parametrize("gpu", AMD, ids=lambda g: g.key)
def test_amd_instinct_boards(gpu: GpuSpec):
    assert gpu.compute_capability is None and gpu.memory_mib_smi is None
    assert gpu.min_software["toolkit"] == "ROCm" and gpu.min_software["target"] in ("gfx942", "gfx950")
    assert gpu.link == "AMD Infinity Fabric" and gpu.link_gb_s >= 896
    fp16, fp8, int8 = gpu.peak("fp16"), gpu.peak("fp8"), gpu.peak("int8")
    assert fp8 == pytest.approx(2 * fp16, rel=0.001) and int8 == fp8 and gpu.peak("bf16") == fp16
    assert gpu.usable_bytes == round(gpu.memory_gb_sold * 2**30)  # no nvidia-smi total: the advertised GB as GiB


def test_which_single_gpu_holds_llama_3_70b_in_fp16_now_includes_blackwell_and_amd():
    """Lesson 03's question, asked of the catalog: 70.6 billion parameters x 2 bytes of weights."""
    weights = 70_553_706_496 * 2
    holders = [g.key for g in catalog(("cuda", "rocm")) if g.usable_bytes >= weights]
    assert holders == ["H200", "B200", "MI300X", "MI325X", "MI355X"]


def test_the_h800_differs_from_the_h100_where_it_really_does():
    h100, h800 = find_gpu("H100_SXM"), find_gpu("H800_SXM")
    assert h100.peak_tflops == h800.peak_tflops and h100.bandwidth_gb_s == h800.bandwidth_gb_s
    assert (h100.link_gb_s, h800.link_gb_s) == (900.0, 400.0)
    assert "FP64" in h800.notes and h800.export_control[0]["date"] == "2023-10-17"
    a100, a800 = find_gpu("A100_80GB_SXM"), find_gpu("A800_80GB_SXM")
    assert (a100.link_gb_s, a800.link_gb_s) == (600.0, 400.0)
