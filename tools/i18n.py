"""The Chinese editions: PO catalogs from the English notebooks, and the translated notebooks built from both.

    python tools/i18n.py update        # English changed: refresh every catalog (changed entries turn fuzzy)
    python tools/i18n.py build         # write notebooks/<edition>/NN_*.ipynb from notebooks/ + i18n/<edition>/
    python tools/i18n.py check         # list fuzzy, missing, stale and code-changing entries; exit 1 if any
    python tools/i18n.py compile       # lessonkit/locale/<edition>/*.po -> LC_MESSAGES/lessonkit.mo
    python tools/i18n.py draft-hant 03 # zh-Hant draft of lesson 03 from its zh-Hans (OpenCC s2twp), marked fuzzy
    python tools/i18n.py messages      # lessonkit's marked texts (_, lazy, pgettext) with no translation

The English notebooks are the source. Each lesson has one catalog per edition, i18n/<edition>/NN_name.po:
an entry per markdown cell and per code cell that has a comment or a sentence in a string, its msgctxt
the nbformat cell id, its msgid the English cell. `make translations` runs update, compile and build.
A changed English cell keeps its old translation, marked fuzzy with the previous English (`#| msgid`),
the way gettext's msgmerge does; the build shows English for a fuzzy or missing entry, and the tests fail.
"""

from __future__ import annotations

import argparse
import copy
import functools
import io
import re
import sys
import tokenize
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import nbformat
import polib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessonkit import course  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
CATALOGS = ROOT / "i18n"
LOCALE = ROOT / "lessonkit" / "locale"
EDITIONS: tuple[str, ...] = ("zh-Hans", "zh-Hant")
LANGUAGE_NAMES = {"zh-Hans": "简体中文", "zh-Hant": "繁體中文"}
# The Colab badge's address changes with REF and the edition, and a lesson's "about N minutes" with each
# recorded run (make badges): the catalogs hold these placeholders instead, which the build fills in.
COLAB_PLACEHOLDER = "COLAB_URL"
MINUTES_PLACEHOLDER = "MINUTES"
_MINUTES = re.compile(r"(?<=· about )\d+(?= minutes ·)")  # the title line's, not any other "about N minutes"
_COLAB_URL = re.compile(r"https://colab\.research\.google\.com/github/[^)\s]+?\.ipynb")
WIDGET_STATE = "widgets"  # notebook metadata: the state of the ipywidgets that the stored outputs show
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"  # an output that shows a widget
_SETUP_MARK = "lessonkit.__version__"  # the setup cell: written by course.setup_cell, never translated by hand
FUZZY = "fuzzy"


def lessons(root: Path = ROOT) -> list[Path]:
    """The English lessons, notebooks/NN_*.ipynb."""
    return sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def is_setup(cell: dict) -> bool:
    return cell["cell_type"] == "code" and _SETUP_MARK in cell["source"]


