"""One figure, one source: every GPU figure a lesson's prose quotes agrees with the catalog, lessonkit/data/gpus.json,
in the English lessons and in both Chinese editions.

The lessons compute most figures live from lessonkit. Where the narration writes one out ("a T4's 300 GB/s",
"an 80 GB A100", "draws at most 72 W"), this test finds it: a number with a hardware unit next to a GPU's name,
in any lesson's markdown. The number must be one of that GPU's catalog figures for the unit, rounded as written
(for a name that covers several boards, such as "A100", any of them). So an edit of gpus.json that contradicts a
lesson, or a lesson that retypes a figure wrongly, fails here, naming the lesson, the cell and the sentence.

A sentence that quotes a different figure on purpose (another document's arithmetic, the original lesson's
rough reasoning) is listed in DELIBERATE with the reason; that list is checked too, so it cannot go stale.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from lessonkit.estimate import DEFAULT_CUDA_CONTEXT_BYTES
from lessonkit.gpus import GIB, MIB, GpuSpec, catalog, find_gpu
from lessonkit.reference import colab_t4_cuda_total_memory
from lessonkit.vram import max_params

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

# How the prose names catalog GPUs, and the catalog entries each name can mean.
ALIASES = {
    "RTX 5090": ("RTX_5090",),
    "RTX 4090": ("RTX_4090",),
    "RTX 3090": ("RTX_3090",),
    "A100": ("A100_40GB", "A100_80GB_SXM", "A100_80GB_PCIE"),
    "A800": ("A800_80GB_SXM",),
    "A10G": ("A10G",),
    "H100": ("H100_SXM", "H100_PCIE"),
    "H800": ("H800_SXM",),
    "H200": ("H200",),
    "H20": ("H20",),
    "B200": ("B200",),
    "B300": ("B300",),
    "RTX PRO 6000": ("RTX_PRO_6000",),
    "RTX 6000 Ada": ("RTX_6000_ADA",),
    "RTX A6000": ("RTX_A6000",),
    "L40S": ("L40S",),
    "MI300X": ("MI300X",),
    "MI325X": ("MI325X",),
    "MI355X": ("MI355X",),
    "V100": ("V100_SXM2_16GB", "V100_SXM2_32GB"),
    "T4": ("T4",),
    "L4": ("L4",),
    "P4": ("P4",),
}
ALIAS = re.compile(r"\b(" + "|".join(re.escape(a).replace(r"\ ", " ?") for a in ALIASES) + r")\b")
NUMBER = re.compile(
    r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\+?\s*(TB/s|GB/s|TFLOP/s|TFLOPS|TOPS|MiB|GiB|GB|W)(?![\w/])"
)
# Units only GPUs have in this course are tied to the nearest GPU name in the sentence; memory sizes (GB, GiB,
# MiB) also describe models, so they count only right next to a name ("80 GB A100", "a T4's 16.11 GB").
HARDWARE_UNITS = {"TB/s", "GB/s", "TFLOP/s", "TFLOPS", "TOPS", "W"}
NEAR = 12  # characters between a memory size and a GPU name, at most
# Words that make a GB/s figure a GPU-to-GPU link's (catalog: interconnect), not its memory bandwidth.
LINK_WORDS = re.compile(r"NVLink|Infinity Fabric|PCIe|interconnect|链路|鏈路|互连|互連")
EDITIONS = ("", "zh-Hans", "zh-Hant")  # "" is the English lessons' folder

# (lesson prefix, words of the sentence, why it may quote a figure that is not the catalog's)
DELIBERATE = [
    (
        "02",
        "898 GB/s inside a V100 GPU with 16 GB/s over PCIe",
        "quotes NVIDIA's Best Practices Guide, which computes the V100's bandwidth from its clock (898 GB/s; "
        "the datasheet in the catalog rounds to 900) and names the PCIe link's 16 GB/s, not a GPU figure",
    ),
    (
        "03",
        "the T4 has about 15 GB, that is about 15 billion bytes",
        "retells the original lesson's rough reasoning, which the lesson then corrects",
    ),
    (
        "03",
        'The T4, sold as "16 GB", carries 16 GiB of chips',
        "the raw capacity of the T4's memory chips before ECC keeps one sixteenth for check bits; the catalog holds "
        "what is left (15 GiB, 15360 MiB), which the same sentence goes on to explain. The English puts the figure "
        "too far from the name to be caught; the Chinese editions' word order (T4 装有 16 GiB) puts it next to it",
    ),
    (
        "06",
        "NVIDIA's T4 product page says 320+ GB/s",
        "the footnote that names the other published T4 bandwidth (catalog: other_published) and why 300 is used",
    ),
]


@dataclass(frozen=True)
class Quote:
    lesson: str
    cell: str
    sentence: str
    gpu: str
    number: str
    unit: str
    around: str = ""

    def where(self) -> str:
        return f"{self.lesson} cell {self.cell}: {self.number} {self.unit} for {self.gpu} in {self.sentence!r}"


def _figures(gpu: GpuSpec, unit: str, link: bool = False) -> list[float]:
    """Every catalog figure of `gpu` a number in `unit` may legitimately be; `link`: the sentence is about its link."""
    if unit in ("GB/s", "TB/s"):
        # Only the catalog's own figure: another published one (the T4's 320 GB/s) is quoted on purpose or not at all.
        found = [gpu.bandwidth_gb_s] if gpu.bandwidth_gb_s else []
        if link and gpu.link_gb_s:
            found.append(gpu.link_gb_s)
        return [v / 1000 if unit == "TB/s" else v for v in found]
    if unit in ("TFLOP/s", "TFLOPS", "TOPS"):
        peaks = gpu.peak_tops if unit == "TOPS" else gpu.peak_tflops
        return [v * factor for v in peaks.values() for factor in (1, 2)]  # dense, and NVIDIA's "with sparsity"
    if unit == "W":
        return [gpu.tdp_w] if gpu.tdp_w else []
    usable = gpu.usable_bytes
    cuda = [colab_t4_cuda_total_memory()["value"]] if gpu.key == "T4" else []  # what CUDA reports on Colab (lesson 03)
    if unit == "GB":
        return [gpu.memory_gb_sold, usable / 1e9, *(b / 1e9 for b in cuda)]
    if unit == "GiB":
        return [usable / GIB, *(b / GIB for b in cuda)]
    return [usable / MIB, *(b / MIB for b in cuda)]  # MiB


def narrow(alias: str, around: str, gpus: dict[str, GpuSpec]) -> tuple[str, ...]:
    """The catalog entries a name can mean, narrowed by the words around it: "A100 80GB (SXM)", "H100 PCIe"."""
    keys = ALIASES[alias]
    if re.search(r"PCIe", around):
        keys = tuple(k for k in keys if "PCIE" in k) or keys
    elif re.search(r"SXM", around):
        keys = tuple(k for k in keys if "PCIE" not in k) or keys
    size = re.search(r"(\d+) ?GB", around)
    if size:
        keys = tuple(k for k in keys if gpus[k].memory_gb_sold == int(size.group(1))) or keys
    return keys


def agrees(number: str, unit: str, keys: tuple[str, ...], gpus: dict[str, GpuSpec], sentence: str = "") -> bool:
    """True if `number`, as written (its decimals), is one of the figures of the GPUs `keys` for `unit`."""
    written = float(number.replace(",", ""))
    decimals = len(number.split(".")[1]) if "." in number else 0
    link = bool(LINK_WORDS.search(sentence))
    for key in keys:
        for value in _figures(gpus[key], unit, link):
            if round(value, decimals) == written or (decimals == 0 and round(value) == written):
                return True
    return False


def _sentences(text: str) -> list[str]:
    text = re.sub(r"\]\([^)]*\)", "]", text)  # link targets: URLs hold numbers and names that are not prose
    return [s for s in re.split(r"(?<=[.!?])\s+|(?<=[。！？])|\n+", text) if s.strip()]


def quotes(lesson: str, cell: str, text: str) -> list[Quote]:
    """Every number with a hardware unit that sits next to a GPU's name in `text`."""
    found = []
    for sentence in _sentences(text):
        names = [
            (m.start(), m.end(), m.group(1).replace("RTX", "RTX ").replace("  ", " ")) for m in ALIAS.finditer(sentence)
        ]
        # the words that can name the board: "80 GB A100", "A100 80GB (SXM)", "H100 PCIe"
        around = {n[0]: sentence[max(0, n[0] - 6) : n[1] + 14] for n in names}
        if not names:
            continue
        for m in NUMBER.finditer(sentence):
            unit = m.group(2)
            before = [n for n in names if n[1] <= m.start()]
            after = [n for n in names if n[0] >= m.end()]
            gpu = None
            if unit in HARDWARE_UNITS:
                gpu = before[-1] if before else after[0] if after else None
            else:
                close = [n for n in before if m.start() - n[1] <= NEAR] + [n for n in after if n[0] - m.end() <= NEAR]
                # nothing between them but words: no other number, no clause break ("16.06 GB，而那块 T4")
                close = [
                    n
                    for n in close
                    if not re.search(r"[\d,;:，；：。、]", sentence[min(n[1], m.end()) : max(n[0], m.start())])
                ]
                gpu = close[0] if close else None
            if gpu is not None:
                found.append(Quote(lesson, cell, sentence.strip(), gpu[2], m.group(1), unit, around[gpu[0]]))
    return found


