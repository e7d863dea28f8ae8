"""The Check yourself questions at the end of lesson 07, with their targets."""

from __future__ import annotations

from lessonkit.estimate import estimate, estimate_inference
from lessonkit.exercises.kinds import ChoiceExercise, Exercise, NumberExercise, Target, Trap
from lessonkit.models import find_model
from lessonkit.units import GB, GIB

LLAMA_8B = find_model("llama-3.1-8b")
CHAT_TOKENS = 32768  # the conversation of question 1: a quarter of Llama 3.1's 131,072-token context
GEMMA_9B = find_model("gemma-2-9b")  # question 3: its row in the lesson's table for generating text in fp16


def _chat() -> tuple[int, int, int]:
    """(weights, KV cache, whole estimate) in bytes: Llama 3.1 8B, fp16, a CHAT_TOKENS conversation (lesson 07)."""
    est = estimate_inference(LLAMA_8B, dtype="fp16", seq_len=CHAT_TOKENS)
    return est.breakdown["weights"], est.breakdown["kv_cache"], est.total


def _chat_target() -> Target:
    weights, kv, total = _chat()
    c = LLAMA_8B
    return Target(
        (weights + kv) / GIB,
        rel_tol=0.01,
        correct=f"weights {weights / GIB:.2f} GiB + KV cache {kv / GIB:.2f} GiB = {(weights + kv) / GIB:.2f} GiB. "
        f"With the CUDA context and the temporary buffers the whole estimate is {total / GIB:.2f} GiB.",
        traps=(
            Trap(weights / GIB, "that is the weights alone. Add the KV cache for every token of the conversation."),
            Trap(
                (weights + kv * c.num_heads / c.num_kv_heads) / GIB,
                f"that counts a key-value head for each of the {c.num_heads} query heads. Llama 3.1 has only "
                f"{c.num_kv_heads} KV heads (grouped-query attention), so its cache is "
                f"{c.num_heads // c.num_kv_heads} times smaller.",
            ),
            Trap(
                (weights + kv / 2) / GIB,
                "that caches only the keys. The cache holds a key and a value for every token: the 2 in "
                "2 × layers × kv_heads × head_dim × bytes.",
            ),
            Trap(
                total / GIB,
                "that is the whole estimate, with the CUDA context and the temporary buffers. The question asks "
                "for the weights and the KV cache only.",
            ),
            Trap((2 * weights + 2 * kv) / GIB, "that uses 4 bytes per value, which is fp32. fp16 takes 2 bytes."),
        ),
    )


def _chat_explanation() -> str:
    weights, kv, _ = _chat()
    c = LLAMA_8B
    per_token = 2 * c.num_layers * c.num_kv_heads * c.head_dim * 2
    return (
        f"Weights: {c.n_params:,} parameters × 2 bytes = {weights:,} bytes = {weights / GIB:.2f} GiB. "
        f"KV cache: 2 × {c.num_layers} layers × {c.num_kv_heads} KV heads × {c.head_dim} × 2 bytes = "
        f"{per_token:,} bytes per token; × {CHAT_TOKENS:,} tokens = {kv / GIB:.2f} GiB. "
        f"Together {(weights + kv) / GIB:.2f} GiB."
    )


def _gemma() -> int:
    """Bytes the lesson's table says Gemma 2 9B needs to generate text in fp16, at the usual settings (lesson 07)."""
    return estimate(GEMMA_9B, "inference", "fp16").total


def _gemma_target() -> Target:
    need = _gemma()
    return Target(
        need / GB,
        rel_tol=0.01,
        correct=f"{need / GIB:.2f} GiB × 2**30 = {need:,} bytes = {need / GB:.2f} GB. Compare the need with a "
        "listing in the same unit: a number in GiB looks about 7% smaller than the same memory in GB.",
        traps=(
            Trap(
                need / GIB,
                "that is the table's figure in GiB, unchanged. A GiB (2**30 bytes) is bigger than a GB "
                "(10**9 bytes), so the same memory is a larger number of GB.",
            ),
            Trap(
                need / GIB * GB / GIB,
                "that converts the wrong way: it divides by 1.074 instead of multiplying. A GiB is bigger than a "
                "GB, so the number of GB must come out larger.",
            ),
            Trap(
                need / GIB * 1.024,
                "that multiplies by 1024/1000 once. A GiB is 1024 × 1024 × 1024 bytes and a GB 1000 × 1000 × 1000: "
                "the factor is 1.024 three times, 1.074.",
            ),
        ),
    )


EXERCISES: list[Exercise] = [
    NumberExercise(
        "07-chat-memory",
        title="weights + KV cache of a long chat",
        unit="GiB",
        target=_chat_target,
        hints=(
            "Two parts: the weights (parameters × 2 bytes in fp16) and the KV cache "
            "(2 × layers × kv_heads × head_dim × 2 bytes per token, times the tokens).",
            f"`print(find_model('llama-3.1-8b'))` shows the shape: {LLAMA_8B.num_layers} layers, "
            f"{LLAMA_8B.num_kv_heads} KV heads of {LLAMA_8B.head_dim}. Or let lessonkit add it up: "
            "`estimate_inference(...).breakdown` has a 'weights' and a 'kv_cache' entry, in bytes.",
        ),
        explanation=_chat_explanation,
        code='est = estimate_inference("llama-3.1-8b", dtype="fp16", seq_len='
        f'{CHAT_TOKENS})\nanswer = (est.breakdown["weights"] + est.breakdown["kv_cache"]) / 2**30   # GiB',
    ),
    ChoiceExercise(
        "07-where-to-run",
        title="where to run a small app",
        options={
            "A": "Buy an RTX 4090 and keep it in a server.",
            "B": "Rent an H100 by the hour and keep it running.",
            "C": "Google Colab's free T4.",
            "D": "A serverless GPU.",
        },
        answer="D",
        correct="a serverless GPU bills by the second while it answers, and nothing while it waits. The first "
        "request after a quiet spell waits for a cold start, the few seconds of delay the app can accept.",
        feedback={
            "A": "a card of your own is paid for up front, and this one would sit idle almost all day. Owning "
            "pays off for someone who keeps a GPU busy every day.",
            "B": "a rented GPU bills every hour it runs, busy or idle. And a 7B model does not need an 80 GB card.",
            "C": "Colab is for notebooks you run by hand. Its sessions end and its free GPUs come with usage "
            "limits, so it cannot serve an app around the clock.",
        },
        hints=(
            "How many hours a day is the GPU actually busy? Which option charges only for those?",
            "Step 3 lists four ways to get a GPU. Which one suits bursty traffic, and what is its catch?",
        ),
        explanation="Traffic of a few requests at unpredictable times is what serverless GPUs are for: pay per "
        "second of work, nothing while idle, at the cost of a cold start after a pause.",
    ),
    NumberExercise(
        "07-gib-to-gb",
        title=f"{GEMMA_9B.name}'s need in GB",
        unit="GB",
        target=_gemma_target,
        hints=(
            "The table's figure is in GiB: 1 GiB = 2**30 bytes. Turn it into bytes first, then divide by 10**9.",
            'Or ask lessonkit: `estimate("gemma-2-9b", "inference", "fp16").total` is in bytes.',
        ),
        explanation=lambda: (
            f"{_gemma() / GIB:.2f} GiB × 2**30 = {_gemma():,} bytes; ÷ 10**9 = "
            f"{_gemma() / GB:.2f} GB. Always compare a need and a listing in the same unit."
        ),
        code='answer = estimate("gemma-2-9b", "inference", "fp16").total / 1e9   # GB',
    ),
]