def _as_python(source: str) -> str:
    """A code cell with its IPython lines (%pip, !ls) turned into comments, so that tokenize reads it."""
    lines = [("#" + line) if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    return "\n".join(lines) + "\n"


def _python_tokens(source: str) -> list[tokenize.TokenInfo]:
    """The tokens of a code cell, its IPython lines (%pip, !ls) read as comments."""
    return list(tokenize.generate_tokens(io.StringIO(_as_python(source)).readline))


def _sentence(string_token: str) -> bool:
    """A string literal a learner reads: it has a word and a space (not 'cuda', 'fp16' or a format spec)."""
    return bool(re.search(r"[A-Za-z]{2}", string_token)) and " " in string_token


def has_text(cell: dict) -> bool:
    """Whether a cell has anything to translate: markdown, or a comment or sentence in a code cell."""
    if cell["cell_type"] == "markdown":
        return bool(cell["source"].strip())
    if cell["cell_type"] != "code" or is_setup(cell):
        return False
    return any(
        t.type == tokenize.COMMENT or (t.type == tokenize.STRING and _sentence(t.string))
        for t in _python_tokens(cell["source"])
    )


def to_msgid(source: str) -> str:
    return _MINUTES.sub(MINUTES_PLACEHOLDER, _COLAB_URL.sub(COLAB_PLACEHOLDER, source), count=1)


_FIELD = re.compile(r"\{[^{}]*\}")  # an f-string's or a template's replacement field


_LITERAL_FIELD = re.compile(r"""\{\s*(['"])[^'"]*\1\s*(:[^{}]*)?\}""")


def _fields(string: str) -> list[str]:
    """A string's replacement fields, the words inside them blanked: {'bytes':>16} may become {'字节':>16}.

    A field that shows only a literal (a table header) may also change its width, {'bytes':>16} -> {'字节':>14}:
    a Chinese character takes two columns, so the translation narrows the field to keep the columns aligned.
    """
    found = []
    for field in _FIELD.findall(string):
        if _LITERAL_FIELD.fullmatch(field):
            field = re.sub(r"\d+", "#", _LITERAL_FIELD.sub(lambda m: "{'':" + (m.group(2) or ":")[1:] + "}", field))
        found.append(re.sub(r"'[^']*'|\"[^\"]*\"", "''", field))
    return sorted(found)


def _joined_fstrings(tokens: list[tokenize.TokenInfo], source: str) -> list[tokenize.TokenInfo]:
    """Python 3.12+ splits an f-string into FSTRING_START ... FSTRING_END: one STRING token again, as in 3.11."""
    start_type = getattr(tokenize, "FSTRING_START", None)
    if start_type is None:
        return tokens
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    joined: list[tokenize.TokenInfo] = []
    depth, first = 0, None
    for token in tokens:
        if token.type == start_type:
            depth += 1
            first = first or token
            continue
        if depth:
            if token.type == tokenize.FSTRING_END:
                depth -= 1
                if not depth:
                    begin = offsets[first.start[0] - 1] + first.start[1]
                    end = offsets[token.end[0] - 1] + token.end[1]
                    text = source[begin:end]
                    joined.append(tokenize.TokenInfo(tokenize.STRING, text, first.start, token.end, first.line))
                    first = None
            continue
        joined.append(token)
    return joined


def _code_tokens(source: str) -> list[tokenize.TokenInfo]:
    skip = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
    return [t for t in _joined_fstrings(_python_tokens(source), _as_python(source)) if t.type not in skip]


def code_change(english: str, translated: str) -> str | None:
    """How a translated code cell differs from the English in more than comments and sentence strings, or None.

    A string may change only where the English one is a sentence (a word and a space), and it keeps its
    replacement fields ({x:.1f}); "cuda", "fp16" or a format spec stay exactly as they are, and so does
    every name, number and operator.
    """
    try:
        ours, theirs = _code_tokens(english), _code_tokens(translated)
    except (tokenize.TokenError, SyntaxError, IndentationError) as error:
        return f"the translation is not Python any more ({error})"
    for a, b in zip(ours, theirs):
        if a.string == b.string:
            continue
        if not (a.type == tokenize.STRING and b.type == tokenize.STRING and _sentence(a.string)):
            return f"line {a.start[0]}: {a.string[:40]!r} became {b.string[:40]!r}"
        if _fields(a.string) != _fields(b.string):
            return f"line {a.start[0]}: the fields of {a.string[:40]!r} changed in {b.string[:40]!r}"
    if len(ours) != len(theirs):
        return f"{len(ours)} code tokens in English, {len(theirs)} in the translation"
    return None


def changes_code(english: str, translated: str) -> bool:
    """Whether a translated code cell changes more than comments and sentence strings (code_change)."""
    return code_change(english, translated) is not None


_CODE_SPAN = re.compile(r"`[^`\n]*`")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")


def _punctuation(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "PS"


def unrendered_bold(markdown: str) -> list[str]:
    """`**...**` that CommonMark shows as asterisks: punctuation just inside a mark, a letter just outside it.

    "**运行时间：**在" is the usual case in Chinese: a closing ** after "：" must be followed by a space or
    punctuation. Write "**运行时间**：在" instead.
    """
    masked = _CODE_SPAN.sub(lambda m: "x" * len(m.group(0)), markdown)
    found = []
    for m in _BOLD.finditer(masked):
        before = masked[m.start() - 1] if m.start() else " "
        after = masked[m.end()] if m.end() < len(masked) else " "
        inside_first, inside_last = masked[m.start() + 2], masked[m.end() - 3]
        opens = not _punctuation(inside_first) or before.isspace() or _punctuation(before)
        closes = not _punctuation(inside_last) or after.isspace() or _punctuation(after)
        if not (opens and closes):
            found.append(markdown[max(m.start() - 6, 0) : m.end() + 4])
    return found


def catalog_path(edition: str, lesson: Path, root: Path = ROOT) -> Path:
    return root / "i18n" / edition / (lesson.stem + ".po")


def edition_path(edition: str, lesson: Path, root: Path = ROOT) -> Path:
    return root / "notebooks" / edition / lesson.name


def _new_catalog(edition: str, lesson: Path) -> polib.POFile:
    po = polib.POFile(wrapwidth=0)
    po.metadata = {
        "Project-Id-Version": f"GPU Setup & Cloud course, {lesson.stem}",
        "Language": edition.replace("-", "_"),
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=UTF-8",
        "Content-Transfer-Encoding": "8bit",
        "X-Source": f"notebooks/{lesson.name}",
    }
    return po


def update(edition: str, lesson: Path, root: Path = ROOT) -> polib.POFile:
    """The catalog merged with the English cells now: new cells added, changed ones fuzzy, gone ones obsolete."""
    path = catalog_path(edition, lesson, root)
    old = polib.pofile(str(path), wrapwidth=0) if path.exists() else _new_catalog(edition, lesson)
    by_id = {e.msgctxt: e for e in old if not e.obsolete}
    po = _new_catalog(edition, lesson)
    po.metadata.update({k: v for k, v in old.metadata.items() if k not in po.metadata})
    nb = nbformat.read(lesson, as_version=4)
    for index, cell in enumerate(nb.cells):
        if not has_text(cell):
            continue
        msgid = to_msgid(cell["source"])
        entry = by_id.pop(cell["id"], None)
        if entry is None:
            entry = polib.POEntry(msgctxt=cell["id"], msgid=msgid, msgstr="")
        elif entry.msgid != msgid:
            entry.previous_msgid = entry.msgid
            entry.msgid = msgid
            if entry.msgstr and FUZZY not in entry.flags:
                entry.flags.append(FUZZY)
        entry.occurrences = [(f"notebooks/{lesson.name}", str(index + 1))]
        entry.comment = f"{cell['cell_type']} cell {index + 1}"
        po.append(entry)
    for gone in by_id.values():
        gone.obsolete = True
        po.append(gone)
    return po


def _translated(entry: polib.POEntry | None) -> str | None:
    if entry is None or not entry.msgstr or FUZZY in entry.flags or entry.obsolete:
        return None
    return entry.msgstr


def read_catalog(path: Path) -> polib.POFile:
    """A catalog to read, not to change: parsed once for as long as its bytes stay the same. The checks and
    tests read each catalog dozens of times a run, and parsing them again each time took seconds."""
    return _parsed_catalog(path.read_bytes())


@functools.lru_cache(maxsize=128)
def _parsed_catalog(data: bytes) -> polib.POFile:
    return polib.pofile(data.decode("utf-8"))


def build(edition: str, lesson: Path, root: Path = ROOT) -> nbformat.NotebookNode:
    """The edition's notebook: English cells replaced by their translations; outputs kept where a cell is unchanged."""
    english = nbformat.read(lesson, as_version=4)
    entries = {e.msgctxt: e for e in read_catalog(catalog_path(edition, lesson, root)) if not e.obsolete}
    old_path = edition_path(edition, lesson, root)
    old_nb = nbformat.read(old_path, as_version=4) if old_path.exists() else None
    old_cells = {c["id"]: c for c in old_nb.cells} if old_nb is not None else {}
    nb = copy.deepcopy(english)
    nb.metadata["language"] = edition
    nb.metadata.pop(WIDGET_STATE, None)  # the English widgets' state, in English: never the edition's (below)
    colab = course.colab_url(f"{edition}/{lesson.name}")
    for cell in nb.cells:
        if is_setup(cell):
            cell["source"] = course.setup_cell(edition)
        else:
            msgstr = _translated(entries.get(cell["id"])) if has_text(cell) else None
            minutes = _MINUTES.search(cell["source"])
            if msgstr is not None:
                cell["source"] = msgstr
            if minutes:
                cell["source"] = cell["source"].replace(MINUTES_PLACEHOLDER, minutes.group(0), 1)
            cell["source"] = cell["source"].replace(COLAB_PLACEHOLDER, colab)
            cell["source"] = _COLAB_URL.sub(colab, cell["source"])
            if cell["cell_type"] == "markdown":
                cell["source"] = relink(cell["source"], edition)
        old = old_cells.get(cell["id"])
        if cell["cell_type"] == "code":
            # The setup cell keeps its outputs when course.setup_cell changes what it does in Colab: here it only
            # sets the language (as make badges keeps the English lessons' setup outputs); nbval checks them.
            same = old is not None and (old["source"] == cell["source"] or (is_setup(cell) and is_setup(old)))
            cell["outputs"] = copy.deepcopy(old["outputs"]) if same else []
            cell["execution_count"] = old.get("execution_count") if same else None
    # The stored state of the widgets that outputs show (their labels, recorded in the edition's language) goes
    # with those outputs: kept while an output that shows a widget is kept, dropped with the last of them.
    # Copying the English lesson's state instead turned lesson 05's Chinese controls English on `make badges`.
    if old_nb is not None and WIDGET_STATE in old_nb.metadata and any(_shows_widget(c) for c in nb.cells):
        nb.metadata[WIDGET_STATE] = copy.deepcopy(old_nb.metadata[WIDGET_STATE])
    return nb


def _shows_widget(cell: dict) -> bool:
    return any(WIDGET_VIEW in output.get("data", {}) for output in cell.get("outputs", []))


def relink(markdown: str, edition: str) -> str:
    """Links out of notebooks/ go one folder further up; the README link goes to the edition's README."""
    markdown = markdown.replace("](../README.md", f"](../../README.{edition}.md")
    return re.sub(r"\]\(\.\./(?!\.\./)", "](../../", markdown)


def write_notebook(nb: nbformat.NotebookNode, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))


@dataclass(frozen=True)
class Problem:
    edition: str
    lesson: str
    cell: str
    what: str

    def __str__(self) -> str:
        return f"{self.edition} {self.lesson} cell {self.cell}: {self.what}"


def problems(edition: str, lesson: Path, root: Path = ROOT) -> list[Problem]:
    """Everything wrong with one lesson's edition: missing, fuzzy, stale or code-changing entries, a stale build."""
    found: list[Problem] = []
    name = lesson.stem
    path = catalog_path(edition, lesson, root)
    if not path.exists():
        return [Problem(edition, name, "-", f"no catalog {path.relative_to(root)}: run `make translations`")]
    current = update(edition, lesson, root)
    stored = {e.msgctxt: e for e in read_catalog(path) if not e.obsolete}
    for entry in current:
        if entry.obsolete:
            continue
        mine = stored.get(entry.msgctxt)
        if mine is None or mine.msgid != entry.msgid:
            found.append(Problem(edition, name, entry.msgctxt, "the English cell changed: run `make translations`"))
        elif not mine.msgstr:
            found.append(Problem(edition, name, entry.msgctxt, "missing translation"))
        elif FUZZY in mine.flags:
            found.append(Problem(edition, name, entry.msgctxt, "fuzzy translation: review it, then drop the flag"))
        elif entry.comment.startswith("markdown") and unrendered_bold(mine.msgstr):
            shown = ", ".join(map(repr, unrendered_bold(mine.msgstr)))
            what = f"bold that Markdown shows as ** (move the punctuation outside the **): {shown}"
            found.append(Problem(edition, name, entry.msgctxt, what))
        elif entry.comment.startswith("code") and (change := code_change(entry.msgid, mine.msgstr)):
            what = f"the translation changes code, not only comments and sentences: {change}"
            found.append(Problem(edition, name, entry.msgctxt, what))
    built = edition_path(edition, lesson, root)
    if not built.exists():
        found.append(Problem(edition, name, "-", f"{built.relative_to(root)} is missing: run `make translations`"))
    else:
        fresh = build(edition, lesson, root)
        have = nbformat.read(built, as_version=4)
        want_cells = [(c["id"], c["cell_type"], c["source"]) for c in fresh.cells]
        have_cells = [(c["id"], c["cell_type"], c["source"]) for c in have.cells]
        if len(want_cells) != len(have_cells):
            found.append(Problem(edition, name, "-", "the built notebook has other cells than the build makes now"))
        for want, got in zip(want_cells, have_cells):
            if want != got:
                found.append(
                    Problem(
                        edition, name, want[0], "the built notebook differs from the build: run `make translations`"
                    )
                )
    return found


_GLOSSARY_CALL = re.compile(r"glossary_table\(\s*\[([^\]]*)\]")


def key_terms(lesson: Path) -> list[str]:
    """The glossary keys of a lesson's Key terms cell: glossary_table(["gpu", "vram", ...])."""
    for cell in nbformat.read(lesson, as_version=4).cells:
        found = _GLOSSARY_CALL.search(cell["source"]) if cell["cell_type"] == "code" else None
        if found:
            return re.findall(r"[\"']([a-z0-9_]+)[\"']", found.group(1))
    return []


def glossary_form(term: dict, edition: str) -> str:
    """The words an edition's narration must use for a term: its translation up to any full-width bracket."""
    return term[edition.replace("-", "_").lower()].split("（")[0].strip()


def glossary_problems(edition: str, lesson: Path, root: Path = ROOT) -> list[Problem]:
    """The lesson's key terms that its edition's narration never writes in the glossary's own translation."""
    import json

    terms = {t["key"]: t for t in json.loads((root / "lessonkit/data/glossary.json").read_text("utf-8"))["terms"]}
    built = edition_path(edition, lesson, root)
    if not built.exists():
        return [Problem(edition, lesson.stem, "-", f"{built.name} is missing")]
    narration = "\n".join(c["source"] for c in nbformat.read(built, as_version=4).cells if c["cell_type"] == "markdown")
    return [
        Problem(
            edition,
            lesson.stem,
            "-",
            f"key term {key!r} never appears as the glossary's {glossary_form(terms[key], edition)!r}",
        )
        for key in key_terms(lesson)
        if glossary_form(terms[key], edition) not in narration
    ]


# Words of the other region that an edition must not use (its own word after the arrow), in any catalog: the
# issue's reviewers found OpenCC's and the glossary's first drafts using them.
OTHER_REGION: dict[str, dict[str, str]] = {
    "zh-Hant": {
        "視訊記憶體": "顯示記憶體",
        "顯存": "顯示記憶體",
        "引數": "參數",
        "並行": "平行",
        "萬億": "兆",
        "核心程式": "核函式",
        "激活": "活化",
        "默認": "預設",
        "數據": "資料",
        "信息": "資訊",
        "網絡": "網路",
        "軟件": "軟體",
        "硬件": "硬體",
        "內存": "記憶體",
        "視頻": "影片",
        "屏幕": "螢幕",
        "打印": "列印",
        "服務器": "伺服器",
        "鏈接": "連結",
        "緩存": "快取",
        "帶寬": "頻寬",
        "調用": "呼叫",
        "函數": "函式",
        "運行": "執行",
        "芯片": "晶片",
        "單元格": "儲存格",
        "腦浮點": "BF16",
        "吉比": "GiB",
        "梅比": "MiB",
    },
    "zh-Hans": {
        "显示记忆体": "显存",
        "记忆体": "内存",
        "资料": "数据",
        "程式": "程序",
        "位元组": "字节",
        "核函式": "核函数",
        "活化": "激活",
        "显示卡": "显卡",
        "执行绪": "线程",
        "预设": "默认",
        "档案": "文件",
        "伺服器": "服务器",
        "网路": "网络",
        "软体": "软件",
        "硬体": "硬件",
        "频宽": "带宽",
        "脑浮点": "BF16",
        "吉比": "GiB",
        "梅比": "MiB",
    },
}


# Issue 28's review of both editions, a Taiwan editor's and a mainland editor's: more words of the other region,
# checked with the context patterns and the rows and columns below (tests/test_i18n_regional.py).
REVIEWED_REGION: dict[str, dict[str, str]] = {
    "zh-Hant": {
        "歸一化": "標準化 (z-scoring) or 正規化",
        "學習率調度": "學習率排程",
        "調度器": "排程器",
        "流水線平行": "管線平行",
        "流水線並行": "管線平行",
        "工具包": "工具套件",
        "利用率": "使用率",
        "最好水平": "最佳水準",
        "方差": "變異數",
        "語義": "語意",
        "前綴": "字首",
        "分配器": "配置器",
        "地址": "位址",
        "保存": "儲存",
        "橙色": "橘色",
        "搭建": "建置 or 架設",
        "報錯": "出現錯誤 or 回報錯誤",
        "賦值": "指定",
        "計算機": "計算器 (the calculator)",
        "質量": "品質",
        "模塊": "模組",
        "代碼": "程式碼",
        "源代碼": "原始碼",
        "文件夾": "資料夾",
        "默認值": "預設值",
        "卸載": "解除安裝",
    },
    "zh-Hans": {
        "变异数": "方差",
        "排程": "调度",
        "管线并行": "流水线并行",
        "工具套件": "工具包",
        "最佳水准": "最好水平",
        "语意": "语义",
        "字首": "前缀",
        "配置器": "分配器",
        "位址": "地址",
        "橘色": "橙色",
        "建置": "搭建 or 构建",
        "最佳化": "优化",
        "模组": "模块",
        "程式码": "代码",
        "专案": "项目",
        "资料夹": "文件夹",
        "登入": "登录",
        "萤幕": "屏幕",
        "列印": "打印",
        "储存格": "单元格",
        "笔电": "笔记本电脑",
    },
}


def regional_problems(edition: str, text: str) -> list[str]:
    """The other region's words in `text`, each with the edition's own: '引數 (write 參數)'."""
    return [f"{word} (write {ours})" for word, ours in OTHER_REGION[edition].items() if word in text]


def usage_problems(edition: str, lesson: Path, root: Path = ROOT) -> list[Problem]:
    """Entries of a lesson's catalog that use the other region's words (OTHER_REGION)."""
    path = catalog_path(edition, lesson, root)
    if not path.exists():
        return []
    return [
        Problem(edition, lesson.stem, e.msgctxt, "the other region's words: " + ", ".join(found))
        for e in read_catalog(path)
        if not e.obsolete and (found := regional_problems(edition, e.msgstr))
    ]


# --- what a reader of an edition reads in the stored outputs -----------------------------------------------


_CODE_ELEMENT = re.compile(r"<(code|pre|kbd|samp)\b[^>]*>.*?</\1>", re.DOTALL)
_BLOCK_TAG = re.compile(r"</?(?:td|th|tr|p|br|li|div|table|ul|ol|h\d|pre)\b[^>]*>")
_ENGLISH_ELEMENT = re.compile(r"<(td|th|span|div|p)\b[^>]*\blang=['\"]en['\"][^>]*>.*?</\1>", re.DOTALL)


def _element_in(language: str) -> re.Pattern[str]:
    """An HTML element marked lang=`language` (a glossary table's column), with what it holds."""
    return re.compile(rf"<(td|th|span|div|p)\b[^>]*\blang=['\"]{re.escape(language)}['\"][^>]*>.*?</\1>", re.DOTALL)


def output_texts(nb: nbformat.NotebookNode, other_edition: str | None = None) -> list[tuple[int, str, str]]:
    """(cell number, cell id, text) for what a reader reads in each code cell's stored outputs.

    Printed text, and a result's HTML as the browser shows it (tags dropped; code, and what is marked lang="en"
    on purpose, such as a glossary's English column, left out) or else its plain text. A figure's or a widget's
    plain-text stand-in ("<Figure size 640x480 with 1 Axes>", "VBox(children=...)") is read by no one.
    other_edition: what is marked lang=other_edition (the glossary's column in the other script) is left out too;
    it is read with that edition's own rules where it is the reader's column.
    """
    import html as html_module

    found = []
    for number, cell in enumerate(nb.cells, 1):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                text = output.get("text", "")
            elif "data" in output:
                data = output["data"]
                if {"image/png", "image/svg+xml", "application/vnd.jupyter.widget-view+json"} & set(data):
                    continue
                if "text/html" in data:
                    # code and what is marked English become a mark that is neither a word nor a space
                    shown = _ENGLISH_ELEMENT.sub("\x00", _CODE_ELEMENT.sub("\x00", data["text/html"]))
                    if other_edition:
                        shown = _element_in(other_edition).sub("\x00", shown)
                    shown = _BLOCK_TAG.sub("\n", shown)  # a table's cells and a box's lines end a line
                    text = html_module.unescape(re.sub(r"<[^>]+>", "", shown))
                else:
                    text = data.get("text/plain", "")
            else:
                continue
            if text.strip():
                found.append((number, cell.get("id", "-"), text))
    return found


# Latin-letter words an edition's reader may meet in an output, each kind for a reason; the names in lessonkit's
# own catalogs (GPUs, models, cloud providers) and the glossary's own Chinese terms are added by allowed_latin().
ALLOWED_LATIN: dict[str, tuple[str, ...]] = {
    # units the lessons write in every language (README: MiB, GiB, GB), and time units
    "units": ("B", "KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", "TB", "GB/s", "TB/s", "ms", "ns", "W"),
    # throughput units and counts written as in the datasheets
    "rates": ("FLOP", "FLOPs", "GFLOP", "TFLOP/s", "GFLOP/s", "TOPS", "tokens/s"),
    # terms both editions keep in Latin letters, as the glossary does LoRA (zh-Hans: notebook, as 笔记本 is a laptop)
    # (MLP: the feed-forward block, written MLP in Chinese texts too, as 多层感知机（MLP）)
    "terms": ("token", "notebook", "IQR", "Transformer", "ECC", "URL", "MLP"),
    # PyTorch's classes and operations a lesson names as its code does: optimizers, layers, DDP, matmul
    # (FusedAdam: DeepSpeed's optimizer; MixedPrecisionPolicy: FSDP2's, named in lesson 08's recipes and sources;
    # Sequential and Linear: what print(model) shows in lesson 07)
    "classes": (
        "SGD", "Adam", "AdamW", "RMSprop", "ReLU", "GELU", "DDP", "matmul", "FusedAdam", "MixedPrecisionPolicy",
        "Sequential", "Linear",
    ),
    # symbols of mathematics
    "symbols": ("ln", "log", "exp"),
    # the dtypes as PyTorch names them: code a learner types
    "dtypes": ("fp32", "fp16", "bf16", "fp8", "tf32", "float32", "bfloat16", "int64"),
    # Python's values and the names of the tools a learner runs (pip, nvidia-smi, lessonkit doctor)
    "code": (
        "True", "False", "None", "torch", "cuda", "mps", "cpu", "pip", "nvidia-smi", "lessonkit", "doctor", "PATH",
        "GPU-Util", "Memory-Usage",  # nvidia-smi's columns, which a learner finds in its output by these names
    ),
    # products, companies and systems, written in Latin letters in Chinese too
    "names": (
        "NVIDIA", "PyTorch", "CUDA", "Python", "Jupyter", "Colab", "Google", "Apple", "Mac", "macOS", "Linux",
        "Windows", "Debian", "Ubuntu", "Intel", "AMD", "EPYC", "GPU", "CPU", "RAM", "PCIe", "SXM", "AMX", "GitHub",
        "GPT", "Triton", "ROCm", "Metal",  # ROCm: AMD's GPU platform; Metal: Apple's graphics API (MPS)
        "DeepSpeed", "Megatron-LM",  # training frameworks (lessons 08-10): product names, not words to translate
        "NCCL", "Gloo",  # the communication libraries torch.distributed's backends are named after (lesson 10)
    ),
}  # fmt: skip


def glossary_listed(term: dict, edition: str) -> list[str]:
    """The Latin-letter words an edition's glossary name lists in its bracket next to Chinese ones: its own terms.

    "正则化（权重衰减、dropout）" writes dropout as zh-Hans' word for it, as "优化器（SGD、AdamW）" writes SGD;
    a bracket of Latin letters alone ("轮（epoch）", "打乱（shuffle）") is a gloss, not the edition's word.
    """
    name = term[edition.replace("-", "_").lower()]
    found: list[str] = []
    for inside in re.findall(r"（([^（）]*)）", name):
        parts = [part.strip() for part in re.split(r"[、，,]", inside) if part.strip()]
        if len(parts) > 1 and any(re.search(r"[\u3400-\u9fff]", part) for part in parts):
            found += [part for part in parts if not re.search(r"[\u3400-\u9fff]", part)]
    return found


def allowed_latin(edition: str, root: Path = ROOT) -> frozenset[str]:
    """Every Latin word `edition` may show in an output, lower-cased: ALLOWED_LATIN, lessonkit's catalogs' names
    (GPUs, their architectures and memory types, models, cloud providers) and the words the glossary itself keeps
    in Latin letters in the edition's terms (glossary_form: "Tensor 核心", "LoRA"; glossary_listed: dropout)."""
    import json

    data = root / "lessonkit" / "data"
    gpus = json.loads((data / "gpus.json").read_text("utf-8"))["gpus"]
    models = json.loads((data / "models.json").read_text("utf-8"))["models"]
    prices = json.loads((data / "prices.json").read_text("utf-8"))["listings"]
    terms = json.loads((data / "glossary.json").read_text("utf-8"))["terms"]
    names = [
        *(n for g in gpus for n in (g["key"], g["name"], g.get("architecture") or "", g.get("memory_type") or "")),
        *(n for g in gpus for n in g.get("torch_names", [])),
        *(m["name"] for m in models),
        *(p["provider"] for p in prices),
        *(glossary_form(t, edition) for t in terms),
        *(word for t in terms for word in glossary_listed(t, edition)),
    ]
    words = {w for kind in ALLOWED_LATIN.values() for w in kind}
    words |= {w for name in names for w in _LATIN_WORD.findall(name)}
    return frozenset(w.lower() for w in words)


# Code, addresses and file names are not words to translate: taken out before the words are read.
_NOT_WORDS = re.compile(
    r"`[^`\n]*`"  # a code span
    r"|https?://\S+|www\.\S+"  # an address
    r"|\S+\.(?:ipynb|json|py|md|txt|pdf|csv|html|mo|po|yml|yaml)\b"  # a file name
    r"|\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?"  # torch.cuda.is_available(), lessonkit.doctor
    r"|\b[A-Za-z_]+[0-9]*_\w*"  # snake_case names: world_size, A100_40GB
    r"|\b\w+\([\w.=']*\)"  # a call, with arguments written without a space: synchronize(), benchmark(flush_cache=True)
    r"|--?[a-z][\w-]*"  # a command's option: --quick
    r"|(?<![\w/])/[\w.-]+(?:/[\w.-]+)+"  # a path: /proc/cpuinfo
    r"|'[^'\n]*'"  # a quoted value in a repr: 'zh-Hans', 'cuda'
    r"|\b\w+="  # a keyword argument or a field of a repr: monotonic=False
    # a gloss: the English term in brackets right after the Chinese one, for whoever wants it
    r"|(?<=[\u3400-\u9fff])\s?[（(][A-Za-z][^（）()\u3400-\u9fff]*[）)]"
)
# a word starts after a letter or digit of its own: "24xlarge" (AWS p4de.24xlarge) is one product code, not "xlarge"
_LATIN_WORD = re.compile(r"(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9]*(?:[-/][A-Za-z0-9]+)*")
# a gloss after a Chinese term that ends in a Latin word, 无服务器 GPU（Serverless）: the gloss goes, the word stays
_GLOSS_AFTER_MIXED_TERM = re.compile(
    r"([\u3400-\u9fff]\s?[A-Za-z][A-Za-z0-9]*)\s?[（(][A-Za-z][^（）()\u3400-\u9fff]*[）)]"
)


def latin_words(text: str, allowed: frozenset[str]) -> list[str]:
    """The Latin-letter words of `text` a reader must read and `allowed` does not hold, in order, each once.

    A word of one letter (n, x, a unit's B) or with a digit in it (T4, int8, 7B, Qwen2) is a symbol or a product
    code, not a word; code, addresses and file names are not words either (_NOT_WORDS).
    """
    found: list[str] = []
    for word in _LATIN_WORD.findall(_NOT_WORDS.sub(" ", _GLOSS_AFTER_MIXED_TERM.sub(r"\1", text))):
        if len(word) < 2 or any(c.isdigit() for c in word) or word.lower() in allowed:
            continue
        if len(parts := re.split(r"[-/]", word)) > 1 and all(part.lower() in allowed for part in parts):
            continue  # CUDA/torch, Phi-3-mini
        if word not in found:
            found.append(word)
    return found


# Outputs that show another program's own words, or code, exactly as the learner's machine shows them: the lesson
# quotes them so that the learner recognises them. Cell id -> what it shows (the same id in both editions).
VERBATIM_OUTPUTS: dict[str, str] = {
    "21be8f30": "nvidia-smi's own report (lesson 01), as a learner's nvidia-smi prints it",
    "ac09e0d4": "nvidia-smi's own report (lesson 04's exercise reads it)",
    "a0fdfa7b": "nvidia-smi's own error message for a broken driver (lesson 01), to be recognised when it appears",
    "d6dc86b0": "the install and doctor command lines (lesson 01), to copy",
    "26e45f7e": "the Python source of the DDP worker (lesson 10), printed with inspect.getsource",
}


def latin_problems(
    edition: str, lesson: Path, root: Path = ROOT, allowed: frozenset[str] | None = None
) -> list[Problem]:
    """The cells of a lesson's edition whose stored outputs show Latin words outside allowed_latin()."""
    built = edition_path(edition, lesson, root)
    if not built.exists():
        return [Problem(edition, lesson.stem, "-", f"{built.name} is missing")]
    allowed = allowed_latin(edition, root) if allowed is None else allowed
    by_cell: dict[tuple[int, str], list[str]] = {}
    other = next(e for e in EDITIONS if e != edition) if edition in EDITIONS else None
    for number, cell_id, text in output_texts(nbformat.read(built, as_version=4), other):
        if cell_id in VERBATIM_OUTPUTS:
            continue
        words = by_cell.setdefault((number, cell_id), [])
        words += [w for w in latin_words(text, allowed) if w not in words]
    return [
        Problem(edition, lesson.stem, f"{number} (id {cell_id})", "English in the output: " + ", ".join(words))
        for (number, cell_id), words in by_cell.items()
        if words
    ]


# Words whose meaning depends on the region, found by their context rather than alone (issue 28): the measure
# word for a GPU card, 里 where Taiwan writes 裡, 生成 for "produce" (生成式 AI is Taiwan's word too).
REGIONAL_PATTERNS: dict[str, list[tuple[re.Pattern[str], str]]] = {
    "zh-Hant": [
        (re.compile(r"(?:[一兩二三四五六七八九十幾多每單整某這那哪另]|\d)\s*塊\s*(?:GPU|顯示卡|卡|[A-Z]+\d|NVIDIA|RTX)"),
            "a GPU card is counted with 張 in Taiwan (一張 T4)"),
        (re.compile(r"塊\s*(?:GPU|顯示卡)"), "a GPU card is counted with 張 in Taiwan"),
        (re.compile(r"[這那哪心]里|里[面頭]"), "裡 (inside) is 裡 in Taiwan; 里 is a mile or a village"),
        (re.compile(r"生成(?!式)"), "產生 (生成 is the mainland's; 生成式 AI stays)"),
        (re.compile(r"\d\s*十億|×\s*10[⁰¹²³⁴⁵⁶⁷⁸⁹]+\s*個"), "a large count in 億 or 萬 (129 億個參數)"),
    ],
    "zh-Hans": [
        (re.compile(r"(?:[一两二三四五六七八九十几多每单整某这那哪另]|\d)\s*张\s*(?:GPU|显卡|[A-Z]+\d|NVIDIA|RTX)"),
            "a GPU card is counted with 块 on the mainland (一块 T4)"),
        (re.compile(r"(?<!Jupyter )笔记本(?!电脑)"), "笔记本 reads as a laptop (笔记本电脑): write notebook"),
        (re.compile(r"\d\s*十亿|×\s*10[⁰¹²³⁴⁵⁶⁷⁸⁹]+\s*个"), "a large count in 亿 or 万 (75 亿个参数)"),
    ],
}  # fmt: skip

# Rows and columns: Taiwan writes 列 for a row and 行 or 欄 for a column, the mainland 行 for a row and 列 for a
# column. A translation that names them in the other region's sense reverses them for its reader. The English
# says which it means: each "row"/"column" of the English, in order, must come out as the edition's word.
_ENGLISH_ROW_COLUMN = re.compile(r"\b(rows?|columns?)\b", re.IGNORECASE)
_CHINESE_ROW_COLUMN = {
    # 行 and 列 alone, not inside another word (執行, 平行, 行程, 列出, 佇列, 命令列, 序列, 不行 ...)
    "zh-Hant": re.compile(
        r"(?<![執平進運發流銀自先並同可不命佇序陣串排系隊下旅盛試])([行列欄])(?![程為動得不出印表舉車星李])"
    ),
    "zh-Hans": re.compile(
        r"(?<![执平进运发流银自先并同可不命伫序阵串排系队下旅盛试])([行列栏])(?![程为动得不出印表举车星李])"
    ),
}
_ROW_WORD = {"zh-Hant": "列", "zh-Hans": "行"}


def rows_and_columns(edition: str, english: str, translated: str) -> str | None:
    """How `translated` names the rows and columns `english` speaks of in the other region's sense, or None.

    Only where the English names rows or columns and not lines (a line of text or code is 行 everywhere): its
    "row"/"column" words, in order, against the translation's 行/列/欄 in order. They must agree in the edition's
    sense; the same sequence read in the other region's sense (行 for a row in zh-Hant) is reported.
    """
    if re.search(r"\blines?\b", english, re.IGNORECASE):
        return None
    wanted = ["row" if w.lower().startswith("row") else "column" for w in _ENGLISH_ROW_COLUMN.findall(english)]
    if not wanted:
        return None
    found = _CHINESE_ROW_COLUMN[edition].findall(translated)
    ours = ["row" if c == _ROW_WORD[edition] else "column" for c in found]
    theirs = ["column" if c == _ROW_WORD[edition] else "row" for c in found if c not in "欄栏"]
    if len(theirs) < len(found) or not ours or ours == wanted:
        return None  # no 行 or 列, or 欄 (a column in either region), or the edition's own sense
    # the same words in the same order, or (a count the English leaves out: "a third") the same kinds of them
    if theirs == wanted or (set(theirs) == set(wanted) and set(ours) != set(wanted)):
        row, column = ("列", "行 or 欄") if edition == "zh-Hant" else ("行", "列")
        written = "".join(found)
        return (
            f"the English's {', '.join(wanted)} are written {written}: in {edition} a row is {row}, a column {column}"
        )
    return None


def regional_pattern_problems(edition: str, text: str) -> list[str]:
    """The other region's usages found by context in `text` (REGIONAL_PATTERNS), each with what to write instead."""
    return [f"{m.group(0)!r}: {why}" for pattern, why in REGIONAL_PATTERNS[edition] for m in pattern.finditer(text)]


# Chinese typography (issue 28): full-width punctuation takes no space after it or before it, a colon after Chinese
# is full-width, a heading's step is "第 1 步：" or "——" (not an English dash), and zh-Hans marks a title with 《》.
_FULL_WIDTH = "，。；：！？、（）「」『』《》【】“”‘’"
_NO_SPACE_AFTER = re.compile(f"[{_FULL_WIDTH}] (?=[^\\s|])")
_NO_SPACE_BEFORE = re.compile("(?<=[^\\s|]) [，。；：！？、）」』》】]")
_ASCII_COLON = re.compile(r"[\u3400-\u9fff）」》]:(?=[\s\d\u3400-\u9fff]|$)", re.MULTILINE)
_ENGLISH_DASH = re.compile(r"(?<!—)—(?!—)(?=.*[\u3400-\u9fff])|(?<=[\u3400-\u9fff])\s?—(?!—)")
TYPOGRAPHY: dict[str, list[tuple[re.Pattern[str], str]]] = {
    "both": [
        (_NO_SPACE_AFTER, "a space after a full-width mark"),
        (_NO_SPACE_BEFORE, "a space before a full-width mark"),
        (_ASCII_COLON, "an ASCII colon after Chinese (write ：)"),
        (_ENGLISH_DASH, "a single English dash in Chinese (write ： or ——)"),
    ],
    "zh-Hans": [(re.compile(r"[「」『』]"), "「」 are Taiwan's quotes: zh-Hans writes “” and 《》 for a title")],
    "zh-Hant": [],
}
# code, an address with the space that ends it, an HTML tag, a formula
_TYPO_IGNORED = re.compile(r"```.*?```|`[^`\n]*`|https?://\S+ ?|<[^>\n]+>|\$[^$\n]+\$", re.DOTALL)


def typography_problems(edition: str, text: str) -> list[str]:
    """Chinese typography slips in `text` (TYPOGRAPHY), code spans, addresses, HTML tags and formulas left out."""
    shown = _TYPO_IGNORED.sub(lambda m: "\x00" * len(m.group(0)), text)
    found = []
    for pattern, what in TYPOGRAPHY["both"] + TYPOGRAPHY[edition]:
        for m in pattern.finditer(shown):
            if not re.search(
                r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]", shown[max(m.start() - 12, 0) : m.end() + 12]
            ):
                continue  # English text around it: English punctuation rules
            found.append(f"{what}: {text[max(m.start() - 8, 0) : m.end() + 8]!r}")
    return found


