"""nvidia-smi as it really fails, and what `lessonkit doctor` makes of it (issue 15, items 1-4 and 7).

Each case puts a fake `nvidia-smi` (a shell script) first on PATH: bytes that are not UTF-8, a lost GPU's
line among good ones, "[N/A]" memory, a driver failure, endless output, a program that hangs. nvidia_smi()
must answer plainly and never raise; the doctor must print one valid JSON document, name what is wrong,
and never call a broken driver "nothing is broken". The doctor in a fresh process (an ASCII locale, an
unwritable stdout) is tests/matrix/test_own_processes.py's.
"""

from __future__ import annotations

import io
import json
import os
import signal
import stat
import sys
import time
import types
from pathlib import Path

import pytest
import torch

from lessonkit import device as device_module
from lessonkit import doctor
from lessonkit.__main__ import main
from lessonkit.device import describe_device
from lessonkit.gpu_tools import SMI_STATUSES, nvidia_smi
from lessonkit.gpu_tools import _common as smi_limits

T4_LINE = "0, Tesla T4, 15360, 0, 0, 535.104.05"
LOST_GPU = "Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error"

# Shell bodies of fake nvidia-smi programs. printf's octal escapes write raw bytes: \377\376 is not UTF-8.
NOT_UTF8_ROW = r"printf '0, NVIDIA \377\376 GPU, 15360, 0, 0, 535.104.05\n'"
NOT_UTF8_FAILURE = r"printf 'NVIDIA-SMI has failed \377 driver\n'; exit 9"
DRIVER_FAILURE = 'echo "NVIDIA-SMI has failed because it couldn\'t communicate with the NVIDIA driver."; exit 9'
LOST_THEN_GOOD = f"echo '{LOST_GPU}'; echo '1, Tesla T4, 15360, 0, 0, 535.104.05'"
NA_MEMORY = "echo '0, NVIDIA GB10, [N/A], [N/A], 3, 580.95.05'"
TEN_MB_LINE = "head -c 10000000 /dev/zero | tr '\\0' x"
MANY_ROWS = f"yes '{T4_LINE}' | head -n 250000"
TERMINAL_ESCAPES = r"printf '0, Tesla T4\033[2J\r, 15360, 0, 0, 535.104.05\n'"
NOTHING = "exit 0"


@pytest.fixture
def smi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Returns a function that writes a fake nvidia-smi with the given shell body, first on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"]))
    monkeypatch.delenv("COLAB_RELEASE_TAG", raising=False)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)

    def write(body: str) -> Path:
        script = bin_dir / "nvidia-smi"
        script.write_text(f"#!/bin/sh\n{body}\n")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        return script

    return write


@pytest.fixture
def fake_t4(monkeypatch: pytest.MonkeyPatch) -> None:
    """CUDA present with one Tesla T4, as PyTorch would report it."""
    monkeypatch.setattr(device_module, "_cuda_available", lambda: True)
    monkeypatch.setattr(device_module, "_mps_available", lambda: False)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    props = types.SimpleNamespace(name="Tesla T4", total_memory=15835660288, major=7, minor=5)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i: props)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda i: (15_600_000_000, 15835660288))


@pytest.fixture
def no_benchmark(monkeypatch: pytest.MonkeyPatch) -> None:
    """The doctor without its matmuls: these tests are about nvidia-smi, and a faked GPU cannot multiply."""

    def skipped(device, info, plan, progress):
        return {"plan": vars(plan), "runs": [], "speedup": None, "speedup_n": None, "notes": []}

    monkeypatch.setattr(doctor, "_run_benchmark", skipped)


def doctor_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict, str]:
    """Run `lessonkit doctor --quick --json` in this process: (exit status, the parsed report, stderr)."""
    status = main(["doctor", "--quick", "--json", *args])
    captured = capsys.readouterr()
    return status, json.loads(captured.out), captured.err