def lesson_quotes(edition: str = "") -> list[Quote]:
    """The quotes of one edition's lessons: "" for English, "zh-Hans" or "zh-Hant" for a Chinese edition."""
    found = []
    for path in sorted((NOTEBOOKS / edition).glob("[0-9][0-9]_*.ipynb")):
        for cell in json.loads(path.read_text("utf-8"))["cells"]:
            if cell["cell_type"] == "markdown":
                found += quotes(path.name, cell.get("id", "?"), "".join(cell["source"]))
    return found


def deliberate(q: Quote) -> bool:
    return any(q.lesson.startswith(lesson) and words in q.sentence for lesson, words, _ in DELIBERATE)


def deliberate_figures(entry: tuple[str, str, str]) -> set[tuple[str, str, str, str]]:
    """(lesson, cell, number, unit) of each figure a DELIBERATE entry's English words quote, in the English cells that
    hold them: a translation of that cell is excused for the same figure, wherever its word order puts it."""
    lesson, words, _ = entry
    figures = {(m.group(1), m.group(2)) for m in NUMBER.finditer(words)}
    found = set()
    for path in sorted(NOTEBOOKS.glob(f"{lesson}_*.ipynb")):
        for cell in json.loads(path.read_text("utf-8"))["cells"]:
            if cell["cell_type"] == "markdown" and words in "".join(cell["source"]):
                found |= {(path.name, cell.get("id", "?"), number, unit) for number, unit in figures}
    return found


