"""The VRAM calculator of lesson 07: a fit table, a stacked-bar plot, and interactive controls.

Everything here draws on lessonkit.vram's estimates. `Calculator` works without a browser too:
its `report()` and `figure()` show the current result as ordinary output, so a notebook shows real
content in nbval, on GitHub and on paper; `widget()` adds the controls (ipywidgets 7 or 8) in a
live Jupyter or Colab session. ipywidgets and matplotlib are imported only when needed.

Besides the catalog's GPUs, the budget can be this machine's own CUDA GPU with the memory that is
free on it now (`this_machine`, from torch.cuda.mem_get_info through lessonkit.device); then
`models_that_fit` says which models fit in it and, for each one that does not, why.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from lessonkit._checks import check_bytes, check_choice, check_number, check_strings
from lessonkit.estimate import (
    COMPONENT_LABELS,
    MODES,
    Estimate,
    Fit,
    estimate,
    fits,
    gpu_memory,
    largest_model_that_fits,
)
from lessonkit.gpus import GpuSpec, catalog
from lessonkit.models import ModelConfig, catalog_models, find_model
from lessonkit.vram import format_bytes

MODE_LABELS = {"inference": "inference", "lora": "LoRA fine-tuning", "full": "full fine-tuning"}
MODE_DTYPES = {
    "inference": ("fp16", "bf16", "fp8", "int8", "int4", "fp32"),
    "lora": ("bf16", "fp16", "int8", "int4"),
    "full": ("bf16", "fp16", "fp32"),
}
TIGHT = 0.05  # a fit with less than 5% of the GPU's memory to spare is marked "tight"
COLOURS = {  # one colour per component, the same in every plot
    "cuda_context": "#7f7f7f",
    "weights": "#1f77b4",
    "quant_scales": "#aec7e8",
    "adapters": "#17becf",
    "master_weights": "#9467bd",
    "optimizer_state": "#d62728",
    "gradients": "#ff7f0e",
    "master_gradients": "#ffbb78",
    "activations": "#2ca02c",
    "kv_cache": "#bcbd22",
    "temporaries": "#e377c2",
}


# --- the memory free now on this machine's GPU -----------------------------------------------------

THIS_MACHINE = "this_machine"  # the calculator's and fit table's name for this machine's CUDA GPU


@dataclass(frozen=True)
class MachineBudget:
    """The memory free now on this machine's CUDA GPU, a budget like a catalog GPU's (lesson 07).

    False like a bool when there is none (no CUDA GPU here: `reason` says why). The free figure is
    torch.cuda.mem_get_info's, read after this process's CUDA context exists, so the context is already
    taken from it: estimates checked against this machine leave their CUDA context out (cuda_context=0).
    """

    gpu_name: str | None
    free_bytes: int | None
    total_bytes: int | None = None
    reason: str | None = None
    key: str = THIS_MACHINE

    def __bool__(self) -> bool:
        return self.free_bytes is not None

    @property
    def context_in_use(self) -> bool:
        """True when read from this process's GPU: its CUDA context exists, so estimates leave it out (lesson 07)."""
        return self.gpu_name is not None

    @property
    def usable_bytes(self) -> int:
        """The budget in bytes: the free memory (0 when there is none) (lesson 07)."""
        return self.free_bytes or 0

    @property
    def name(self) -> str:
        """E.g. 'Tesla T4 (free now)', as fits() and the plots name a GPU (lesson 07)."""
        if not self:
            return "no CUDA GPU here"
        return "the budget given" if self.gpu_name is None else f"{self.gpu_name} (free now)"

    @property
    def summary(self) -> str:
        """E.g. 'Tesla T4, 0.29 GiB (300 MiB) free now of 14.75 GiB', or why there is no budget (lesson 07)."""
        if not self:
            return f"no CUDA GPU here: {self.reason}"
        free = f"{format_bytes(self.usable_bytes, 'GiB', 2)} ({format_bytes(self.usable_bytes, 'MiB', 0)})"
        if self.gpu_name is None:
            return f"a budget of {free}, given by hand"
        total = "" if self.total_bytes is None else f" of {format_bytes(self.total_bytes, 'GiB', 2)}"
        return f"{self.gpu_name}, {free} free now{total}"

    def __repr__(self) -> str:
        return str(self)

    def __str__(self) -> str:
        if not self:
            return f"No CUDA GPU here: {self.reason}"
        return "A" + self.summary[1:] if self.gpu_name is None else f"This machine: {self.summary}"