def doctor_text(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(["doctor", "--quick", *args])
    return status, capsys.readouterr().out


# --- 1. bytes that are not UTF-8 ------------------------------------------------------------------


def test_a_name_that_is_not_utf8_is_read_not_raised(smi):
    smi(NOT_UTF8_ROW)
    result = nvidia_smi()
    (gpu,) = result.gpus
    assert gpu.name == "NVIDIA \ufffd\ufffd GPU" and gpu.memory_total_mib == 15360
    assert result.status == "ok" and result.problems == ()


def test_a_failure_message_that_is_not_utf8_is_read_not_raised(smi):
    smi(NOT_UTF8_FAILURE)
    result = nvidia_smi()
    assert result.gpus is None and result.status == "failed"
    assert "exit status 9" in result.reason and "\ufffd driver" in result.reason


@pytest.mark.parametrize("body", [NOT_UTF8_ROW, NOT_UTF8_FAILURE], ids=["row", "failure"])
def test_doctor_json_survives_bytes_that_are_not_utf8(capsys, smi, cpu_only, no_benchmark, body):
    smi(body)
    status, report, err = doctor_json(capsys)
    assert "--device" not in err  # no option was given, so no option is blamed
    assert status == report["exit_status"] == 1  # a GPU PyTorch cannot use, or a failing driver


def test_describe_cuda_survives_bytes_that_are_not_utf8(smi, fake_t4):
    smi(NOT_UTF8_ROW)
    info = describe_device("cuda")
    assert info.kind == "cuda" and info.driver_version == "535.104.05"


# --- 2. the verdict follows from the findings ----------------------------------------------------------


def test_a_broken_driver_is_a_problem_not_nothing_is_broken(capsys, smi, cpu_only, no_benchmark):
    smi(DRIVER_FAILURE)
    status, out = doctor_text(capsys)
    assert status == 1
    assert "PROBLEM: nvidia-smi is installed but gave no reading" in out
    assert "nothing is broken" not in out and "OK:" not in out
    assert "NEEDS FIXING: 1 problem found" in out


def test_in_colab_a_failing_nvidia_smi_means_a_runtime_without_gpu(capsys, smi, cpu_only, no_benchmark, monkeypatch):
    smi(DRIVER_FAILURE)
    monkeypatch.setenv("COLAB_RELEASE_TAG", "release-colab_20260819-060000_RC00")
    status, report, _ = doctor_json(capsys)
    assert status == 0 and report["problems"] == []
    assert any("In Colab this means the runtime has no GPU" in note for note in report["notes"])


def test_no_devices_found_with_a_driver_is_a_gpu_that_fell_off_the_bus(capsys, smi, cpu_only, no_benchmark):
    """Issue 25, item 12: a driver that sees no GPU is what a rented GPU that fell off the bus looks like."""
    smi("echo 'No devices were found'; exit 6")
    assert nvidia_smi().status == "no_devices"
    status, out = doctor_text(capsys)
    assert status == 1 and "nothing is broken" not in out and "OK:" not in out
    assert "PROBLEM: The NVIDIA driver is installed but sees no GPU" in out and "fell off the bus" in out


def test_no_devices_found_in_colab_is_a_runtime_without_a_gpu(capsys, smi, cpu_only, no_benchmark, monkeypatch):
    smi("echo 'No devices were found'; exit 6")
    monkeypatch.setenv("COLAB_RELEASE_TAG", "release-colab_20260819-060000_RC00")
    status, report, _ = doctor_json(capsys)
    assert status == 0 and report["problems"] == []
    assert any("Change runtime type" in note for note in report["notes"])


def test_a_lost_gpu_line_is_named_and_the_good_row_is_kept(smi):
    smi(LOST_THEN_GOOD)
    result = nvidia_smi()
    assert [g.index for g in result.gpus] == [1] and result.status == "partial"
    (problem,) = result.problems
    assert problem.startswith("line 1, 'Unable to determine the device handle") and "not a GPU reading" in problem
    assert f"warning: {problem}" in str(result)


def test_doctor_reports_a_lost_gpu_as_a_problem(capsys, smi, fake_t4, no_benchmark):
    smi(LOST_THEN_GOOD)
    status, out = doctor_text(capsys)
    assert status == 1
    assert "GPU 1: Tesla T4" in out and "warning: line 1, 'Unable to determine the device handle" in out
    assert "PROBLEM: nvidia-smi says a GPU stopped answering" in out and "reboot" in out
    assert out.count("PROBLEM:") == 1  # the lost GPU, named once (issue 25, item 17)
    assert "OK: PyTorch can use" not in out


def test_memory_not_reported_keeps_the_reading(smi, capsys, cpu_only, no_benchmark):
    smi(NA_MEMORY)
    (gpu,) = nvidia_smi().gpus
    assert (gpu.name, gpu.memory_total_mib, gpu.memory_free_mib, gpu.utilization_pct) == ("NVIDIA GB10", None, None, 3)
    _, out = doctor_text(capsys)
    assert "GPU 0: NVIDIA GB10, memory not reported, utilisation 3%, driver 580.95.05" in out


def test_terminal_escapes_in_a_name_are_not_passed_on(smi):
    smi(TERMINAL_ESCAPES)
    (gpu,) = nvidia_smi().gpus
    assert "\x1b" not in gpu.name and "\r" not in gpu.name and gpu.name.startswith("Tesla T4")


# --- 3. output is bounded ---------------------------------------------------------------------------


def test_a_ten_megabyte_line_is_cut_and_said_so(smi, capsys, cpu_only, no_benchmark):
    smi(TEN_MB_LINE)
    result = nvidia_smi()
    assert len(str(result)) < 1000
    assert result.gpus is None and result.status == "unreadable" and "passed 64 KiB" in result.reason
    status, report, _ = doctor_json(capsys)
    assert status == 1 and len(json.dumps(report)) < 20_000


def test_a_quarter_million_rows_keep_only_the_first(smi, capsys, cpu_only, no_benchmark):
    smi(MANY_ROWS)
    result = nvidia_smi()
    assert 0 < len(result.gpus) <= 64
    assert len(result.gpus) == smi_limits.MAX_ROWS
    assert any(f"only the first {smi_limits.MAX_ROWS} were read" in p for p in result.problems)
    status, report, _ = doctor_json(capsys)
    assert status == 1 and len(report["nvidia_smi"]["gpus"]) == smi_limits.MAX_ROWS
    assert len(json.dumps(report)) < 100_000


@pytest.mark.parametrize(
    "body",
    [NOT_UTF8_ROW, NOT_UTF8_FAILURE, DRIVER_FAILURE, LOST_THEN_GOOD, NA_MEMORY, TEN_MB_LINE, TERMINAL_ESCAPES, NOTHING],
    ids=["not-utf8-row", "not-utf8-failure", "driver-failure", "lost-gpu", "na-memory", "10mb", "escapes", "nothing"],
)
def test_json_is_always_one_valid_document(smi, capsys, cpu_only, no_benchmark, body):
    smi(body)
    status, report, _ = doctor_json(capsys)  # json.loads of the whole of stdout: exactly one document
    assert status == report["exit_status"]
    assert (status == 0) == (report["problems"] == [])
    assert report["nvidia_smi"]["status"] in SMI_STATUSES


# --- 4. a hung nvidia-smi, and calling it once --------------------------------------------------------


def _running(pid: int) -> bool:
    """True while `pid` runs; a zombie (dead, not yet reaped by PID 1) counts as stopped."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to see the child stopped")
def test_a_hung_nvidia_smi_is_stopped_with_everything_it_started(smi, tmp_path, monkeypatch):
    pid_file = tmp_path / "child.pid"
    smi(f'sleep 30 &\necho $! > "{pid_file}"\nwait')  # the child a plain kill of the shell leaves behind
    monkeypatch.setattr(smi_limits, "TIMEOUT_S", 0.3)
    result = nvidia_smi()
    child = int(pid_file.read_text())
    try:
        deadline = time.monotonic() + 2
        while _running(child) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not _running(child), "nvidia-smi's child still runs after the timeout"
    finally:
        if _running(child):
            os.kill(child, signal.SIGKILL)
    assert result.gpus is None and result.status == "timed_out"
    assert "did not answer within 0.3 s" in result.reason


def test_the_timeout_is_a_module_constant_tests_can_lower(smi, monkeypatch):
    monkeypatch.setattr(smi_limits, "TIMEOUT_S", 0.2)
    smi("sleep 5")
    assert "within 0.2 s" in nvidia_smi().reason
    with pytest.raises(ValueError, match="timeout_s"):
        nvidia_smi(timeout_s=0)


def test_doctor_calls_nvidia_smi_once_with_cuda_present(smi, tmp_path, capsys, fake_t4, no_benchmark):
    calls = tmp_path / "calls.txt"
    smi(f'echo called >> "{calls}"\necho "{T4_LINE}"')
    status, report, _ = doctor_json(capsys)
    assert calls.read_text().count("called") == 1
    assert report["device"]["driver_version"] == "535.104.05" and status == 0


# --- --device errors are only the ones --device causes ------------------------------------------------


def test_only_device_errors_are_blamed_on_device(capsys, cpu_only, monkeypatch):
    def broken() -> None:
        raise ValueError("something else went wrong")

    monkeypatch.setattr(doctor, "nvidia_smi", broken)
    with pytest.raises(ValueError, match="something else"):
        main(["doctor", "--quick"])
    assert "--device" not in capsys.readouterr().err


# --- 7. a terminal that cannot show "×" -------------------------------------------------------------


def test_an_ascii_terminal_gets_the_report_in_ascii(smi, cpu_only, monkeypatch):
    smi("echo '0, Tesla T4 \u2014 PCIe, 15360, 0, 0, 535.104.05'")  # a dash an ASCII terminal cannot show

    def ascii_stream() -> io.TextIOWrapper:
        return io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict", write_through=True)

    stdout, stderr = ascii_stream(), ascii_stream()
    monkeypatch.setattr(sys, "stderr", stderr)
    args = types.SimpleNamespace(json=False, quick=True, basics=True, device="cpu")
    status = doctor.run(args, parser=None, stdout=stdout)
    text = stdout.buffer.getvalue().decode("ascii")
    assert status == 1  # the fake GPU that PyTorch cannot use, not a crash
    assert "cpu   fp32    512x512" in text and "GPU 0: Tesla T4 - PCIe" in text
    assert "512x512" in stderr.buffer.getvalue().decode("ascii")


# --- issue 25, items 11, 15 and 17: impossible readings, an unwritable report, one problem named once -------


def test_impossible_readings_are_problems_not_ok(smi, capsys, fake_t4, no_benchmark):
    """Item 11: used > total, a negative free memory, 250% utilisation and a repeated index pass no more."""
    smi("echo '0, Tesla T4, 15360, 99999, 250, 535.104.05'; echo '0, Tesla T4, 15360, 0, 0, 535.104.05'")
    result = nvidia_smi()
    assert result.status == "partial" and len(result.gpus) == 2
    assert result.implausible == (
        "GPU 0 reports 99999 MiB used of 15360 MiB, more than it has: an impossible reading",
        "GPU 0 reports 250% utilisation, over 100%: an impossible reading",
        "GPU index 0 appears 2 times; each GPU has its own index",
    )
    assert result.gpus[0].memory_free_mib is None  # was -84639
    status, report, _ = doctor_json(capsys)
    assert status == 1 and all(
        g["memory_free_mib"] is None or g["memory_free_mib"] >= 0 for g in report["nvidia_smi"]["gpus"]
    )
    (problem,) = report["problems"]
    assert problem.startswith("nvidia-smi reports impossible values (3 warning(s) under nvidia-smi)")
    assert "device handle" not in problem


def test_a_lost_gpus_failure_message_quotes_the_failure_not_a_good_reading(smi):
    """Item 17: nvidia-smi prints a good line, then a lost GPU's, and fails; the message quotes the lost GPU."""
    smi(f"echo '{T4_LINE}'; echo '{LOST_GPU}'; exit 15")
    result = nvidia_smi()
    failed = result.problems[0]
    assert failed.startswith("nvidia-smi failed (exit status 15): 'Unable to determine the device handle")
    assert "Tesla T4" not in failed and result.lost_gpu


def test_random_bytes_give_one_problem_without_device_handle_advice(smi, capsys, cpu_only, no_benchmark):
    """Item 17: garbage is one PROBLEM (no reading), not a second one about lost GPUs."""
    smi(r"printf '\033\177\001garbage\nmore, garbage\n\377\376\n'")
    status, out = doctor_text(capsys)
    assert status == 1 and out.count("PROBLEM:") == 1
    assert "PROBLEM: nvidia-smi is installed but gave no reading" in out and "device handle" not in out


def test_chinese_on_an_ascii_terminal_says_so_once_then_speaks_english(no_smi, cpu_only, not_colab, monkeypatch):
    """Item 17: `--lang zh-Hant` on an ASCII terminal printed '????'; now one English line says why."""
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict", write_through=True)
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(io.BytesIO(), encoding="ascii", write_through=True))
    args = types.SimpleNamespace(json=False, quick=True, basics=True, device="cpu", lang="zh-Hant")
    doctor.run(args, parser=None, stdout=stdout)
    text = stdout.buffer.getvalue().decode("ascii")
    assert text.count("this terminal cannot show Chinese") == 1 and "?" * 3 not in text
    assert "Device (what PyTorch will use)" in text and "OK: no GPU, and nothing is broken." in text


def test_the_exit_statuses_are_documented():
    assert set(doctor.EXIT_STATUSES) == {0, 1, 2, 3}
    for status in doctor.EXIT_STATUSES:
        assert f"  {status}  " in doctor.__doc__


def test_parsing_is_linear_on_a_megabyte_of_adversarial_output():
    """Issue 25 item 9's test for nvidia-smi's reader: each 1 MB input is read in well under a second."""
    from lessonkit.gpu_tools import nvidia as reader

    inputs = [
        "1" * 1_000_000 + "\nx\ny",
        "," * 1_000_000,
        "0, " + " " * 1_000_000 + "!, 1, 1, 1, 1",
        ("0, Tesla T4, 15360, 0, 0, 535.104.05\n" * 30_000)[:1_000_000],
        "\n" * 1_000_000,
        "[N/A]" * 200_000,
    ]
    for text in inputs:
        started = time.perf_counter()
        reader._parse_output(text, cut_short=False)
        assert time.perf_counter() - started < 1.0, text[:20]
