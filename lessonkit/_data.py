"""The one reader of lessonkit's JSON data files (lessonkit/data/*.json): catalogs, glossary, prices (lesson 07)."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def read_json(name: str) -> Any:
    """The parsed contents of lessonkit/data/`name`, e.g. read_json("gpus.json") (lessons 01-07)."""
    return json.loads(resources.files("lessonkit").joinpath(f"data/{name}").read_text("utf-8"))
