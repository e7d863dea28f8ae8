"""The interactive VRAM calculator: a report and a plot as ordinary output, and ipywidgets controls (lesson 05)."""

from __future__ import annotations

import base64
import html
import io
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from lessonkit._checks import check_choice, check_number
from lessonkit.calculator._args import model_entry
from lessonkit.calculator.budget import THIS_MACHINE, MachineBudget, this_machine
from lessonkit.calculator.modes import JOBS
from lessonkit.calculator.plots import plot_breakdown
from lessonkit.calculator.tables import ModelPlan
from lessonkit.estimate import DecodeSpeed, Estimate, Fit, GpusNeeded, decode_speed, fits, gpus_needed, plan_estimate
from lessonkit.gpus import GpuSpec, catalog, find_gpu
from lessonkit.hf_config import read_config_text
from lessonkit.i18n import _, lazy, text
from lessonkit.models import ModelConfig, catalog_models, find_model
from lessonkit.vram import format_bytes

SETTINGS = ("model", "mode", "dtype", "seq_len", "batch", "gpu", "checkpointing")  # what set() takes
UPPER_BOUND_NOTE = lazy("an upper bound (compute and kernel launches left out)")
SHARDING = "zero3"  # how the calculator spreads a training job over several GPUs: ZeRO-3 (FSDP's full shard)


