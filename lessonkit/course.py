"""Where the course lives on GitHub, and the badges, links, install line and setup cell built from it (all lessons)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from lessonkit import __version__

# The one place that names the published repository and the git ref (a tag or a commit, never a branch that
# moves) whose notebooks the badges open and whose lessonkit the setup cell installs. Set both for your own
# copy with `make badges REPO=owner/name REF=v0.1.0` (README: "Publish your own copy"), which rewrites these
# two lines, the notebooks and the README.
REPOSITORY = "gpu-course/gpu-setup-and-cloud"
REF = "v0.1.0"
_NOTEBOOK_DIR = "notebooks"
_BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"
_OWNER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$")
_GIT_REF = re.compile(r"^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$")


def check_repository(repo: str) -> str:
    """`repo` if it is a GitHub 'owner/name', else a ValueError naming what is allowed (make badges)."""
    if not isinstance(repo, str) or not _OWNER_NAME.match(repo) or repo.endswith(".git"):
        raise ValueError(f"repo must be a GitHub repository as owner/name, such as 'octocat/gpu-course', got {repo!r}")
    return repo


def check_ref(ref: str) -> str:
    """`ref` if it is a tag such as 'v0.1.0' or a commit id, not a branch name that moves (make badges)."""
    allowed = "a tag such as 'v0.1.0' or a 40-character commit id"
    if not isinstance(ref, str) or not _GIT_REF.match(ref):
        raise ValueError(f"ref must be {allowed}, got {ref!r}")
    if ref in ("main", "master", "HEAD", "develop", "dev", "trunk"):
        raise ValueError(
            f"ref must be {allowed}, not the branch {ref!r}: a branch moves, so the notebook a badge "
            "opens and the lessonkit it installs could stop matching"
        )
    return ref


def _notebook_path(notebook: str) -> str:
    if not isinstance(notebook, str) or not notebook.endswith(".ipynb"):
        raise ValueError(f"notebook must be a notebook file name such as '01_find_your_gpu.ipynb', got {notebook!r}")
    return f"{_NOTEBOOK_DIR}/{PurePosixPath(notebook).name}"


def _colab_url(notebook: str) -> str:
    """The 'Open in Colab' address of a notebook in this repository, at REF (all lessons)."""
    return f"https://colab.research.google.com/github/{REPOSITORY}/blob/{REF}/{_notebook_path(notebook)}"


def github_url(notebook: str | None = None) -> str:
    """The repository's GitHub page, or one notebook's page there at REF (all lessons)."""
    base = f"https://github.com/{REPOSITORY}"
    return base if notebook is None else f"{base}/blob/{REF}/{_notebook_path(notebook)}"


def colab_badge(notebook: str) -> str:
    """The markdown of an 'Open in Colab' badge for a notebook (all lessons)."""
    return f"[![Open In Colab]({_BADGE_IMAGE})]({_colab_url(notebook)})"


def install_command() -> str:
    """The one pip command that installs lessonkit from the repository at REF: Colab's setup cell, lesson 01, README.

    Its dependencies are loose lower bounds that Colab already meets, so pip changes none of Colab's packages
    (tools/env_check.py colab proves it); a lessonkit that needed a newer torch would say so, not break silently.
    """
    return f'pip install --quiet "lessonkit @ git+https://github.com/{REPOSITORY}.git@{REF}"'


def setup_cell() -> str:
    """The first code cell of every lesson: install lessonkit in Colab, then stop plainly if it is not usable."""
    return f"""# Setup. In Google Colab this installs the course's helper package, lessonkit {__version__}, and nothing
# else: Colab's own torch stays as it is. On your own machine, `make lab` has installed it already.
import sys

if "google.colab" in sys.modules:
    %{install_command()}
try:
    import lessonkit

    problem = None if lessonkit.__version__ == "{__version__}" else f"lessonkit {{lessonkit.__version__}} is installed"
except ImportError as error:
    problem = f"lessonkit cannot be imported ({{error}})"
if problem:
    raise RuntimeError(
        f"This lesson needs lessonkit {__version__}, but {{problem}}. In Colab: read pip's message above, then "
        "Runtime > Restart session and run this cell again. On your own machine: run `make lab` in the course "
        "folder and pick the course's kernel (README, 'Quick start')."
    )"""


# The course's two routes. The core path (about two hours) never depends on a deep dive; the deep dives
# are optional and may build on the core and on each other, in the order listed.
CORE_PATH: tuple[str, ...] = ("01", "02", "03", "04", "07")
DEEP_DIVES: tuple[str, ...] = ("05", "06", "08", "09", "10")


def lesson_kind(number: str) -> str:
    """'core' or 'deep dive' for a lesson number such as '05' (README table, handouts, tests)."""
    if number in CORE_PATH:
        return "core"
    if number in DEEP_DIVES:
        return "deep dive"
    raise ValueError(f"number must be a lesson number, one of {sorted(CORE_PATH + DEEP_DIVES)}, got {number!r}")


def next_lesson(number: str) -> str | None:
    """The lesson a learner reads after `number`: along the core path, then the deep dives; None after the last."""
    lesson_kind(number)  # refuses what is not a lesson number
    order = CORE_PATH + DEEP_DIVES
    following = order.index(number) + 1
    return order[following] if following < len(order) else None
