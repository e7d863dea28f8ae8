"""The learner runs every lesson in JupyterLab and it saves them: the course stays clean, the next make lab keeps them.

Each copy that `make lab` made in my-lessons/ is executed in a fresh kernel started in my-lessons/ (as JupyterLab
starts it) and written back with nbformat, as JupyterLab's save does. The course is a throwaway git repository
(tests/matrix/test_my_lessons.py's make_course); the fake jupyter there only records its arguments.
"""

from __future__ import annotations

import nbformat

from tests.matrix.conftest import execute
from tests.matrix.test_my_lessons import LESSONS, git, listed, make_course, make_lab


def test_running_and_saving_every_copy_leaves_the_course_clean(tmp_path):
    course = make_course(tmp_path)
    assert listed(make_lab(course), "copied") == LESSONS
    originals = {name: (course / "notebooks" / name).read_bytes() for name in LESSONS}
    saved = {}
    for name in LESSONS:
        copy = course / "my-lessons" / name
        nb = execute(copy, cwd=copy.parent)
        nbformat.write(nb, copy)
        saved[name] = copy.read_bytes()

    assert git(course, "status", "--porcelain", "--untracked-files=all") == ""
    assert {name: (course / "notebooks" / name).read_bytes() for name in LESSONS} == originals

    out = make_lab(course)
    assert listed(out, "kept") == LESSONS and listed(out, "copied") == []
    assert {name: (course / "my-lessons" / name).read_bytes() for name in LESSONS} == saved
