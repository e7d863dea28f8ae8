"""lessonkit: the helpers the GPU Setup & Cloud course notebooks import.

One concern per module: device, gpu_tools and doctor (lesson 01), timing (02, 06, 11), vram (03), the
estimate package and calculator (03, 05, 08-10), gpus, prices and models (05: the GPU catalog, dated rental
prices, model shapes read from config.json by hf_config), precision (06's TF32 switch), spirals (07, 09, 10),
bytecount and transformer (08, 09), distributed (10), exercises (a package; every lesson), glossary, table and
labels (every lesson's tables, in the learner's language), reference (results recorded on real GPUs), units
(the one table of byte units and dtypes), course (repository and Colab links), i18n (the editions' language).
The modules form layers, listed in tests/test_layers.py: base, catalogs, formulas, torch, presentation; each
imports only from its own layer or lower ones. Importing lessonkit changes nothing.
"""

import sys as _sys

# pyproject.toml's requires-python is >=3.10, which pip enforces; a source checkout on an older Python would fail
# at the first `int | None` with "unsupported operand type(s) for |". Say what is needed instead, first.
if _sys.version_info < (3, 10):  # noqa: UP036  (the point: older Pythons reach this line)
    raise ImportError(
        "lessonkit needs Python 3.10 or newer (pyproject.toml: requires-python >=3.10), and this is Python "
        + ".".join(map(str, _sys.version_info[:3]))
        + f" ({_sys.executable}). Run the course with a newer Python: `make lab` sets one up (README), or in a "
        "notebook pick the course's kernel."
    )

__version__ = "0.1.0"

from lessonkit.i18n import get_language, set_language  # noqa: E402  (an edition's setup cell calls set_language)

__all__ = ["__version__", "get_language", "set_language"]
