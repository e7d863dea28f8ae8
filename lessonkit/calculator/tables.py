"""Which models fit on which GPUs (FitTable), and which fit in the memory free now (ModelPlan) (lesson 05)."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lessonkit._checks import check_choice
from lessonkit.calculator._args import describe, gpu_entry, items, model_list
from lessonkit.calculator.budget import MachineBudget, this_machine
from lessonkit.calculator.modes import JOBS, Job
from lessonkit.estimate import Estimate, Fit, fits, largest_model_that_fits, plan_estimate
from lessonkit.gpus import GpuSpec, catalog
from lessonkit.i18n import _, pad, pgettext
from lessonkit.memparts import PARTS
from lessonkit.models import ModelConfig, catalog_models
from lessonkit.table import Cell, html_table
from lessonkit.vram import format_bytes

TIGHT = 0.05  # a fit with less than 5% of the GPU's memory to spare is marked "tight"


def _available(gpu: GpuSpec | MachineBudget) -> int:
    """Bytes a program can allocate: CUDA's total for a catalog GPU, what is free for this machine (lesson 05)."""
    return gpu.allocatable_bytes if isinstance(gpu, GpuSpec) else gpu.usable_bytes


@dataclass(frozen=True)
class FitTable:
    """Rows of models, columns of GPUs: does each model fit, for one mode and dtype (lesson 05)."""

    mode: str  # a key of JOBS: inference, lora, qlora or full
    dtype: str
    models: tuple[ModelConfig, ...]
    gpus: tuple[GpuSpec | MachineBudget, ...]
    needed: tuple[int, ...]  # bytes per model
    options: dict[str, Any]
    context: tuple[int, ...] = ()  # bytes of CUDA context in each estimate

    def verdict(self, i: int, gpu: GpuSpec | MachineBudget) -> str:
        """'yes', 'tight' (fits with under 5% of the memory to spare) or '-' for model i on `gpu` (lesson 05)."""
        needed = self.needed[i]
        if isinstance(gpu, MachineBudget) and gpu.context_in_use and self.context:
            needed -= self.context[i]
        available = _available(gpu)
        margin = available - needed
        if margin < 0:
            return "-"
        return "tight" if margin < TIGHT * available else "yes"

    def __repr__(self) -> str:
        return str(self)

    def __str__(self) -> str:
        words = _verdict_words()
        width = max(len(g.key) for g in self.gpus) + 2
        name = max([20] + [len(m.name) + 2 for m in self.models])  # a config.json's name can be long
        model, needs = pgettext("fit table heading", "model"), pgettext("fit table heading", "needs")
        head = f"{pad(model, name)}{pad(needs, 11, '>')}  " + "".join(f"{g.key:>{width}}" for g in self.gpus)
        lines = [_job_title(self.mode, self.dtype, self.options), head]
        for i, m in enumerate(self.models):
            marks = "".join(pad(words[self.verdict(i, g)], width, ">") for g in self.gpus)
            lines.append(f"{m.name:<{name}}{format_bytes(self.needed[i], 'GiB', 1):>11}  {marks}")
        return "\n".join(lines + self._footnotes())

    def _footnotes(self) -> list[str]:
        group = pgettext("fit table note: GPUs and what their memory is", "{gpus}: {basis}")
        notes = [
            group.format(gpus=g.key, basis=g.summary)
            + (_(" (the CUDA context already exists here, so this column leaves it out)") if g.context_in_use else "")
            for g in self.gpus
            if isinstance(g, MachineBudget)
        ]
        bases: dict[str, list[str]] = {}
        for g in self.gpus:
            if isinstance(g, GpuSpec):
                bases.setdefault(g.allocatable_basis, []).append(g.key)
        if bases:
            names = pgettext("separator between listed items", ", ")
            listed = pgettext("fit table note: between groups of GPUs", "; ").join(
                group.format(gpus=names.join(keys), basis=basis) for basis, keys in bases.items()
            )
            notes.append(_("Memory compared with (what a program can allocate): {listed}.").format(listed=listed))
        return notes

    def _repr_html_(self) -> str:
        colours = {"yes": "#d9f2d9", "tight": "#fff2cc", "-": "#ffffff"}
        words = _verdict_words()
        model, needs = pgettext("fit table heading", "model"), pgettext("fit table heading", "needs")
        head = [Cell(model, "text-align:left"), needs, *(g.key for g in self.gpus)]
        rows = [
            [
                Cell(m.name, "text-align:left"),
                format_bytes(self.needed[i], "GiB", 1),
                *(Cell(words[v], f"background:{colours[v]}") for v in (self.verdict(i, g) for g in self.gpus)),
            ]
            for i, m in enumerate(self.models)
        ]
        title = html.escape(_job_title(self.mode, self.dtype, self.options))
        return (
            f"<p><b>{title}</b></p>"
            + html_table(head, rows)
            + "".join(f"<p>{html.escape(note)}</p>" for note in self._footnotes())
        )


