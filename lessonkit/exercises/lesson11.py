"""The Check yourself questions at the end of lesson 11, with their targets."""

from __future__ import annotations

from typing import Any

from lessonkit.exercises.base import Exercise
from lessonkit.exercises.judging import Target, Trap
from lessonkit.exercises.kinds import ChoiceExercise, NumberExercise
from lessonkit.i18n import _, lazy
from lessonkit.reference import gpu_checks
from lessonkit.timing import format_seconds


def tiny_add() -> dict[str, Any]:
    """The smallest add of the latest recorded timer check: gpu, wall_s and gpu_cold_s (lesson 11)."""
    checked = [r for r in gpu_checks() if r.get("timer")]
    if not checked:
        raise ValueError("lessonkit/data/reference_results.json holds no recorded timer check (make gpu-check)")
    record = checked[-1]
    adds = [t for t in record["timer"] if t["op"] == "add" and t.get("gpu_cold_s")]
    if not adds:
        raise ValueError(f"the timer check recorded on {record['gpu']} has no add with a GPU time")
    add = min(adds, key=lambda t: t["size"])
    return {"gpu": record["gpu"], "size": add["size"], "wall_s": add["wall_s"], "gpu_cold_s": add["gpu_cold_s"]}


_ADD = tiny_add()
_WALL, _GPU = _ADD["wall_s"], _ADD["gpu_cold_s"]
_IDLE_PCT = 100 * (1 - _GPU / _WALL)  # the share of each call in which the GPU waits for the next launch
# The question states both times in µs to three significant digits (7.42 and 4.13): the answer it expects comes
# from those figures; the recorded ones give the same share to within the rounding policy's band, or nearly.
_WALL_US, _GPU_US = (float(f"{seconds * 1e6:.3g}") for seconds in (_WALL, _GPU))
_IDLE_STATED = 100 * (1 - _GPU_US / _WALL_US)
_SHOWN = lazy("wall clock {wall}, GPU time {gpu}", wall=format_seconds(_WALL), gpu=format_seconds(_GPU))


def _idle_target() -> Target:
    """Question 2 of lesson 11: how long a GPU waits between tiny adds, in the language shown now."""
    busy = 100 - _IDLE_STATED
    return Target(
        _IDLE_STATED,
        also=(_IDLE_PCT,),
        correct=_(
            "each call takes {wall} of wall-clock time, and the GPU works "
            "{gpu} of it: busy {busy:.1f}%, idle {idle:.1f}%, waiting for Python to launch "
            "the next call."
        ).format(wall=format_seconds(_WALL), gpu=format_seconds(_GPU), busy=busy, idle=_IDLE_STATED),
        traps=(
            Trap(
                busy,
                _("that is the share in which the GPU is busy. The question asks how much of the time it waits."),
            ),
            Trap(_IDLE_STATED / 100, _("that is a fraction; the question asks for a percentage (multiply by 100).")),
            Trap(
                100 * (_WALL_US / _GPU_US - 1),
                _("that divides by the GPU time. Idle share = (wall clock − GPU time) ÷ wall clock."),
            ),
            Trap(
                busy / 100,
                _("that is the busy share, as a fraction. The question asks for the idle share, as a percentage."),
            ),
            Trap(
                _WALL_US - _GPU_US,
                _("that is the idle time in microseconds. Divide it by the wall-clock time."),
            ),
        ),
    )


EXERCISES: list[Exercise] = [
    ChoiceExercise(
        "11-tiny-add",
        title=lazy("a GPU / wall ratio below 1"),
        options={
            "A": lazy("The GPU was slowed down by a cold cache."),
            "B": lazy(
                "Launch overhead: the GPU finishes each add quickly, then waits for Python to launch the next one."
            ),
            "C": lazy("The timer is broken: GPU time can never be shorter than wall-clock time."),
            "D": lazy("Another program was using the GPU during the wall-clock measurement."),
        },
        answer="B",
        correct=lazy(
            "for tiny work, handing each kernel to the GPU takes the CPU longer than the GPU needs to run "
            "it. Fuse or batch small operations so the GPU has more to do per launch."
        ),
        feedback={
            "A": lazy(
                "a cold cache makes the GPU time longer, and the ratio larger. Here the GPU time is the shorter one."
            ),
            "C": lazy(
                "the wall clock also counts the CPU's work of launching each call, which the GPU's own "
                "timestamps leave out. So GPU time can be shorter."
            ),
            "D": lazy(
                "the two timers agree for large operations measured the same way, so the gap is not noise from "
                "outside. It appears only for tiny work."
            ),
        },
        hints=(
            lazy("What does the wall clock include that the GPU's own timestamps leave out?"),
            lazy("Step 2 explains what 'well below 1' means in the last column."),
        ),
        explanation=lazy(
            "Wall-clock time includes the few microseconds the CPU needs to launch each kernel. For a tiny "
            "add the GPU's work is shorter than that, so the GPU sits idle between calls and GPU ÷ wall is below 1."
        ),
    ),
    NumberExercise(
        "11-idle-share",
        title=lazy("how long a GPU waits between tiny adds"),
        unit="%",
        target=_idle_target,
        hints=(
            lazy("Per call, the wall clock is the whole time and the GPU time is the part the GPU works."),
            lazy("Idle share = (wall clock − GPU time) ÷ wall clock. Give it as a percentage."),
        ),
        explanation=lazy(
            "Recorded on {gpu_name}: {shown}. Idle share = ({wall} − {gpu}) ÷ {wall} = {idle:.1f}%.",
            gpu_name=_ADD["gpu"],
            shown=_SHOWN,
            wall=format_seconds(_WALL),
            gpu=format_seconds(_GPU),
            idle=_IDLE_STATED,
        ),
        code=lazy(
            "wall, gpu = {wall:.3g}, {gpu:.3g}   # microseconds per call\n"
            "answer = 100 * (wall - gpu) / wall   # {idle:.1f}",
            wall=_WALL_US,
            gpu=_GPU_US,
            idle=_IDLE_STATED,
        ),
    ),
    ChoiceExercise(
        "11-which-timer",
        title=lazy("which timer to compare two kernels"),
        options={
            "A": lazy("The wall clock with warm caches, `benchmark(fn)`: it is what your program waits."),
            "B": lazy("The first call: it is the one a user meets."),
            "C": lazy("GPU time with a cold cache, `benchmark(fn, flush_cache=True)` or triton's `do_bench`."),
            "D": lazy("`time.time()` around one call, after `torch.cuda.synchronize()`."),
        },
        answer="C",
        correct=lazy(
            "GPU time counts only the GPU's own work, from timestamps it writes itself, and flushing the "
            "cache gives both kernels the same start. Launch overhead and cache luck drop out of the comparison."
        ),
        feedback={
            "A": lazy(
                "the wall clock is the right figure for what your program feels, but it mixes launch overhead "
                "and warm-cache luck into a comparison of the kernels themselves."
            ),
            "B": lazy("the first call pays one-time start-up costs, which say nothing about the kernel's speed."),
            "D": lazy("one call is one sample from a spread, and the CPU clock still counts the launch."),
        },
        hints=(
            lazy("Which timer leaves out everything except the GPU's own work?"),
            lazy("Step 2 ends with when to quote which figure."),
        ),
        explanation=lazy(
            "To compare kernels, quote GPU time with a cold cache (CUDA events after a cache flush); to "
            "say what your program will feel, quote the wall clock."
        ),
    ),
]
