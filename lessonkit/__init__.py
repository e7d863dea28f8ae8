"""lessonkit: the helpers the GPU Setup & Cloud course notebooks import.

One concern per module: device and doctor (lesson 01), timing (02), vram (03, with estimate,
memparts, models, transformer and calculator for lesson 05), exercises (a package)
and glossary (04 and every lesson), bytecount (05, 09) and distributed (10), gpus and reference (the GPU catalog
and results recorded on real GPUs), units (the one table of byte units and dtypes), course
(repository and Colab links). The modules form layers, listed in tests/test_layers.py: base,
catalogs, formulas, torch, presentation; each imports only from its own layer or lower ones.
Importing lessonkit changes nothing.
"""

__version__ = "0.1.0"

from lessonkit.i18n import get_language, set_language  # noqa: E402  (an edition's setup cell calls set_language)

__all__ = ["__version__", "get_language", "set_language"]
