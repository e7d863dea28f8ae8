"""Where the course lives on GitHub, and the Colab links and install command built from it (all lessons)."""

from __future__ import annotations

from pathlib import PurePosixPath

# The one place that names the repository: badges, Colab links and the Colab install all come from here.
# After changing it, run `make badges` to rewrite the notebooks and the README.
_REPOSITORY = "gpu-course/gpu-setup-and-cloud"
BRANCH = "main"
_NOTEBOOK_DIR = "notebooks"
_BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"


def _notebook_path(notebook: str) -> str:
    if not isinstance(notebook, str) or not notebook.endswith(".ipynb"):
        raise ValueError(f"notebook must be a notebook file name such as '01_find_your_gpu.ipynb', got {notebook!r}")
    return f"{_NOTEBOOK_DIR}/{PurePosixPath(notebook).name}"


def _colab_url(notebook: str) -> str:
    """The 'Open in Colab' address of a notebook in this repository (all lessons)."""
    return f"https://colab.research.google.com/github/{_REPOSITORY}/blob/{BRANCH}/{_notebook_path(notebook)}"


def github_url(notebook: str | None = None) -> str:
    """The repository's GitHub page, or one notebook's page there (all lessons)."""
    base = f"https://github.com/{_REPOSITORY}"
    return base if notebook is None else f"{base}/blob/{BRANCH}/{_notebook_path(notebook)}"


def colab_badge(notebook: str) -> str:
    """The markdown of an 'Open in Colab' badge for a notebook (all lessons)."""
    return f"[![Open In Colab]({_BADGE_IMAGE})]({_colab_url(notebook)})"


def colab_install_command() -> str:
    """The pip command the Colab setup cell runs: lessonkit only, never touching Colab's torch (all lessons)."""
    return f"pip install --quiet --no-deps git+https://github.com/{_REPOSITORY}.git@{BRANCH}"