def review_problems(edition: str, english: str, translated: str) -> list[str]:
    """What issue 28's regional review finds in one translation: REVIEWED_REGION's words, REGIONAL_PATTERNS, and
    rows and columns named in the other region's sense (rows_and_columns, against the English)."""
    found = [f"{word} (write {ours})" for word, ours in REVIEWED_REGION[edition].items() if word in translated]
    found += regional_pattern_problems(edition, translated)
    if why := rows_and_columns(edition, english, translated):
        found.append(why)
    return found


def region_review(edition: str, lesson: Path, root: Path = ROOT) -> list[Problem]:
    """The entries of a lesson's catalog that issue 28's regional review flags (review_problems)."""
    path = catalog_path(edition, lesson, root)
    if not path.exists():
        return []
    return [
        Problem(edition, lesson.stem, e.msgctxt, "; ".join(found))
        for e in read_catalog(path)
        if not e.obsolete and e.msgstr and (found := review_problems(edition, e.msgid, e.msgstr))
    ]


def typography_review(edition: str, lesson: Path, root: Path = ROOT) -> list[Problem]:
    """Typography slips (typography_problems) in a built lesson's markdown and its stored outputs, by cell."""
    built = edition_path(edition, lesson, root)
    if not built.exists():
        return [Problem(edition, lesson.stem, "-", f"{built.name} is missing")]
    nb = nbformat.read(built, as_version=4)
    texts = [(n, c.get("id", "-"), c.source) for n, c in enumerate(nb.cells, 1) if c.cell_type == "markdown"]
    texts += output_texts(nb)
    by_cell: dict[tuple[int, str], list[str]] = {}
    for number, cell_id, text in texts:
        if cell_id in VERBATIM_OUTPUTS:
            continue
        if found := typography_problems(edition, text):
            by_cell.setdefault((number, cell_id), []).extend(found)
    return [Problem(edition, lesson.stem, f"{n} (id {i})", "; ".join(f)) for (n, i), f in sorted(by_cell.items())]


