"""lessonkit and the course's tools in processes of their own: `python -m lessonkit doctor` started fresh (as lesson
01 and a learner's terminal start it), with an ASCII locale and with an unwritable stdout, and the real Jupyter
kernels that tools/run_notebooks.py and tools/handouts.py start.

In the matrix, not the unit tests: each test starts a Python process that imports PyTorch or a Jupyter kernel,
a second or two of CPU apiece. What these processes run is tested in-process by the unit tests: test_doctor.py,
test_nvidia_smi_failures.py (issue 15, items 1-4 and 7; issue 25, item 15), test_recording.py, test_handouts.py.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from lessonkit import doctor, plotfont

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import handouts  # noqa: E402  (tools/handouts.py)
import run_notebooks  # noqa: E402  (tools/run_notebooks.py)

from tests.test_recording import _notebook  # noqa: E402

# --- lessonkit doctor in a fresh process (from test_doctor.py and test_nvidia_smi_failures.py) --------------------


def test_python_m_lessonkit_doctor_in_a_fresh_process(tmp_path: Path):
    env = dict(os.environ, PATH=str(tmp_path))  # no nvidia-smi on this PATH
    done = subprocess.run(
        [sys.executable, "-m", "lessonkit", "doctor", "--quick", "--json", "--device", "cpu"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=tmp_path,
    )
    report = json.loads(done.stdout)
    assert done.returncode == report["exit_status"] == 0
    assert report["device"]["kind"] == "cpu" and report["benchmark"]["runs"][0]["device"] == "cpu"
    assert report["elapsed_s"] > 0


def test_an_ascii_locale_in_a_fresh_process(tmp_path: Path):
    """Issue 15, item 7: a terminal that cannot show "×" gets the report in ASCII."""
    env = dict(os.environ, PATH=str(tmp_path), LANG="C", LC_ALL="C", PYTHONUTF8="0", PYTHONPATH=str(ROOT))
    env.pop("PYTHONIOENCODING", None)
    done = subprocess.run(
        [sys.executable, "-m", "lessonkit", "doctor", "--quick", "--device", "cpu"],
        capture_output=True,
        env=env,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr.decode("ascii", "replace")[-2000:]
    out = done.stdout.decode("ascii")  # nothing but ASCII
    assert "512x512" in out and "OK: no GPU, and nothing is broken." in out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/dev/full and a closed stdout via the shell")
@pytest.mark.parametrize("redirect", [">&-", ">/dev/full"], ids=["closed", "full"])
def test_an_unwritable_stdout_is_exit_status_3_without_a_traceback(tmp_path, redirect):
    """Issue 25, item 15: stdout closed or full gave a traceback and exit 1, the code for 'problem found'."""
    env = dict(os.environ, PATH=f"{tmp_path}:/usr/bin:/bin", PYTHONPATH=str(ROOT))
    command = f'"{sys.executable}" -m lessonkit doctor --quick --basics --device cpu {redirect}'
    done = subprocess.run(["sh", "-c", command], capture_output=True, env=env, timeout=180, cwd=tmp_path)
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == doctor.EXIT_UNWRITABLE == 3, err[-2000:]
    assert "Traceback" not in err and "Exception ignored" not in err
    assert "the report could not be written to standard output" in err


# --- real kernels: recording a Chinese edition (from test_recording.py), running a handout (test_handouts.py) ------


def test_a_character_no_font_has_stops_the_recording_naming_the_cell(tmp_path):
    """Issue 28: the strict font setting reaches a real kernel, matplotlib's warning is not hidden, nothing is
    written."""
    path = tmp_path / "zh-Hans" / "01_x.ipynb"
    path.parent.mkdir()
    nb = _notebook(
        "import io, os\nimport matplotlib\nmatplotlib.use('agg')\nimport matplotlib.pyplot as plt\n"
        "import lessonkit\nlessonkit.set_language('zh-Hans')\nprint(os.environ['LESSONKIT_STRICT_FONTS'])",
        "fig, ax = plt.subplots()\nax.set_title('中文 \\ue000')  # a private-use character: no font has it\n"
        "fig.savefig(io.BytesIO())",
    )
    nbformat.write(nb, path)
    before = path.read_bytes()
    if plotfont.find_font("zh-Hans") is None:
        with pytest.raises(run_notebooks.RecordingError, match="no CJK font"):
            run_notebooks.run(path, write=True, timeout=120)
        return
    with pytest.raises(run_notebooks.RecordingError) as failed:
        run_notebooks.run(path, write=True, timeout=120)
    message = str(failed.value)
    assert f"cell 2 (id {nb.cells[1].id})" in message and "Glyph 57344" in message and "missing from font" in message
    assert "cell 1" not in message  # the Chinese of the title has its glyphs
    assert path.read_bytes() == before


def test_execute_runs_a_notebook_and_reports_each_cell(tmp_path: Path):
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    nb = new_notebook()
    nb.cells = [new_markdown_cell("# x"), new_code_cell("x = 6 * 7"), new_code_cell("print(x)")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    screen = Terminal()
    seconds = handouts.execute(nb, tmp_path / "x.ipynb", "x.ipynb", handouts.Progress(screen), timeout=60)
    assert seconds > 0
    assert nb.cells[2].outputs[0].text == "42\n"
    assert "0/2 cells" in screen.getvalue() and "2/2 cells" in screen.getvalue()
    assert list(tmp_path.iterdir()) == []  # kernel sockets live in their own temporary folder
