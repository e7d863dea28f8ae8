"""What lessonkit shows besides the exercises and the doctor, in both Chinese editions: devices, timings,
estimates, the VRAM calculator, its plots and the glossary tables; English unchanged by default."""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

import polib
import pytest

from lessonkit.calculator import Calculator, fit_table, models_that_fit, plot_breakdown, this_machine
from lessonkit.calculator.budget import MachineBudget
from lessonkit.calculator.modes import JOBS
from lessonkit.device import DeviceInfo
from lessonkit.estimate import MODE_LABELS, decode_speed, estimate, estimate_sharded, fits, gpus_needed
from lessonkit.estimate.sharding import STRATEGIES
from lessonkit.glossary import glossary_table
from lessonkit.gpu_tools import nvidia_smi
from lessonkit.i18n import get_language, gettext, pgettext, set_language
from lessonkit.memparts import PARTS
from lessonkit.timing import Measurement, matmul_sizes_that_fit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import i18n as i18n_tool  # noqa: E402

CATALOGS = ("doctor", "calculator", "glossary", "display")
MY_FILES = (
    "lessonkit/doctor.py",
    "lessonkit/_doctor_text.py",
    "lessonkit/__main__.py",
    "lessonkit/glossary.py",
    "lessonkit/calculator/",
    "lessonkit/device.py",
    "lessonkit/gpu_tools/",
    "lessonkit/timing.py",
    "lessonkit/estimate/results.py",
    "lessonkit/estimate/sharding.py",
    "lessonkit/estimate/decode.py",
    "lessonkit/memparts.py",
)
HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(autouse=True)
def english_afterwards():
    """Every test starts and ends in English, so the other test files see lessonkit as they expect."""
    set_language("en")
    yield
    set_language("en")


def shown(obj: object, edition: str) -> tuple[str, str]:
    """str() of `obj` in English, then in `edition`."""
    set_language("en")
    english = str(obj)
    set_language(edition)
    return english, str(obj)


# --- the catalogs ---------------------------------------------------------------------------------


@pytest.mark.parametrize("edition", ["zh-Hans", "zh-Hant"])
def test_every_text_of_these_modules_is_translated_and_compiled(edition, untranslated):
    missing = [line for line in untranslated(edition) if any(f in line for f in MY_FILES)]
    assert missing == []
    set_language(edition)
    for name in CATALOGS:
        for entry in polib.pofile(str(ROOT / "lessonkit" / "locale" / edition / f"{name}.po")):
            got = pgettext(entry.msgctxt, entry.msgid) if entry.msgctxt else gettext(entry.msgid)
            assert got == entry.msgstr, f"{name}.po is newer than the .mo: run `python tools/i18n.py compile`"


@pytest.mark.parametrize("edition", ["zh-Hans", "zh-Hant"])
def test_translations_keep_every_placeholder(edition):
    import string

    def fields(text: str) -> set[str]:
        return {f for _, f, _, _ in string.Formatter().parse(text) if f}

    for name in CATALOGS:
        for entry in polib.pofile(str(ROOT / "lessonkit" / "locale" / edition / f"{name}.po")):
            if "billion parameters" in entry.msgid:  # Chinese counts in 亿: a field of its own
                assert fields(entry.msgstr) == {"hundred_millions"}
            else:
                assert fields(entry.msgstr) == fields(entry.msgid), entry.msgid


# Wording that is right in one edition and wrong in the other (OpenCC's s2twp writes several of these).
HANT_WRONG = (
    "引數",
    "視訊記憶體",
    "並行",
    "萬億",
    "显",
    "内存",
    "程序",
    "数据",
    "默认",
    "运行",
    "线程",
    "进程",
    "文件",
)
HANS_WRONG = ("記憶體", "顯示", "資料", "程式", "預設", "執行", "執行緒", "檔案", "快取", "這", "裡", "為")


def test_each_edition_uses_its_own_words():
    for name in CATALOGS:
        for edition, wrong in (("zh-Hant", HANT_WRONG), ("zh-Hans", HANS_WRONG)):
            for entry in polib.pofile(str(ROOT / "lessonkit" / "locale" / edition / f"{name}.po")):
                found = [w for w in wrong if w in entry.msgstr]
                assert not found, f"{edition} {name}.po: {found} in {entry.msgstr!r}"


# --- devices and timings --------------------------------------------------------------------------