def this_machine(device: Any = None) -> MachineBudget:
    """The memory free now on this machine's CUDA GPU (default: the best device), or why there is none (lesson 07)."""
    from lessonkit.device import describe_device  # imported here: the catalog and estimates never need torch

    info = describe_device(device)
    if info.kind != "cuda" or info.free_memory is None:
        why = {
            "cpu": "PyTorch sees no CUDA GPU, so there is no GPU memory to compare with (this runs on the CPU)",
            "mps": "this is an Apple-silicon GPU, whose memory is shared with the CPU; the budget is for CUDA GPUs",
        }.get(info.kind, "PyTorch could not say how much memory is free on this GPU")
        return MachineBudget(None, None, reason=why)
    return MachineBudget(info.name, int(info.free_memory), info.total_memory)


def _given(free_bytes: Any) -> MachineBudget:
    """A budget of `free_bytes` given by hand (a number of bytes or a size such as '300MiB')."""
    return MachineBudget(None, check_bytes("free_bytes", free_bytes))


# --- which models fit on which GPUs -----------------------------------------------------------------


@dataclass(frozen=True)
class FitTable:
    """Rows of models, columns of GPUs: does each model fit, for one mode and dtype (lesson 07)."""

    mode: str
    dtype: str
    models: tuple[ModelConfig, ...]
    gpus: tuple[GpuSpec | MachineBudget, ...]
    needed: tuple[int, ...]  # bytes per model
    options: dict[str, Any]
    context: tuple[int, ...] = ()  # bytes of CUDA context in each estimate

    def verdict(self, i: int, gpu: GpuSpec | MachineBudget) -> str:
        """'yes', 'tight' (fits with under 5% of the memory to spare) or '-' for model i on `gpu` (lesson 07)."""
        needed = self.needed[i]
        if isinstance(gpu, MachineBudget) and gpu.context_in_use and self.context:
            needed -= self.context[i]
        margin = gpu.usable_bytes - needed
        if margin < 0:
            return "-"
        return "tight" if margin < TIGHT * gpu.usable_bytes else "yes"

    def __repr__(self) -> str:
        return str(self)

    def __str__(self) -> str:
        width = max(len(g.key) for g in self.gpus) + 2
        head = f"{'model':<20}{'needs':>11}  " + "".join(f"{g.key:>{width}}" for g in self.gpus)
        lines = [f"{MODE_LABELS[self.mode]}, {self.dtype}{_describe(self.options)}", head]
        for i, m in enumerate(self.models):
            marks = "".join(f"{self.verdict(i, g):>{width}}" for g in self.gpus)
            lines.append(f"{m.name:<20}{format_bytes(self.needed[i], 'GiB', 1):>11}  {marks}")
        return "\n".join(lines + self._footnotes())

    def _footnotes(self) -> list[str]:
        return [
            f"{g.key}: {g.summary}"
            + (" (the CUDA context already exists here, so this column leaves it out)" if g.context_in_use else "")
            for g in self.gpus
            if isinstance(g, MachineBudget)
        ]

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(g.key)}</th>" for g in self.gpus)
        colours = {"yes": "#d9f2d9", "tight": "#fff2cc", "-": "#ffffff"}
        rows = []
        for i, m in enumerate(self.models):
            cells = "".join(
                f"<td style='background:{colours[v]}'>{v}</td>" for v in (self.verdict(i, g) for g in self.gpus)
            )
            need = format_bytes(self.needed[i], "GiB", 1)
            rows.append(f"<tr><td style='text-align:left'>{html.escape(m.name)}</td><td>{need}</td>{cells}</tr>")
        title = html.escape(f"{MODE_LABELS[self.mode]}, {self.dtype}{_describe(self.options)}")
        return (
            f"<p><b>{title}</b></p><table><tr><th style='text-align:left'>model</th><th>needs</th>{head}</tr>"
            + "".join(rows)
            + "</table>"
            + "".join(f"<p>{html.escape(note)}</p>" for note in self._footnotes())
        )


def _describe(options: dict[str, Any]) -> str:
    parts = []
    for key, value in options.items():
        if key == "seq_len":
            parts.append(f"{value} tokens")
        elif key == "checkpointing":
            parts.append("activation checkpointing" if value else "no checkpointing")
        elif key == "cuda_context" and value == 0:
            parts.append("CUDA context left out")
        else:
            parts.append(f"{key.replace('_', ' ')} {value}")
    return f" ({', '.join(parts)})" if parts else ""


