"""lessonkit.course: one place names the repository; Colab links and the install line come from it."""

from __future__ import annotations

import pytest

from lessonkit import course


def test_colab_url_points_at_the_notebook_on_the_branch():
    url = course._colab_url("02_cpu_vs_gpu_benchmark.ipynb")
    assert url == (
        f"https://colab.research.google.com/github/{course._REPOSITORY}/blob/{course.BRANCH}"
        "/notebooks/02_cpu_vs_gpu_benchmark.ipynb"
    )
    assert course._colab_url("notebooks/02_cpu_vs_gpu_benchmark.ipynb") == url


def test_badge_and_install_use_the_same_repository():
    badge = course.colab_badge("01_find_your_gpu.ipynb")
    assert badge.startswith("[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](")
    assert course._REPOSITORY in badge and course._REPOSITORY in course.colab_install_command()
    assert course.github_url() == f"https://github.com/{course._REPOSITORY}"


@pytest.mark.parametrize("bad", ["lesson.py", "", None, 3])
def test_notebook_name_is_checked(bad):
    with pytest.raises(ValueError, match="notebook must be a notebook file name"):
        course._colab_url(bad)
