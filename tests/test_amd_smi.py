"""AMD's GPU tools, amd-smi and rocm-smi, as they really print and fail, and the doctor on an AMD GPU (issue 26).

Each case puts a fake tool (a shell script) first on PATH. Where a real printout exists
(lessonkit/data/amd_smi_samples.json, each with its source) the fake prints exactly that; the amd-smi JSON
fakes are built from the key names the recorded printouts and the amd-smi CLI's source show, and a test below
checks every key the reader relies on against those records.
"""

from __future__ import annotations

import json
import time
import types

import pytest
import torch

from lessonkit import device as device_module
from lessonkit import doctor
from lessonkit.__main__ import main
from lessonkit._data import read_json
from lessonkit.device import describe_device, spec_for_device
from lessonkit.gpu_tools import _common as limits
from lessonkit.gpu_tools import amd, amd_gpus, amd_smi, rocm_smi
from lessonkit.reference import amd_smi_sample

ROCM_RX7900 = amd_smi_sample("rocm_smi_json_rx7900xt")
MI300X_MIB = 196608  # the fake's VRAM: 192 GiB


def amd_smi_json(*gpus: tuple[int, str, object], wrapped: bool = True) -> str:
    """`amd-smi static --asic --vram --driver --json` for (index, market name, vram size) triples."""
    records = [
        {
            "gpu": index,
            "asic": {"market_name": name, "target_graphics_version": "gfx942"},
            "vram": {"type": "HBM", "size": size},
            "driver": {"name": "amdgpu", "version": "6.8.5"},
        }
        for index, name, size in gpus
    ]
    return json.dumps({"gpu_data": records} if wrapped else records, indent=4) + "\n"


MI300X_X2 = amd_smi_json(
    (0, "AMD Instinct MI300X", {"value": MI300X_MIB, "unit": "MB"}),
    (1, "AMD Instinct MI300X", {"value": MI300X_MIB, "unit": "MB"}),
)


# --- the recorded printouts -----------------------------------------------------------------------


def test_every_recorded_sample_has_a_source_and_says_what_was_run():
    data = read_json("amd_smi_samples.json")
    for key, sample in data["samples"].items():
        assert sample["source"].startswith("https://github.com/"), key
        assert sample["tool"] in ("amd-smi", "rocm-smi") and sample["command"].startswith(sample["tool"]), key
        assert sample["stdout"] or sample["stderr"], key
        assert sample["exit_status"] is not None or sample["exit_status_source"], key
    for what, keys in data["json_keys"].items():
        assert keys["source"].startswith("https://github.com/ROCm/"), what


def test_the_keys_the_reader_relies_on_are_in_the_records():
    """Every amd-smi key amd._amd_smi_entry reads is in a recorded printout or in the CLI source the file cites."""
    data = read_json("amd_smi_samples.json")
    printed = " ".join(s["stdout"] for s in data["samples"].values() if s["tool"] == "amd-smi")
    documented = set(data["json_keys"]["amd-smi static"]["keys"])
    for key in ("gpu_data", "gpu", "asic", "market_name", "value", "unit"):
        assert f'"{key}"' in printed, key  # seen in a real printout
    for key in ("vram", "size", "driver", "version"):
        assert key in documented, key  # named by the CLI's source
    for phrase in amd._NO_GPU[:1] + amd._NO_DRIVER:
        assert any(phrase in (s["stdout"] + s["stderr"]).lower() for s in data["samples"].values()), phrase


# --- rocm-smi --------------------------------------------------------------------------------------


def test_rocm_smi_reads_its_real_json(fake_tool):
    calls = fake_tool("rocm-smi", stdout=ROCM_RX7900["stdout"])
    result = rocm_smi()
    assert result.status == "ok" and result.tool == "rocm-smi" and result.problems == ()
    (gpu,) = result.gpus
    assert (gpu.index, gpu.name) == (0, "Radeon RX 7900 XT")
    assert (gpu.memory_total_mib, gpu.memory_used_mib, gpu.utilization_pct) == (20464, 26, 0)  # bytes -> MiB
    assert gpu.driver_version is None and gpu.memory_free_mib == 20464 - 26
    assert calls.read_text().split() == ["rocm-smi", *amd.ROCM_SMI_ARGS]
    assert str(result).startswith("GPU 0: Radeon RX 7900 XT | memory 26 MiB used of 20464 MiB | utilisation 0%")