def _verdict_words() -> dict[str, str]:
    """FitTable.verdict's answers ('yes', 'tight', '-') as the language lessonkit speaks now shows them (lesson 05)."""
    return {
        "yes": pgettext("does the model fit on this GPU", "yes"),
        "tight": pgettext("does the model fit on this GPU", "tight"),
        "-": "-",
    }


def _job_title(mode: str, dtype: str, options: dict[str, Any]) -> str:
    """E.g. 'inference, fp16 (4096 tokens, batch 1)': a table's or a plan's job in words (lesson 05)."""
    return _("{job}, {dtype}{options}").format(job=JOBS[mode].label, dtype=dtype, options=describe(options))


def fit_table(
    mode: str = "inference",
    dtype: str | None = None,
    models: Sequence[ModelConfig | str | Mapping[str, Any]] | Mapping[str, Any] | None = None,
    gpus: Sequence[GpuSpec | MachineBudget | str] | None = None,
    **options: Any,
) -> FitTable:
    """Estimate every model (default: the catalog) in one mode and dtype, and mark which GPUs hold it (lesson 05).

    mode: a key of JOBS (inference, lora, qlora, full). dtype and every setting not given (seq_len, batch,
    checkpointing) are the ones that job normally uses, the calculator's defaults for it.
    models: catalog names, ModelConfigs or config.json files (each a dict or a path; one alone is fine).
    gpus may include "this_machine" (or this_machine()): the memory free now on this machine's CUDA GPU.
    """
    job, dtype, options = _job_settings(mode, dtype, options)
    chosen = model_list(models)
    gpu_specs = tuple(gpu_entry(g) for g in items("gpus", gpus, "['T4']"))
    chosen, gpu_specs = chosen or catalog_models(), gpu_specs or catalog()
    plan = plan_estimate(job.mode, dtype, **options)  # the options, checked once for every model
    estimates = [plan.of(m) for m in chosen]
    needed = tuple(e.total for e in estimates)
    context = tuple(e.breakdown.get("cuda_context", 0) for e in estimates)
    return FitTable(job.key, dtype, chosen, gpu_specs, needed, options, context)


def _job_settings(mode: Any, dtype: Any, options: dict[str, Any]) -> tuple[Job, str, dict[str, Any]]:
    """The job of `mode`, its dtype (None: the usual one), and its usual settings under `options` (lesson 05)."""
    job = JOBS[check_choice("mode", mode, JOBS)]
    dtype = job.dtype if dtype is None else dtype
    check_choice("dtype", dtype, job.dtypes)
    return job, dtype, {**job.options, **options}


