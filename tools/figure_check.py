"""The stored figures of the Chinese editions, checked as a reader sees them: Chinese glyphs, Chinese labels.

    python tools/figure_check.py            # list every stored figure with empty boxes or English labels

tofu_boxes(png) finds the boxes matplotlib draws for a character that no font it was given has (its "Last Resort"
font: a framed box with the Unicode block's sign inside, for Chinese a small 字), by their frames and then by their
likeness to that glyph as matplotlib itself draws it. figure_labels(source) reads the texts a figure cell gives
matplotlib (titles, axis labels, legend entries, annotations) from its code. tests/test_i18n_figures.py runs both
over every stored figure of zh-Hans and zh-Hant; tools/run_notebooks.py refuses to record a figure with boxes.
"""

from __future__ import annotations

import ast
import base64
import io
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import nbformat
import numpy as np

ROOT = Path(__file__).resolve().parent.parent

DPI = 100  # matplotlib's figure.dpi, which the inline backend keeps: the stored PNGs' pixels per inch
SIZES = tuple(s / 2 for s in range(14, 41))  # font sizes 7 to 20 points (no lesson writes smaller), by halves
LIKENESS = 0.7  # normalised cross-correlation with the drawn box above which a frame is a missing glyph


@lru_cache(maxsize=1)
def _templates() -> dict[tuple[int, int], list[np.ndarray]]:
    """The missing-glyph box as matplotlib draws it (Agg, DPI) at every size in SIZES, upright and turned by 90°
    as an axis label is, keyed by its (height, width) in pixels: darkness from 0 (white) to 1 (black)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties

    last_resort = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "LastResortHE-Regular.ttf"
    step = 0.5  # inches between two glyphs: each is drawn alone in its own cell of the grid
    fig = Figure(figsize=(step * 2, step * len(SIZES)), dpi=DPI, facecolor="white")
    for row, size in enumerate(SIZES):
        for column, rotation in enumerate((0, 90)):
            fig.text(
                (column + 0.5) / 2,
                1 - (row + 0.5) / len(SIZES),
                "字",
                fontproperties=FontProperties(fname=last_resort, size=size),
                rotation=rotation,
                ha="center",
                va="center",
            )
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    sheet = darkness(buffer.getvalue())
    cell = int(step * DPI)
    found: dict[tuple[int, int], list[np.ndarray]] = {}
    for row in range(len(SIZES)):
        for column in range(2):
            glyph = sheet[row * cell : (row + 1) * cell, column * cell : (column + 1) * cell]
            ys, xs = np.nonzero(glyph > 0.05)
            glyph = glyph[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
            found.setdefault(glyph.shape, []).append(glyph)
    return found


def darkness(png: bytes) -> np.ndarray:
    """A PNG as darkness from 0 (white) to 1 (black), a transparent background read as white."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGBA")
    white = Image.new("RGBA", image.size, "white")
    white.alpha_composite(image)
    return 1 - np.asarray(white.convert("L"), dtype=float) / 255


def _vertical_runs(dark: np.ndarray, shortest: int, longest: int) -> Iterator[tuple[int, int, int]]:
    """(x, first row, row after the last) of each vertical run of dark pixels from `shortest` to `longest` long."""
    padded = np.pad(dark.astype(np.int8), ((1, 1), (0, 0)))
    change = np.diff(padded, axis=0).T  # by column, then row: starts (+1) and ends (-1) alternate
    starts, ends = np.argwhere(change == 1), np.argwhere(change == -1)
    for (x, top), (_, bottom) in zip(starts, ends):
        if shortest <= bottom - top <= longest:
            yield int(x), int(top), int(bottom)


