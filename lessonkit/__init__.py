"""lessonkit: the helpers the GPU Setup & Cloud course notebooks import.

One concern per module: device and doctor (lesson 01), timing (02), vram (03, with estimate,
memparts, models, transformer, bytecount and calculator for lesson 07), exercises, checking and
glossary (04 and every lesson), training and distributed (06), gpus and reference (the GPU catalog
and results recorded on real GPUs), course (repository and Colab links). Importing lessonkit
changes nothing.
"""

__version__ = "0.1.0"