def fit_table(
    mode: str = "inference",
    dtype: str = "fp16",
    models: Sequence[ModelConfig | str] | None = None,
    gpus: Sequence[GpuSpec | MachineBudget | str] | None = None,
    **options: Any,
) -> FitTable:
    """Estimate every model (default: the catalog) in one mode and dtype, and mark which GPUs hold it (lesson 07).

    gpus may include "this_machine" (or this_machine()): the memory free now on this machine's CUDA GPU.
    """
    check_choice("mode", mode, MODES)
    check_choice("dtype", dtype, MODE_DTYPES[mode])
    chosen = tuple(_entry("models", m, ModelConfig, find_model) for m in _items("models", models, "['gpt2']"))
    gpu_specs = tuple(_gpu_entry(g) for g in _items("gpus", gpus, "['T4']"))
    chosen, gpu_specs = chosen or catalog_models(), gpu_specs or catalog()
    estimates = [estimate(m, mode, dtype, **options) for m in chosen]
    needed = tuple(e.total for e in estimates)
    context = tuple(e.breakdown.get("cuda_context", 0) for e in estimates)
    return FitTable(mode, dtype, chosen, gpu_specs, needed, dict(options), context)


def _items(name: str, values: Any, example: str) -> list[Any]:
    """`values` as a list (None: empty), or a TypeError naming the argument `name`."""
    if values is None:
        return []
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(f"{name} must be a list such as {example}, got {type(values).__name__} {values!r}")
    return list(values)


def _entry(name: str, value: Any, kind: type, find: Any) -> Any:
    """A catalog entry of `kind`, given as one or by its name; errors name the argument `name`."""
    if isinstance(value, kind):
        return value
    if not isinstance(value, str):
        raise TypeError(f"{name} must hold {kind.__name__}s or their names, got {type(value).__name__} {value!r}")
    try:
        return find(value)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None


def _find_gpu(name: str) -> GpuSpec:
    from lessonkit.gpus import find_gpu

    return find_gpu(name)


def _gpu_entry(value: Any) -> GpuSpec | MachineBudget:
    """A catalog GPU, or this machine's free memory ("this_machine"); errors name the argument gpus."""
    if isinstance(value, str) and value == THIS_MACHINE:
        value = this_machine()
    if isinstance(value, MachineBudget):
        if not value:
            raise ValueError(f"gpus: {THIS_MACHINE!r} needs a CUDA GPU, and there is none. {value}")
        return value
    return _entry("gpus", value, GpuSpec, _find_gpu)


# --- which models fit in the memory free now -------------------------------------------------------


@dataclass(frozen=True)
class ModelPlan:
    """Which models fit in a budget (this machine's free memory), and why the others are skipped (lesson 07)."""

    budget: MachineBudget
    mode: str
    dtype: str
    options: dict[str, Any]
    fit: tuple[str, ...]  # model names
    skipped: dict[str, str]  # model name -> why it does not fit
    largest: int | None  # parameters of the largest Llama-3-style model that fits; None: no budget

    def __repr__(self) -> str:
        return str(self)

    def lines(self) -> list[str]:
        """The plan as plain sentences, one a line (lesson 07)."""
        job = f"{MODE_LABELS[self.mode]}, {self.dtype}{_describe(self.options)}"
        if not self.budget:
            return [f"{self.budget}.", f"Nothing to check {job} against here: compare with a catalog GPU instead."]
        lines = [f"{self.budget}.", f"{job}: fits here: {', '.join(self.fit) or 'none'}"]
        lines += [f"skipped {name} {self.dtype}: {why}" for name, why in self.skipped.items()]
        if self.largest:
            lines.append(f"largest Llama-3-style model that fits: {self.largest / 1e9:.2f} billion parameters")
        else:
            lines.append(
                "no model of any size fits: close other notebooks or programs that use this GPU "
                "(nvidia-smi lists them), or use another GPU"
            )
        return lines

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def _repr_html_(self) -> str:
        head, *rest = self.lines()
        return f"<p><b>{html.escape(head)}</b></p><ul>" + "".join(f"<li>{html.escape(r)}</li>" for r in rest) + "</ul>"