def lessonkit_catalog_problems(edition: str, root: Path = ROOT) -> list[str]:
    """lessonkit's own translations (lessonkit/locale/<edition>/*.po) with a regional or a typography slip."""
    found = []
    for path in sorted((root / "lessonkit" / "locale" / edition).glob("*.po")):
        for entry in read_catalog(path):
            if entry.obsolete or not entry.msgstr:
                continue
            problems = review_problems(edition, entry.msgid, entry.msgstr) + typography_problems(edition, entry.msgstr)
            if problems:
                found.append(f"{path.name}: {entry.msgid[:50]!r}: {'; '.join(problems)}")
    return found


def compile_locale(edition: str, root: Path = ROOT) -> bytes:
    """lessonkit's catalogs for one edition (every locale/<edition>/*.po) as one .mo, fuzzy entries left out."""
    merged = polib.POFile()
    merged.metadata = {"Content-Type": "text/plain; charset=UTF-8", "Language": edition.replace("-", "_")}
    seen: dict[tuple[str | None, str], str] = {}
    for po_path in sorted((root / "lessonkit" / "locale" / edition).glob("*.po")):
        for entry in read_catalog(po_path):
            if entry.obsolete or not entry.msgstr or FUZZY in entry.flags:
                continue
            key = (entry.msgctxt, entry.msgid)
            if key in seen and seen[key] != entry.msgstr:
                raise SystemExit(f"{po_path.name}: {entry.msgid[:60]!r} has two different translations in {edition}")
            if key not in seen:
                seen[key] = entry.msgstr
                merged.append(polib.POEntry(msgctxt=entry.msgctxt, msgid=entry.msgid, msgstr=entry.msgstr))
    tmp = root / "build" / f"lessonkit-{edition}.mo"
    tmp.parent.mkdir(parents=True, exist_ok=True)
    merged.save_as_mofile(str(tmp))
    return tmp.read_bytes()


