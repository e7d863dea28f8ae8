"""`lessonkit doctor --lang`: the report in Simplified and Traditional Chinese, English by default, JSON in English."""

from __future__ import annotations

import copy
import io
import json
import re

import pytest

from lessonkit import doctor
from lessonkit.__main__ import main
from lessonkit._doctor_text import _params, render_text
from lessonkit.i18n import display_width, get_language, pad, set_language

T4_LINE = "0, Tesla T4, 15360, 0, 0, 535.104.05"


@pytest.fixture(autouse=True)
def english_afterwards():
    """Every test starts and ends in English, so the other test files see lessonkit as they expect."""
    set_language("en")
    yield
    set_language("en")


@pytest.fixture
def quick_doctor(monkeypatch: pytest.MonkeyPatch, cpu_only, no_smi) -> None:
    """A CPU-only machine without nvidia-smi, and one fake 512×512 matmul instead of the real benchmark."""

    def one_run(device, info, plan, progress):
        progress.line(doctor._("benchmark {i}/{n}: {what}").format(i=1, n=1, what="cpu fp32 512×512"))
        run = {"device": "cpu", "dtype": "fp32", "peak_key": "fp32", "n": 512, "median_s": 0.002, "iqr_s": 0.0}
        run |= {"repeats": 3, "number": 1, "tflops": 0.134, "peak_tflops": None, "pct_of_peak": None}
        return {"plan": vars(plan), "runs": [run], "speedup": None, "speedup_n": None, "notes": []}

    monkeypatch.setattr(doctor, "_run_benchmark", one_run)
    monkeypatch.delenv(doctor.LANGUAGE_VARIABLE, raising=False)