def test_rocm_smi_one_line_json_as_rocm_smi_prints_it(fake_tool):
    fake_tool("rocm-smi", stdout=json.dumps(json.loads(ROCM_RX7900["stdout"])) + "\n")
    assert rocm_smi().gpus[0].memory_total_mib == 20464


def test_rocm_smi_without_the_driver_exits_0_yet_is_a_failure(fake_tool):
    sample = amd_smi_sample("rocm_smi_no_driver")
    fake_tool("rocm-smi", stdout=sample["stdout"], stderr=sample["stderr"], exit_status=sample["exit_status"])
    result = rocm_smi()
    assert result.gpus is None and result.status == "failed"
    assert "rocm-smi says the amdgpu driver is not loaded" in result.reason and "initstate" in result.reason


def test_rocm_smi_without_a_gpu(fake_tool):
    sample = amd_smi_sample("rocm_smi_no_gpu")
    fake_tool("rocm-smi", stdout=sample["stdout"], stderr=sample["stderr"] + "WARNING: No JSON data to report\n")
    result = rocm_smi()
    assert result.status == "no_devices" and "No AMD GPUs specified" in result.reason


def test_rocm_smi_impossible_readings_are_named(fake_tool):
    card = json.loads(ROCM_RX7900["stdout"])["card0"]
    odd = {"card0": card | {"VRAM Total Used Memory (B)": str(40 * 2**30), "GPU use (%)": "250"}}
    odd["card1"] = card | {"Card Series": "Radeon RX 7900 XT"}
    fake_tool("rocm-smi", stdout=json.dumps(odd))
    result = rocm_smi()
    assert result.status == "partial" and len(result.gpus) == 2
    assert any("40960 MiB used of 20464 MiB, more than it has" in p for p in result.implausible)
    assert any("250% utilisation, over 100%" in p for p in result.implausible)
    assert result.gpus[0].memory_free_mib is None  # never a negative free memory


# --- amd-smi ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("wrapped", [True, False], ids=["gpu_data", "bare-list"])
def test_amd_smi_reads_both_json_forms(fake_tool, wrapped):
    calls = fake_tool(
        "amd-smi", stdout=amd_smi_json((0, "AMD Instinct MI300X", {"value": MI300X_MIB, "unit": "MB"}), wrapped=wrapped)
    )
    result = amd_smi()
    assert result.status == "ok" and result.tool == "amd-smi"
    (gpu,) = result.gpus
    assert (gpu.name, gpu.memory_total_mib, gpu.driver_version) == ("AMD Instinct MI300X", MI300X_MIB, "6.8.5")
    assert gpu.memory_used_mib is None and gpu.utilization_pct is None
    assert calls.read_text().split() == ["amd-smi", *amd.AMD_SMI_ARGS]


def test_amd_smi_with_warnings_before_its_json(fake_tool):
    """Python's SyntaxWarnings (the RX 7800 XT printout) or a 'WARNING:' line must not hide the JSON."""
    sample = amd_smi_sample("amd_smi_static_json_rx7800xt")
    fake_tool(
        "amd-smi",
        stdout="WARNING: User is missing the following required groups: render\n" + MI300X_X2,
        stderr=sample["stderr"],
    )
    result = amd_smi()
    assert result.status == "ok" and [g.index for g in result.gpus] == [0, 1]


def test_amd_smi_na_and_gb_sizes(fake_tool):
    fake_tool(
        "amd-smi",
        stdout=amd_smi_json(
            (0, "AMD Instinct MI325X", {"value": 256, "unit": "GB"}), (1, "AMD Instinct MI325X", "N/A")
        ),
    )
    first, second = amd_smi().gpus
    assert first.memory_total_mib == 256 * 1024 and second.memory_total_mib is None


def test_amd_smi_without_the_driver(fake_tool):
    sample = amd_smi_sample("amd_smi_no_driver")
    fake_tool("amd-smi", stderr=sample["stderr"], exit_status=255)
    result = amd_smi()
    assert result.status == "failed" and "amd-smi says the amdgpu driver is not loaded" in result.reason