_MARKERS = {"_": 0, "gettext": 0, "lazy": 0, "N_": 0, "Lazy": 0, "pgettext": 1}


def code_messages(root: Path = ROOT) -> dict[tuple[str | None, str], str]:
    """Every English text lessonkit marks for translation (_(), gettext, lazy, N_, pgettext, Labels) -> where it is."""
    found: dict[tuple[str | None, str], str] = {}
    for path in sorted((root / "lessonkit").rglob("*.py")):
        for key, line in _marked_texts(path.read_text(encoding="utf-8")):
            found.setdefault(key, f"{path.relative_to(root)}:{line}")
    return found


@functools.lru_cache(maxsize=256)
def _marked_texts(source: str) -> tuple[tuple[tuple[str | None, str], int], ...]:
    """The marked texts of one module's source and their lines, parsed once per source (the tests ask often)."""
    import ast

    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
        if name == "Labels" and len(node.args) == 2 and isinstance(node.args[1], ast.Dict):
            context = node.args[0].value if isinstance(node.args[0], ast.Constant) else None
            for value in node.args[1].values:  # Labels("context", {"key": "English label", ...})
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    found.append(((context, value.value), node.lineno))
            continue
        if name not in _MARKERS or len(node.args) <= _MARKERS[name]:
            continue
        arg = node.args[_MARKERS[name]]
        if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
            continue
        context = None
        if name == "pgettext" and isinstance(node.args[0], ast.Constant):
            context = node.args[0].value
        found.append(((context, arg.value), node.lineno))
    return tuple(found)