@dataclass(frozen=True)
class ModelPlan:
    """Which models fit in a budget (this machine's free memory), and why the others are skipped (lesson 05)."""

    budget: MachineBudget
    mode: str  # a key of JOBS
    dtype: str
    options: dict[str, Any]
    fit: tuple[str, ...]  # model names
    skipped: dict[str, str]  # model name -> why it does not fit
    largest: int | None  # parameters of the largest Llama-3-style model that fits; None: no budget

    @classmethod
    def build(
        cls, budget: MachineBudget, mode: str, dtype: str, chosen: Sequence[ModelConfig], options: dict[str, Any]
    ) -> ModelPlan:
        """Estimate each of the `chosen` models and sort them into fit and skipped (lesson 05).

        mode: a key of JOBS; options: the estimate's settings, as they are (the job's usual ones are not added).
        """
        estimate_mode = JOBS[mode].mode
        job = plan_estimate(estimate_mode, dtype, **options)  # checks the options, budget or not
        if not budget:
            return cls(budget, mode, dtype, dict(options), (), {}, None)
        fit, skipped = [], {}
        for m in chosen:
            est = job.of(m)
            verdict = fits(est, budget.usable_bytes)
            if verdict:
                fit.append(m.name)
            else:
                skipped[m.name] = _why(est, verdict)
        try:
            largest = largest_model_that_fits(budget.usable_bytes, mode=estimate_mode, dtype=dtype, **options)
        except ValueError as too_large:  # more memory than the largest model the estimate can shape needs
            raise ValueError(f"free_bytes: {too_large}") from None
        return cls(budget, mode, dtype, dict(options), tuple(fit), skipped, largest)

    def __repr__(self) -> str:
        return str(self)

    def lines(self) -> list[str]:
        """The plan as plain sentences, one a line (lesson 05)."""
        job = _job_title(self.mode, self.dtype, self.options)
        if not self.budget:
            return [
                _("{budget}.").format(budget=self.budget),
                _("Nothing to check {job} against here: compare with a catalog GPU instead.").format(job=job),
            ]
        fit = ", ".join(self.fit) or _("none")
        lines = [_("{budget}.").format(budget=self.budget), _("{job}: fits here: {fit}").format(job=job, fit=fit)]
        lines += [
            _("skipped {name} {dtype}: {why}").format(name=name, dtype=self.dtype, why=why)
            for name, why in self.skipped.items()
        ]
        if self.largest:
            lines.append(
                _("largest Llama-3-style model that fits: {billions:.2f} billion parameters").format(
                    billions=self.largest / 1e9, hundred_millions=self.largest / 1e8
                )
            )
        else:
            lines.append(
                _(
                    "no model of any size fits: close other notebooks or programs that use this GPU "
                    "(nvidia-smi lists them), or use another GPU"
                )
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
    listed = " + ".join(f"{PARTS[k].label} {format_bytes(v, 'GiB', 2)}" for k, v in parts)
    return _("needs {needed} ({listed}), only {available} free: {short} short").format(
        needed=format_bytes(fit.needed, "GiB", 2),
        listed=listed,
        available=format_bytes(fit.available, "GiB", 2),
        short=format_bytes(-fit.margin, "GiB", 2),
    )


def models_that_fit(
    mode: str = "inference",
    dtype: str | None = None,
    models: Sequence[ModelConfig | str | Mapping[str, Any]] | Mapping[str, Any] | None = None,
    *,
    free_bytes: float | str | None = None,
    device: Any = None,
    **options: Any,
) -> ModelPlan:
    """Which models (default: the catalog) fit in the memory free now on this CUDA GPU, and why not (lesson 05).

    mode: a key of JOBS; dtype and the settings not given are that job's usual ones, as in fit_table.
    models: catalog names, ModelConfigs or config.json files (each a dict or a path), as in fit_table.
    free_bytes: a budget given by hand (bytes, or a size such as '300MiB') instead of asking `device`.
    Options go to the estimate (seq_len, batch, checkpointing, cuda_context_bytes, ...). Asking `device` leaves
    the CUDA context out unless cuda_context_bytes is given: it already exists, so the free figure is net of it.
    Without a CUDA GPU the plan is empty and says why.
    """
    job, dtype, options = _job_settings(mode, dtype, options)
    chosen = model_list(models)
    if free_bytes is not None and device is not None:
        raise ValueError(f"give free_bytes or device, not both: got free_bytes={free_bytes!r}, device={device!r}")
    budget = this_machine(device) if free_bytes is None else MachineBudget.given(free_bytes)
    if budget.context_in_use:
        options.setdefault("cuda_context_bytes", 0)
    return ModelPlan.build(budget, job.key, dtype, chosen or catalog_models(), options)