def contradictions(found: list[Quote], gpus: dict[str, GpuSpec], also_deliberate: set | None = None) -> list[str]:
    """Every quote that is not a catalog figure; `also_deliberate` holds (lesson, cell, number, unit) to skip."""
    skip = also_deliberate or set()
    return [
        q.where()
        for q in found
        if not deliberate(q)
        and (q.lesson, q.cell, q.number, q.unit) not in skip
        and not agrees(q.number, q.unit, narrow(q.gpu, q.around, gpus), gpus, q.sentence)
    ]


@pytest.fixture(scope="module")
def gpus() -> dict[str, GpuSpec]:
    return {g.key: g for g in catalog(None)}


def test_every_alias_names_catalog_entries(gpus):
    for alias, keys in ALIASES.items():
        assert keys and all(k in gpus for k in keys), alias
    named = {k for keys in ALIASES.values() for k in keys}
    assert named == {g.key for g in catalog(("cuda", "rocm"))}  # every NVIDIA and AMD GPU has a name


@pytest.mark.parametrize("edition", EDITIONS, ids=["en", "zh-Hans", "zh-Hant"])
def test_every_gpu_figure_in_the_prose_is_the_catalogs(gpus, edition):
    found = lesson_quotes(edition)
    assert len(found) >= 20, "the scan finds the lessons' quoted figures (it found too few: is it still reading them?)"
    # A translated sentence that quotes a figure on purpose is skipped where its English cell is.
    english = {(q.lesson, q.cell, q.number, q.unit) for q in lesson_quotes() if deliberate(q)}
    english |= {figure for entry in DELIBERATE for figure in deliberate_figures(entry)} if edition else set()
    problems = contradictions(found, gpus, english)
    assert not problems, "figures that contradict lessonkit/data/gpus.json:\n" + "\n".join(problems)


