"""lessonkit: the helpers the GPU Setup & Cloud course notebooks import.

Modules: device (lesson 01), timing (lesson 02), vram (lesson 03), gpus and reference (catalog
and recorded results), course (repository and Colab links). Importing lessonkit changes nothing.
"""

__version__ = "0.1.0"