def test_device_report_and_nvidia_smi(fake_smi):
    info = DeviceInfo("cuda", "Tesla T4", 15835660288, 15600000000, (7, 5), "12.1", "535.104.05", "2.3.0", "a note")
    english, hans = shown(info, "zh-Hans")
    assert english.startswith("Device                cuda: Tesla T4\nTotal memory          14.7 GiB (15.8 GB)\n")
    assert hans.startswith("设备                      cuda: Tesla T4\n总内存                    14.7 GiB (15.8 GB)\n")
    assert "\nCUDA（PyTorch 构建版本）  12.1\n" in hans and "\n备注                      a note" in hans
    assert "<th style='text-align:left'>NVIDIA 驱动</th>" in info._repr_html_()
    set_language("zh-Hant")
    assert "<th style='text-align:left'>NVIDIA 驅動程式</th>" in info._repr_html_()

    fake_smi("0, Tesla T4, 15360, [N/A], [N/A], 535.104.05\nnot a reading")
    set_language("zh-Hans")
    smi = nvidia_smi()
    assert str(smi) == (
        "GPU 0：Tesla T4 | 显存 共 15360 MiB，未报告用量 | 利用率 无数据 | 驱动 535.104.05\n"
        "警告：第 2 行 'not a reading' 不是 GPU 读数：应有 6 个以逗号分隔的字段，实际有 1 个"
    )
    assert "<th>已用显存（MiB）</th>" in smi._repr_html_() and "<b>警告：</b>" in smi._repr_html_()
    set_language("zh-Hant")
    assert "<th>記憶體總量（MiB）</th>" in smi._repr_html_() and "使用率 無資料" in str(smi)
    set_language("en")
    assert str(smi).startswith("GPU 0: Tesla T4 | memory 15360 MiB, use not reported | utilisation n/a")


def test_no_nvidia_smi_says_why_in_chinese(no_smi):
    set_language("zh-Hant")
    result = nvidia_smi()
    assert str(result).startswith("nvidia-smi 無法使用：PATH 中沒有 'nvidia-smi'")
    assert "<b>nvidia-smi 無法使用：</b>" in result._repr_html_()


def test_timings_and_size_plans():
    cold = Measurement((0.002, 0.003, 0.004), 0.05, "cuda:0", 1, "matmul", "GPU time, cold L2")
    english, hans = shown(cold, "zh-Hans")
    assert english == "matmul: median 3 ms (IQR 1 ms) over 3 runs on cuda:0 (GPU time, cold L2); first call 50 ms"
    # the label's separator is a full-width colon in Chinese (issue 28: «矩阵乘法: 中位数» had an ASCII one)
    assert hans == "matmul：中位数 3 ms（IQR 1 ms），运行 3 次，设备 cuda:0（GPU 时间，L2 缓存已清空）；首次调用 50 ms"
    assert not i18n_tool.typography_problems("zh-Hans", hans)
    warm = Measurement((0.002,), 0.05, "cpu")
    set_language("zh-Hant")
    assert str(warm) == "中位數 2 ms（IQR 0 ns），執行 1 次，裝置 cpu；首次呼叫 50 ms"
    english, hant = shown(Measurement((0.002,), 0.05, "cpu", label="2048×2048 矩陣乘法"), "zh-Hant")
    assert english == "2048×2048 矩陣乘法: median 2 ms (IQR 0 ns) over 1 runs on cpu; first call 50 ms"
    assert hant == "2048×2048 矩陣乘法：中位數 2 ms（IQR 0 ns），執行 1 次，裝置 cpu；首次呼叫 50 ms"
    assert not i18n_tool.typography_problems("zh-Hant", hant)
    plan = matmul_sizes_that_fit([256, 65536], free_bytes="1GiB")
    english, hant = shown(plan, "zh-Hant")
    assert english.splitlines()[0] == "running n = 256"
    assert hant.splitlines() == [
        "執行 n = 256",
        "略過 n = 65536：A、B 和 A @ B 需要 49152 MiB，超過可用的 1024 MiB 的 50%",
    ]


# --- estimates ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("edition", "words"),
    [
        ("zh-Hans", ["峰值时刻：优化器更新步", "  权重  ", "  合计  ", "装不下：在 NVIDIA T4 上需要", "，还差 "]),
        ("zh-Hant", ["峰值時刻：優化器更新步", "  權重  ", "  合計  ", "放不下：在 NVIDIA T4 上需要", "，還差 "]),
    ],
)
def test_estimates_and_fits(edition, words):
    est = estimate("llama-3.1-8b", "full", "bf16")
    set_language(edition)
    text = str(est) + "\n" + str(fits(est, "T4"))
    for word in words:
        assert word in text, word
    assert "组成部分" in est._repr_html_() if edition == "zh-Hans" else "組成部分" in est._repr_html_()
    columns = {len(line) - len(line.lstrip()) for line in str(est).splitlines()[2:-1]}
    assert columns == {2}