def _likeness(region: np.ndarray, glyphs: list[np.ndarray]) -> float:
    """The best normalised cross-correlation of any of `glyphs` (one shape) with any window of `region`."""
    h, w = glyphs[0].shape
    if region.shape[0] < h or region.shape[1] < w:
        return 0.0
    windows = np.lib.stride_tricks.sliding_window_view(region, (h, w)).reshape(-1, h * w)
    windows = windows - windows.mean(axis=1, keepdims=True)
    shapes = np.stack([g.ravel() - g.mean() for g in glyphs])
    scale = np.sqrt(np.outer((windows * windows).sum(axis=1), (shapes * shapes).sum(axis=1)))
    scores = np.divide(windows @ shapes.T, scale, out=np.zeros_like(scale), where=scale > 0)
    return float(scores.max())


def tofu_boxes(png: bytes, limit: int | None = None) -> list[tuple[int, int, int, int, float]]:
    """(x, y, width, height, likeness) of each missing-glyph box in a PNG drawn by matplotlib (at most `limit`).

    A box has a frame: two dark vertical edges of the same rows, about a glyph's height apart, joined by dark top
    and bottom edges. A frame is a box when it looks like the drawn missing glyph of its size (LIKENESS); a
    Chinese character with a frame of its own (口, 回, 國) or a bar of a chart does not.
    """
    image = darkness(png)
    dark = image > 0.45
    templates = _templates()
    heights = [h for h, _w in templates]
    runs: dict[tuple[int, int], list[int]] = {}
    for x, top, bottom in _vertical_runs(dark, min(heights) - 2, max(heights)):
        runs.setdefault((top, bottom), []).append(x)
    frames: set[tuple[int, int, int, int]] = set()
    for (top, bottom), lefts in runs.items():
        height = bottom - top
        rights = np.array([x for dt in (-1, 0, 1) for db in (-1, 0, 1) for x in runs.get((top + dt, bottom + db), [])])
        for left in lefts:
            for right in rights[(rights - left >= 0.6 * height) & (rights - left <= 1.3 * height)]:
                edges = (
                    dark[max(top - 1, 0) : top + 2, left : right + 1],
                    dark[bottom - 2 : bottom + 1, left : right + 1],
                )
                inside = dark[top + 2 : bottom - 2, left + 2 : right - 1]
                if (
                    inside.size
                    and inside.mean() < 0.5
                    and all(edge.size and edge.mean(axis=1).max() >= 0.7 for edge in edges)
                ):
                    frames.add((top, bottom, left, int(right)))  # a frame, not a filled bar
    found: list[tuple[int, int, int, int, float]] = []
    for top, bottom, left, right in sorted(frames):
        if any(x <= left <= x + w and y <= top <= y + h for x, y, w, h, _score in found):
            continue  # the same box, framed by its inner and outer edge
        height, width = bottom - top, right - left + 1
        region = image[max(top - 1, 0) : bottom + 3, max(left - 1, 0) : right + 4]
        best = max(
            (
                _likeness(region, glyphs)
                for (h, w), glyphs in templates.items()
                if abs(h - height) <= 2 and abs(w - width) <= 2
            ),
            default=0.0,
        )
        if best >= LIKENESS:
            found.append((left, top, width, height, round(best, 2)))
            if limit is not None and len(found) >= limit:
                break
    return found


# --- the labels a figure cell gives matplotlib --------------------------------------------------------

# Methods whose string arguments a figure shows, and the keywords that hold shown text in any call.
LABEL_METHODS = frozenset(
    {
        "set_title", "set_xlabel", "set_ylabel", "suptitle", "supxlabel", "supylabel", "title", "xlabel",
        "ylabel", "text", "annotate", "figtext", "legend", "set_yticks", "set_xticks", "set_yticklabels",
        "set_xticklabels", "bar_label", "table",
    }
)  # fmt: skip
LABEL_KEYWORDS = frozenset({"label", "title", "xlabel", "ylabel", "labels", "text", "s", "suptitle"})


@dataclass(frozen=True)
class Label:
    """A text a figure cell hands matplotlib: the line, how it is given (title, label=...), and its words."""

    line: int
    how: str
    text: str


