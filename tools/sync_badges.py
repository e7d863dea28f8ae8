"""Rewrite every notebook's Colab badge, Colab install line and Colab metadata, and the README's
lesson table, from lessonkit/course.py: the one place that names the repository (make badges)."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessonkit.course import BRANCH, colab_badge, colab_install_command, github_url  # noqa: E402

BADGE_LINE = re.compile(r"^\[!\[Open In Colab\]\(.*$", re.MULTILINE)
INSTALL_LINE = re.compile(r"^(\s*)%pip install .*$", re.MULTILINE)
# `pip install git+https://github.com/OWNER/REPO.git@BRANCH` lines in the README (the doctor section).
README_INSTALL = re.compile(r"git\+https://github\.com/[\w.-]+/[\w.-]+?\.git@[\w./-]+")
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


def sync_notebook(path: Path) -> bool:
    nb = nbformat.read(path, as_version=4)
    before = nbformat.writes(nb)
    first = nb.cells[0]
    if not BADGE_LINE.search(first.source):
        raise SystemExit(f"{path.name}: the first cell has no 'Open In Colab' badge line to update")
    first.source = BADGE_LINE.sub(colab_badge(path.name), first.source)
    setup = next(c for c in nb.cells if c.cell_type == "code")
    if not INSTALL_LINE.search(setup.source):
        raise SystemExit(f"{path.name}: the first code cell has no '%pip install' line to update")
    setup.source = INSTALL_LINE.sub(lambda m: f"{m.group(1)}%{colab_install_command()}", setup.source)
    nb.metadata.update(COLAB_METADATA)
    changed = nbformat.writes(nb) != before
    if changed:
        nbformat.write(nb, path)
    return changed


def lesson_table() -> str:
    rows = ["| Lesson | Open in Colab |", "|---|---|"]
    for path in lesson_paths():
        nb = nbformat.read(path, as_version=4)
        rows.append(f"| [{title_of(nb)}](notebooks/{path.name}) | {colab_badge(path.name)} |")
    return "\n".join(rows) + "\n"


def main() -> int:
    argparse.ArgumentParser(description=__doc__).parse_args()  # no options; --help explains
    for path in lesson_paths():
        print(f"{path.name}: {'updated' if sync_notebook(path) else 'already in sync'}")
    readme = ROOT / "README.md"
    text = readme.read_text("utf-8")
    if not TABLE.search(text):
        raise SystemExit("README.md has no '<!-- lessons:start -->' ... '<!-- lessons:end -->' block")
    new = TABLE.sub(lambda m: m.group(1) + lesson_table() + m.group(2), text)
    new = README_INSTALL.sub(f"git+{github_url()}.git@{BRANCH}", new)
    if new != text:
        readme.write_text(new, "utf-8")
    print(f"README.md: {'updated' if new != text else 'already in sync'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
