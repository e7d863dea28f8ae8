"""Words the lessons' tables show, kept in English in the code and translated when shown (lesson 03).

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
        "bits": "bits",
        "budget": "budget",
        "bytes": "bytes",
        "dtype": "dtype",
        "gradients": "gradients",
        "master copy": "fp32 master copy of the weights",
        "memory": "memory",
        "model": "model",
        "moments": "AdamW's two moments",
        "total": "total",
        "weights": "weights",
    },
)
