"""The interactive VRAM calculator: a report and a plot as ordinary output, and ipywidgets controls (lesson 07)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from lessonkit._checks import check_choice, check_number
from lessonkit.calculator.budget import THIS_MACHINE, MachineBudget, this_machine
from lessonkit.calculator.plots import plot_breakdown
from lessonkit.calculator.tables import ModelPlan
from lessonkit.estimate import MODE_DTYPES, MODE_LABELS, MODES, Estimate, Fit, fits, plan_estimate
from lessonkit.gpus import catalog, find_gpu
from lessonkit.models import catalog_models, find_model
from lessonkit.vram import format_bytes


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
            new["gpu"] = find_gpu(new["gpu"]).key
        if not isinstance(new["checkpointing"], bool):
            raise TypeError(f"checkpointing must be True or False, got {new['checkpointing']!r}")
        options = {"seq_len": new["seq_len"], "batch": new["batch"]}
        if mode != "inference":
            options["checkpointing"] = new["checkpointing"]
        if budget is not None and budget.context_in_use:
            options["cuda_context_bytes"] = 0
        self.estimate: Estimate = plan_estimate(mode, new["dtype"], **options)(new["model"])
        if budget is None:
            self.fit: Fit = fits(self.estimate, new["gpu"])
            self.plan = None
        else:
            self.fit = replace(fits(self.estimate, budget.usable_bytes), gpu=budget.name)
            self.plan = ModelPlan.build(budget, mode, new["dtype"], catalog_models(), options)
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
