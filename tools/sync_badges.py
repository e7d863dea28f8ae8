"""Rewrite every notebook's Colab badge, setup cell and Colab metadata, and the README's lesson table and
install line, from lessonkit/course.py: the one place that names the repository and its ref (make badges).

    python tools/sync_badges.py                                  # after editing a lesson or course.py
    python tools/sync_badges.py --repo owner/name --ref v0.1.0   # for your own published copy

--repo and --ref first rewrite REPOSITORY and REF in lessonkit/course.py and the Course address in
pyproject.toml, then everything else follows from them.
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessonkit import course  # noqa: E402

if TYPE_CHECKING:
    import nbformat

# nbformat, tools/i18n.py and tools/reading_time.py are imported where they are used: they take seconds to load
# (nbformat's schema checks), and `make badges REPO=... REF=...` refuses a bad value before any of that.

BADGE_LINE = re.compile(r"^\[!\[Open In Colab\]\(.*$", re.MULTILINE)
SETUP_MARK = 'if "google.colab" in sys.modules:'
# The README's `pip install ... git+https://github.com/OWNER/REPO.git@REF...` line (the doctor section).
README_INSTALL = re.compile(r"^pip install .*git\+https://github\.com/.*$", re.MULTILINE)
COURSE_LINES = {"REPOSITORY": re.compile(r'^REPOSITORY = ".*"$', re.M), "REF": re.compile(r'^REF = ".*"$', re.M)}
PYPROJECT_COURSE = re.compile(r'^Course = "https://github\.com/.*"$', re.MULTILINE)
TABLE = re.compile(r"(<!-- lessons:start -->\n).*?(<!-- lessons:end -->)", re.DOTALL)
COLAB_METADATA = {"accelerator": "GPU", "colab": {"gpuType": "T4", "provenance": []}}


def lesson_paths() -> list[Path]:
    """The numbered lesson notebooks, in order."""
    return sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def title_of(nb: nbformat.NotebookNode) -> str:
    """The first '# ' heading of the notebook's first cell."""
    for line in nb.cells[0].source.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    raise ValueError("the first cell has no '# ' title")


MINUTES = re.compile(r"about \d+ minutes")


@functools.cache
def lesson_minutes() -> dict[str, int]:
    """Each lesson's time as tools/reading_time.py estimates it, rounded up to 5 minutes, by file name."""
    from reading_time import estimates, rounded_minutes

    return {row.name: rounded_minutes(row) for row in estimates()}


def sync_notebook(path: Path) -> bool:
    import nbformat

    nb = nbformat.read(path, as_version=4)
    before = nbformat.writes(nb)
    first = nb.cells[0]
    if not BADGE_LINE.search(first.source):
        raise SystemExit(f"{path.name}: the first cell has no 'Open In Colab' badge line to update")
    first.source = BADGE_LINE.sub(course.colab_badge(path.name), first.source)
    if not MINUTES.search(first.source):
        raise SystemExit(f"{path.name}: the first cell does not say 'about N minutes' under its title")
    first.source = MINUTES.sub(f"about {lesson_minutes()[path.name]} minutes", first.source, count=1)
    setup = next(c for c in nb.cells if c.cell_type == "code")
    if SETUP_MARK not in setup.source:
        raise SystemExit(f"{path.name}: the first code cell is not the Colab setup cell (no '{SETUP_MARK}')")
    setup.source = course.setup_cell()
    nb.metadata.update(COLAB_METADATA)
    changed = nbformat.writes(nb) != before
    if changed:
        nbformat.write(nb, path)
    return changed


TEMPLATE = ROOT / "templates" / "lesson_template.ipynb"


def sync_template() -> bool:
    """The lesson template's setup cell, so a new lesson starts from the current one (its badge is a placeholder)."""
    import nbformat

    nb = nbformat.read(TEMPLATE, as_version=4)
    setup = next(c for c in nb.cells if c.cell_type == "code")
    if setup.source == course.setup_cell():
        return False
    setup.source = course.setup_cell()
    nbformat.write(nb, TEMPLATE)
    return True


# The lesson tables' words in each README: README.md, README.zh-Hans.md, README.zh-Hant.md.
TABLE_WORDS = {
    "en": ("Core path", "Optional deep dives", " (about {n} minutes)", "| Lesson | Time | Open in Colab |", "{n} min"),
    "zh-Hans": ("核心路线", "选读的深入专题", "（约 {n} 分钟）", "| 课程 | 时间 | 在 Colab 中打开 |", "{n} 分钟"),
    "zh-Hant": ("核心路線", "選讀的深入專題", "（約 {n} 分鐘）", "| 課程 | 時間 | 在 Colab 中開啟 |", "{n} 分鐘"),
}


