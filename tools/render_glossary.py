"""Rewrite the README's glossary table from lessonkit/data/glossary.json (make glossary).

python tools/render_glossary.py           # rewrite the block between the glossary markers
python tools/render_glossary.py --check   # change nothing; exit 1 if the README is out of date
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessonkit.glossary import glossary_table  # noqa: E402

README = ROOT / "README.md"
BLOCK = re.compile(r"(<!-- glossary:start -->\n).*?(<!-- glossary:end -->)", re.DOTALL)


def rendered(text: str) -> str:
    """`text` (the README) with its glossary block replaced by the table the data renders."""
    if not BLOCK.search(text):
        raise SystemExit("README.md has no '<!-- glossary:start -->' ... '<!-- glossary:end -->' block")
    return BLOCK.sub(lambda m: m.group(1) + glossary_table().to_markdown() + m.group(2), text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if README.md is out of date")
    args = parser.parse_args()
    text = README.read_text("utf-8")
    new = rendered(text)
    if args.check:
        print("README.md glossary: " + ("up to date" if new == text else "out of date, run `make glossary`"))
        return 0 if new == text else 1
    if new != text:
        README.write_text(new, "utf-8")
    print(f"README.md glossary: {'updated' if new != text else 'already in sync'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
