"""Plausible ranges for every size a config.json or a learner gives the estimator (lessons 05, 08).

A size outside its range is refused before any loop or allocation, with an error that names the
field and the range, so a typo or a hostile config.json (10**9 layers, a 300-digit vocabulary)
gets a sentence instead of a frozen kernel. The ranges come from the world, not from the type:
each upper end is several times the largest value a published model or a real job uses (noted
beside it, as of 2026), so no real model is refused, and the largest accepted values still give
an answer in well under a second (tests/test_hostile_inputs.py times them).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import NamedTuple

from lessonkit._checks import check_number, shown


class Limit(NamedTuple):
    """The smallest and largest accepted value of one size, and the real value the top end leaves room for."""

    low: int
    high: int
    why: str


LIMITS = MappingProxyType(
    {
        # model shapes (config.json)
        "vocab_size": Limit(1, 2**22, "Gemma 3 has 262,144 tokens"),
        "hidden_size": Limit(1, 2**17, "Llama 3.1 405B has 16,384"),
        "num_layers": Limit(1, 1024, "Llama 3.1 405B has 126"),
        "num_heads": Limit(1, 1024, "Llama 3.1 405B and DeepSeek-V3 have 128"),
        "num_kv_heads": Limit(1, 1024, "at most the attention heads"),
        "head_dim": Limit(1, 4096, "Gemma 2 27B has 128, MLA's query heads 192"),
        "intermediate_size": Limit(1, 2**20, "Llama 3.1 405B has 53,248"),
        "max_position_embeddings": Limit(1, 2**24, "Llama 4 Scout reads 10,485,760 tokens"),
        "learned_positions": Limit(0, 2**24, "GPT-2 has 1,024"),
        "num_experts": Limit(0, 4096, "Kimi K2 has 384 routed experts per layer"),
        "experts_per_token": Limit(0, 4096, "at most the experts"),
        "expert_intermediate_size": Limit(0, 2**20, "Mixtral 8x22B's experts are 16,384 wide"),
        "shared_expert_intermediate_size": Limit(0, 2**20, "Qwen1.5-MoE's shared expert is 5,632 wide"),
        "kv_lora_rank": Limit(0, 2**16, "DeepSeek-V3 compresses keys and values to 512"),
        "q_lora_rank": Limit(0, 2**16, "DeepSeek-V3 compresses queries to 1,536"),
        "qk_rope_head_dim": Limit(0, 4096, "DeepSeek-V3 has 64"),
        "v_head_dim": Limit(0, 4096, "DeepSeek-V3 has 128"),
        "sliding_window": Limit(0, 2**24, "Mistral 7B v0.1 has 4,096"),
        "mtp_layers": Limit(0, 64, "DeepSeek-V3 has 1"),
        "extra_params": Limit(0, 2**40, "a vision tower of a few billion parameters"),
        # a job (what a learner types)
        "seq_len": Limit(1, 2**24, "Llama 4 Scout's 10M-token context"),
        "batch": Limit(1, 2**20, "a serving batch of a few thousand sequences"),
        "tokens": Limit(1, 2**36, "seq_len x batch"),
        "rank": Limit(1, 2**16, "LoRA ranks are 4 to 256; full-rank adapters of the widest layers"),
        "tensor_parallel": Limit(1, 1024, "tensor parallelism spans one NVLink domain: 8 to 72 GPUs"),
        "gpus": Limit(1, 2**24, "the largest training clusters have about 10**5 GPUs"),
        "cuda_context_bytes": Limit(0, 2**40, "the CUDA context takes about 0.3-1 GB"),
    }
)


def check_size(name: str, value: object, *, field: str | None = None, where: str = "") -> int:
    """`value` as an int if it is a whole number within LIMITS[field or name], else an error naming `name`.

    `where` starts the message (a config.json's path); the range and the real value it leaves room
    for end it, e.g. "num_layers must be a whole number from 1 to 1,024 (Llama 3.1 405B has 126), got 10**9".
    """
    key = field or name
    if not isinstance(key, str) or key not in LIMITS:
        raise ValueError(f"field must name one of lessonkit.limits.LIMITS {sorted(LIMITS)}, got {shown(key)}")
    if not isinstance(name, str) or not isinstance(where, str):
        raise TypeError(f"name and where must be strings, got {type(name).__name__} and {type(where).__name__}")
    limit = LIMITS[key]
    lead = f"{where}: " if where else ""
    try:
        n = check_number(name, value, integer=True)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{lead}{exc}") from None
    if not limit.low <= n <= limit.high:
        got = (
            f"{n:,}" if n.bit_length() <= 64 else f"a {len(str(n)) if n.bit_length() < 14000 else 'huge'}-digit number"
        )
        raise ValueError(
            f"{lead}{name} must be a whole number from {limit.low:,} to {limit.high:,} ({limit.why}), got {got}"
        )
    return int(n)