def test_every_deliberate_exception_still_exists():
    """Each entry still excuses a quote the scan finds: its English sentence, or that sentence's translation."""
    english = lesson_quotes()
    translated = [q for edition in EDITIONS[1:] for q in lesson_quotes(edition)]
    for entry in DELIBERATE:
        lesson, words, _ = entry
        figures = deliberate_figures(entry)
        assert figures, f"lesson {lesson} no longer says {words!r}"
        assert any(q.lesson.startswith(lesson) and words in q.sentence for q in english) or any(
            (q.lesson, q.cell, q.number, q.unit) in figures for q in translated
        ), (lesson, words)


def test_a_catalog_edit_that_contradicts_a_lesson_fails(gpus):
    """Planted: the T4's datasheet bandwidth changed to 320 GB/s; lesson 06's '300 GB/s' sentence must be named."""
    changed = dict(gpus)
    t4 = gpus["T4"]
    changed["T4"] = GpuSpec(**{**t4.__dict__, "bandwidth_gb_s": 320.0, "other_published": {}})
    problems = contradictions(lesson_quotes(), changed)
    assert any(p.startswith("06_") and "300 GB/s for T4" in p for p in problems), problems


OLD_SPEC_TABLE = """| GPU | memory bandwidth | 16-bit Tensor TFLOP/s (dense) | sources |
|---|---|---|---|
| T4 | 320 GB/s | 65 | [Google Cloud GPU table](https://cloud.google.com/compute/docs/gpus) |
| RTX 4090 | 1008 GB/s | 165 | [TheFPSReview spec sheet](https://www.thefpsreview.com/) |
| A100 80GB (SXM) | 1.9 TB/s | 312 | [Google Cloud GPU table](https://cloud.google.com/compute/docs/gpus) |
| H100 (SXM) | 3.35 TB/s | 989 | [Google Cloud GPU table](https://cloud.google.com/compute/docs/gpus) |"""


def test_the_spec_table_lesson_05_used_to_retype_is_caught(gpus):
    """Planted: lesson 05's old hand-typed table, whose T4 and A100 rows contradicted the catalog (issue 12)."""
    problems = contradictions(quotes("05_planted.ipynb", "old", OLD_SPEC_TABLE), gpus)
    assert [p.split(": ", 1)[1].split(" in ")[0] for p in problems] == ["320 GB/s for T4", "1.9 TB/s for A100"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("An H100 reads 3.35 TB/s.", []),
        ("An H100 reads 3.9 TB/s.", ["3.9 TB/s for H100"]),
        ("The A100 80GB (SXM) streams 1.9 TB/s.", ["1.9 TB/s for A100"]),  # 1.9 is the PCIe card's figure
        ("The A100 80GB PCIe streams 1.9 TB/s.", []),
        ("An A100 streams 1.9 TB/s.", []),  # any A100 board: the PCIe card's, rounded
        ("A T4 draws 75 W at most.", ["75 W for T4"]),
        ("Rent an 80 GB A100 by the hour.", []),
        ("The 40 GB A100 reads 2,039 GB/s.", ["2,039 GB/s for A100"]),  # the 80 GB SXM card's figure
        ("Rent an 81 GB A100 by the hour.", ["81 GB for A100"]),
        ("The L4 peaks at 121 TFLOP/s in bf16, 242 with sparsity.", []),
        ("Llama 3 70B does not fit on a T4: its int4 weights are 35.28 GB.", []),  # a model's size, not the T4's
        ("See [the T4 page](https://example.com/t4-320-GB/s) for 300 GB/s.", []),
        ("The H800 links its GPUs by NVLink at 400 GB/s.", []),  # the link figure, in a sentence about links
        ("The H800 reads its memory at 400 GB/s.", ["400 GB/s for H800"]),  # not its memory bandwidth
        ("An A800's NVLink runs at 600 GB/s.", ["600 GB/s for A800"]),  # the A100's link, not the A800's
        ("A B200 reads 8 TB/s and talks to the others by NVLink at 1.8 TB/s.", []),
        ("An MI300X holds 192 GB.", []),
        ("H200 的 NVLink 为 900 GB/s。", []),
        ("H200 的显存带宽为 900 GB/s。", ["900 GB/s for H200"]),
    ],
)
def test_the_scan_reads_prose_as_a_reader_would(gpus, text, expected):
    found = quotes("99_planted.ipynb", "x", text)
    problems = contradictions(found, gpus)
    assert [p.split(": ", 1)[1].split(" in ")[0] for p in problems] == expected


