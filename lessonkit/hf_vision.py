"""Vision-language config.json files: the language model from text_config, the vision tower counted (lessons 05, 08).

Each reader takes the whole config and returns a Reader of its language model (read by
lessonkit.hf_families like any text model) and the extra fields: the vision tower's and projector's
parameters, counted from vision_config with the layout transformers 5.17 builds for the family
(benchmarks/hf_meta_counts.py checks each against a meta-device build), and what they are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lessonkit.hf_families import Reader


def _siglip(v: Reader, with_head: bool) -> int:
    h, i = (
        v.count("hidden_size", 768, limit="hidden_size"),
        v.count("intermediate_size", 3072, limit="intermediate_size"),
    )
    layers, c = v.count("num_hidden_layers", 12, limit="num_layers"), v.count("num_channels", 3, limit="num_heads")
    p, size = v.count("patch_size", 16, limit="head_dim"), v.count("image_size", 224, limit="max_position_embeddings")
    layer = 2 * 2 * h + 4 * (h * h + h) + (h * i + i) + (i * h + h)
    head = (h + 4 * h * h + 4 * h + 2 * h + h * i + i + i * h + h) if with_head else 0
    return h * c * p * p + h + (size // p) ** 2 * h + layers * layer + 2 * h + head


def _gemma3(read: Reader) -> tuple[Reader, dict[str, Any]]:
    text = read.nested("text_config", "gemma3_text")
    if text.model_type != "gemma3_text":
        raise text.fail("model_type", "'gemma3_text'")
    vision = read.nested("vision_config", "siglip_vision_model")
    vh = vision.count("hidden_size", 768, limit="hidden_size")
    th = text.count("hidden_size", limit="hidden_size")
    tower = _siglip(vision, vision.flag("vision_use_head", True)) + vh * th + vh  # projector and its norm
    return text, {"extra_params": tower, "extra_label": "SigLIP vision tower and projector"}


def _llava(read: Reader) -> tuple[Reader, dict[str, Any]]:
    text = read.nested("text_config", "llama")
    vision = read.nested("vision_config", "clip_vision_model")
    if vision.model_type != "clip_vision_model":
        raise vision.fail("model_type", "'clip_vision_model' (the vision towers this course counts for llava)")
    h = vision.count("hidden_size", 1024, limit="hidden_size")
    # CLIP is SigLIP's layout without the patch bias, plus a class token, its position and a pre-norm
    clip = _siglip(vision, False) - h + h + h + 2 * h
    th = text.count("hidden_size", limit="hidden_size")
    bias = read.flag("multimodal_projector_bias", True)
    projector = th * h + th * th + (2 * th if bias else 0)
    return text, {"extra_params": clip + projector, "extra_label": "CLIP vision tower and projector"}


def _qwen_vl(read: Reader) -> tuple[Reader, dict[str, Any]]:
    new = read.model_type == "qwen2_5_vl"
    text = read.nested("text_config", "qwen2") if read.has("text_config") else read
    text = Reader(text.data, "qwen2", text.where)  # the language model is Qwen2's, with q, k, v biases
    v = read.nested("vision_config", read.model_type)
    c, p, tp = (
        v.count("in_channels", 3, limit="num_heads"),
        v.count("patch_size", 14, limit="head_dim"),
        v.count("temporal_patch_size", 2, limit="head_dim"),
    )
    depth, merge = v.count("depth", 32, limit="num_layers"), v.count("spatial_merge_size", 2, limit="head_dim")
    th = text.count("hidden_size", limit="hidden_size")
    if new:
        e, i = (
            v.count("hidden_size", 1280, limit="hidden_size"),
            v.count("intermediate_size", 3420, limit="intermediate_size"),
        )
        out = v.count("out_hidden_size", th, limit="hidden_size")
        block = 2 * e + (3 * e * e + 3 * e) + (e * e + e) + 2 * (i * e + i) + (e * i + e)
        merger = e + (e * merge**2) ** 2 + e * merge**2 + out * e * merge**2 + out
    else:
        e = v.count("embed_dim", 1280, limit="hidden_size")
        r = v.count("mlp_ratio", 4, limit="head_dim")
        out = v.count("hidden_size", th, limit="hidden_size")
        block = 2 * 2 * e + (3 * e * e + 3 * e) + (e * e + e) + (e * r * e + r * e) + (r * e * e + e)
        merger = 2 * e + (e * merge**2) ** 2 + e * merge**2 + out * e * merge**2 + out
    tower = e * c * tp * p * p + depth * block + merger
    return text, {"extra_params": tower, "extra_label": "vision tower and merger"}


def _llama4_vl(read: Reader) -> tuple[Reader, dict[str, Any]]:
    text = read.nested("text_config", "llama4_text")
    v = read.nested("vision_config", "llama4_vision_model")
    h, i = (
        v.count("hidden_size", 768, limit="hidden_size"),
        v.count("intermediate_size", 5632, limit="intermediate_size"),
    )
    layers, c = v.count("num_hidden_layers", 34, limit="num_layers"), v.count("num_channels", 3, limit="num_heads")
    p, size = v.count("patch_size", 14, limit="head_dim"), v.count("image_size", 448, limit="max_position_embeddings")
    proj_in = v.count("projector_input_dim", 4096, limit="intermediate_size")
    proj_out = v.count("projector_output_dim", 4096, limit="intermediate_size")
    out_dim = v.count("vision_output_dim", 7680, limit="intermediate_size")
    th = text.count("hidden_size", limit="hidden_size")
    layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 2 * 2 * h
    tower = h + ((size // p) ** 2 + 1) * h + h * c * p * p + 2 * 2 * h + layers * layer
    tower += i * proj_in + proj_out * proj_out + th * out_dim
    if read.flag("multi_modal_projector_bias", False) or v.flag("multi_modal_projector_bias", False):
        tower += th
    return text, {"extra_params": tower, "extra_label": "vision tower and projector"}


VISION_LANGUAGE: dict[str, Callable[[Reader], tuple[Reader, dict[str, Any]]]] = {
    "gemma3": _gemma3,
    "llava": _llava,
    "qwen2_vl": _qwen_vl,
    "qwen2_5_vl": _qwen_vl,
    "llama4": _llama4_vl,
}
