"""Count each config.json's parameters with transformers on the meta device; record them for the tests (lessons 05, 08).

    pip install transformers==5.17.0     # into any environment with torch; the course does not need it
    python benchmarks/hf_meta_counts.py            # prints the counts and how they compare
    python benchmarks/hf_meta_counts.py --write    # also writes tests/data/hf_meta_counts.json

For every tests/data/hf_configs/*.json it builds the model transformers builds for that config
(AutoModelForCausalLM, or AutoModelForImageTextToText for a vision-language config) on the meta
device, where no memory is used, and counts `sum(p.numel() for p in model.parameters())`: the
parameters as the framework holds them, tied tensors once. A quantization_config is dropped first
(the count is of the unquantized model; the stored bytes are checked by hand in the tests). For a
vision-language model it also counts the language model alone (the language model and its head).
tests/test_hf_configs.py compares lessonkit's counts with the recorded ones, so `make test` needs
no transformers.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "tests" / "data" / "hf_configs"
OUT = ROOT / "tests" / "data" / "hf_meta_counts.json"


def meta_count(data: dict) -> dict:
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForImageTextToText

    data = {k: v for k, v in data.items() if k not in ("quantization_config", "auto_map")}
    config = AutoConfig.for_model(**data)
    vision = hasattr(config, "vision_config") and config.vision_config is not None
    with torch.device("meta"):
        model = (AutoModelForImageTextToText if vision else AutoModelForCausalLM).from_config(config)
    params = dict(model.named_parameters())
    total = sum(p.numel() for p in params.values())
    out = {"params": total, "class": type(model).__name__}
    if vision:
        out["language_model"] = sum(
            p.numel() for n, p in params.items() if "language_model" in n or n.startswith("lm_head")
        )
    return out


# Keys whose absence makes transformers fill its class default: each is dropped in turn from every file
# that has it (at the top level, or in text_config), and the model counted again.
OPTIONAL_KEYS = (
    "num_key_value_heads",
    "head_dim",
    "tie_word_embeddings",
    "attention_bias",
    "mlp_bias",
    "num_local_experts",
    "num_experts",
    "num_experts_per_tok",
    "moe_intermediate_size",
    "shared_expert_intermediate_size",
    "n_routed_experts",
    "n_shared_experts",
    "first_k_dense_replace",
    "q_lora_rank",
    "kv_lora_rank",
    "qk_nope_head_dim",
    "qk_rope_head_dim",
    "v_head_dim",
    "intermediate_size_mlp",
    "interleave_moe_layer_step",
    "lm_head_bias",
    "n_inner",
    "decoder_sparse_step",
    "mlp_only_layers",
)


def without(data: dict, key: str) -> dict | None:
    """`data` with `key` removed where it is (top level, else text_config); None when it has no such key."""
    if key in data:
        return {k: v for k, v in data.items() if k != key}
    text = data.get("text_config")
    if isinstance(text, dict) and key in text:
        return dict(data, text_config={k: v for k, v in text.items() if k != key})
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {OUT.relative_to(ROOT)}")
    args = parser.parse_args()
    import transformers

    sys.path.insert(0, str(ROOT))
    from lessonkit.models import ModelConfig

    counts = {}
    for path in sorted(CONFIGS.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        counts[path.name] = meta_count(data)
        ours = ModelConfig.from_hf_config(path)
        text = ours.n_params - ours.extra_params
        verdict = "exact" if ours.n_params == counts[path.name]["params"] else f"DIFFERENT ({ours.n_params:,})"
        extra = counts[path.name].get("language_model")
        extra = "" if extra is None else f", language model {extra:,} ({'exact' if extra == text else text})"
        print(f"{path.name:<40} {counts[path.name]['params']:>18,} {verdict}{extra}")
        dropped = {}
        for key in OPTIONAL_KEYS:
            smaller = without(data, key)
            if smaller is not None:
                try:
                    dropped[key] = meta_count(smaller)["params"]
                except Exception as exc:  # noqa: BLE001 - transformers cannot build it: recorded as such
                    dropped[key] = f"transformers refuses: {type(exc).__name__}"
        counts[path.name]["without"] = dropped
    if args.write:
        record = {
            "about": "sum(p.numel() for p in model.parameters()) of the model transformers builds on the meta device "
            "for each config.json here (quantization_config dropped), and under 'without' for the same file with one "
            "optional key removed (transformers fills its class default), written by benchmarks/hf_meta_counts.py",
            "transformers": transformers.__version__,
            "counts": counts,
        }
        OUT.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
