"""Rewrite the glossary tables of GLOSSARY.md and the Chinese READMEs from lessonkit/data/glossary.json (make glossary).

python tools/render_glossary.py           # rewrite the block between the glossary markers of each README
python tools/render_glossary.py --check   # change nothing; exit 1 if a README is out of date

GLOSSARY.md (linked from README.md's Glossary section) gets the English table; README.zh-Hans.md and
README.zh-Hant.md get the Chinese one, each with its
edition's headings, meanings and note (lessonkit.glossary.glossary_table with lang="zh_hans" or "zh_hant").
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessonkit.glossary import glossary_table  # noqa: E402
from lessonkit.i18n import get_language, set_language  # noqa: E402

READMES = {"GLOSSARY.md": "en", "README.zh-Hans.md": "zh-Hans", "README.zh-Hant.md": "zh-Hant"}
README = ROOT / "README.md"
BLOCK = re.compile(r"(<!-- glossary:start -->\n).*?(<!-- glossary:end -->)", re.DOTALL)


def table(language: str = "en") -> str:
    """The glossary as markdown in `language` ('en', 'zh-Hans' or 'zh-Hant'): headings, meanings and the note."""
    before = get_language()
    set_language(language)
    try:
        return glossary_table(lang=language.replace("-", "_").lower()).to_markdown()
    finally:
        set_language(before)


def rendered(text: str, language: str = "en", name: str = "README.md") -> str:
    """`text` (a README) with its glossary block replaced by the table the data renders in `language`."""
    if not BLOCK.search(text):
        raise SystemExit(f"{name} has no '<!-- glossary:start -->' ... '<!-- glossary:end -->' block")
    markdown = table(language)
    return BLOCK.sub(lambda m: m.group(1) + markdown + m.group(2), text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a README is out of date")
    args = parser.parse_args()
    stale = []
    for name, language in READMES.items():
        path = ROOT / name
        text = path.read_text("utf-8")
        new = rendered(text, language, name)
        if new != text:
            stale.append(name)
            if not args.check:
                path.write_text(new, "utf-8")
        state = ("out of date, run `make glossary`" if args.check else "updated") if new != text else "up to date"
        print(f"{name} glossary: {state}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