def _why(est: Estimate, fit: Fit) -> str:
    """'needs 16.27 GiB: weights 14.96 GiB + ... ; only 0.29 GiB free, 15.98 GiB short', largest parts first."""
    parts = sorted(est.breakdown.items(), key=lambda kv: -kv[1])
    listed = " + ".join(f"{COMPONENT_LABELS[k]} {format_bytes(v, 'GiB', 2)}" for k, v in parts)
    return (
        f"needs {format_bytes(fit.needed, 'GiB', 2)} ({listed}), only {format_bytes(fit.available, 'GiB', 2)} "
        f"free: {format_bytes(-fit.margin, 'GiB', 2)} short"
    )


def _plan(budget: MachineBudget, mode: str, dtype: str, chosen: Sequence[Any], options: dict[str, Any]) -> ModelPlan:
    estimates = [(m, estimate(m, mode, dtype, **options)) for m in chosen]  # checks the options, budget or not
    if not budget:
        return ModelPlan(budget, mode, dtype, dict(options), (), {}, None)
    fit, skipped = [], {}
    for m, est in estimates:
        verdict = fits(est, budget.usable_bytes)
        if verdict:
            fit.append(m.name)
        else:
            skipped[m.name] = _why(est, verdict)
    largest = largest_model_that_fits(budget.usable_bytes, mode=mode, dtype=dtype, **options)
    return ModelPlan(budget, mode, dtype, dict(options), tuple(fit), skipped, largest)


def models_that_fit(
    mode: str = "inference",
    dtype: str = "fp16",
    models: Sequence[ModelConfig | str] | None = None,
    *,
    free_bytes: float | str | None = None,
    device: Any = None,
    **options: Any,
) -> ModelPlan:
    """Which models (default: the catalog) fit in the memory free now on this CUDA GPU, and why not (lesson 07).

    free_bytes: a budget given by hand (bytes, or a size such as '300MiB') instead of asking `device`.
    Options go to the estimate (seq_len, batch, checkpointing, cuda_context, ...). Asking `device` leaves
    the CUDA context out unless cuda_context is given: it already exists, so the free figure is net of it.
    Without a CUDA GPU the plan is empty and says why.
    """
    check_choice("mode", mode, MODES)
    check_choice("dtype", dtype, MODE_DTYPES[mode])
    chosen = tuple(_entry("models", m, ModelConfig, find_model) for m in _items("models", models, "['gpt2']"))
    if free_bytes is not None and device is not None:
        raise ValueError(f"give free_bytes or device, not both: got free_bytes={free_bytes!r}, device={device!r}")
    if free_bytes is None:
        budget = this_machine(device)
    else:
        budget = _given(free_bytes)
    if budget.context_in_use:
        options.setdefault("cuda_context", 0)
    return _plan(budget, mode, dtype, chosen or catalog_models(), options)


# --- the stacked-bar plot ---------------------------------------------------------------------------


