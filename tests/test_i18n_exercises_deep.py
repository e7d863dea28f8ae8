"""The Check yourself questions of lessons 05-11 speak each edition's Chinese, and English is unchanged by default."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import polib
import pytest

import lessonkit
from lessonkit.exercises import EXERCISES, exercises_for
from lessonkit.exercises.display import INCORRECT
from lessonkit.exercises.kinds import ChoiceExercise, NumberExercise

ROOT = Path(__file__).resolve().parent.parent
LESSONS = ("05", "06", "07", "08", "09", "10", "11")
EDITIONS = ("zh-Hans", "zh-Hant")
MODULES = [ROOT / "lessonkit" / "exercises" / f"lesson{n}.py" for n in LESSONS]
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(autouse=True)
def english_again():
    yield
    lessonkit.set_language("en")


# One wrong answer per lesson: (exercise, answer, the English verdict today, a part of each edition's verdict).
WRONG = [
    (
        "06-t4-tf32",
        "A",
        "A) the flag only allows TF32 where a GPU has it. The T4 is Turing, compute capability 7.5, and TF32 "
        "needs 8.0 or newer.",
        {"zh-Hans": "A) 这个开关只是允许在具备 TF32 的 GPU 上使用 TF32。T4 是 Turing 架构，计算能力 7.5",
         "zh-Hant": "A) 這個開關只是允許在具備 TF32 的 GPU 上使用 TF32。T4 是 Turing 架構，運算能力 7.5"},
    ),
    (
        "07-steps",
        30,
        "30 steps: that is the number of steps in one epoch. The run lasts 10 epochs.",
        {"zh-Hans": "30 步：这是一轮的步数。整个训练要跑 10 轮。",
         "zh-Hant": "30 步：這是一個 epoch 的步數。整個訓練要跑 10 個 epoch。"},
    ),
    (
        "05-where-to-run",
        "B",
        "B) a rented GPU bills every hour it runs, busy or idle. And a 7B model does not need an 80 GB card.",
        {"zh-Hans": "B) 租用的 GPU 只要在运行就按小时计费", "zh-Hant": "B) 租用的 GPU 只要在執行就按小時計費"},
    ),
    (
        "08-moe-two-users",
        12.17,
        "12.17 GB: that reads everything twice. Attention, norms, routers and the output head are read once per step "
        "for the whole batch; only the experts differ from token to token.",
        {"zh-Hans": "12.17 GB：这把所有东西都读了两遍。注意力、归一化层、路由器和输出头",
         "zh-Hant": "12.17 GB：這把所有東西都讀了兩遍。注意力、正規化層、路由器和輸出頭"},
    ),
    (
        "09-accumulation",
        7,
        "7 micro-batches: the first micro-batch counts too: 7 more after it make 8 in all, and the step comes after "
        "the last.",
        {"zh-Hans": "7 个微批次：第一个微批次也要算上：在它之后再来 7 个，一共是 8 个",
         "zh-Hant": "7 個微批次：第一個微批次也要算上：在它之後再來 7 個，一共是 8 個"},
    ),
    (
        "10-straggler",
        100,
        "100 ms: that is the fast GPUs' time. They cannot take the next step before the all-reduce, and the "
        "all-reduce waits for the slow GPU.",
        {"zh-Hans": "100 ms：这是快的 GPU 所用的时间。", "zh-Hant": "100 ms：這是快的 GPU 所用的時間。"},
    ),
    (
        "11-which-timer",
        "B",
        "B) the first call pays one-time start-up costs, which say nothing about the kernel's speed.",
        {"zh-Hans": "B) 第一次调用要付出一次性的启动成本", "zh-Hant": "B) 第一次呼叫要付出一次性的啟動成本"},
    ),
]  # fmt: skip


@pytest.mark.parametrize(("ident", "answer", "english", "chinese"), WRONG, ids=[w[0] for w in WRONG])
def test_a_wrong_answer_gets_chinese_feedback_in_each_edition_and_english_stays(ident, answer, english, chinese):
    ex = EXERCISES[ident]
    before = ex.check(answer, record=False)
    assert before.status == INCORRECT and before.message == english
    verdicts = {}
    for edition in EDITIONS:
        lessonkit.set_language(edition)
        result = ex.check(answer, record=False)
        assert result.status == INCORRECT and chinese[edition] in result.message, (edition, result.message)
        assert CJK.search(result.title), (edition, result.title)
        verdicts[edition] = result.message
    assert verdicts["zh-Hans"] != verdicts["zh-Hant"]
    lessonkit.set_language("en")
    assert ex.check(answer, record=False).message == english and not CJK.search(str(ex.check(answer, record=False)))


def _texts(ex) -> dict[str, str]:
    """Every learner-facing text of one exercise, as shown in the current language."""
    texts = {"title": ex.title, "explanation": ex.solution().explanation}
    texts.update({f"hint {n}": hint for n, hint in enumerate(ex.hints, 1)})
    if isinstance(ex, ChoiceExercise):
        texts["correct"] = ex.check(ex.right, record=False).message
        texts.update({f"option {k}": str(v) for k, v in ex.options.items()})
        texts.update({f"feedback {k}": str(v) for k, v in ex.feedback.items()})
    if isinstance(ex, NumberExercise):
        target = ex.target()
        texts["correct"] = str(target.correct)
        texts.update({f"trap {n}": str(trap.message) for n, trap in enumerate(target.traps, 1)})
    return texts


@pytest.mark.parametrize("edition", EDITIONS)
def test_every_text_of_lessons_05_to_10_is_translated(edition):
    english = {ex.id: _texts(ex) for lesson in LESSONS for ex in exercises_for(lesson)}
    assert not [(i, k) for i, texts in english.items() for k, v in texts.items() if CJK.search(v)]
    lessonkit.set_language(edition)
    for lesson in LESSONS:
        for ex in exercises_for(lesson):
            shown = _texts(ex)
            untranslated = [k for k, v in shown.items() if not CJK.search(v)]
            assert not untranslated, (ex.id, untranslated)
            assert ex.hint(1).text == ex.hints[0] and CJK.search(str(ex.solution()))


def test_an_explanation_built_when_shown_follows_the_language():
    ex = EXERCISES["08-chat-memory"]
    lessonkit.set_language("zh-Hans")
    assert "个参数 × 2 字节" in ex.solution().explanation and "KV 缓存" in ex.solution().explanation
    lessonkit.set_language("zh-Hant")
    assert "個參數 × 2 位元組" in ex.solution().explanation and "KV 快取" in ex.solution().explanation
    assert "# 每次呼叫的微秒數" in EXERCISES["11-idle-share"].solution().code
    lessonkit.set_language("en")
    assert ex.solution().explanation.startswith("Weights: 8,030,261,248 parameters × 2 bytes = ")
    assert "# microseconds per call" in EXERCISES["11-idle-share"].solution().code


def _marked() -> set[str]:
    """The English templates lessons 05-11 mark with _() or lazy()."""
    found = set()
    for path in MODULES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("_", "lazy"):
                arg = node.args[0]
                assert isinstance(arg, ast.Constant) and isinstance(arg.value, str), f"{path.name}:{node.lineno}"
                found.add(arg.value)
    return found


def _fields(template: str) -> list[tuple[str, str]]:
    return sorted((name, spec) for _, name, spec, _ in string.Formatter().parse(template) if name is not None)


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_catalog_translates_every_marked_text_keeping_fields_and_code(edition):
    folder = ROOT / "lessonkit" / "locale" / edition
    po = polib.pofile(str(folder / "exercises-deep.po"))
    entries = {e.msgid: e for e in po if not e.obsolete}
    elsewhere = {e.msgid for path in folder.glob("*.po") for e in polib.pofile(str(path)) if e.msgstr}
    marked = _marked()
    assert marked <= set(entries) | elsewhere, sorted(marked - set(entries) - elsewhere)[:5]
    assert set(entries) <= marked, sorted(set(entries) - marked)[:5]  # nothing stale
    for msgid, entry in entries.items():
        assert entry.msgstr and "fuzzy" not in entry.flags, msgid
        assert _fields(entry.msgstr) == _fields(msgid), msgid
        assert sorted(re.findall(r"`[^`]+`", entry.msgstr)) == sorted(re.findall(r"`[^`]+`", msgid)), msgid
        assert entry.msgstr.count("\n") == msgid.count("\n"), msgid
        if "   # " in msgid:  # a solution's code: only its comments are translated
            code = [line.split("#")[0] for line in msgid.splitlines()]
            assert [line.split("#")[0] for line in entry.msgstr.splitlines()] == code, msgid


def test_the_traditional_edition_uses_taiwan_terms():
    po = polib.pofile(str(ROOT / "lessonkit" / "locale" / "zh-Hant" / "exercises-deep.po"))
    for entry in po:
        for wrong in ("引數", "視訊記憶體", "並行", "萬億", "數據", "啟用值", "最佳化器", "“", "”", "这", "数", "显存"):
            assert wrong not in entry.msgstr, (wrong, entry.msgstr)