# Figures that are not a GPU's own but are quoted in several lessons, each with the one place it comes from.
# (description, a pattern whose first group is the figure as written, the figure from lessonkit's data)
FACTS = [
    (
        "the CUDA context allowance (lessonkit.estimate.DEFAULT_CUDA_CONTEXT_BYTES)",
        re.compile(
            r"(\d+) MiB (?:CUDA )?context|context allowance[^.]{0,40}?(\d+) MiB|\bcontext[^.]{0,30}?\b(\d+) MiB"
        ),
        lambda: DEFAULT_CUDA_CONTEXT_BYTES / MIB,
    ),
    (
        "the T4's weights-only bound in fp16 (max_params of nvidia-smi's total, lesson 03)",
        re.compile(r"(?:gives|under the|to)\W{1,4}(\d+\.\d+) billion"),
        lambda: max_params(find_gpu("T4").usable_bytes, "fp16") / 1e9,
    ),
]


# (lesson prefix, words around the figure, why it differs on purpose)
FACTS_DELIBERATE = [
    (
        "03",
        "halving it gives 7.5 billion",
        "retells the original lesson's rough reasoning, which the lesson then corrects",
    ),
]


def fact_problems(lessons: dict[str, list[tuple[str, str]]]) -> list[str]:
    """Every quote of a FACTS figure that differs from lessonkit's, as 'lesson cell: what'."""
    problems = []
    for description, pattern, expected in FACTS:
        for lesson, cells in lessons.items():
            for cell, text in cells:
                for m in pattern.finditer(text):
                    written = next(g for g in m.groups() if g)
                    nearby = text[max(0, m.start() - 80) : m.end() + 80]
                    if any(lesson.startswith(ls) and words in nearby for ls, words, _ in FACTS_DELIBERATE):
                        continue
                    decimals = len(written.split(".")[1]) if "." in written else 0
                    if round(expected(), decimals) != float(written):
                        problems.append(
                            f"{lesson} cell {cell}: {written} for {description}, lessonkit says {expected():.4g}"
                        )
    return problems


def lesson_markdown() -> dict[str, list[tuple[str, str]]]:
    return {
        path.name: [
            (c.get("id", "?"), "".join(c["source"]))
            for c in json.loads(path.read_text("utf-8"))["cells"]
            if c["cell_type"] == "markdown"
        ]
        for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    }


def test_figures_quoted_in_several_lessons_are_lessonkits():
    lessons = lesson_markdown()
    quoted = {d: sum(len(p.findall(t)) for cells in lessons.values() for _, t in cells) for d, p, _ in FACTS}
    assert all(quoted.values()), f"a fact is no longer quoted anywhere, so this check tests nothing: {quoted}"
    problems = fact_problems(lessons)
    assert not problems, "\n".join(problems)


def test_a_changed_context_figure_is_caught():
    planted = {"07_planted.ipynb": [("x", "The estimate adds the 300 MiB CUDA context that the tables count.")]}
    assert fact_problems(planted) == [
        "07_planted.ipynb cell x: 300 for the CUDA context allowance (lessonkit.estimate.DEFAULT_CUDA_CONTEXT_BYTES), "
        "lessonkit says 400"
    ]