def plot_breakdown(
    estimates: Sequence[Estimate],
    labels: Sequence[str] | None = None,
    *,
    moments: bool = False,
    gpu: GpuSpec | MachineBudget | str | float | None = None,
    unit: str = "GiB",
    ax: Any = None,
) -> Any:
    """Stacked bars of memory per component, one bar per estimate (or per moment); returns the Axes (lesson 07).

    moments=True draws every moment of each estimate side by side (training: start of the backward
    pass and optimizer step). gpu draws a dashed line at that GPU's memory.
    """
    import matplotlib.pyplot as plt

    from lessonkit.vram import UNITS

    check_choice("unit", unit, UNITS)
    if isinstance(gpu, MachineBudget) and not gpu:
        raise ValueError(f"gpu: {gpu}")
    example = "[estimate('gpt2')]"
    if estimates is None:
        raise TypeError(f"estimates must be a list such as {example}, got None")
    estimates = _items("estimates", estimates, example)
    for est in estimates:
        if not isinstance(est, Estimate):
            raise TypeError(f"estimates must hold Estimates such as {example}, got {type(est).__name__} {est!r}")
    if labels is not None:
        labels = check_strings("labels", labels, "['GPT-2']")
        if len(labels) != len(estimates):
            raise ValueError(f"labels must give one label per estimate ({len(estimates)}), got {len(labels)}")
    if ax is None:
        rows = sum(len(e.moments) if moments else 1 for e in estimates)
        _, ax = plt.subplots(figsize=(9, 1.0 + 0.45 * rows))
    bars: list[tuple[str, dict[str, int]]] = []
    for i, est in enumerate(estimates):
        name = labels[i] if labels is not None else " · ".join(est.label.split(" · ")[:2])
        if moments:
            bars += [(f"{name}\n{m}".strip(), parts) for m, parts in est.moments.items()]
        else:
            bars.append((name, est.breakdown))
    scale = UNITS[unit]
    for row, (_, parts) in enumerate(bars):
        left = 0.0
        for key in COMPONENT_LABELS:
            value = parts.get(key, 0) / scale
            if value:
                ax.barh(row, value, left=left, color=COLOURS[key], edgecolor="white", linewidth=0.5)
                left += value
    shown = [k for k in COMPONENT_LABELS if any(p.get(k) for _, p in bars)]
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLOURS[k]) for k in shown]
    ax.legend(handles, [COMPONENT_LABELS[k] for k in shown], loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    if gpu is not None:
        available, name = (gpu.usable_bytes, gpu.name) if isinstance(gpu, MachineBudget) else gpu_memory(gpu)
        ax.axvline(available / scale, color="black", linestyle="--", linewidth=1)
        ax.text(available / scale, 0.02, f" {name}", transform=ax.get_xaxis_transform(), fontsize=8, va="bottom")
    ax.set_yticks(range(len(bars)), [b[0] for b in bars], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"memory ({unit})")
    return ax


# --- the calculator --------------------------------------------------------------------------------


class Calculator:
    """Pick a model, mode, dtype, sequence length, batch and GPU; see the estimate and whether it fits (lesson 07).

    `report()` and `figure()` give the current result as ordinary output; `widget()` returns the
    interactive version (dropdowns and sliders that redraw the result when changed). gpu="this_machine"
    compares with the memory free now on this machine's CUDA GPU (the widget offers it when there is one),
    and the report then lists which catalog models fit there and why the others do not.
    """

    def __init__(
        self,
        model: str = "llama-3.1-8b",
        mode: str = "inference",
        dtype: str = "fp16",
        seq_len: int = 4096,
        batch: int = 1,
        gpu: str = "T4",
        checkpointing: bool = False,
    ) -> None:
        self.values: dict[str, Any] = {}
        self.budget: MachineBudget | None = None  # set while gpu is "this_machine"
        self.plan: ModelPlan | None = None
        self.set(
            model=model, mode=mode, dtype=dtype, seq_len=seq_len, batch=batch, gpu=gpu, checkpointing=checkpointing
        )

    def set(self, **values: Any) -> Calculator:
        """Change some inputs (model, mode, dtype, seq_len, batch, gpu, checkpointing) and recompute (lesson 07).

        A dtype that the new mode does not offer (int4 when switching to full fine-tuning, say)
        falls back to that mode's first choice. gpu="this_machine" reads the memory free now, each time.
        """
        allowed = ("model", "mode", "dtype", "seq_len", "batch", "gpu", "checkpointing")
        unknown = set(values) - set(allowed)
        if unknown:
            raise ValueError(f"set() takes {list(allowed)}, got {sorted(unknown)}")
        new = dict(self.values, **values)
        new["model"] = find_model(new["model"]).key
        mode = check_choice("mode", new["mode"], MODES)
        if "dtype" not in values and new["dtype"] not in MODE_DTYPES[mode]:
            new["dtype"] = MODE_DTYPES[mode][0]
        check_choice("dtype", new["dtype"], MODE_DTYPES[mode])
        new["seq_len"] = check_number("seq_len", new["seq_len"], positive=True, integer=True)
        new["batch"] = check_number("batch", new["batch"], positive=True, integer=True)
        budget = None
        if new["gpu"] == THIS_MACHINE:
            budget = this_machine()
            if not budget:
                raise ValueError(f"gpu {THIS_MACHINE!r} needs a CUDA GPU, and there is none. {budget}")
        else:
            new["gpu"] = _find_gpu(new["gpu"]).key
        if not isinstance(new["checkpointing"], bool):
            raise TypeError(f"checkpointing must be True or False, got {new['checkpointing']!r}")
        options = {"seq_len": new["seq_len"], "batch": new["batch"]}
        if mode != "inference":
            options["checkpointing"] = new["checkpointing"]
        if budget is not None and budget.context_in_use:
            options["cuda_context"] = 0
        self.estimate: Estimate = estimate(new["model"], mode, new["dtype"], **options)
        if budget is None:
            self.fit: Fit = fits(self.estimate, new["gpu"])
            self.plan = None
        else:
            self.fit = replace(fits(self.estimate, budget.usable_bytes), gpu=budget.name)
            self.plan = _plan(budget, mode, new["dtype"], catalog_models(), options)
        self.values, self.budget = new, budget
        return self

    def report(self) -> _Report:
        """The estimate's table and the verdict, as text and HTML (lesson 07)."""
        return _Report(self.estimate, self.fit, self.plan)

    def figure(self) -> Any:
        """A stacked-bar plot of every moment of the estimate, with the GPU's memory marked (lesson 07)."""
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(9, 1.6 + 0.5 * len(self.estimate.moments)))
        plot_breakdown([self.estimate], [""], moments=True, gpu=self.budget or self.values["gpu"], ax=ax)
        ax.set_title(self.estimate.label, fontsize=9, loc="left")
        fig.tight_layout()
        return fig

    def widget(self) -> Any:
        """The interactive calculator: ipywidgets controls above an output area (lesson 07)."""
        import ipywidgets as w

        style, wide = {"description_width": "90px"}, w.Layout(width="380px")
        gpus = [(f"{g.name} ({g.memory_mib_smi} MiB)", g.key) for g in catalog()]
        here = self.budget or this_machine()
        if here:  # only with a CUDA GPU: a CPU-only machine has no memory of its own to offer
            gpus.insert(
                0,
                (f"this machine: {here.gpu_name} ({format_bytes(here.usable_bytes, 'GiB', 2)} free now)", THIS_MACHINE),
            )
        controls = {
            "model": w.Dropdown(
                options=[(f"{m.name} ({m.n_params / 1e9:.2f}B)", m.key) for m in catalog_models()],
                value=self.values["model"],
                description="Model",
                style=style,
                layout=wide,
            ),
            "mode": w.Dropdown(
                options=[(MODE_LABELS[m], m) for m in MODES], value=self.values["mode"], description="Mode", style=style
            ),
            "dtype": w.Dropdown(
                options=list(MODE_DTYPES[self.values["mode"]]),
                value=self.values["dtype"],
                description="Precision",
                style=style,
            ),
            "seq_len": w.Dropdown(
                options=[2**k for k in range(7, 18)], value=self.values["seq_len"], description="Tokens", style=style
            ),
            "batch": w.IntSlider(value=self.values["batch"], min=1, max=64, description="Batch", style=style),
            "checkpointing": w.Checkbox(
                value=self.values["checkpointing"], description="activation checkpointing (training)", indent=False
            ),
            "gpu": w.Dropdown(
                options=gpus,
                value=self.values["gpu"],
                description="GPU",
                style=style,
                layout=wide,
            ),
        }
        out = w.Output()
        busy = []

        def redraw(_change: Any = None) -> None:
            if busy:  # changing the dtype choices below fires this again: ignore that
                return
            busy.append(True)
            try:
                offered = list(MODE_DTYPES[controls["mode"].value])
                if list(controls["dtype"].options) != offered:
                    keep = controls["dtype"].value
                    controls["dtype"].options = offered
                    controls["dtype"].value = keep if keep in offered else offered[0]
                self.set(**{k: c.value for k, c in controls.items()})
                self._show(out)
            finally:
                busy.clear()

        for control in controls.values():
            control.observe(redraw, names="value")
        self.controls = controls
        self._show(out)
        return w.VBox(
            [
                w.HBox([controls["model"], controls["gpu"]]),
                w.HBox([controls["mode"], controls["dtype"]]),
                w.HBox([controls["seq_len"], controls["batch"]]),
                controls["checkpointing"],
                out,
            ]
        )

    def _show(self, out: Any) -> None:
        import matplotlib.pyplot as plt
        from IPython.display import display

        out.clear_output(wait=True)
        with out:
            display(self.report())
            fig = self.figure()
            display(fig)
            plt.close(fig)


class _Report:
    def __init__(self, est: Estimate, fit: Fit, plan: ModelPlan | None = None) -> None:
        self.estimate, self.fit, self.plan = est, fit, plan

    def __str__(self) -> str:
        return f"{self.estimate}\n{self.fit}" + (f"\n{self.plan}" if self.plan else "")

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        plan = self.plan._repr_html_() if self.plan else ""
        return self.estimate._repr_html_() + self.fit._repr_html_() + plan
