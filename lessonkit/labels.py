"""Words the lessons' tables show, kept in English in the code and translated when shown (lessons 03, 08, 09).

A sentence in a lesson's own code is translated with the lesson (i18n/<edition>/NN_*.po); a single word there
cannot be, because tools/i18n.py freezes one-word strings. So a table's one-word header or row label is written
`WORDS["model"]`: "model" in English, 模型 in both Chinese editions (lessonkit/locale/<edition>/labels.po).
"""

from __future__ import annotations

from lessonkit.i18n import Labels

WORDS = Labels(
    "a label in a lesson's table",
    {
        "amount": "amount",
        "batch": "batch",
        "bits": "bits",
        "budget": "budget",
        "bytes": "bytes",
        "bytes per parameter": "bytes per parameter",
        "counted": "counted",
        "different": "DIFFERENT",
        "does not fit": "does not fit",
        "dtype": "dtype",
        "equal": "equal",
        "estimated": "estimated",
        "exact": "exact",
        "fits": "fits",
        "gradients": "gradients",
        "master copy": "fp32 master copy of the weights",
        "measured": "measured",
        "memory": "memory",
        "model": "model",
        "moments": "AdamW's two moments",
        "parameters": "parameters",
        "peak": "peak",
        "published": "published",
        "recipe": "recipe",
        "tokens": "tokens",
        "total": "total",
        "weights": "weights",
    },
)