def missing_messages(edition: str, root: Path = ROOT) -> list[str]:
    """lessonkit's marked texts with no reviewed (non-fuzzy) translation in the edition's catalogs."""
    have: set[tuple[str | None, str]] = set()
    for po_path in sorted((root / "lessonkit" / "locale" / edition).glob("*.po")):
        for entry in read_catalog(po_path):
            if entry.msgstr and FUZZY not in entry.flags and not entry.obsolete:
                have.add((entry.msgctxt, entry.msgid))
    return [
        f"{edition} {where}: no translation of {msgid[:70]!r}"
        for (context, msgid), where in code_messages(root).items()
        if (context, msgid) not in have
    ]


def mo_path(edition: str, root: Path = ROOT) -> Path:
    return root / "lessonkit" / "locale" / edition / "LC_MESSAGES" / "lessonkit.mo"


def draft_hant(lesson: Path, root: Path = ROOT) -> int:
    """Fill the zh-Hant catalog's empty entries from zh-Hans with OpenCC s2twp, each marked fuzzy for review."""
    import opencc  # only the draft needs it (pip install opencc)

    convert = opencc.OpenCC("s2twp").convert
    hans = {e.msgctxt: e for e in polib.pofile(str(catalog_path("zh-Hans", lesson, root)), wrapwidth=0)}
    hant = update("zh-Hant", lesson, root)
    done = 0
    for entry in hant:
        source = hans.get(entry.msgctxt)
        if entry.obsolete or entry.msgstr or source is None or not source.msgstr or source.msgid != entry.msgid:
            continue
        entry.msgstr = (
            convert(source.msgstr) if entry.comment.startswith("markdown") else _convert_code(source.msgstr, convert)
        )
        entry.flags.append(FUZZY)
        entry.tcomment = "draft: OpenCC s2twp from zh-Hans, not yet reviewed"
        done += 1
    hant.save(str(catalog_path("zh-Hant", lesson, root)))
    return done


