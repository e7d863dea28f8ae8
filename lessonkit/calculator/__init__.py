"""The VRAM calculator of lesson 05: a fit table, a stacked-bar plot, and interactive controls.

Everything here draws on lessonkit.estimate's estimates. `Calculator` works without a browser too:
its `report()` and `figure()` show the current result as ordinary output, so a notebook shows real
content in nbval, on GitHub and on paper; `widget()` adds the controls (ipywidgets 7 or 8) in a
live Jupyter or Colab session. ipywidgets and matplotlib are imported only when needed.

Besides the catalog's GPUs, the budget can be this machine's own CUDA GPU with the memory that is
free on it now (`this_machine`, from torch.cuda.mem_get_info through lessonkit.device); then
`models_that_fit` says which models fit in it and, for each one that does not, why.

A model can be a catalog name, a ModelConfig or a Hugging Face config.json (a dict or a path; the
widget has a box to paste one). For the chosen model and GPU the calculator also gives the upper
bound on decoding speed (inference) or how many of that GPU a training job needs with ZeRO-3.

The modules, one job each: modes (JOBS: inference, LoRA, QLoRA and full fine-tuning, each with the
settings it normally uses, which the calculator and the fit tables share), budget (MachineBudget,
this_machine), tables (FitTable, fit_table, ModelPlan, models_that_fit), plots (plot_breakdown) and
widget (Calculator). Everything public is importable from here.
"""

from __future__ import annotations

from lessonkit.calculator.budget import THIS_MACHINE, MachineBudget, this_machine
from lessonkit.calculator.modes import JOBS, Job
from lessonkit.calculator.plots import plot_breakdown
from lessonkit.calculator.tables import TIGHT, FitTable, ModelPlan, fit_table, models_that_fit
from lessonkit.calculator.widget import Calculator
from lessonkit.estimate import MODE_DTYPES, MODE_LABELS

__all__ = [
    "JOBS",
    "MODE_DTYPES",
    "MODE_LABELS",
    "THIS_MACHINE",
    "TIGHT",
    "Calculator",
    "FitTable",
    "Job",
    "MachineBudget",
    "ModelPlan",
    "fit_table",
    "models_that_fit",
    "plot_breakdown",
    "this_machine",
]