class Calculator:
    """Pick a model, job, dtype, sequence length, batch and GPU; see the estimate and whether it fits (lesson 05).

    `report()` and `figure()` give the current result as ordinary output; `widget()` returns the
    interactive version (dropdowns and sliders that redraw the result when changed). The jobs (`mode`)
    are those of JOBS: inference, lora, qlora and full. Choosing one brings back the settings it normally
    uses (its dtype, tokens, batch and checkpointing, as in the lesson's fit tables), unless the same call
    gives them; a setting changed after that stays until the job changes again. gpu="this_machine"
    compares with the memory free now on this machine's CUDA GPU (the widget offers it when there is one),
    and the report then lists which catalog models fit there and why the others do not.

    model: a catalog name, a ModelConfig, or a config.json (a dict or a path; the widget has a box to
    paste one, read with lessonkit.hf_config.read_config_text: every size is checked against
    lessonkit.limits before anything is computed, so a hostile config is refused, never run).
    Besides the memory, the report gives for inference the upper bound on decoding speed
    on the chosen GPU (`speed`, from decode_speed) and for training how many of the chosen GPU the
    job needs with ZeRO-3 (`sharded`, from gpus_needed).
    """

    def __init__(
        self,
        model: str | ModelConfig | Mapping[str, Any] | os.PathLike = "llama-3.1-8b",
        mode: str = "inference",
        dtype: str | None = None,
        seq_len: int | None = None,
        batch: int | None = None,
        gpu: str = "T4",
        checkpointing: bool | None = None,
    ) -> None:
        """Start from `mode`'s usual settings; a dtype, seq_len, batch or checkpointing given here wins (lesson 05)."""
        self.values: dict[str, Any] = {}
        self.budget: MachineBudget | None = None  # set while gpu is "this_machine"
        self.plan: ModelPlan | None = None
        self.speed: DecodeSpeed | None = None  # inference: the upper bound on decoding speed on this GPU
        self.sharded: GpusNeeded | None = None  # training: how many of this GPU the job needs with ZeRO-3
        chosen = {"dtype": dtype, "seq_len": seq_len, "batch": batch, "checkpointing": checkpointing}
        self.set(model=model, mode=mode, gpu=gpu, **{k: v for k, v in chosen.items() if v is not None})

    def set(self, **values: Any) -> Calculator:
        """Change some inputs (model, mode, dtype, seq_len, batch, gpu, checkpointing) and recompute (lesson 05).

        A new mode brings back that job's usual dtype, seq_len, batch and checkpointing, except those given
        in the same call. gpu="this_machine" reads the memory free now, each time. A refused value changes nothing.
        model may be a config.json (a dict or a path): `values["model"]` is then its ModelConfig.
        """
        unknown = set(values) - set(SETTINGS)
        if unknown:
            raise ValueError(f"set() takes {list(SETTINGS)}, got {sorted(unknown)}")
        new = dict(self.values, **values)
        job = JOBS[check_choice("mode", new["mode"], JOBS)]
        if job.key != self.values.get("mode"):  # a new job: the settings it normally uses
            new.update({k: v for k, v in job.defaults.items() if k not in values})
        config = model_entry("model", new["model"])
        new["model"] = config.key if config.key and find_model(config.key) == config else config
        check_choice("dtype", new["dtype"], job.dtypes)
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
        if job.mode != "inference":
            options["checkpointing"] = new["checkpointing"]
        if budget is not None and budget.context_in_use:
            options["cuda_context_bytes"] = 0
        self.estimate: Estimate = plan_estimate(job.mode, new["dtype"], **options)(config)
        if budget is None:
            self.fit: Fit = fits(self.estimate, new["gpu"])
            self.plan = None
        else:
            self.fit = replace(fits(self.estimate, budget.usable_bytes), gpu=budget.name)
            self.plan = ModelPlan.build(budget, job.key, new["dtype"], catalog_models(), options)
        spec = _catalog_gpu(budget) if budget is not None else find_gpu(new["gpu"])
        speed = sharded = None
        if spec is not None and job.mode == "inference":
            speed = decode_speed(config, spec, dtype=new["dtype"], seq_len=new["seq_len"], batch=new["batch"])
        elif spec is not None:
            whole = {k: v for k, v in options.items() if k != "cuda_context_bytes"}  # GPUs of its own
            sharded = gpus_needed(config, spec, strategy=SHARDING, mode=job.mode, dtype=new["dtype"], **whole)
        self.values, self.budget = {k: new[k] for k in SETTINGS}, budget
        self.speed, self.sharded = speed, sharded
        return self

    def report(self) -> _Report:
        """The estimate's table and the verdict, as text and HTML (lesson 05)."""
        return _Report(self.estimate, self.fit, self.plan, self.speed, self.sharded)

    def figure(self) -> Any:
        """A stacked-bar plot of every moment of the estimate, with the GPU's memory marked (lesson 05)."""
        import matplotlib.pyplot as plt

        return _draw(plt.figure(figsize=_figsize(self.estimate)), self.estimate, self.budget or self.values["gpu"])

    def widget(self) -> Any:
        """The interactive calculator: ipywidgets controls above an output area (lesson 05).

        Changing the Mode control brings back that job's usual settings, and the other controls show them.
        """
        import ipywidgets as w

        style, wide = {"description_width": "90px"}, w.Layout(width="380px")
        gpus = [(f"{g.name} ({g.memory_mib_smi} MiB)", g.key) for g in catalog()]
        here = self.budget or this_machine()
        if here:  # only with a CUDA GPU: a CPU-only machine has no memory of its own to offer
            free = format_bytes(here.usable_bytes, "GiB", 2)
            gpus.insert(
                0, (_("this machine: {gpu} ({free} free now)").format(gpu=here.gpu_name, free=free), THIS_MACHINE)
            )
        tokens = sorted({2**k for k in range(7, 18)} | {self.values["seq_len"]})
        controls = {
            "model": w.Dropdown(
                options=[(f"{m.name} ({m.n_params / 1e9:.2f}B)", m.key) for m in catalog_models()],
                value=self.values["model"] if isinstance(self.values["model"], str) else catalog_models()[0].key,
                description=_("Model"),
                style=style,
                layout=wide,
            ),
            "mode": w.Dropdown(
                options=[(text(job.label), key) for key, job in JOBS.items()],
                value=self.values["mode"],
                description=_("Mode"),
                style=style,
                layout=wide,
            ),
            "dtype": w.Dropdown(
                options=list(JOBS[self.values["mode"]].dtypes),
                value=self.values["dtype"],
                description=_("Precision"),
                style=style,
            ),
            "seq_len": w.Dropdown(options=tokens, value=self.values["seq_len"], description=_("Tokens"), style=style),
            "batch": w.IntSlider(value=self.values["batch"], min=1, max=64, description=_("Batch"), style=style),
            "checkpointing": w.Checkbox(
                value=self.values["checkpointing"],
                description=_("activation checkpointing (training)"),
                indent=False,
            ),
            "gpu": w.Dropdown(
                options=gpus,
                value=self.values["gpu"],
                description="GPU",
                style=style,
                layout=wide,
            ),
        }
        pasted = w.Textarea(
            value="",
            placeholder=_("Optional: paste a model's config.json here to use it instead of the Model list"),
            description="config.json",
            style=style,
            layout=w.Layout(width="760px", height="90px"),
        )
        status = w.HTML(value="")
        out = w.Output()
        sync = _Sync()
        redraw = _Redraw(lambda: self._show(out, sync))

        def show_values(before: Mapping[str, Any] | None = None) -> None:
            """Bring the controls in line with self.values (the caller redraws the result afterwards).

            With `before` (self.values before the change), only the settings the change altered: a control
            the learner moved meanwhile, on another thread, is not set back while its own change waits.
            """
            offered, refreshed = list(JOBS[self.values["mode"]].dtypes), set()
            if list(controls["dtype"].options) != offered:
                controls["dtype"].options = offered  # new options may have moved its value
                refreshed.add("dtype")
            for key, control in controls.items():
                if before is not None and key not in refreshed and before.get(key) == self.values[key]:
                    continue
                if key == "model" and not isinstance(self.values[key], str):
                    continue  # a pasted config.json: the list keeps its last catalog model
                if key == "seq_len" and self.values[key] not in control.options:
                    control.options = sorted({*control.options, self.values[key]})
                if control.value != self.values[key]:
                    control.value = self.values[key]

        def follow(name: str) -> Any:
            def changed(change: Any) -> None:
                if sync.syncing:  # this thread is bringing the controls in line with self.values: not the learner
                    return
                with sync.change():
                    before = dict(self.values)
                    self.set(**{name: change["new"]})
                    if name == "model":  # a model chosen from the list replaces a pasted config.json
                        pasted.value, status.value = "", ""
                    show_values(before)
                redraw()

            return changed

        def read_pasted(change: Any) -> None:
            if sync.syncing:
                return
            with sync.change():
                pasted_text = change["new"].strip()
                try:
                    self.set(model=read_config_text(pasted_text) if pasted_text else controls["model"].value)
                except (ValueError, TypeError, RecursionError, OverflowError, MemoryError) as problem:
                    # read_config_text refuses deep nesting and huge numbers itself; the rest is a last resort
                    message = _("config.json not used: {problem}").format(problem=problem)
                    status.value = f"<span style='color:#b00'>{html.escape(message)}</span>"
                    return
                used = getattr(self.values["model"], "name", str(self.values["model"]))
                status.value = (
                    html.escape(_("using {model} from config.json").format(model=used)) if pasted_text else ""
                )
                show_values()
            redraw()

        for name, control in controls.items():
            control.observe(follow(name), names="value")
        pasted.observe(read_pasted, names="value")
        self.controls, self.pasted, self.pasted_status, self.output = controls, pasted, status, out
        redraw()
        return w.VBox(
            [
                w.HBox([controls["model"], controls["gpu"]]),
                w.HBox([controls["mode"], controls["dtype"]]),
                w.HBox([controls["seq_len"], controls["batch"]]),
                controls["checkpointing"],
                pasted,
                status,
                out,
            ]
        )

    def _show(self, out: Any, sync: _Sync) -> None:
        """Replace what `out` shows with the report and the plot of the state as it is now, in one step.

        Made without pyplot, and handed to the Output widget whole (its `outputs`), not captured with
        `with out:` after `clear_output`: in JupyterLab 4.4+ with ipykernel 7 a widget's callbacks run on a
        thread of their own (a kernel subshell) while the main thread runs cells, and pyplot's figures,
        IPython's display and the Output widget's capture are shared between the two (see _Redraw).
        """
        from matplotlib.figure import Figure

        with sync.change():  # a consistent state: no learner's change is half applied
            report, est, gpu = self.report(), self.estimate, self.budget or self.values["gpu"]
        png = io.BytesIO()
        fig = _draw(Figure(figsize=_figsize(est)), est, gpu)
        fig.savefig(png, format="png", bbox_inches="tight")
        out.outputs = (
            {
                "output_type": "display_data",
                "data": {"text/plain": str(report), "text/html": report._repr_html_()},
                "metadata": {},
            },
            {
                "output_type": "display_data",
                "data": {"image/png": base64.b64encode(png.getvalue()).decode("ascii"), "text/plain": repr(fig)},
                "metadata": {},
            },
        )