def _convert_code(source: str, convert) -> str:
    """OpenCC over a code cell's comments and sentences only, so no identifier changes."""
    lines = source.splitlines(keepends=True)
    out = []
    for line in lines:
        out.append(convert(line) if re.search(r"[\u4e00-\u9fff]", line) else line)
    return "".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("update", "build", "check", "compile", "draft-hant", "messages"))
    parser.add_argument("lessons", nargs="*", help="lesson numbers such as 03 (default: all)")
    args = parser.parse_args()
    chosen = [p for p in lessons() if not args.lessons or p.name[:2] in args.lessons]
    if args.command == "update":
        for edition in EDITIONS:
            for lesson in chosen:
                path = catalog_path(edition, lesson)
                path.parent.mkdir(parents=True, exist_ok=True)
                update(edition, lesson).save(str(path))
        print(f"updated {len(chosen) * len(EDITIONS)} catalogs in i18n/")
    elif args.command == "build":
        for edition in EDITIONS:
            for lesson in chosen:
                write_notebook(build(edition, lesson), edition_path(edition, lesson))
        print(f"built {len(chosen) * len(EDITIONS)} notebooks in notebooks/{{{','.join(EDITIONS)}}}/")
    elif args.command == "compile":
        for edition in EDITIONS:
            target = mo_path(edition)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(compile_locale(edition))
        print("compiled lessonkit/locale/*/LC_MESSAGES/lessonkit.mo")
    elif args.command == "messages":
        missing = [line for edition in EDITIONS for line in missing_messages(edition)]
        print("\n".join(missing) or "every text lessonkit marks for translation has a reviewed translation")
        return 1 if missing else 0
    elif args.command == "draft-hant":
        for lesson in chosen:
            print(f"{lesson.stem}: {draft_hant(lesson)} zh-Hant entries drafted (fuzzy until reviewed)")
    else:
        found = [
            p
            for edition in EDITIONS
            for lesson in chosen
            for p in [*problems(edition, lesson), *glossary_problems(edition, lesson), *usage_problems(edition, lesson)]
        ]
        for problem in found:
            print(problem)
        print(f"{len(found)} problems" if found else "every edition is complete and current")
        return 1 if found else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
