"""lessonkit.device: device choice, nvidia-smi readings and failures, device reports, catalog entry (lessons 01, 06)."""

from __future__ import annotations

import re
import stat
import subprocess
import sys
import types

import pytest
import torch
from IPython.lib.pretty import pretty

import lessonkit.device as device
from lessonkit import _host
from lessonkit.device import (
    DeviceInfo,
    as_device,
    describe_device,
    device_memory,
    in_colab,
    pick_device,
    spec_for_device,
    synchronize,
)
from lessonkit.gpu_tools import _common as smi_limits
from lessonkit.gpu_tools import nvidia_smi
from tests.conftest import REAL_DRIVER_FAILURE

GIB = 2**30
T4_CSV = "0, Tesla T4, 15360, 0, 0, 535.104.05"


# --- pick_device / as_device ------------------------------------------------------------------


def test_pick_device_prefers_cuda(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert pick_device() == torch.device("cuda")


def test_pick_device_takes_mps_when_no_cuda(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert pick_device() == torch.device("mps")


def test_pick_device_falls_back_to_cpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert pick_device() == torch.device("cpu")


@pytest.mark.parametrize("spec", ["cpu", "cuda", "cuda:1", "mps", torch.device("cuda", 0)])
def test_as_device_accepts_the_three_kinds(spec):
    assert as_device(spec).type in ("cpu", "cuda", "mps")


def test_as_device_none_is_pick_device(cpu_only):
    assert as_device(None) == torch.device("cpu")


@pytest.mark.parametrize("spec", ["gpu", "cuda:x", "", "meta"])
def test_as_device_rejects_unknown_names(spec):
    with pytest.raises(ValueError, match="device must be"):
        as_device(spec)


@pytest.mark.parametrize("spec", [0, 1.5, ["cuda"], b"cuda"])
def test_as_device_rejects_wrong_types(spec):
    with pytest.raises(TypeError, match="device must be a torch.device"):
        as_device(spec)


# --- synchronize ------------------------------------------------------------------------------


def test_synchronize_is_a_no_op_on_cpu(monkeypatch):
    called = []
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a: called.append("cuda"))
    monkeypatch.setattr(torch.mps, "synchronize", lambda: called.append("mps"))
    synchronize("cpu")
    assert called == []


def test_synchronize_waits_for_cuda(monkeypatch):
    called = []
    monkeypatch.setattr(device, "_cuda_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda dev=None: called.append(str(dev)))
    synchronize("cuda:0")
    assert called == ["cuda:0"]


def test_synchronize_waits_for_mps(monkeypatch):
    called = []
    monkeypatch.setattr(device, "_mps_available", lambda: True)
    monkeypatch.setattr(torch.mps, "synchronize", lambda: called.append("mps"))
    synchronize("mps")
    assert called == ["mps"]


def test_synchronize_rejects_bad_device():
    with pytest.raises(ValueError, match="device"):
        synchronize("tpu")


# --- in_colab ---------------------------------------------------------------------------------


def test_in_colab_false_on_a_plain_machine(not_colab):
    assert in_colab() is False


def test_in_colab_true_with_google_colab_module(not_colab, monkeypatch):
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    assert in_colab() is True


def test_in_colab_true_with_colab_environment(not_colab, monkeypatch):
    monkeypatch.setenv("COLAB_RELEASE_TAG", "release-colab_20260819-060000_RC00")
    assert in_colab() is True


# --- nvidia_smi -------------------------------------------------------------------------------


def test_nvidia_smi_missing(no_smi):
    result = nvidia_smi()
    assert result.gpus is None and not result
    assert "not on PATH" in result.reason
    assert "unavailable" in str(result) and "unavailable" in result._repr_html_()


def test_nvidia_smi_reads_one_t4(fake_smi):
    args_file = fake_smi(T4_CSV)
    result = nvidia_smi()
    assert result and result.reason is None
    (gpu,) = result.gpus
    assert gpu.name == "Tesla T4"
    assert (gpu.memory_total_mib, gpu.memory_used_mib, gpu.memory_free_mib) == (15360, 0, 15360)
    assert gpu.utilization_pct == 0 and gpu.driver_version == "535.104.05"
    args = args_file.read_text().split()
    assert "--format=csv,noheader,nounits" in args
    assert any(a.startswith("--query-gpu=") and "memory.total" in a for a in args)
    assert "Tesla T4" in str(result) and "<table>" in result._repr_html_()


def test_nvidia_smi_reads_several_gpus_and_na_utilisation(fake_smi):
    fake_smi(
        "0, NVIDIA H100 80GB HBM3, 81559, 1024, 97, 550.54.15\n1, NVIDIA H100 80GB HBM3, 81559, 3, [N/A], 550.54.15"
    )
    result = nvidia_smi()
    assert [g.index for g in result.gpus] == [0, 1]
    assert result.gpus[0].utilization_pct == 97 and result.gpus[1].utilization_pct is None
    assert result.gpus[0].memory_free_mib == 81559 - 1024
    assert "n/a" in str(result)


def test_nvidia_smi_driver_failure(fake_smi):
    fake_smi(REAL_DRIVER_FAILURE, exit_status=9)
    result = nvidia_smi()
    assert result.gpus is None
    assert "exit status 9" in result.reason
    assert "couldn't communicate with the NVIDIA driver" in result.reason


@pytest.mark.parametrize(
    "stdout",
    [
        "index, name, memory.total [MiB]\n0, Tesla T4, 15360",  # a header and missing fields
        "0, Tesla T4, lots, 0, 0, 535.104.05",  # not a number
        "<html>not csv at all</html>",
        "",  # nothing printed
    ],
)
def test_nvidia_smi_unexpected_output(fake_smi, stdout):
    fake_smi(stdout)
    result = nvidia_smi()
    assert result.gpus is None
    assert "unexpected" in result.reason


def test_nvidia_smi_that_hangs(fake_smi, monkeypatch):
    monkeypatch.setattr(smi_limits, "TIMEOUT_S", 0.2)
    fake_smi(T4_CSV, sleep=3)
    result = nvidia_smi()
    assert result.gpus is None and "did not answer" in result.reason


def test_nvidia_smi_rejects_bad_executable():
    with pytest.raises(TypeError, match="executable"):
        nvidia_smi(executable=None)


# --- describe_device --------------------------------------------------------------------------


def test_describe_cpu(cpu_only):
    info = describe_device()
    assert isinstance(info, DeviceInfo)
    assert info.kind == "cpu" and info.compute_capability is None and info.cuda_version is None
    assert info.torch_version == torch.__version__
    if sys.platform.startswith("linux"):
        assert info.total_bytes > 0 and 0 < info.free_bytes <= info.total_bytes
    text = str(info)
    assert "Device" in text and "Total memory" in text and "GiB" in text and "GB)" in text
    assert info._repr_html_().startswith("<table>")
    assert pretty(info) == text  # what a notebook shows as plain text


def test_describe_cuda_when_there_is_none_explains_and_falls_back(cpu_only):
    info = describe_device("cuda")
    assert info.kind == "cpu"
    assert "CUDA was asked for but is not available" in info.note
    assert "CUDA was asked for" in str(info)


def test_describe_mps_when_there_is_none_explains_and_falls_back(cpu_only):
    info = describe_device("mps")
    assert info.kind == "cpu" and "MPS was asked for" in info.note


@pytest.fixture
def fake_t4(monkeypatch, fake_smi):
    """CUDA present with one Tesla T4, as on Colab; nvidia-smi answers too."""
    fake_smi(T4_CSV)
    monkeypatch.setattr(device, "_cuda_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    props = types.SimpleNamespace(name="Tesla T4", total_memory=15835660288, major=7, minor=5)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i: props)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda i: (15_600_000_000, 15835660288))
    monkeypatch.setattr(torch.version, "cuda", "12.8")


def test_describe_cuda_t4(fake_t4):
    info = describe_device()
    assert info.kind == "cuda" and info.name == "Tesla T4"
    assert info.total_bytes == 15835660288 and info.free_bytes == 15_600_000_000
    assert info.compute_capability == (7, 5)
    assert info.cuda_version == "12.8" and info.driver_version == "535.104.05"
    text = str(info)
    assert "14.7 GiB (15.8 GB)" in text and re.search(r"Compute capability +7\.5", text)


def test_describe_cuda_without_working_nvidia_smi(fake_t4, fake_smi):
    fake_smi(REAL_DRIVER_FAILURE, exit_status=9)
    info = describe_device("cuda")
    assert info.kind == "cuda" and info.driver_version is None


def test_describe_cuda_index_out_of_range(fake_t4):
    with pytest.raises(ValueError, match=r"'cuda:3' does not exist.*0\.\.0"):
        describe_device("cuda:3")


def test_describe_mps(monkeypatch):
    monkeypatch.setattr(device, "_cuda_available", lambda: False)
    monkeypatch.setattr(device, "_mps_available", lambda: True)
    monkeypatch.setattr(torch.mps, "recommended_max_memory", lambda: 16 * GIB, raising=False)
    monkeypatch.setattr(torch.mps, "driver_allocated_memory", lambda: 1 * GIB, raising=False)
    info = describe_device()
    assert info.kind == "mps"
    assert (info.total_bytes, info.free_bytes) == (16 * GIB, 15 * GIB)
    assert "unified memory" in info.note


@pytest.fixture
def no_subprocess(monkeypatch):
    """Any subprocess started here (nvidia-smi, sysctl) fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"started a subprocess: {args}")

    monkeypatch.setattr(subprocess, "run", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)


def test_device_memory_reads_cuda_without_nvidia_smi(fake_t4, no_subprocess):
    memory = device_memory("cuda")
    assert (memory.kind, memory.name) == ("cuda", "Tesla T4")
    assert (memory.total_bytes, memory.free_bytes) == (15835660288, 15_600_000_000)
    with pytest.raises(ValueError, match=r"'cuda:3' does not exist"):
        device_memory("cuda:3")


def test_device_memory_reads_the_cpu_and_says_when_it_fell_back(cpu_only, no_subprocess):
    memory = device_memory("cuda")
    assert memory.kind == "cpu" and "CUDA was asked for" in memory.note
    if sys.platform.startswith("linux"):
        assert memory.total_bytes > 0 and 0 < memory.free_bytes <= memory.total_bytes
    assert describe_device("cpu").total_bytes == device_memory("cpu").total_bytes


def test_free_memory_users_start_no_nvidia_smi(fake_t4, no_subprocess):
    from lessonkit.calculator import this_machine
    from lessonkit.timing import matmul_sizes_that_fit

    budget = this_machine()
    assert budget.gpu_name == "Tesla T4" and budget.usable_bytes == 15_600_000_000
    assert budget.total_bytes == 15835660288
    assert matmul_sizes_that_fit([1024], device="cuda").fit == (1024,)


# --- finding the entry of the device this code runs on ------------------------------------------


def test_no_entry_for_a_cpu(cpu_only):
    assert spec_for_device() is None and spec_for_device("cpu") is None
    assert device.device_name("cuda") is None  # asked for, but there is no CUDA here


@pytest.fixture
def fake_cuda(monkeypatch):
    """CUDA present; returns a function that sets the name torch reports."""
    monkeypatch.setattr(device, "_cuda_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)

    def set_name(name: str) -> None:
        monkeypatch.setattr(torch.cuda, "get_device_name", lambda index=None: name)

    return set_name


def test_cuda_device_found_by_the_name_torch_reports(fake_cuda):
    fake_cuda("Tesla T4")
    assert spec_for_device("cuda").key == "T4"
    fake_cuda("NVIDIA H200")
    assert spec_for_device().key == "H200"
    fake_cuda("NVIDIA GeForce GTX 1080")  # not in the catalog: no entry, no error
    assert spec_for_device("cuda:0") is None


def test_mps_device_found_by_the_chip_name(monkeypatch):
    monkeypatch.setattr(device, "_cuda_available", lambda: False)
    monkeypatch.setattr(device, "_mps_available", lambda: True)
    monkeypatch.setattr(_host, "apple_chip_name", lambda: "Apple M4 Pro")
    assert spec_for_device().key == "M4_PRO"
    monkeypatch.setattr(_host, "apple_chip_name", lambda: None)
    assert spec_for_device("mps") is None


def test_apple_chip_name_reads_sysctl_on_a_mac(tmp_path, monkeypatch):
    fake = tmp_path / "sysctl"
    fake.write_text('#!/bin/sh\n[ "$2" = "machdep.cpu.brand_string" ] && echo "Apple M2" && exit 0\nexit 1\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(_host, "platform", types.SimpleNamespace(system=lambda: "Darwin"))
    assert _host.apple_chip_name() == "Apple M2"
    fake.write_text("#!/bin/sh\nexit 1\n")
    assert _host.apple_chip_name() is None
    monkeypatch.setattr(_host, "platform", types.SimpleNamespace(system=lambda: "Linux"))
    assert _host.apple_chip_name() is None