def lesson_table(edition: str = "en") -> str:
    """Two tables, the core path then the optional deep dives, in reading order (lessonkit/course.py), each lesson
    with its time from tools/reading_time.py rounded up to 5 minutes; an edition's lessons in its own README."""
    import nbformat

    by_number = {path.name[:2]: path for path in lesson_paths()}
    listed = set(course.CORE_PATH + course.DEEP_DIVES)
    if set(by_number) != listed:
        raise SystemExit(
            f"notebooks/ has lessons {sorted(by_number)} but lessonkit/course.py lists {sorted(listed)}: "
            "add each lesson to CORE_PATH or DEEP_DIVES"
        )
    minutes = {name[:2]: value for name, value in lesson_minutes().items()}
    core, deep, about, header, time = TABLE_WORDS[edition]
    folder = "" if edition == "en" else f"{edition}/"
    parts = []
    for heading, numbers in ((core, course.CORE_PATH), (deep, course.DEEP_DIVES)):
        total = sum(minutes[n] for n in numbers)
        rows = [f"**{heading}**{about.format(n=total)}", "", header, "|---|---|---|"]
        for number in numbers:
            name = folder + by_number[number].name
            nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
            link = f"[{title_of(nb)}](notebooks/{name})"
            rows.append(f"| {link} | {time.format(n=minutes[number])} | {course.colab_badge(name)} |")
        parts.append("\n".join(rows) + "\n")
    return "\n".join(parts)


def sync_readme(readme: Path, edition: str) -> bool:
    """A README's lesson tables (and the English one's install line); whether it changed."""
    text = readme.read_text("utf-8")
    if not TABLE.search(text):
        raise SystemExit(f"{readme.name} has no '<!-- lessons:start -->' ... '<!-- lessons:end -->' block")
    new = TABLE.sub(lambda m: m.group(1) + lesson_table(edition) + m.group(2), text)
    new = README_INSTALL.sub(course.install_command(), new)
    if new != text:
        readme.write_text(new, "utf-8")
    return new != text


def publish(repo: str, ref: str) -> None:
    """Write `repo` and `ref` into lessonkit/course.py and pyproject.toml, and use them from now on."""
    values = {"REPOSITORY": course.check_repository(repo), "REF": course.check_ref(ref)}
    source = ROOT / "lessonkit" / "course.py"
    text = source.read_text("utf-8")
    for name, line in COURSE_LINES.items():
        if len(line.findall(text)) != 1:
            raise SystemExit(f'lessonkit/course.py must have exactly one line `{name} = "..."` to rewrite')
        text = line.sub(f'{name} = "{values[name]}"', text)
    source.write_text(text, "utf-8")
    pyproject = ROOT / "pyproject.toml"
    pyproject.write_text(PYPROJECT_COURSE.sub(f'Course = "https://github.com/{repo}"', pyproject.read_text("utf-8")))
    course.REPOSITORY, course.REF = values["REPOSITORY"], values["REF"]
    print(f"lessonkit/course.py: REPOSITORY = {repo!r}, REF = {ref!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", help="your published copy on GitHub, as owner/name")
    parser.add_argument("--ref", help="the tag (such as v0.1.0) or commit the badges open and Colab installs")
    args = parser.parse_args()
    if args.repo or args.ref:
        try:
            publish(args.repo or course.REPOSITORY, args.ref or course.REF)
        except ValueError as problem:
            parser.error(str(problem))
    for path in lesson_paths():
        print(f"{path.name}: {'updated' if sync_notebook(path) else 'already in sync'}")
    print(f"{TEMPLATE.name}: {'updated' if sync_template() else 'already in sync'}")
    # The Chinese editions are built from the English lessons, so their badges and minutes follow them.
    import i18n  # tools/i18n.py: the Chinese editions

    for edition in i18n.EDITIONS:
        for path in lesson_paths():
            i18n.write_notebook(i18n.build(edition, path), i18n.edition_path(edition, path))
    print(f"notebooks/{{{','.join(i18n.EDITIONS)}}}/: rebuilt from the English lessons and i18n/")
    for edition, name in (("en", "README.md"), *((e, f"README.{e}.md") for e in i18n.EDITIONS)):
        print(f"{name}: {'updated' if sync_readme(ROOT / name, edition) else 'already in sync'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
