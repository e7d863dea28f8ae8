"""How close is the activation estimate to the tensors autograd really saves? Prints the error per shape (lesson 05).

    python benchmarks/activation_error.py          # a table, then the same as JSON
    python benchmarks/activation_error.py --json out.json

For each shape it builds a lessonkit Transformer on the CPU, runs one forward pass with a loss,
and measures the activations two ways:

- saved: the distinct storages autograd saves for the backward pass, counted through
  torch.autograd.graph.saved_tensors_hooks (lessonkit.bytecount.SavedActivations, weights left
  out); under activation checkpointing, the inputs of each checkpointed layer;
- live: the bytes of every tensor still alive after the forward pass, tracked op by op
  (lessonkit.bytecount.MemoryTracker).

The estimate is lessonkit.memparts.activation_bytes. For comparison it also prints the per-layer
rule from Korthikanti et al. 2022 (https://arxiv.org/abs/2205.05198), 34·s·b·h + 5·a·s²·b bytes
per layer in 16-bit: it assumes dropout and attention scores kept in memory, which a model with
no dropout and fused attention (PyTorch's scaled_dot_product_attention) does not keep.
Target: the estimate within 15% of the measurement for the small GPT shape.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from lessonkit import memparts  # noqa: E402
from lessonkit.bytecount import MemoryTracker, SavedActivations, storage_bytes  # noqa: E402
from lessonkit.models import find_model  # noqa: E402
from lessonkit.transformer import LORA_TARGETS, Transformer, add_lora  # noqa: E402
from lessonkit.units import DTYPES as DTYPE_TABLE  # noqa: E402
from lessonkit.vram import format_bytes  # noqa: E402

DTYPES = {name: getattr(torch, DTYPE_TABLE[name].torch_name) for name in ("fp32", "bf16")}


@dataclasses.dataclass
class Shape:
    name: str
    model: str
    layers: int | None
    dtype: str
    batch: int
    seq: int
    checkpointing: bool = False
    lora_rank: int = 0


SHAPES = [
    Shape("small GPT (GPT-2 124M, 12 layers), fp32", "gpt2", None, "fp32", 4, 256),
    Shape("small GPT (GPT-2 124M, 12 layers), bf16", "gpt2", None, "bf16", 4, 256),
    Shape("small GPT, bf16, activation checkpointing", "gpt2", None, "bf16", 4, 256, checkpointing=True),
    Shape("Llama 3.2 1B shape, 2 layers, bf16", "llama-3.2-1b", 2, "bf16", 2, 256),
    Shape("Llama 3.2 1B shape, 2 layers, LoRA r=16, bf16 base", "llama-3.2-1b", 2, "bf16", 2, 256, lora_rank=16),
    Shape("Gemma 2 9B shape, 2 layers, bf16", "gemma-2-9b", 2, "bf16", 1, 256),
    Shape("Qwen2.5 0.5B shape, 4 layers, fp32", "qwen2.5-0.5b", 4, "fp32", 2, 256),
]


def textbook_bytes(config, batch: int, seq: int, act: float) -> float:
    """Korthikanti et al.'s per-layer rule (16-bit, scaled to `act` bytes) times the layers, plus our head term."""
    per_layer = 34 * seq * batch * config.hidden_size + 5 * config.num_heads * seq * seq * batch
    head = batch * seq * memparts.head_activation_bytes_per_token(config, act)
    return config.num_layers * per_layer * act / 2 + head


def measure(shape: Shape) -> dict:
    config = find_model(shape.model)
    if shape.layers:
        config = config.with_layers(shape.layers)
    torch.manual_seed(0)
    model = Transformer(config, dtype=DTYPES[shape.dtype])
    if shape.lora_rank:
        add_lora(model, shape.lora_rank)
    model.checkpointing = shape.checkpointing
    ids = torch.randint(0, config.vocab_size, (shape.batch, shape.seq))
    labels = torch.randint(0, config.vocab_size, (shape.batch, shape.seq))
    act = torch.empty(0, dtype=DTYPES[shape.dtype]).element_size()
    lora = dict(trainable=False, lora_targets=LORA_TARGETS, lora_rank=shape.lora_rank) if shape.lora_rank else {}
    estimate = memparts.activation_bytes(config, shape.batch, shape.seq, act, checkpointing=shape.checkpointing, **lora)
    with SavedActivations(model) as recorder:
        model(ids, labels)
    saved = recorder.bytes
    with MemoryTracker() as tracker:
        loss = model(ids, labels)
        live = tracker.current - loss.untyped_storage().nbytes()
    live += storage_bytes([ids, labels])  # made before the tracker started, kept for the backward pass
    row = {
        "shape": shape.name,
        "estimate_bytes": estimate,
        "saved_bytes": saved,
        "live_bytes": live,
        "error_vs_saved_pct": round(100 * (estimate - saved) / saved, 3),
        "error_vs_live_pct": round(100 * (estimate - live) / live, 3),
    }
    if not shape.checkpointing and not shape.lora_rank:
        book = textbook_bytes(config, shape.batch, shape.seq, act)
        row["textbook_bytes"] = round(book)
        row["textbook_error_pct"] = round(100 * (book - live) / live, 1)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=None, help="also write the results to this file")
    args = parser.parse_args()
    rows = [measure(s) for s in SHAPES]
    print(f"{'shape':<52} {'estimate':>10} {'saved':>10} {'live':>10} {'error':>8} {'textbook':>9}")
    for r in rows:
        saved = format_bytes(r["saved_bytes"], "MiB", 1)
        book = f"{r['textbook_error_pct']:+.0f}%" if "textbook_error_pct" in r else "-"
        print(
            f"{r['shape']:<52} {format_bytes(r['estimate_bytes'], 'MiB', 1):>10} {saved:>10} "
            f"{format_bytes(r['live_bytes'], 'MiB', 1):>10} {r['error_vs_live_pct']:>+7.2f}% {book:>9}"
        )
    print("error: estimate vs live bytes after the forward pass; textbook: Korthikanti et al.'s rule, same comparison")
    report = {"torch": torch.__version__, "device": "cpu", "target_pct": 15.0, "results": rows}
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