def test_amd_smi_without_a_gpu(fake_tool):
    fake_tool(
        "amd-smi",
        stderr="ERROR: Unable to detect any GPU devices, check amdgpu version and module status "
        "(sudo modprobe amdgpu)\n",
        exit_status=255,
    )
    result = amd_smi()
    assert result.status == "no_devices" and "amd-smi found no AMD GPU" in result.reason


def test_amd_smi_failing_after_a_reading_keeps_the_reading(fake_tool):
    fake_tool("amd-smi", stdout=MI300X_X2, stderr="ERROR: one GPU did not answer\n", exit_status=1)
    result = amd_smi()
    assert result.status == "partial" and len(result.gpus) == 2
    assert result.problems[0] == "amd-smi failed (exit status 1): 'ERROR: one GPU did not answer'"


@pytest.mark.parametrize(
    "stdout",
    ["garbage\n\x00\x01 not json", '{"gpu_data": 7}', "[1, 2, 3]", '{"gpu_data": [{"gpu": 0}]}', ""],
    ids=["garbage", "not-a-list", "not-records", "no-name", "nothing"],
)
def test_amd_smi_garbage_is_unreadable_not_raised(fake_tool, stdout):
    fake_tool("amd-smi", stdout=stdout)
    result = amd_smi()
    assert result.gpus is None and result.status == "unreadable"
    assert result.reason.startswith("amd-smi printed something unexpected")


def test_duplicate_indices_are_named(fake_tool):
    size = {"value": MI300X_MIB, "unit": "MB"}
    fake_tool("amd-smi", stdout=amd_smi_json((0, "AMD Instinct MI300X", size), (0, "AMD Instinct MI300X", size)))
    result = amd_smi()
    assert result.status == "partial" and result.implausible == (
        "GPU index 0 appears 2 times; each GPU has its own index",
    )


def test_a_hung_amd_smi_is_stopped(fake_tool, monkeypatch):
    monkeypatch.setattr(limits, "TIMEOUT_S", 0.3)
    fake_tool("amd-smi", sleep=30)
    started = time.monotonic()
    result = amd_smi()
    assert result.status == "timed_out" and "did not answer within 0.3 s" in result.reason
    assert time.monotonic() - started < 10


def test_deeply_nested_json_is_refused_quickly(fake_tool):
    """1 MB of '[' would exhaust Python's recursion; the output cap and the parser answer at once."""
    fake_tool("amd-smi", body="head -c 1000000 /dev/zero | tr '\\0' '['")
    started = time.monotonic()
    result = amd_smi()
    assert result.status == "unreadable" and time.monotonic() - started < 10
    nested = "[" * 1_000_000
    started = time.perf_counter()
    with pytest.raises(ValueError, match="nested too deeply|broken"):
        amd._json_document(nested)
    assert time.perf_counter() - started < 1.0


def test_amd_gpus_prefers_amd_smi_then_rocm_smi_then_says_neither(fake_tool):
    assert amd_gpus().status == "not_installed" and "neither amd-smi nor rocm-smi" in amd_gpus().reason
    fake_tool("rocm-smi", stdout=ROCM_RX7900["stdout"])
    assert amd_gpus().tool == "rocm-smi"
    fake_tool("amd-smi", stdout=MI300X_X2)
    assert amd_gpus().tool == "amd-smi"


@pytest.mark.parametrize("reader", [amd_smi, rocm_smi])
def test_bad_arguments_are_refused(reader):
    with pytest.raises(TypeError, match="executable"):
        reader(executable=None)
    with pytest.raises(ValueError, match="timeout_s"):
        reader(timeout_s=0)


# --- describing an AMD GPU and the doctor on one --------------------------------------------------------


