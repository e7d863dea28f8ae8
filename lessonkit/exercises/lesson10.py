"""The Check yourself questions at the end of lesson 10, with their targets."""

from __future__ import annotations

from typing import Any

from lessonkit.exercises.kinds import ChoiceExercise, Exercise, NumberExercise, Target, Trap
from lessonkit.reference import gpu_checks
from lessonkit.timing import format_seconds


def tiny_add() -> dict[str, Any]:
    """The smallest add of the latest recorded timer check: gpu, wall_s and gpu_cold_s (lesson 10)."""
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
_SHOWN = f"wall clock {format_seconds(_WALL)}, GPU time {format_seconds(_GPU)}"


def _idle_target() -> Target:
    busy = 100 * _GPU / _WALL
    return Target(
        _IDLE_PCT,
        rel_tol=0.03,
        correct=f"each call takes {format_seconds(_WALL)} of wall-clock time, and the GPU works "
        f"{format_seconds(_GPU)} of it: busy {busy:.0f}%, idle {_IDLE_PCT:.0f}%, waiting for Python to launch "
        "the next call.",
        traps=(
            Trap(busy, "that is the share in which the GPU is busy. The question asks how much of the time it waits."),
            Trap(_IDLE_PCT / 100, "that is a fraction; the question asks for a percentage (multiply by 100)."),
            Trap(
                100 * (_WALL / _GPU - 1),
                "that divides by the GPU time. Idle share = (wall clock − GPU time) ÷ wall clock.",
            ),
            Trap((_WALL - _GPU) * 1e6, "that is the idle time in microseconds. Divide it by the wall-clock time."),
        ),
    )


EXERCISES: list[Exercise] = [
    ChoiceExercise(
        "10-tiny-add",
        title="a GPU / wall ratio below 1",
        options={
            "A": "The GPU was slowed down by a cold cache.",
            "B": "Launch overhead: the GPU finishes each add quickly, then waits for Python to launch the next one.",
            "C": "The timer is broken: GPU time can never be shorter than wall-clock time.",
            "D": "Another program was using the GPU during the wall-clock measurement.",
        },
        answer="B",
        correct="for tiny work, handing each kernel to the GPU takes the CPU longer than the GPU needs to run "
        "it. Fuse or batch small operations so the GPU has more to do per launch.",
        feedback={
            "A": "a cold cache makes the GPU time longer, and the ratio larger. Here the GPU time is the shorter one.",
            "C": "the wall clock also counts the CPU's work of launching each call, which the GPU's own "
            "timestamps leave out. So GPU time can be shorter.",
            "D": "the two timers agree for large operations measured the same way, so the gap is not noise from "
            "outside. It appears only for tiny work.",
        },
        hints=(
            "What does the wall clock include that the GPU's own timestamps leave out?",
            "Step 2 explains what 'well below 1' means in the last column.",
        ),
        explanation="Wall-clock time includes the few microseconds the CPU needs to launch each kernel. For a tiny "
        "add the GPU's work is shorter than that, so the GPU sits idle between calls and GPU ÷ wall is below 1.",
    ),
    NumberExercise(
        "10-idle-share",
        title="how long a GPU waits between tiny adds",
        unit="",
        target=_idle_target,
        hints=(
            "Per call, the wall clock is the whole time and the GPU time is the part the GPU works.",
            "Idle share = (wall clock − GPU time) ÷ wall clock. Give it as a percentage.",
        ),
        explanation=f"Recorded on {_ADD['gpu']}: {_SHOWN}. Idle share = ({format_seconds(_WALL)} − "
        f"{format_seconds(_GPU)}) ÷ {format_seconds(_WALL)} = {_IDLE_PCT:.0f}%.",
        code=f"wall, gpu = {_WALL * 1e6:.3g}, {_GPU * 1e6:.3g}   # microseconds per call\n"
        f"answer = 100 * (wall - gpu) / wall   # {_IDLE_PCT:.0f}",
    ),
    ChoiceExercise(
        "10-which-timer",
        title="which timer to compare two kernels",
        options={
            "A": "The wall clock with warm caches, `benchmark(fn)`: it is what your program waits.",
            "B": "The first call: it is the one a user meets.",
            "C": "GPU time with a cold cache, `benchmark(fn, flush_cache=True)` or triton's `do_bench`.",
            "D": "`time.time()` around one call, after `torch.cuda.synchronize()`.",
        },
        answer="C",
        correct="GPU time counts only the GPU's own work, from timestamps it writes itself, and flushing the "
        "cache gives both kernels the same start. Launch overhead and cache luck drop out of the comparison.",
        feedback={
            "A": "the wall clock is the right figure for what your program feels, but it mixes launch overhead "
            "and warm-cache luck into a comparison of the kernels themselves.",
            "B": "the first call pays one-time start-up costs, which say nothing about the kernel's speed.",
            "D": "one call is one sample from a spread, and the CPU clock still counts the launch.",
        },
        hints=(
            "Which timer leaves out everything except the GPU's own work?",
            "Step 2 ends with when to quote which figure.",
        ),
        explanation="To compare kernels, quote GPU time with a cold cache (CUDA events after a cache flush); to "
        "say what your program will feel, quote the wall clock.",
    ),
]
