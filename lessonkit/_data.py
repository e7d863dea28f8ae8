"""The one reader of lessonkit's JSON data files (lessonkit/data/*.json) and of their entries as records (lesson 05)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import fields
from importlib import resources
from typing import Any, TypeVar

Record = TypeVar("Record")


def read_json(name: str) -> Any:
    """The parsed contents of lessonkit/data/`name`, e.g. read_json("gpus.json") (lessons 01-07)."""
    return json.loads(resources.files("lessonkit").joinpath(f"data/{name}").read_text("utf-8"))


def read_record(cls: type[Record], entry: Mapping[str, Any], **worked_out: Any) -> Record:
    """The dataclass `cls` from one JSON entry, each field read under its own name unless worked out (lessons 01-07)."""
    return cls(**{f.name: entry[f.name] for f in fields(cls) if f.name not in worked_out}, **worked_out)
