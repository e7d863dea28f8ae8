"""The Check yourself questions at the end of lesson 05, with their targets."""

from __future__ import annotations

from lessonkit.estimate import estimate
from lessonkit.exercises.base import Exercise
from lessonkit.exercises.judging import Target, Trap
from lessonkit.exercises.kinds import ChoiceExercise, NumberExercise
from lessonkit.i18n import _, lazy
from lessonkit.models import find_model
from lessonkit.units import GB, GIB

GEMMA_9B = find_model("gemma-2-9b")  # question 3: its row in the lesson's table for generating text in fp16


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