def _figsize(est: Estimate) -> tuple[float, float]:
    """Width and height in inches of the calculator's plot: a row per moment of the estimate."""
    return (9, 1.6 + 0.5 * len(est.moments))


def _draw(fig: Any, est: Estimate, gpu: Any) -> Any:
    """Draw the estimate's moments, the GPU's memory marked, on an empty matplotlib Figure; return the Figure."""
    ax = fig.subplots()
    plot_breakdown([est], [""], moments=True, gpu=gpu, ax=ax)
    ax.set_title(est.label, fontsize=9, loc="left")
    fig.tight_layout()
    return fig


class _Sync:
    """One change of the widget's state at a time, from whichever thread a control's callback runs on (lesson 05).

    `change()` holds the lock while a learner's change is applied and the controls are brought in line with it;
    `syncing` is true only on the thread doing that, so the callbacks that bringing the controls in line sets
    off there are skipped, while a learner's change arriving on another thread waits its turn instead of
    being dropped.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._local = threading.local()

    @property
    def syncing(self) -> bool:
        """Whether this thread is applying a change now."""
        return getattr(self._local, "on", False)

    @contextmanager
    def change(self) -> Iterator[None]:
        with self._lock:
            before, self._local.on = self.syncing, True
            try:
                yield
            finally:
                self._local.on = before


class _Redraw:
    """Redraw the calculator's output one redraw at a time, the last state winning (lesson 05).

    JupyterLab 4.4 and later send widget messages to a kernel subshell when the kernel has them (ipykernel 7
    does): a control's callback then runs on the subshell's thread while the main thread runs cells, and with
    "one subshell per comm" each control has a thread of its own. A learner who moves controls faster than
    the plot is drawn so starts a redraw while another is under way. Here a redraw asked for while one is
    under way is not drawn beside it: the thread drawing draws again when it ends, from the state as it is
    then, so the last change always shows and two drawings never interleave.
    """

    def __init__(self, draw: Callable[[], None]) -> None:
        self._draw = draw
        self._lock = threading.Lock()
        self._pending = False
        self._drawing = False

    def __call__(self) -> None:
        with self._lock:
            self._pending = True
            if self._drawing:
                return  # the thread drawing now draws again, with this change, when it ends
            self._drawing = True
        try:
            while True:
                with self._lock:
                    if not self._pending:
                        self._drawing = False
                        return
                    self._pending = False
                self._draw()
        except BaseException:
            with self._lock:
                self._drawing = False
            raise


def _catalog_gpu(budget: MachineBudget) -> GpuSpec | None:
    """The catalog entry of this machine's GPU, found by the name torch reports; None if it has none."""
    try:
        return find_gpu(budget.gpu_name or "")
    except ValueError:
        return None