def test_estimate_and_fit_in_english_are_unchanged():
    est = estimate("gpt2", "inference", "fp16", seq_len=1024)
    set_language("zh-Hans")
    str(est), str(fits(est, "T4"))
    set_language("en")
    assert str(est).splitlines()[1] == "peak: reading the prompt"
    assert str(est).splitlines()[-1].startswith("  total  ")
    assert str(fits(est, "T4")).startswith("fits: needs ")
    assert "<th style='text-align:left'>component</th><th>memory</th><th>share</th>" in est._repr_html_()


def test_sharding_and_decoding_speed():
    enough = gpus_needed("llama-3.1-8b", "T4", checkpointing=True)
    never = gpus_needed("llama-3.1-8b", "T4", batch=64, seq_len=8192)
    speed = decode_speed("llama-3.1-8b", "T4", batch=4)
    sharded = estimate_sharded("llama-3.1-8b", gpus=8, tensor_parallel=2)
    set_language("zh-Hans")
    assert "×" in str(enough) and "采用“ZeRO-3，优化器状态、梯度和权重分片”：每块 GPU 装得下" in str(enough)
    assert "多少块 NVIDIA T4 都不够" in str(never) and "（最大的几部分：激活值 " in str(never)
    assert str(speed).splitlines()[1:3] == [
        "  每条序列最多 17.5 tokens/s，4 条序列的批次合计 70 tokens/s",
        "  每步读取权重 15.01 GB + KV 缓存 2.15 GB = 17.16 GB，按 300 GB/s 计：至少 57.19 ms",
    ]
    assert "这是上限" in speed._repr_html_()
    set_language("zh-Hant")
    assert (
        "張量平行 2 ×（ZeRO-3，優化器狀態、梯度和權重切分，4 路）"
        in estimate_sharded("llama-3.1-8b", gpus=8, tensor_parallel=2).label
    )
    assert str(STRATEGIES["fsdp"].label) == "FSDP 完全切分（ZeRO-3）"
    set_language("en")
    assert "tensor parallel 2 x ZeRO-3, optimizer state, gradients and weights split over 4" in sharded.label
    assert f"{STRATEGIES['ddp'].label:<10}|" == "data parallel (DDP), everything replicated|"
    assert str(speed).splitlines()[1] == "  at most 17.5 tokens/s per sequence, 70 tokens/s for the batch of 4"


def test_part_and_job_names_follow_the_language():
    assert PARTS["kv_cache"].label == "KV cache" and JOBS["lora"].label == MODE_LABELS["lora"]
    set_language("zh-Hans")
    assert str(PARTS["kv_cache"].label) == "KV 缓存" and f"{JOBS['qlora'].label}" == "QLoRA 微调（4 位基础模型）"
    set_language("zh-Hant")
    assert str(PARTS["activations"].label) == "活化值" and str(JOBS["inference"].label) == "推論"


# --- the calculator -------------------------------------------------------------------------------


def test_fit_table_in_chinese_keeps_its_columns():
    table = fit_table("qlora", models=["gpt2", "llama-3.1-70b"], gpus=["T4", "A100_80GB_SXM"])
    english, hans = shown(table, "zh-Hans")
    assert hans.splitlines()[0] == "QLoRA 微调（4 位基础模型），int4（2048 个 token、批次大小 1、激活检查点）"
    head, *rows = hans.splitlines()[1:4]
    assert head.startswith("模型") and "需要" in head
    assert rows[0].endswith("可以           可以") and rows[1].endswith("-           可以")
    # the note names each group of GPUs with Chinese punctuation (lesson 05 prints it under every fit table)
    note = hans.splitlines()[-1]
    assert note == (
        "用来比较的显存（程序能分配的量）：T4：Colab T4 上 CUDA 报告的总量；"
        "A100_80GB_SXM：nvidia-smi 显示的总量，CUDA 报告的略少一些，所以勉强放得下的任务仍可能失败。"
    ), note
    assert english.splitlines()[-1].startswith("Memory compared with (what a program can allocate): T4: the total ")
    assert "; A100_80GB_SXM: nvidia-smi's total; CUDA" in english.splitlines()[-1]
    html_zh = table._repr_html_()
    assert "<th style='text-align:left'>模型</th><th>需要</th>" in html_zh and ">可以</td>" in html_zh
    set_language("en")
    assert (
        english.splitlines()[0]
        == "QLoRA fine-tuning (4-bit base), int4 (2048 tokens, batch 1, activation checkpointing)"
    )
    assert "<th style='text-align:left'>model</th><th>needs</th>" in table._repr_html_()


