"""Where the course lives on GitHub, and the badges, links, install line and setup cell built from it (all lessons)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from lessonkit import __version__

# The one place that names the published repository and the git ref (a tag or a commit, never a branch that
# moves) whose notebooks the badges open and whose lessonkit the setup cell installs. Set both for your own
# copy with `make badges REPO=owner/name REF=v0.1.0` (README: "Publish your own copy"), which rewrites these
# two lines, the notebooks and the README.
#
# What keeps a learner's install from changing under them: a tag can be moved (force-pushed) by anyone who
# can push, and moving it changes the notebook a badge opens as well as the lessonkit it installs, so no check
# inside the notebook can stand in for protecting the tag itself: publish a release with the repository's tag
# rules set to refuse updating and deleting v* tags (GitHub: a tag ruleset, or an immutable release). A full
# 40-character commit id is immutable by construction (git names a commit by the hash of its contents, and pip
# checks that commit out), and REF may be one: `make badges REF=<commit id>`. Branch names, abbreviated ids and
# anything git would not accept as a tag name are refused (check_ref).
REPOSITORY = "gpu-course/gpu-setup-and-cloud"
REF = "v0.1.0"
_NOTEBOOK_DIR = "notebooks"
_BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"
# GitHub: an owner is letters, digits and single hyphens inside (at most 39); a name letters, digits, . _ -.
_OWNER_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}/[A-Za-z0-9._-]{1,100}$")
_COMMIT_ID = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")  # SHA-1, or SHA-256 in a repository that uses it
_SHORT_ID = re.compile(r"^(?=.*[0-9])(?=.*[a-f])[0-9a-f]{4,39}$")  # an abbreviated commit id such as 'abc1234'
_TAG_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")  # one component: no '/', no space, no ~^:?*[\\@{
_BRANCHES = ("main", "master", "HEAD", "develop", "dev", "trunk", "gh-pages")


def check_repository(repo: str) -> str:
    """`repo` if it is a GitHub 'owner/name', else a ValueError naming what is allowed (make badges)."""
    if (
        not isinstance(repo, str)
        or not _OWNER_NAME.match(repo)
        or repo.endswith(".git")
        or repo.partition("/")[2] in (".", "..")
    ):
        raise ValueError(f"repo must be a GitHub repository as owner/name, such as 'octocat/gpu-course', got {repo!r}")
    return repo


def check_ref(ref: str) -> str:
    """`ref` if it is a tag such as 'v0.1.0' or a full commit id, not a branch name that moves (make badges)."""
    allowed = "a tag such as 'v0.1.0' or a 40-character commit id"
    if isinstance(ref, str) and _COMMIT_ID.match(ref):
        return ref
    if not isinstance(ref, str) or not ref:
        raise ValueError(f"ref must be {allowed}, got {ref!r}")
    if "/" in ref:
        raise ValueError(
            f"ref must be {allowed}, got {ref!r}: a tag here is one name without '/' (refs/heads/main and "
            "origin/main name branches, which move)"
        )
    if ref in _BRANCHES:
        raise ValueError(
            f"ref must be {allowed}, not the branch {ref!r}: a branch moves, so the notebook a badge "
            "opens and the lessonkit it installs could stop matching"
        )
    if _SHORT_ID.match(ref):
        raise ValueError(f"ref must be {allowed}, got {ref!r}: a commit id must be written out in full (40 characters)")
    if not _TAG_NAME.match(ref) or ".." in ref or ref.endswith((".", ".lock")):
        raise ValueError(f"ref must be {allowed}, got {ref!r}, which git does not accept as a tag name")
    return ref


# The Chinese editions live in notebooks/<edition>/, built by tools/i18n.py from notebooks/ and i18n/<edition>/.
EDITIONS: tuple[str, ...] = ("zh-Hans", "zh-Hant")


def _notebook_path(notebook: str) -> str:
    if not isinstance(notebook, str) or not notebook.endswith(".ipynb"):
        raise ValueError(f"notebook must be a notebook file name such as '01_find_your_gpu.ipynb', got {notebook!r}")
    path = PurePosixPath(notebook)
    edition = path.parent.name
    if edition in EDITIONS:
        return f"{_NOTEBOOK_DIR}/{edition}/{path.name}"
    return f"{_NOTEBOOK_DIR}/{path.name}"


def colab_url(notebook: str) -> str:
    """The 'Open in Colab' address of a notebook ('01_x.ipynb' or 'zh-Hans/01_x.ipynb') at REF (all lessons)."""
    return f"https://colab.research.google.com/github/{REPOSITORY}/blob/{REF}/{_notebook_path(notebook)}"


def github_url(notebook: str | None = None) -> str:
    """The repository's GitHub page, or one notebook's page there at REF (all lessons)."""
    base = f"https://github.com/{REPOSITORY}"
    return base if notebook is None else f"{base}/blob/{REF}/{_notebook_path(notebook)}"


def colab_badge(notebook: str) -> str:
    """The markdown of an 'Open in Colab' badge for a notebook (all lessons)."""
    return f"[![Open In Colab]({_BADGE_IMAGE})]({colab_url(notebook)})"


def install_command() -> str:
    """The one pip command that installs lessonkit from the repository at REF: Colab's setup cell, lesson 01, README.

    Its dependencies are loose lower bounds that Colab already meets, so pip changes none of Colab's packages
    (tools/env_check.py colab proves it); a lessonkit that needed a newer torch would say so, not break silently.
    """
    return f'pip install --quiet "lessonkit @ git+https://github.com/{REPOSITORY}.git@{REF}"'


# The setup cell's words per language ("plain per-language message tables"); the code is the same in each.
_SETUP_TEXT: dict[str, dict[str, str]] = {
    "en": {
        "comment": "# Setup. In Google Colab this installs the course's helper package, lessonkit {version}, and nothing\n"  # noqa: E501
        "# else: Colab's own torch stays as it is. On your own machine, `make lab` has installed it already.",
        "installed": "lessonkit {{lessonkit.__version__}} is installed",
        "no_import": "lessonkit cannot be imported ({{error}})",
        "needs": "This lesson needs lessonkit {version}, but {{problem}}. In Colab: read pip's message above, then \"\n"
        '        "Runtime > Restart session and run this cell again. On your own machine: run `make lab` in the course "\n'  # noqa: E501
        "        \"folder and pick the course's kernel (README, 'Quick start').",
    },
    "zh-Hans": {
        "comment": "# 准备工作。在 Google Colab 中，这一格安装本课程的辅助包 lessonkit {version} 和图表用的中文字体，\n"
        "# 别的都不动：Colab 自带的 torch 保持原样。在你自己的电脑上，`make lab` 已经装好了 lessonkit。\n"
        "# 最后一行让 lessonkit 说简体中文。",
        "font_comment": "# 图表里的中文所需的字体。装不上时要说出来：没有它，图表里的中文都是方框",
        "font_failed": '没能安装图表用的中文字体 fonts-noto-cjk（apt-get：{{said}}）："\n'
        '            "图表里的中文会显示为方框，其余内容照常。稍后再运行这一格可以重试。',
        "installed": "装的是 lessonkit {{lessonkit.__version__}}",
        "no_import": "无法导入 lessonkit（{{error}}）",
        "needs": '本课需要 lessonkit {version}，但{{problem}}。在 Colab 中：先看上面 pip 的提示，再点"\n'
        '        "“代码执行程序 > 重启会话”，然后重新运行这一格。在自己的电脑上：在课程文件夹中运行 `make lab`，"\n'
        '        "并选择本课程的内核（见 README 的“快速开始”）。',
    },
    "zh-Hant": {
        "comment": "# 準備工作。在 Google Colab 中，這一格安裝本課程的輔助套件 lessonkit {version} 和圖表用的中文字型，\n"  # noqa: E501
        "# 其他都不動：Colab 內建的 torch 維持原樣。在你自己的電腦上，`make lab` 已經裝好了 lessonkit。\n"
        "# 最後一行讓 lessonkit 說繁體中文。",
        "font_comment": "# 圖表中的中文所需的字型。裝不上時要說出來：沒有它，圖表中的中文都是方框",
        "font_failed": '沒能安裝圖表用的中文字型 fonts-noto-cjk（apt-get：{{said}}）："\n'
        '            "圖表中的中文會顯示為方框，其餘內容照常。稍後再執行這一格可以重試。',
        "installed": "安裝的是 lessonkit {{lessonkit.__version__}}",
        "no_import": "無法匯入 lessonkit（{{error}}）",
        "needs": '本課需要 lessonkit {version}，但{{problem}}。在 Colab 中：先看上方 pip 的訊息，再點"\n'
        '        "「執行階段 > 重新啟動工作階段」，然後重新執行這一格。在自己的電腦上：在課程資料夾中執行 `make lab`，"\n'  # noqa: E501
        '        "並選擇本課程的核心（見 README 的「快速開始」）。',
    },
}


# Colab's image has no CJK font. apt-get's package lists can be stale in a fresh runtime: install, and only if
# that fails refresh them and try once more.
_FONT_INSTALL = (
    "apt-get -qq install -y fonts-noto-cjk || { apt-get -qq update && apt-get -qq install -y fonts-noto-cjk; }"
)


def _font_lines(words: dict[str, str]) -> str:
    """A Chinese edition's Colab font install, which says so in the edition's language when it fails."""
    return f"""
    import subprocess

    {words["font_comment"]}
    font = subprocess.run(
        "{_FONT_INSTALL}",
        shell=True,
        capture_output=True,
        text=True,
    )
    if font.returncode:
        said = (font.stderr.strip().splitlines() or [f"exit status {{font.returncode}}"])[-1]
        print(
            f"{words["font_failed"]}"
        )"""


def setup_cell(language: str = "en") -> str:
    """The first code cell of every lesson: install lessonkit in Colab, stop plainly if it is not usable, and in
    a Chinese edition install the figures' CJK font in Colab (saying so if that fails) and make lessonkit speak
    the edition's language (tools/i18n.py builds the editions)."""
    if not isinstance(language, str) or language not in _SETUP_TEXT:
        raise ValueError(f"language must be one of {sorted(_SETUP_TEXT)}, got {language!r}")
    words = {key: value.format(version=__version__) for key, value in _SETUP_TEXT[language].items()}
    font = _font_lines(words) if "font_failed" in words else ""
    cell = f"""{words["comment"]}
import sys

if "google.colab" in sys.modules:{font}
    %{install_command()}
try:
    import lessonkit

    problem = None if lessonkit.__version__ == "{__version__}" else f"{words["installed"]}"
except ImportError as error:
    problem = f"{words["no_import"]}"
if problem:
    raise RuntimeError(
        f"{words["needs"]}"
    )"""
    if language != "en":
        cell += f'\nlessonkit.set_language("{language}")'
    return cell


# The course's two routes. The core path (about two hours) never depends on a deep dive; the deep dives
# are optional and may build on the core and on each other, in the order listed.
CORE_PATH: tuple[str, ...] = ("01", "02", "03", "04", "05")
DEEP_DIVES: tuple[str, ...] = ("06", "07", "08", "09", "10", "11")


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
