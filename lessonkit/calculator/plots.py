"""The stacked-bar plot of memory part by part, one bar per estimate or per moment (lesson 05)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lessonkit._checks import check_choice, check_strings
from lessonkit.calculator._args import items
from lessonkit.calculator.budget import MachineBudget
from lessonkit.estimate import Estimate, gpu_memory
from lessonkit.gpus import GpuSpec
from lessonkit.i18n import _, text
from lessonkit.memparts import PARTS
from lessonkit.units import BYTE_UNITS
from lessonkit.vram import format_bytes


def plot_breakdown(
    estimates: Sequence[Estimate],
    labels: Sequence[str] | None = None,
    *,
    moments: bool = False,
    gpu: GpuSpec | MachineBudget | str | float | None = None,
    unit: str = "GiB",
    ax: Any = None,
) -> Any:
    """Stacked bars of memory per part, one bar per estimate (or per moment); returns the Axes (lesson 05).

    moments=True draws every moment of each estimate side by side (training: start of the backward
    pass and optimizer step). gpu draws a dashed line at that GPU's memory.
    """
    import matplotlib.pyplot as plt

    check_choice("unit", unit, BYTE_UNITS)
    if isinstance(gpu, MachineBudget) and not gpu:
        raise ValueError(f"gpu: {gpu}")
    example = "[estimate('gpt2')]"
    if estimates is None:
        raise TypeError(f"estimates must be a list such as {example}, got None")
    estimates = items("estimates", estimates, example)
    for est in estimates:
        if not isinstance(est, Estimate):
            raise TypeError(f"estimates must hold Estimates such as {example}, got {type(est).__name__} {est!r}")
    if labels is not None:
        labels = check_strings("labels", labels, "['GPT-2']")
        if len(labels) != len(estimates):
            raise ValueError(f"labels must give one label per estimate ({len(estimates)}), got {len(labels)}")
    if ax is None:
        rows = sum(len(e.moments) if moments else 1 for e in estimates)
        ax = plt.subplots(figsize=(9, 1.0 + 0.45 * rows))[1]
    bars: list[tuple[str, dict[str, int]]] = []
    for i, est in enumerate(estimates):
        name = labels[i] if labels is not None else " · ".join(est.label.split(" · ")[:2])
        if moments:
            bars += [(f"{name}\n{est.moment_label(m)}".strip(), parts) for m, parts in est.moments.items()]
        else:
            bars.append((name, est.breakdown))
    scale = BYTE_UNITS[unit]
    for row, (_name, parts) in enumerate(bars):
        left = 0.0
        for key, part in PARTS.items():
            value = parts.get(key, 0) / scale
            if value:
                ax.barh(row, value, left=left, color=part.colour, edgecolor="white", linewidth=0.5)
                left += value
    shown = [k for k in PARTS if any(p.get(k) for _, p in bars)]
    handles = [plt.Rectangle((0, 0), 1, 1, color=PARTS[k].colour) for k in shown]
    names = [text(PARTS[k].label) for k in shown]
    if gpu is not None:  # the GPU's line is named in the legend, where no bar can hide its label
        available, name = (gpu.usable_bytes, gpu.name) if isinstance(gpu, MachineBudget) else gpu_memory(gpu)
        handles.append(ax.axvline(available / scale, color="black", linestyle="--", linewidth=1))
        names.append(f"{name}: {format_bytes(available, unit, 2)}")
    ax.legend(handles, names, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    ax.set_yticks(range(len(bars)), [b[0] for b in bars], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(_("memory ({unit})").format(unit=unit))
    return ax