class _Report:
    def __init__(
        self,
        est: Estimate,
        fit: Fit,
        plan: ModelPlan | None = None,
        speed: DecodeSpeed | None = None,
        sharded: GpusNeeded | None = None,
    ) -> None:
        self.estimate, self.fit, self.plan, self.speed, self.sharded = est, fit, plan, speed, sharded

    def extra_lines(self) -> list[str]:
        """The decoding speed (inference) or the GPUs needed with ZeRO-3 (training), in sentences."""
        if self.speed is not None:
            s = self.speed
            line = _("Decoding speed on {gpu}: at most {speed:,.1f} tokens/s per sequence").format(
                gpu=s.gpu, speed=s.tokens_per_s
            )
            if s.batch > 1:
                line += _(" ({speed:,.0f} for the batch of {batch})").format(speed=s.batch_tokens_per_s, batch=s.batch)
            read = format_bytes(s.bytes_per_step, "GB", 2)
            return [
                _("{line}: {bandwidth:g} GB/s ÷ {read} read per step, {note}").format(
                    line=line, bandwidth=s.bandwidth_gb_s, read=read, note=UPPER_BOUND_NOTE
                )
            ]
        if self.sharded is not None:
            n = self.sharded
            if n:
                return [
                    _(
                        "Spread with ZeRO-3 over several {gpu}: {gpus} of them, each holding {each} (gpus_needed)"
                    ).format(gpu=n.gpu, gpus=n.gpus, each=format_bytes(n.per_gpu.total, "GiB", 2))
                ]
            return [
                _("Spread with ZeRO-3, no number of {gpu} is enough: activations are not split (gpus_needed)").format(
                    gpu=n.gpu
                )
            ]
        return []

    def __str__(self) -> str:
        lines = [str(self.estimate), str(self.fit), *self.extra_lines()]
        return "\n".join(lines) + (f"\n{self.plan}" if self.plan else "")

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        plan = self.plan._repr_html_() if self.plan else ""
        extra = "".join(f"<p>{html.escape(line)}</p>" for line in self.extra_lines())
        return self.estimate._repr_html_() + self.fit._repr_html_() + extra + plan