def _strings(node: ast.AST) -> Iterator[str]:
    """The literal text inside an argument: a string, an f-string's literal parts, strings in a list or tuple."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.JoinedStr):
        yield "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        for element in node.elts:
            yield from _strings(element)
    elif isinstance(node, ast.BinOp):  # "a" + "b", "%s" % x
        yield from _strings(node.left)
        yield from _strings(node.right)


def _names(node: ast.AST, labels: frozenset[str] = frozenset()) -> Iterator[str]:
    """Variables whose value is shown when `node` is: `name`, `f"{name} ..."`, `names[i]`. A key looked up in a
    lessonkit.i18n.Labels (`LABELS[name]`, one of `labels`) is not shown: its label is, translated when shown."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in labels:
        return
    if isinstance(node, ast.Name):
        yield node.id
    for child in ast.iter_child_nodes(node):
        yield from _names(child, labels)


def _lessonkit_names(trees: list[ast.AST]) -> tuple[frozenset[str], frozenset[str]]:
    """(every name imported from lessonkit, those of them that are a lessonkit.i18n.Labels) in `trees`.

    A Labels is known by its module's source (`NAME = Labels(...)` at its top level, as tools/i18n.py finds its
    English for the catalogs), or by a cell's own `NAME = Labels(...)`."""
    imported: set[str] = set()
    labels: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "lessonkit":
                names = {alias.name: alias.asname or alias.name for alias in node.names}
                imported.update(names.values())
                labels.update(names[n] for n in _labels_in_module(node.module) if n in names)
            if isinstance(node, ast.Assign) and _is_labels_call(node.value):
                labels.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return frozenset(imported), frozenset(labels)


def _is_labels_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Labels"


@lru_cache(maxsize=64)
def _labels_in_module(module: str) -> frozenset[str]:
    """The top-level names a lessonkit module assigns a Labels to ('lessonkit.spirals' -> {'LABELS'})."""
    base = ROOT.joinpath(*module.split("."))
    path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    if not path.is_file():
        return frozenset()
    tree = ast.parse(path.read_text("utf-8"))
    return frozenset(
        t.id
        for node in tree.body
        if isinstance(node, ast.Assign) and _is_labels_call(node.value)
        for t in node.targets
        if isinstance(t, ast.Name)
    )


def _loop_keys(node: ast.For | ast.comprehension, dicts: dict[str, list[str]]) -> list[tuple[str, list[str]]]:
    """(variable, keys): a loop over dict keys, `for k in {...}`, `for k, v in d.items()`, `zip(xs, d.items())`."""
    sources = [node.iter]
    if isinstance(node.iter, ast.Call) and getattr(node.iter.func, "id", None) == "zip":
        sources = node.iter.args
    targets = node.target.elts if isinstance(node.target, ast.Tuple) and len(sources) > 1 else [node.target]
    found = []
    for source, target in zip(sources, targets):
        if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute):
            source = source.func.value  # d.items(), d.keys()
        keys = _literal_keys(source) or dicts.get(getattr(source, "id", ""), [])
        if isinstance(target, ast.Tuple) and target.elts:
            target = target.elts[0]  # (key, value)
        if keys and isinstance(target, ast.Name):
            found.append((target.id, keys))
    return found


def _dict_keys_of(context: list[ast.AST], cell: ast.AST) -> dict[str, list[str]]:
    """For each loop variable of `cell` that runs over a dict's keys, the keys it takes. A dict is known by a literal,
    or by its name from the notebook's cells so far: `d = {...}`, `d["key"] = ...`, `d[k] = ...` in a loop over a
    literal's keys."""
    dicts: dict[str, list[str]] = {}
    for tree in [*context, cell]:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Dict, ast.DictComp)):
                for target in node.targets:
                    if isinstance(target, ast.Name) and (keys := _literal_keys(node.value)):
                        dicts[target.id] = keys
            if isinstance(node, ast.For):
                looped = dict(_loop_keys(node, dicts))
                for inner in ast.walk(node):
                    for target in inner.targets if isinstance(inner, ast.Assign) else []:
                        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                            key = looped.get(getattr(target.slice, "id", ""), [])
                            dicts.setdefault(target.value.id, []).extend(
                                k for k in key if k not in dicts[target.value.id]
                            )
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if (
                        isinstance(target, ast.Subscript)
                        and isinstance(target.value, ast.Name)
                        and isinstance(target.slice, ast.Constant)
                        and isinstance(target.slice.value, str)
                    ):
                        dicts.setdefault(target.value.id, [])
                        if target.slice.value not in dicts[target.value.id]:
                            dicts[target.value.id].append(target.slice.value)
    loops: dict[str, list[str]] = {}
    for node in ast.walk(cell):
        if isinstance(node, (ast.For, ast.comprehension)):
            for name, keys in _loop_keys(node, dicts):
                loops.setdefault(name, []).extend(keys)
    return loops


