"""Reading a Hugging Face config.json into the fields of a ModelConfig, safely (lessons 05, 08).

`hf_config_fields` takes a dict, a transformers config, the path of a config.json or of a model
folder, and `read_config_text` the text a learner pasted. Nothing is run and nothing is fetched:
`auto_map` is ignored, a URL is refused (download the file first), and every refusal is a
ValueError or TypeError that names the file or the field: a file over MAX_CONFIG_BYTES, JSON
nested deeper than MAX_DEPTH, a number of more than MAX_DIGITS digits, a path too long for the
system, an unknown model_type or a field out of its range (lessonkit.limits). The families, each
with its transformers class's defaults, are in lessonkit.hf_families; quantization_config is read
by lessonkit.quantization. A vision-language config's language model is read from its nested
text_config, and its vision tower counted where lessonkit.hf_vision knows its layout.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lessonkit._checks import shown
from lessonkit.hf_families import FAMILIES, Reader, family_shape
from lessonkit.hf_vision import VISION_LANGUAGE
from lessonkit.quantization import read_quantization

HF_MODEL_TYPES = tuple(FAMILIES) + tuple(VISION_LANGUAGE)
MAX_CONFIG_BYTES = 4 * 2**20  # the largest config.json of a common model is tens of KB
MAX_DEPTH = 64  # a config.json nests a few levels (text_config, rope_scaling, quantization_config)
MAX_DIGITS = 40  # a count needs ten digits; no size of a real model needs forty
MAX_PATH_CHARS = 4096  # PATH_MAX on Linux
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,15}://")


def _depth_ok(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether `value` nests at most `limit` lists or dicts deep, checked without recursion."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth >= limit:
                return False
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return True


def _long_number(text: str) -> bool:
    return re.search(f"[0-9]{{{MAX_DIGITS + 1}}}", text) is not None


def read_config_text(text: str, where: str = "config.json") -> dict[str, Any]:
    """A config.json's text (a file's, or what a learner pasted) as a dict, or a ValueError naming `where` (lesson 05).

    Refuses text over MAX_CONFIG_BYTES and numbers longer than MAX_DIGITS digits before json reads
    it, and nesting deeper than MAX_DEPTH (json's RecursionError included) and anything but a JSON
    object after: no RecursionError and no digit-limit error escapes.
    """
    if not isinstance(where, str):
        raise TypeError(f"where must be a string naming the text, got {type(where).__name__}")
    if not isinstance(text, str):
        raise TypeError(f"text must be the text of a config.json ({where[:80]}), got {type(text).__name__}")
    if len(text) > MAX_CONFIG_BYTES:
        raise ValueError(f"{where} is {len(text):,} characters long; a config.json is at most {MAX_CONFIG_BYTES:,}")
    if _long_number(text):
        raise ValueError(f"{where} holds a number of more than {MAX_DIGITS} digits: no model size is that large")
    try:
        data = json.loads(text)
    except RecursionError:
        raise ValueError(f"{where} nests lists or objects too deeply to read: not a config.json") from None
    except ValueError as err:  # json.JSONDecodeError is a ValueError
        raise ValueError(f"{where} is not a JSON file: {str(err)[:200]}") from None
    if not _depth_ok(data):
        raise ValueError(f"{where} nests lists or objects more than {MAX_DEPTH} deep: not a config.json")
    if not isinstance(data, dict):
        raise ValueError(f"{where} must hold a JSON object (a config.json), got {type(data).__name__}")
    return data


def _read_path(config: str | os.PathLike) -> tuple[dict[str, Any], str]:
    text = os.fspath(config)
    shown = text if len(text) <= 120 else text[:117] + "..."
    if _URL.match(text.strip()):
        raise ValueError(
            f"config {shown!r} is a web address: lessonkit reads no URL (it never downloads anything). "
            "Download the config.json (on Hugging Face: the file's 'download' link) and pass its path, "
            "or paste its text"
        )
    if len(text) > MAX_PATH_CHARS or "\x00" in text:
        raise ValueError(
            f"config must be the path of a config.json or of a model folder, got a path of {len(text):,} characters"
        )
    path = Path(text).expanduser()
    try:
        if path.is_dir():
            path = path / "config.json"
        found = path.is_file()
        size = path.stat().st_size if found else 0
    except (OSError, ValueError) as err:  # a name too long for this system, a permission error
        raise ValueError(f"config {shown!r} cannot be read: {err.__class__.__name__}: {str(err)[:120]}") from None
    if not found:
        raise ValueError(
            f"config must be a config.json dict, file or model folder: no config.json at {str(path)[:200]!r} "
            "(no such file, or a folder without one)"
        )
    if size > MAX_CONFIG_BYTES:
        raise ValueError(f"{str(path)!r} is {size:,} bytes; a config.json is at most {MAX_CONFIG_BYTES:,}")
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"{str(path)!r} is not a readable UTF-8 JSON file: {str(err)[:120]}") from None
    data = read_config_text(raw, repr(str(path)))
    # a file named config.json is named after its folder, any other after itself
    data.setdefault("_file_name", path.resolve().parent.name if path.name == "config.json" else path.stem)
    return data, str(path)


def _read_hf_config(config: Any) -> tuple[dict[str, Any], str]:
    """(the config as a dict, where it came from) from a dict, a transformers config, a file or a folder.

    Errors name where the config came from ("config.json" for a dict, else its path), not an
    argument: ModelConfig.from_hf_config calls it `config`, estimate() and resolve_model `model`.
    """
    if isinstance(config, Mapping):
        data = dict(config)
        if not _depth_ok(data):
            raise ValueError(f"config.json nests lists or objects more than {MAX_DEPTH} deep: not a config.json")
        return data, "config.json"
    if hasattr(config, "to_dict") and hasattr(config, "model_type"):  # a transformers PretrainedConfig
        return dict(config.to_dict()), "config.json"
    if isinstance(config, (str, os.PathLike)):
        return _read_path(config)
    raise TypeError(
        "config must be a dict read from a config.json, or the path of a config.json or of a model folder, "
        f"got {type(config).__name__} {shown(config)}"
    )


def _model_name(data: dict[str, Any], name: str | None, model_type: str) -> tuple[str, str]:
    """(name, hf_repo) for a config read from a file or a dict."""
    repo = data.get("_name_or_path")
    repo = repo if isinstance(repo, str) and len(repo) < 200 and re.fullmatch(r"[\w.-]+/[\w.-]+", repo) else ""
    if name is not None:
        if not isinstance(name, str) or not name.strip():
            raise TypeError(f"name must be a non-empty string, got {type(name).__name__} {shown(name)}")
        return name, repo
    if repo:
        return repo, repo
    for given in (data.get("_name_or_path"), data.get("_file_name")):
        if isinstance(given, str) and given.strip("/\\") and len(given) < 300:
            return given.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1], ""
    return f"{model_type} model (config.json)", ""


def hf_config_fields(config: Any, name: str | None = None) -> dict[str, Any]:
    """ModelConfig's fields from a Hugging Face config.json: a dict, a file or a model folder (lesson 05).

    Families (model_type): see HF_MODEL_TYPES and lessonkit.hf_families. Each field missing from
    the file takes its transformers class's default, or is required (an error names it); a
    `quantization_config` is read into `quantization` (lessonkit.quantization), and one this
    course cannot model is refused by name, never counted as 16-bit weights.
    """
    data, where = _read_hf_config(config)
    return _fields(data, where, name)


def _fields(data: dict[str, Any], where: str, name: str | None) -> dict[str, Any]:
    model_type = data.get("model_type")
    if not isinstance(model_type, str):
        raise ValueError(
            f"{where}: field 'model_type' must name the model family, one of {list(HF_MODEL_TYPES)}, "
            f"got {shown(model_type)}"
        )
    if model_type not in FAMILIES and model_type not in VISION_LANGUAGE:
        raise ValueError(
            f"{where}: field 'model_type' is {model_type[:80]!r}, which this course cannot model; it reads "
            f"{list(HF_MODEL_TYPES)}. Its attention, experts or layers may be of a kind the estimator has no "
            "formula for, so no estimate is made. (ModelConfig(...) describes grouped-query or latent attention "
            "with dense or routed-expert MLPs: use it only for a model that is exactly that.)"
        )
    title, repo = _model_name(data, name, model_type)
    quantization = read_quantization(data.get("quantization_config"), where)
    if model_type in VISION_LANGUAGE:
        text, extra = VISION_LANGUAGE[model_type](Reader(data, model_type, where))
    else:
        text, extra = Reader(data, model_type, where), {}
    shape = family_shape(text)
    return {"name": title, "hf_repo": repo, **shape, **extra, "quantization": quantization}