def run_doctor(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["doctor", "--quick", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# Lines each edition's report must hold, for a CPU-only machine without nvidia-smi (what the lesson 01 cell shows).
CHINESE = {
    "zh-Hans": [
        "设备（PyTorch 将使用的设备）",
        "  CUDA 是否可用           否",
        "  不可用：PATH 中没有 'nvidia-smi'，所以这里没有安装 NVIDIA 驱动",
        "矩阵乘法（1 次预热后，取 3 个计时样本的中位数）",
        "这里没有 GPU，所以没有加速比可测",
        "正常：没有 GPU，也没有任何故障。各课都能在 CPU 上运行。",
        "备注：这里没有 GPU。",
    ],
    "zh-Hant": [
        "裝置（PyTorch 將使用的裝置）",
        "  CUDA 是否可用           否",
        "  無法使用：PATH 中沒有 'nvidia-smi'，所以這裡沒有安裝 NVIDIA 驅動程式",
        "矩陣乘法（1 次預熱後，取 3 個計時樣本的中位數）",
        "這裡沒有 GPU，所以沒有加速倍數可測",
        "正常：沒有 GPU，也沒有任何故障。各課都能在 CPU 上執行。",
        "備註：這裡沒有 GPU。",
    ],
}
ENGLISH = [
    "Device (what PyTorch will use)",
    "  CUDA available          no",
    "  unavailable: 'nvidia-smi' is not on PATH, so no NVIDIA driver is installed here",
    "Matrix multiplication (median of 3 timed samples after 1 warm-up run)",
    "OK: no GPU, and nothing is broken. The lessons run on the CPU.",
    "Note: No GPU here.",
]


@pytest.mark.parametrize("edition", ["zh-Hans", "zh-Hant"])
def test_lang_gives_the_whole_report_in_chinese(capsys, quick_doctor, edition):
    status, out, err = run_doctor(capsys, "--basics", "--lang", edition)
    assert status == 0
    for line in CHINESE[edition]:
        assert line in out, line
    for english in ("OK:", "Note:", "Device (", "Matrix multiplication", "unavailable"):
        assert english not in out
    assert ("基准测试 1/1" if edition == "zh-Hans" else "基準測試 1/1") in err  # progress speaks it too
    assert get_language() == "en"  # the language lessonkit spoke before is back


def test_what_fits_in_chinese_counts_in_yi(capsys, quick_doctor):
    status, out, _err = run_doctor(capsys, "--lang", "zh-Hans")
    assert status == 0
    assert re.search(r"能装下什么：系统内存（没有 GPU：仅供比较）共 [0-9.]+ GiB", out)
    assert re.search(r"全参数微调，AdamW 混合精度 +2048 个 token，批次 1 +参数最多 [0-9.]+ (亿|万)", out)
    assert "另加 400 MiB 的 CUDA 上下文" in out


def test_english_by_default_and_with_lang_en(capsys, quick_doctor):
    _status, default, _err = run_doctor(capsys, "--basics")
    _status, chosen, _err = run_doctor(capsys, "--basics", "--lang", "en")
    for line in ENGLISH:
        assert line in default, line
    strip = re.compile(r"\(checked in [0-9.]+ s\)")
    assert strip.sub("", default) == strip.sub("", chosen)
    assert not re.search(r"[\u4e00-\u9fff]", default)


def test_the_environment_variable_sets_the_default(capsys, quick_doctor, monkeypatch):
    monkeypatch.setenv(doctor.LANGUAGE_VARIABLE, "zh_hant")  # spelled as a locale: still understood
    _status, out, _err = run_doctor(capsys, "--basics")
    assert "正常：沒有 GPU" in out
    _status, out, _err = run_doctor(capsys, "--basics", "--lang", "zh-Hans")  # --lang wins
    assert "正常：没有 GPU" in out
    monkeypatch.setenv(doctor.LANGUAGE_VARIABLE, "fr")
    with pytest.raises(SystemExit) as exit_info:
        main(["doctor", "--quick"])
    assert exit_info.value.code == 2
    assert "LESSONKIT_LANG: language must be one of" in capsys.readouterr().err


def test_without_lang_the_doctor_follows_set_language(capsys, quick_doctor):
    set_language("zh-Hans")  # a Chinese notebook that runs the doctor in its own process
    _status, out, _err = run_doctor(capsys, "--basics")
    assert "正常：没有 GPU" in out
    assert get_language() == "zh-Hans"


@pytest.mark.parametrize("edition", ["zh-Hans", "zh-Hant"])
def test_json_stays_english(capsys, quick_doctor, edition):
    status, out, _err = run_doctor(capsys, "--json", "--lang", edition)
    report = json.loads(out)
    assert status == 0 and "not on PATH" in report["nvidia_smi"]["reason"]
    assert any("No GPU here" in note for note in report["notes"])
    assert report["vram_budget"]["rows"][0]["label"] == "Inference, fp16 weights"
    assert not re.search(r"[\u4e00-\u9fff]", json.dumps(report, ensure_ascii=False))


def test_help_says_json_is_english(capsys):
    with pytest.raises(SystemExit):
        main(["doctor", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--lang {en,zh-Hans,zh-Hant}" in help_text
    assert "always in English, whatever --lang says" in help_text
    with pytest.raises(SystemExit) as exit_info:
        main(["doctor", "--lang", "fr"])
    assert exit_info.value.code == 2


def _gpu_report(problems: list[str]) -> dict:
    """A report of a T4 with a speed-up, a known and an unknown peak, and `problems`."""
    run = {"device": "cpu", "dtype": "fp32", "peak_key": "fp32", "n": 512, "median_s": 0.02, "iqr_s": 0.0}
    run |= {"repeats": 5, "number": 1, "tflops": 0.0134, "peak_tflops": None, "pct_of_peak": None}
    runs = [
        run,
        run | {"device": "cuda", "median_s": 0.001, "tflops": 12.0},
        run
        | {"device": "cuda", "dtype": "fp16", "peak_key": "fp16", "n": 2048, "tflops": 26.0}
        | {"peak_tflops": 65.0, "pct_of_peak": 40.0},
    ]
    smi_gpu = {"index": 0, "name": "Tesla T4", "memory_total_mib": 15360, "memory_used_mib": 0}
    smi_gpu |= {"utilization_pct": 0, "driver_version": "535.104.05", "memory_free_mib": 15360}
    return {
        "lessonkit": "0.1.0",
        "python": "3.11.7",
        "platform": "Linux x86_64",
        "device": {
            "kind": "cuda",
            "name": "Tesla T4",
            "total_memory_bytes": 15835660288,
            "free_memory_bytes": 15600000000,
            "compute_capability": "7.5",
            "cuda_available": True,
            "torch_cuda_version": "12.1",
            "driver_version": "535.104.05",
            "torch_version": "2.3.0",
            "note": None,
        },
        "nvidia_smi": {"available": True, "status": "ok", "reason": None, "problems": ["a warning"], "gpus": [smi_gpu]},
        "benchmark": {
            "plan": {"warmup": 2, "repeats": 5},
            "runs": runs,
            "speedup": 20.0,
            "speedup_n": 512,
            "notes": [],
        },
        "vram_budget": {
            "memory_bytes": 15835660288,
            "memory_of": "GPU memory",
            "rows": doctor._vram_budget(15835660288),
            "counts": "counts",
        },
        "problems": problems,
        "notes": [],
        "exit_status": 1 if problems else 0,
        "elapsed_s": 1.25,
    }


def test_a_gpu_report_and_its_problems_in_both_editions():
    english = render_text(_gpu_report(["fix it"]))
    set_language("zh-Hans")
    hans = render_text(_gpu_report(["fix it"]))
    assert f"  {pad('计算能力', 23)} 7.5" in hans
    assert "GPU 0：Tesla T4，已用 0 MiB，共 15360 MiB，利用率 0%，驱动 535.104.05" in hans
    assert "  警告：a warning" in hans
    assert "达到目录中 fp16 峰值（65 TFLOP/s）的 40%" in hans
    assert "峰值未知（不在本课程的 GPU 目录中）" in hans
    assert "加速比（同样的 512×512 fp32 矩阵乘法）：cuda 比 CPU 快 20.0 倍" in hans
    assert "问题：fix it" in hans and "需要修复：发现 1 个问题；上面每一行“问题”都写明了该怎么做。" in hans
    assert "（检查用时 1.2 s）" in hans
    set_language("zh-Hant")
    hant = render_text(_gpu_report([]))
    assert f"  {pad('運算能力', 23)} 7.5" in hant and "使用率 0%，驅動程式 535.104.05" in hant
    assert "正常：PyTorch 可以使用 cuda 裝置（Tesla T4）。" in hant
    assert "矩陣乘法（2 次預熱後，取 5 個計時樣本的中位數）" in hant
    set_language("en")
    assert render_text(_gpu_report(["fix it"])) == english  # English is back exactly
    assert "NEEDS FIXING: 1 problem found; each PROBLEM line above says what to do." in english
    assert "GPU 0: Tesla T4, 0 MiB used of 15360 MiB, utilisation 0%, driver 535.104.05" in english


def test_chinese_columns_line_up_in_a_terminal():
    assert display_width("设备") == 4 and display_width("512×512") == 7
    assert pad("设备", 6) == "设备  " and pad("ab", 4, ">") == "  ab" and pad("too long", 3) == "too long"
    set_language("zh-Hans")
    lines = render_text(_gpu_report([])).splitlines()
    block = lines[lines.index("设备（PyTorch 将使用的设备）") + 1 :]
    block = block[: block.index("")]
    values = ["cuda: Tesla T4", "14.7 GiB = 15.8 GB", "14.5 GiB = 15.6 GB", "7.5", "535.104.05", "2.3.0", "12.1", "是"]
    assert len(block) == len(values)
    for line, value in zip(block, values, strict=True):
        assert line.endswith(" " + value), line
        assert display_width(line[: -len(value)]) == 26, line  # every value starts in the same terminal column


def test_parameter_counts_in_each_language():
    assert _params(8_030_000_000) == "8.0 billion" and _params(999) == "999"
    set_language("zh-Hans")
    assert _params(8_030_000_000) == "80.3 亿" and _params(2_000_000_000_000) == "2.0 万亿"
    assert _params(50_000) == "5.0 万"
    set_language("zh-Hant")
    assert _params(8_030_000_000) == "80.3 億" and _params(2_000_000_000_000) == "2.0 兆"


def test_smi_findings_in_chinese(fake_smi, cpu_only):
    from lessonkit.gpu_tools import nvidia_smi

    fake_smi(T4_LINE)
    set_language("zh-Hant")
    problems, _notes = doctor._smi_findings(nvidia_smi(), cuda_ok=False, colab=False)
    (problem,) = problems
    assert problem.startswith("nvidia-smi 列出了 1 張 GPU，但 PyTorch 無法使用 CUDA")


def test_the_report_json_is_built_in_english_whatever_the_language(cpu_only, no_smi, monkeypatch):
    monkeypatch.setattr(doctor, "_run_benchmark", lambda *a: _gpu_report([])["benchmark"])
    set_language("zh-Hans")
    args = doctor.argparse.Namespace(device=None, quick=True, basics=False, json=True, lang="zh-Hans")
    out = io.StringIO()
    doctor.run(args, doctor.argparse.ArgumentParser(), stdout=out)
    report = json.loads(out.getvalue())
    assert report["vram_budget"]["memory_of"] == "system RAM (no GPU: for comparison only)"
    assert get_language() == "zh-Hans"
    copy.deepcopy(report)  # plain data, no Lazy left in it