def _literal_keys(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Dict):
        return [k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    if isinstance(node, ast.DictComp):
        for generator in node.generators:
            inner = generator.iter
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute):
                inner = inner.func.value
            if isinstance(inner, ast.Dict):
                return _literal_keys(inner)
    return []


def figure_labels(source: str, context: str | list[str] = "") -> list[Label]:
    """The texts a figure cell's code gives matplotlib: literal strings passed as titles, axis labels, legend
    entries, tick labels or annotations, and the dict keys a shown loop variable takes, read from `source` and
    the notebook's earlier code `context` (where the dict was built). A key shown through a lessonkit Labels
    (`LABELS[name]`) is translated when shown, and a call of a function imported from lessonkit is not matplotlib's."""
    from i18n import _as_python  # the cell's IPython lines read as comments, as the catalogs read them

    tree = ast.parse(_as_python(source))
    trees = []
    for cell in [context] if isinstance(context, str) else context:  # each cell alone: one may not parse
        try:
            trees.append(ast.parse(_as_python(cell)))
        except SyntaxError:
            continue
    loops = _dict_keys_of(trees, tree)
    from_lessonkit, labels = _lessonkit_names([*trees, tree])
    found: list[Label] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Name) and node.func.id in from_lessonkit:
            continue  # lessonkit.table.table(...) and the like: not matplotlib, and lessonkit's texts are translated
        method = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        shown = [(method, a) for a in node.args] if method in LABEL_METHODS else []
        if method in ("set_yticks", "set_xticks"):
            shown = [(method, a) for a in node.args[1:]]  # the first argument is the positions
        if method == "set":
            shown = []
        shown += [(f"{k.arg}=", k.value) for k in node.keywords if k.arg in LABEL_KEYWORDS]
        for how, argument in shown:
            found += [Label(node.lineno, how, s) for s in _strings(argument) if s.strip()]
            for name in _names(argument, labels):
                found += [Label(node.lineno, f"{how} ({name})", key) for key in loops.get(name, [])]
    return found


def stored_figures(
    edition: str, root: Path = ROOT
) -> Iterator[tuple[str, int, nbformat.NotebookNode, bytes, list[str]]]:
    """(lesson file, cell number, cell, PNG, the code cells before it) for every stored figure of an edition."""
    for path in sorted((root / "notebooks" / edition).glob("[0-9][0-9]_*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        before: list[str] = []
        for number, cell in enumerate(nb.cells, 1):
            if cell.cell_type != "code":
                continue
            for output in cell.get("outputs", []):
                png = output.get("data", {}).get("image/png")
                if png:
                    yield path.name, number, cell, base64.b64decode(png), list(before)
            before.append(cell.source)


def main() -> int:
    sys.path.insert(0, str(ROOT / "tools"))
    import i18n

    problems = 0
    for edition in i18n.EDITIONS:
        allowed = i18n.allowed_latin(edition)
        for lesson, number, cell, png, context in stored_figures(edition):
            boxes = tofu_boxes(png)
            english = [
                f"{label.how} {label.text!r}"
                for label in figure_labels(cell.source, context)
                if i18n.latin_words(label.text, allowed)
            ]
            if boxes or english:
                problems += 1
                print(f"{edition} {lesson} cell {number} (id {cell.id}): {len(boxes)} empty boxes; {english}")
    print(f"{problems} figures with empty boxes or English labels" if problems else "every figure reads in Chinese")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
