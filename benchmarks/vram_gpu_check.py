"""Check the VRAM estimator against real steps: estimate vs torch.cuda.max_memory_allocated() (lesson 05).

    python benchmarks/vram_gpu_check.py                 # on a CUDA GPU: a table, then JSON
    python benchmarks/vram_gpu_check.py --json out.json # also write the JSON to a file
    python benchmarks/vram_gpu_check.py --device cpu    # the same steps, shrunk, measured on the CPU

Each scenario builds a lessonkit Transformer of a catalog model's shape (random weights: memory
does not depend on the values), runs one warm-up step so that the optimizer state exists, then
measures the peak memory of one more whole step (forward, backward, optimizer step; or reading a
prompt into a KV cache) and compares it with the estimate for the same module. The CUDA context is
left out of both sides (the allocator cannot see it); the script measures it separately from
cudaMemGetInfo. Scenarios whose estimate would not fit in the free memory are skipped.
Target: every error within 10%. Without a CUDA GPU, and without --device cpu, it explains and exits 0.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from lessonkit.bytecount import (  # noqa: E402
    gradient_bytes,
    optimizer_state_bytes,
    parameter_bytes,
    peak_bytes,
    storage_bytes,
)
from lessonkit.estimate import estimate_inference, estimate_lora, estimate_training  # noqa: E402
from lessonkit.models import find_model  # noqa: E402
from lessonkit.transformer import Transformer, add_lora  # noqa: E402
from lessonkit.units import DTYPES as DTYPE_TABLE  # noqa: E402
from lessonkit.vram import format_bytes  # noqa: E402

DTYPES = {name: getattr(torch, DTYPE_TABLE[name].torch_name) for name in ("fp32", "bf16", "fp16")}
TARGET_PCT = 10.0


@dataclasses.dataclass
class Scenario:
    name: str
    model: str
    kind: str  # "train", "mixed", "amp" (fp32 weights, autocast, fused AdamW: the default recipe), "lora" or "infer"
    dtype: str
    batch: int
    seq: int
    optimizer: str = "adamw"
    checkpointing: bool = False
    rank: int = 16
    layers: int | None = None  # None: the model's own depth


GPU_SCENARIOS = [
    Scenario("GPT-2 124M, fp32, AdamW", "gpt2", "train", "fp32", 8, 1024),
    Scenario("GPT-2 124M, fp32, SGD + momentum", "gpt2", "train", "fp32", 8, 1024, optimizer="sgd_momentum"),
    Scenario("Qwen2.5 0.5B, mixed bf16, AdamW", "qwen2.5-0.5b", "mixed", "bf16", 4, 1024),
    Scenario("Qwen2.5 0.5B, PyTorch AMP bf16 + fused AdamW", "qwen2.5-0.5b", "amp", "bf16", 4, 1024),
    Scenario("Llama 3.2 1B, bf16, AdamW, checkpointing", "llama-3.2-1b", "train", "bf16", 4, 2048, checkpointing=True),
    Scenario("Llama 3.2 1B, bf16, SGD", "llama-3.2-1b", "train", "bf16", 2, 1024, optimizer="sgd"),
    Scenario("Llama 3.2 3B, LoRA r=16 on a bf16 base", "llama-3.2-3b", "lora", "bf16", 2, 2048),
    Scenario("Llama 3.2 3B, reading a 4096-token prompt, fp16", "llama-3.2-3b", "infer", "fp16", 1, 4096),
    Scenario("Llama 3.1 8B, reading an 8192-token prompt, bf16", "llama-3.1-8b", "infer", "bf16", 1, 8192),
]


CPU_SCENARIOS = [  # the same kinds of step, two layers deep and short, so that a CPU runs them in seconds
    Scenario("GPT-2 124M shape, 2 layers, fp32, AdamW", "gpt2", "train", "fp32", 4, 512, layers=2),
    Scenario(
        "GPT-2 124M shape, 2 layers, fp32, SGD + momentum",
        "gpt2",
        "train",
        "fp32",
        4,
        256,
        optimizer="sgd_momentum",
        layers=2,
    ),
    Scenario("Qwen2.5 0.5B shape, 2 layers, mixed bf16, AdamW", "qwen2.5-0.5b", "mixed", "bf16", 4, 256, layers=2),
    Scenario("Qwen2.5 0.5B shape, 2 layers, AMP bf16 + fused AdamW", "qwen2.5-0.5b", "amp", "bf16", 4, 256, layers=2),
    Scenario(
        "Llama 3.2 1B shape, 2 layers, bf16, AdamW, checkpointing",
        "llama-3.2-1b",
        "train",
        "bf16",
        4,
        256,
        checkpointing=True,
        layers=2,
    ),
    Scenario(
        "Llama 3.2 1B shape, 2 layers, bf16, SGD", "llama-3.2-1b", "train", "bf16", 2, 512, optimizer="sgd", layers=2
    ),
    Scenario("Phi-3-mini shape, 2 layers, LoRA r=16 on bf16", "phi-3-mini", "lora", "bf16", 2, 512, layers=2),
    Scenario(
        "Llama 3.2 3B shape, 2 layers, reading 1024 tokens, fp16", "llama-3.2-3b", "infer", "fp16", 1, 1024, layers=2
    ),
]


def scenario_config(s: Scenario):
    config = find_model(s.model)
    return config.with_layers(s.layers) if s.layers else config


def planned(s: Scenario):
    """The estimate from the config alone, before anything is built (to skip what cannot fit)."""
    config, kw = scenario_config(s), dict(seq_len=s.seq, batch=s.batch, cuda_context_bytes=0)
    if s.kind == "infer":
        return estimate_inference(config, dtype=s.dtype, **kw)
    if s.kind == "lora":
        return estimate_lora(
            config, base_dtype=s.dtype, rank=s.rank, optimizer=s.optimizer, checkpointing=s.checkpointing, **kw
        )
    precision = {"mixed": f"mixed_{s.dtype}", "amp": f"amp_{s.dtype}"}.get(s.kind, s.dtype)
    return estimate_training(config, precision=precision, optimizer=s.optimizer, checkpointing=s.checkpointing, **kw)


def build(s: Scenario, device: torch.device) -> Transformer:
    dtype = torch.float32 if s.kind == "amp" else DTYPES[s.dtype]  # AMP: fp32 weights, 16-bit arithmetic
    model = Transformer(scenario_config(s), dtype=dtype, device="meta")
    model.to_empty(device=device)
    torch.manual_seed(0)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.02)
    return model


def make_step(s: Scenario, model: Transformer, device: torch.device):
    """(one step as a function, the estimate for it, extra bytes alive before the step on a CPU)."""
    c = model.config
    ids = torch.randint(0, c.vocab_size, (s.batch, s.seq), device=device)
    labels = torch.randint(0, c.vocab_size, (s.batch, s.seq), device=device)
    none = dict(cuda_context_bytes=0)
    if s.kind == "infer":
        model.eval()
        cache = model.new_cache(s.batch, s.seq)
        est = estimate_inference(model, dtype=s.dtype, seq_len=s.seq, batch=s.batch, **none)
        return (lambda: model.prefill(ids, cache)), est, parameter_bytes(model) + storage_bytes(cache)
    model.checkpointing = s.checkpointing
    if s.kind == "lora":
        add_lora(model, s.rank)
        params = [p for p in model.parameters() if p.requires_grad]
        est = estimate_lora(
            model,
            base_dtype=s.dtype,
            optimizer=s.optimizer,
            seq_len=s.seq,
            batch=s.batch,
            checkpointing=s.checkpointing,
            **none,
        )
    else:
        params = list(model.parameters())
        precision = {"mixed": f"mixed_{s.dtype}", "amp": f"amp_{s.dtype}"}.get(s.kind, s.dtype)
        est = estimate_training(
            model,
            precision=precision,
            optimizer=s.optimizer,
            seq_len=s.seq,
            batch=s.batch,
            checkpointing=s.checkpointing,
            **none,
        )
    masters = [p.detach().float().clone() for p in params] if s.kind == "mixed" else params
    if s.optimizer == "adamw" and s.kind == "amp":
        opt = torch.optim.AdamW(masters, lr=1e-5, fused=True)  # the Hugging Face Trainer's default on torch >= 2.8
    elif s.optimizer == "adamw":
        opt = torch.optim.AdamW(masters, lr=1e-5, foreach=True)  # foreach: PyTorch's default on a GPU
    else:
        opt = torch.optim.SGD(masters, lr=1e-5, momentum=0.9 if s.optimizer == "sgd_momentum" else 0.0, foreach=True)

    def step() -> None:
        model.zero_grad(set_to_none=True)
        with torch.autocast(device.type, dtype=DTYPES[s.dtype], enabled=s.kind == "amp"):
            loss = model(ids, labels)
        loss.backward()
        if s.kind == "mixed":  # step the fp32 master copy, then copy it back into the 16-bit weights
            for m, p in zip(masters, params):
                m.grad = p.grad.float()
        opt.step()
        if s.kind == "mixed":
            with torch.no_grad():
                for m, p in zip(masters, params):
                    p.copy_(m)
                    m.grad = None

    step()  # warm-up: creates the optimizer state (and, on a GPU, loads kernels and cuBLAS)
    model.zero_grad(set_to_none=True)
    extra = parameter_bytes(model) + sum(optimizer_state_bytes(opt).values()) + gradient_bytes(model)
    if s.kind == "mixed":
        extra += storage_bytes(masters)
    return step, est, extra


def cuda_context_bytes(device: torch.device) -> int | None:
    """GPU memory in use that PyTorch's allocator does not account for: mostly the CUDA context."""
    try:
        free, total = torch.cuda.mem_get_info(device)
    except RuntimeError:
        return None
    return total - free - torch.cuda.memory_reserved(device)


