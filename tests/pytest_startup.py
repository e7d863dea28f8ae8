"""A pytest plugin loaded first (`-p tests.pytest_startup`, from the Makefile): start-up the tests don't need.

nbval imports nbformat, which imports jsonschema, which imports the optional `rfc3987_syntax` if it is installed
(JupyterLab's dependencies install it) and compiles its grammar: about 2 s in every pytest process, before the
first test. jsonschema uses it only to check the "iri" and "iri-reference" string formats, and only when a format
checker is asked for; nbformat asks for none and its schemas name neither format. Marking the module as absent
makes jsonschema skip those two checkers (it imports them under `suppress(ImportError)`), so nbformat validates
every notebook exactly as before. Only this pytest process is affected; the kernels under test are not.
"""

from __future__ import annotations

import sys

sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[assignment]
