"""The Check yourself questions at the end of lesson 05, with their targets."""

from __future__ import annotations

from lessonkit.estimate import estimate
from lessonkit.exercises.base import Exercise
from lessonkit.exercises.judging import Target, Trap
from lessonkit.exercises.kinds import ChoiceExercise, NumberExercise
from lessonkit.i18n import _, lazy
from lessonkit.models import ModelConfig, find_model, published_config
from lessonkit.units import GB, GIB

GEMMA_9B = find_model("gemma-2-9b")  # question 3: its row in the lesson's table for generating text in fp16
MOE_KEY = "qwen3-30b-a3b"  # question 1: Step 4's mixture of experts, from its config.json


def _moe() -> ModelConfig:
    """Qwen3-30B-A3B's shape, read from the config.json lessonkit ships (lesson 05, Step 4)."""
    found = published_config(MOE_KEY)
    return ModelConfig.from_hf_config(found.config, name=found.name)


def _moe_target() -> Target:
    """Question 1 of lesson 05: the GB an MoE model's fp16 weights take in memory, in the language shown now."""
    m = _moe()
    weights = 2 * m.n_params
    need = estimate(m, "inference", "fp16").total  # Step 4's table: the whole estimate to generate text
    return Target(
        weights / GB,
        correct=_(
            "{total:,} parameters × 2 bytes = {gb:.2f} GB. A token reads only its {used} experts of each layer, but "
            "the next token may pick any of the {experts}, so every expert sits in memory."
        ).format(total=m.n_params, gb=weights / GB, used=m.experts_per_token, experts=m.num_experts),
        traps=(
            Trap(
                2 * m.active_params / GB,
                _(
                    "that is what one token reads: its {used} experts of each layer, {active:,} parameters. The next "
                    "token may pick any of the {experts} experts, so all {total:,} parameters must be in memory."
                ).format(used=m.experts_per_token, active=m.active_params, experts=m.num_experts, total=m.n_params),
            ),
            Trap(
                4 * m.n_params / GB,
                _("that uses 4 bytes per parameter, which is fp32. fp16 takes 2 bytes."),
            ),
            Trap(
                m.n_params / GB,
                _(
                    "that is the number of parameters in billions, or 1 byte each. In fp16 each parameter takes "
                    "2 bytes."
                ),
            ),
            Trap(
                m.n_params / 2 / GB,
                _("that is half a byte per parameter, int4. fp16 takes 2 bytes."),
            ),
            Trap(
                need / GB,
                _(
                    "that is Step 4's whole estimate for generating text, with the KV cache, the temporary buffers "
                    "and the CUDA context. The question asks for the weights alone."
                ),
                0.005,
            ),
            Trap(
                need / GIB,
                _(
                    "that is Step 4's whole estimate for generating text, in GiB. The question asks for the weights "
                    "alone, in GB."
                ),
                0.005,
            ),
        ),
    )


def _moe_explanation() -> str:
    """The worked answer to question 1 of lesson 05, in the language shown now."""
    m = _moe()
    return _(
        "All {experts} experts of every layer must be in memory, because any token may pick any of them: "
        "{total:,} parameters × 2 bytes (fp16) = {bytes:,} bytes = {gb:.2f} GB. One token reads only "
        "{active:,} of them, {read:.2f} GB: the model needs the memory of a 30B model and reads what a 3B model reads."
    ).format(
        experts=m.num_experts,
        total=m.n_params,
        bytes=2 * m.n_params,
        gb=2 * m.n_params / GB,
        active=m.active_params,
        read=2 * m.active_params / GB,
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
        "05-moe-memory",
        title=lazy("a mixture of experts' weights in memory"),
        unit="GB",
        target=_moe_target,
        hints=(
            lazy(
                "Which experts must be in GPU memory: the few a token uses, or all of them? The next token may pick "
                "any expert."
            ),
            lazy(
                "All the parameters × 2 bytes (fp16), ÷ 10**9 for GB. Step 4 printed the count; "
                "`ModelConfig.from_hf_config(published_config('qwen3-30b-a3b').config).n_params` gives it too."
            ),
        ),
        explanation=_moe_explanation,
        code='moe = ModelConfig.from_hf_config(published_config("qwen3-30b-a3b").config)\n'
        "answer = moe.n_params * 2 / 1e9   # GB: every expert, 2 bytes per parameter",
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