def run(device: torch.device, scenarios: list[Scenario]) -> list[dict]:
    results = []
    for s in scenarios:
        if device.type == "cuda":
            free, _ = torch.cuda.mem_get_info(device)
            need = planned(s).total
            if need > 0.9 * free:
                results.append(
                    {"scenario": s.name, "skipped": f"needs about {format_bytes(need)}, {format_bytes(free)} free"}
                )
                continue
            if s.dtype == "bf16" and not torch.cuda.is_bf16_supported():
                results.append({"scenario": s.name, "skipped": "this GPU has no bf16 support"})
                continue
        model = build(s, device)
        step, est, cpu_before = make_step(s, model, device)
        start = time.perf_counter()
        before, peak = peak_bytes(step, device)
        if device.type != "cuda":
            before, peak = cpu_before, cpu_before + peak
        error = 100.0 * (est.total - peak) / peak
        results.append(
            {
                "scenario": s.name,
                "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
                "estimate_bytes": est.total,
                "measured_peak_bytes": peak,
                "bytes_before_step": before,
                "error_pct": round(error, 2),
                "within_target": abs(error) <= TARGET_PCT,
                "peak_moment": est.peak_moment,
                "estimate_breakdown": est.breakdown,
                "seconds": round(time.perf_counter() - start, 2),
            }
        )
        del model, step
        if device.type == "cuda":
            torch.cuda.empty_cache()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None, help="'cuda' (default when available) or 'cpu' (shrunk scenarios)")
    parser.add_argument("--json", type=Path, default=None, help="also write the results to this file")
    args = parser.parse_args()
    if args.device is None and not torch.cuda.is_available():
        print("No CUDA GPU here, so there is no torch.cuda.max_memory_allocated() to compare with.")
        print("Run this on a GPU machine (Colab, a rented GPU), or try `--device cpu` for the shrunk CPU version.")
        return 0
    device = torch.device(args.device or "cuda")
    scenarios = GPU_SCENARIOS if device.type == "cuda" else CPU_SCENARIOS
    report: dict = {"device": str(device), "torch": torch.__version__, "target_pct": TARGET_PCT}
    if device.type == "cuda":
        torch.ones(1, device=device) @ torch.ones(1, device=device)  # create the context and load cuBLAS
        report["gpu"] = torch.cuda.get_device_name(device)
        report["cuda_context_bytes_measured"] = cuda_context_bytes(device)
    report["results"] = run(device, scenarios)
    print(f"{'scenario':<55} {'estimate':>11} {'measured':>11} {'error':>8}  peak at")
    for r in report["results"]:
        if "skipped" in r:
            print(f"{r['scenario']:<55} skipped: {r['skipped']}")
            continue
        print(
            f"{r['scenario']:<55} {format_bytes(r['estimate_bytes'], 'GiB', 2):>11} "
            f"{format_bytes(r['measured_peak_bytes'], 'GiB', 2):>11} {r['error_pct']:>+7.1f}%  {r['peak_moment']}"
        )
    if report.get("cuda_context_bytes_measured") is not None:
        context = format_bytes(report["cuda_context_bytes_measured"], "MiB", 0)
        print(f"CUDA context and other memory outside PyTorch's allocator: {context}")
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
