"""The Check yourself questions at the end of lesson 05, with their targets."""

from __future__ import annotations

from lessonkit.estimate import DEFAULT_INFERENCE_TOKENS, estimate, estimate_inference
from lessonkit.exercises.base import Exercise
from lessonkit.exercises.judging import Target, Trap
from lessonkit.exercises.kinds import ChoiceExercise, NumberExercise
from lessonkit.i18n import _, lazy
from lessonkit.models import find_model
from lessonkit.units import GB, GIB

LLAMA_8B = find_model("llama-3.1-8b")
CHAT_TOKENS = 32768  # the conversation of question 1: a quarter of Llama 3.1's 131,072-token context
GEMMA_9B = find_model("gemma-2-9b")  # question 3: its row in the lesson's table for generating text in fp16


def _chat(tokens: int = CHAT_TOKENS) -> tuple[int, int, int]:
    """(weights, KV cache, whole estimate) in bytes: Llama 3.1 8B, fp16, a `tokens` conversation (lesson 05)."""
    est = estimate_inference(LLAMA_8B, dtype="fp16", seq_len=tokens)
    return est.breakdown["weights"], est.breakdown["kv_cache"], est.total


def _chat_target() -> Target:
    """Question 1 of lesson 05: weights and KV cache of a long chat, in the language shown now."""
    weights, kv, total = _chat()
    _weights, kv_default, total_default = _chat(DEFAULT_INFERENCE_TOKENS)  # Step 5's conversation, estimate's default
    kv_per_token = kv / CHAT_TOKENS
    c = LLAMA_8B
    return Target(
        (weights + kv) / GIB,
        correct=_(
            "weights {weights:.2f} GiB + KV cache {kv:.2f} GiB = {both:.2f} GiB. "
            "With the CUDA context and the temporary buffers the whole estimate is {total:.2f} GiB."
        ).format(weights=weights / GIB, kv=kv / GIB, both=(weights + kv) / GIB, total=total / GIB),
        traps=(
            Trap(
                weights / GIB,
                _("that is the weights alone. Add the KV cache for every token of the conversation."),
            ),
            Trap(
                (weights + kv * c.num_heads / c.num_kv_heads) / GIB,
                _(
                    "that counts a key-value head for each of the {heads} query heads. Llama 3.1 has only "
                    "{kv_heads} KV heads (grouped-query attention), so its cache is "
                    "{ratio} times smaller."
                ).format(heads=c.num_heads, kv_heads=c.num_kv_heads, ratio=c.num_heads // c.num_kv_heads),
            ),
            Trap(
                (weights + kv / 2) / GIB,
                _(
                    "that caches only the keys. The cache holds a key and a value for every token: the 2 in "
                    "2 × layers × kv_heads × head_dim × bytes."
                ),
            ),
            Trap(
                total / GIB,
                _(
                    "that is the whole estimate, with the CUDA context and the temporary buffers. The question asks "
                    "for the weights and the KV cache only."
                ),
            ),
            Trap(
                (2 * weights + 2 * kv) / GIB,
                _("that uses 4 bytes per value, which is fp32. fp16 takes 2 bytes."),
            ),
            Trap(
                (weights + kv_default) / GIB,
                _(
                    "that is the KV cache of {default:,} tokens, Step 5's conversation and what `estimate_inference` "
                    "assumes when it is given no `seq_len`. This conversation is {tokens:,} tokens long."
                ).format(default=DEFAULT_INFERENCE_TOKENS, tokens=CHAT_TOKENS),
                0.002,
            ),
            Trap(
                total_default / GIB,
                _(
                    "that is Step 5's whole estimate for {default:,} tokens. The question asks for the weights and "
                    "the KV cache of a {tokens:,}-token conversation."
                ).format(default=DEFAULT_INFERENCE_TOKENS, tokens=CHAT_TOKENS),
                0.002,
            ),
            Trap(
                (weights + kv_per_token * 32000) / GIB,
                _("that counts 32,000 tokens. The conversation has {tokens:,} tokens: 32K here means 2**15.").format(
                    tokens=CHAT_TOKENS
                ),
                0.001,
            ),
            Trap(
                kv / GIB,
                _("that is the KV cache alone. Add the weights: the question asks for both together."),
            ),
        ),
    )


def _chat_explanation() -> str:
    """The worked answer to question 1 of lesson 05, in the language shown now."""
    weights, kv, _total = _chat()
    c = LLAMA_8B
    per_token = 2 * c.num_layers * c.num_kv_heads * c.head_dim * 2
    return _(
        "Weights: {params:,} parameters × 2 bytes = {weights:,} bytes = {weights_gib:.2f} GiB. "
        "KV cache: 2 × {layers} layers × {kv_heads} KV heads × {head_dim} × 2 bytes = "
        "{per_token:,} bytes per token; × {tokens:,} tokens = {kv:.2f} GiB. "
        "Together {both:.2f} GiB."
    ).format(
        params=c.n_params,
        weights=weights,
        weights_gib=weights / GIB,
        layers=c.num_layers,
        kv_heads=c.num_kv_heads,
        head_dim=c.head_dim,
        per_token=per_token,
        tokens=CHAT_TOKENS,
        kv=kv / GIB,
        both=(weights + kv) / GIB,
    )


def _gemma() -> int:
    """Bytes the lesson's table says Gemma 2 9B needs to generate text in fp16, at the usual settings (lesson 05)."""
    return estimate(GEMMA_9B, "inference", "fp16").total


def _gemma_target() -> Target:
    """Question 3 of lesson 05: Gemma 2 9B's need in GB, in the language shown now."""
    need = _gemma()
    return Target(
        need / GB,
        correct=_(
            "{gib:.2f} GiB × 2**30 = {need:,} bytes = {gb:.2f} GB. Compare the need with a "
            "listing in the same unit: a number in GiB looks about 7% smaller than the same memory in GB."
        ).format(gib=need / GIB, need=need, gb=need / GB),
        traps=(
            Trap(
                need / GIB,
                _(
                    "that is the table's figure in GiB, unchanged. A GiB (2**30 bytes) is bigger than a GB "
                    "(10**9 bytes), so the same memory is a larger number of GB."
                ),
            ),
            Trap(
                need / GIB * GB / GIB,
                _(
                    "that converts the wrong way: it divides by 1.074 instead of multiplying. A GiB is bigger than a "
                    "GB, so the number of GB must come out larger."
                ),
            ),
            Trap(
                need / GIB * 1.024,
                _(
                    "that multiplies by 1024/1000 once. A GiB is 1024 × 1024 × 1024 bytes and a GB "
                    "1000 × 1000 × 1000: the factor is 1.024 three times, 1.074."
                ),
            ),
        ),
    )


def _gemma_explanation() -> str:
    """The worked answer to question 3 of lesson 05, in the language shown now."""
    need = _gemma()
    return _(
        "{gib:.2f} GiB × 2**30 = {need:,} bytes; ÷ 10**9 = "
        "{gb:.2f} GB. Always compare a need and a listing in the same unit."
    ).format(gib=need / GIB, need=need, gb=need / GB)


EXERCISES: list[Exercise] = [
    NumberExercise(
        "05-chat-memory",
        title=lazy("weights + KV cache of a long chat"),
        unit="GiB",
        target=_chat_target,
        hints=(
            lazy(
                "Two parts: the weights (parameters × 2 bytes in fp16) and the KV cache "
                "(2 × layers × kv_heads × head_dim × 2 bytes per token, times the tokens)."
            ),
            lazy(
                "`print(find_model('llama-3.1-8b'))` shows the shape: {layers} layers, "
                "{kv_heads} KV heads of {head_dim}. Or let lessonkit add it up: "
                "`estimate_inference(...).breakdown` has a 'weights' and a 'kv_cache' entry, in bytes.",
                layers=LLAMA_8B.num_layers,
                kv_heads=LLAMA_8B.num_kv_heads,
                head_dim=LLAMA_8B.head_dim,
            ),
        ),
        explanation=_chat_explanation,
        code='est = estimate_inference("llama-3.1-8b", dtype="fp16", seq_len='
        f'{CHAT_TOKENS})\nanswer = (est.breakdown["weights"] + est.breakdown["kv_cache"]) / 2**30   # GiB',
    ),
    ChoiceExercise(
        "05-where-to-run",
        title=lazy("where to run a small app"),
        options={
            "A": lazy("Buy an RTX 4090 and keep it in a server."),
            "B": lazy("Rent an H100 by the hour and keep it running."),
            "C": lazy("Google Colab's free T4."),
            "D": lazy("A serverless GPU."),
        },
        answer="D",
        correct=lazy(
            "a serverless GPU bills by the second while it answers, and nothing while it waits. The first "
            "request after a quiet spell waits for a cold start, the few seconds of delay the app can accept."
        ),
        feedback={
            "A": lazy(
                "a card of your own is paid for up front, and this one would sit idle almost all day. Owning "
                "pays off for someone who keeps a GPU busy every day."
            ),
            "B": lazy(
                "a rented GPU bills every hour it runs, busy or idle. And a 7B model does not need an 80 GB card."
            ),
            "C": lazy(
                "Colab is for notebooks you run by hand. Its sessions end and its free GPUs come with usage "
                "limits, so it cannot serve an app around the clock."
            ),
        },
        hints=(
            lazy("How many hours a day is the GPU actually busy? Which option charges only for those?"),
            lazy("Step 3 lists four ways to get a GPU. Which one suits bursty traffic, and what is its catch?"),
        ),
        explanation=lazy(
            "Traffic of a few requests at unpredictable times is what serverless GPUs are for: pay per "
            "second of work, nothing while idle, at the cost of a cold start after a pause."
        ),
    ),
    NumberExercise(
        "05-gib-to-gb",
        title=lazy("{name}'s need in GB", name=GEMMA_9B.name),
        unit="GB",
        target=_gemma_target,
        hints=(
            lazy("The table's figure is in GiB: 1 GiB = 2**30 bytes. Turn it into bytes first, then divide by 10**9."),
            lazy('Or ask lessonkit: `estimate("gemma-2-9b", "inference", "fp16").total` is in bytes.'),
        ),
        explanation=_gemma_explanation,
        code='answer = estimate("gemma-2-9b", "inference", "fp16").total / 1e9   # GB',
    ),
]