@pytest.fixture
def rocm_mi300x(monkeypatch, not_colab):
    """A ROCm build of PyTorch driving one AMD Instinct MI300X, as torch reports it there."""
    monkeypatch.setattr(device_module, "_cuda_available", lambda: True)
    monkeypatch.setattr(device_module, "_mps_available", lambda: False)
    monkeypatch.setattr(torch.version, "hip", "6.2.41133-dd7f95766", raising=False)
    monkeypatch.setattr(torch.version, "cuda", None)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda index=None: "AMD Instinct MI300X")
    props = types.SimpleNamespace(
        name="AMD Instinct MI300X", total_memory=205_822_885_888, major=9, minor=4, gcnArchName="gfx942:sramecc+:xnack-"
    )
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i: props)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda i: (205_000_000_000, 205_822_885_888))


@pytest.fixture
def no_benchmark(monkeypatch):
    def skipped(device, info, plan, progress):
        return {"plan": vars(plan), "runs": [], "speedup": None, "speedup_n": None, "notes": []}

    monkeypatch.setattr(doctor, "_run_benchmark", skipped)


def test_describe_device_on_rocm(fake_tool, rocm_mi300x):
    fake_tool("amd-smi", stdout=MI300X_X2)
    info = describe_device()
    assert info.kind == "cuda" and info.name == "AMD Instinct MI300X"
    assert info.rocm_version == "6.2.41133-dd7f95766" and info.cuda_version is None
    assert info.compute_capability is None and info.gpu_arch == "gfx942" and info.driver_version == "6.8.5"
    text = str(info)
    assert "ROCm (PyTorch build)" in text and "AMD driver" in text and "NVIDIA" not in text
    assert spec_for_device().key == "MI300X"


def test_doctor_names_the_amd_gpu_and_its_memory(fake_tool, rocm_mi300x, no_benchmark, capsys):
    fake_tool("amd-smi", stdout=MI300X_X2)
    status = main(["doctor", "--quick", "--basics"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert f"GPU 0: AMD Instinct MI300X, {MI300X_MIB} MiB, use not reported, utilisation n/a, driver 6.8.5" in out
    assert "PyTorch built for ROCm" in out and "6.2.41133" in out and "gfx942" in out
    assert "OK: PyTorch can use the AMD GPU (AMD Instinct MI300X) through ROCm" in out
    assert "Note: This is a ROCm build of PyTorch" in out


def test_doctor_json_on_rocm(fake_tool, rocm_mi300x, no_benchmark, capsys):
    fake_tool("amd-smi", stdout=MI300X_X2)
    status = main(["doctor", "--quick", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert status == 0 and report["device"]["torch_rocm_version"] == "6.2.41133-dd7f95766"
    assert report["amd_smi"]["tool"] == "amd-smi" and report["amd_smi"]["status"] == "ok"
    assert [g["memory_total_mib"] for g in report["amd_smi"]["gpus"]] == [MI300X_MIB, MI300X_MIB]
    assert report["nvidia_smi"]["status"] == "not_installed"


def test_doctor_amd_gpu_with_a_cpu_only_pytorch(fake_tool, cpu_only, not_colab, no_benchmark, capsys, monkeypatch):
    monkeypatch.setattr(torch.version, "hip", None, raising=False)
    fake_tool("rocm-smi", stdout=ROCM_RX7900["stdout"])
    status = main(["doctor", "--quick", "--basics"])
    out = capsys.readouterr().out
    assert status == 1
    assert "PROBLEM: rocm-smi lists 1 AMD GPU(s) but PyTorch cannot use them" in out and "choose ROCm" in out


@pytest.mark.parametrize(
    "sample, expected",
    [
        ("amd_smi_no_driver", "PROBLEM: amd-smi is installed but gave no reading"),
        ("rocm_smi_no_driver", "PROBLEM: rocm-smi is installed but gave no reading"),
        ("rocm_smi_no_gpu", "PROBLEM: AMD's driver tools are installed but see no GPU"),
    ],
)
def test_doctor_on_each_recorded_amd_failure(fake_tool, cpu_only, not_colab, no_benchmark, capsys, sample, expected):
    recorded = amd_smi_sample(sample)
    fake_tool(
        recorded["tool"], stdout=recorded["stdout"], stderr=recorded["stderr"], exit_status=recorded["exit_status"] or 0
    )
    status = main(["doctor", "--quick", "--basics"])
    out = capsys.readouterr().out
    assert status == 1 and expected in out and out.count("PROBLEM:") == 1
    assert "OK:" not in out