def test_model_plans_and_budgets(cpu_only):
    english = str(models_that_fit("lora", free_bytes="15GiB", models=["gpt2", "llama-3.1-8b"]))
    set_language("zh-Hant")  # the reasons a model is skipped are written when the plan is made
    hant = str(models_that_fit("lora", free_bytes="15GiB", models=["gpt2", "llama-3.1-8b"]))
    assert english.splitlines()[0] == "A budget of 15.00 GiB (15360 MiB), given by hand."
    assert hant.splitlines()[0] == "手動指定的預算 15.00 GiB (15360 MiB)。"
    assert hant.splitlines()[2].startswith("略過 Llama 3.1 8B bf16：需要 19.28 GiB（權重 14.96 GiB + ")
    assert hant.splitlines()[3] == "放得下的最大 Llama-3 式模型：57.3 億個參數"
    set_language("zh-Hans")
    none_here = str(models_that_fit("lora"))
    assert none_here.startswith("这里没有 CUDA GPU：PyTorch 看不到 CUDA GPU")
    assert "请改为与目录中的 GPU 比较。" in none_here
    assert this_machine().name == "这里没有 CUDA GPU"
    budget = MachineBudget("Tesla T4", 300 * 2**20, 15 * 2**30)
    assert str(budget) == "本机：Tesla T4，共 15.00 GiB，目前可用 0.29 GiB (300 MiB)"
    set_language("en")
    assert str(budget) == "This machine: Tesla T4, 0.29 GiB (300 MiB) free now of 15.00 GiB"


def test_calculator_report_and_widget():
    calc = Calculator(mode="inference", model="llama-3.1-8b", batch=2)
    english = str(calc.report())
    set_language("zh-Hans")
    report = str(calc.report())
    assert "NVIDIA T4 上的解码速度：每条序列最多 18.7 tokens/s（2 条序列的批次合计 37）" in report
    assert report.rstrip().endswith("这是上限（未计入计算和核函数启动）")
    box = calc.widget()
    assert calc.controls["model"].description == "模型" and calc.controls["mode"].description == "任务"
    assert ("全参数微调", "full") in calc.controls["mode"].options
    assert calc.controls["checkpointing"].description == "激活检查点（训练）"
    calc.pasted.value = "{not json"
    assert "没有使用 config.json：" in calc.pasted_status.value
    assert box is not None
    calc.set(mode="full")
    set_language("zh-Hant")
    assert "用 ZeRO-3 分散到多張 NVIDIA T4：需要 " in str(calc.report())
    set_language("en")
    calc.set(mode="inference", batch=2)
    assert str(calc.report()) == english


def test_plot_labels_follow_the_language():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    est = estimate("llama-3.1-8b", "lora", "int4")
    set_language("zh-Hant")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")  # the lead adds a CJK font
        ax = plot_breakdown([est], ["8B"], moments=True, gpu="T4")
        ax.figure.canvas.draw()
    assert ax.get_xlabel() == "顯示記憶體（GiB）"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["8B\n反向傳播開始時", "8B\n優化器更新步"]
    assert "權重" in [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close(ax.figure)
    set_language("en")
    ax = plot_breakdown([est], ["8B"], moments=True)
    assert ax.get_xlabel() == "memory (GiB)" and ax.get_yticklabels()[0].get_text() == "8B\nstart of backward"
    plt.close(ax.figure)


# --- the glossary ---------------------------------------------------------------------------------


def test_glossary_tables_follow_the_language():
    english = glossary_table(["vram"]).to_markdown()
    assert glossary_table(["vram"]).lang == "en"
    set_language("zh-Hans")
    table = glossary_table(["vram"])
    assert table.lang == "zh_hans"
    # issue 28: what English speakers say is for the English table; a Chinese one has the English name and meaning
    assert table.to_markdown().splitlines()[0] == "| 英文术语 | 简体中文 | 繁體中文 | 含义 |"
    assert "GPU memory" not in str(table) and "† 表示本课程所依据的中文文章" in str(table)
    assert "<th style='text-align:left;vertical-align:top'>英文术语</th>" in table._repr_html_()
    set_language("zh-Hant")
    table = glossary_table(["vram"])
    assert table.lang == "zh_hant" and "GPU 自己的記憶體" in str(table)
    assert table.to_markdown().splitlines()[0] == "| 英文術語 | 简体中文 | 繁體中文 | 含義 |"
    assert glossary_table(["vram"], lang="en").lang == "en"  # lang= given still wins
    set_language("en")
    assert glossary_table(["vram"]).to_markdown() == english
    assert get_language() == "en" and not HAN.search(english.split("|")[1])
