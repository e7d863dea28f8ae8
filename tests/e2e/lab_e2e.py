"""The course as learners and teachers use it, in a real browser (make e2e).

JupyterLab runs on 127.0.0.1 with a token; Debian's chromium, driven by Playwright, opens the lesson
with an ipywidgets control (lesson 05's VRAM calculator once it exists; tests/e2e/widget_fixture.ipynb
until a lesson has a widget), runs every cell, checks that no cell shows an error, changes the
widgets and sees the output change. Then it opens the handouts that `make handouts` wrote, offline,
in both editions, and checks that their plots, math and widget snapshots are visible, that the student
edition shows no solution and the teacher edition every exercise's notes, in the HTML and in the two
PDFs. Screenshots go to dist/e2e/.

Every lesson as a reader sees it (issue 12): JupyterLab renders each lesson's markdown, and the same
check (tools/reader_check.py) runs over it and over each handout, student and teacher edition. It
fails on a formula where the text meant none (two dollar prices paired by MathJax; a cell that means
math carries the cell tag `allow-math`), on markdown or HTML showing as text, and on a link to a file
or anchor that does not exist, and names the lesson, the cell id and what the reader sees. A
throw-away notebook with each defect planted proves that each is caught, in JupyterLab and in a handout.

The Chinese editions (issue 16): their lessons and handouts go through the same reading checks; in
JupyterLab each edition's lesson 01 is run, one answer is typed into its answer cell, and the check's
feedback must be lessonkit's in that language; each edition's PDFs must embed the Noto Sans CJK face of
its own script (SC or TC) and no other, and every character of its handouts must have a glyph in an
installed font (no missing-glyph boxes); screenshots go to dist/e2e/ as well. A table in each edition
(lessonkit.table, issue 28) is opened in JupyterLab, photographed and measured: its columns line up, and the same
table as padded text, planted beside it, is measured as drifting.

Not part of `make test` (the file name does not start with test_): `make e2e` builds the handouts,
then runs `CHROMIUM=/usr/bin/chromium python -m pytest tests/e2e/lab_e2e.py -v`.

The reading test opens each lesson with JupyterLab's own `docmanager:open` command (the server runs with
`--LabApp.expose_app_in_browser=True`, so the page has `window.jupyterapp`), and relies on markdown
cells (`.jp-MarkdownCell`, their index in `data-windowed-list-index`, the body `.jp-RenderedMarkdown`),
MathJax's `mjx-container`, heading ids in `data-jupyter-id`, and links rewritten to `/files/<path>`.

DOM the test relies on (JupyterLab 4, ipywidgets 8): the Run menu (`.lm-MenuBar-itemLabel` "Run",
then `li.lm-Menu-item[data-command='runmenu:run-all']`), the kernel status in the status bar
(`.jp-StatusBar-TextItem` titled "Change kernel…", text "… | Idle"), code cell prompts
(`.jp-CodeCell .jp-InputPrompt`, "[*]:" while running), error and stderr outputs
(`.jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']`), a cell's outputs
(`.jp-Cell-outputArea`), `.widget-dropdown select`, `.widget-slider .noUi-handle[aria-valuenow]`, and
the control classes in CONTROLS below, whose own text (a slider's readout) is left out when outputs
are compared.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import handouts  # noqa: E402
import reader_check  # noqa: E402

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SHOTS = ROOT / "dist" / "e2e"
HANDOUTS = ROOT / "dist" / "handouts"
FIXTURE = Path(__file__).resolve().parent / "widget_fixture.ipynb"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
USES_WIDGETS = re.compile(r"^\s*(import ipywidgets|from ipywidgets import)", re.MULTILINE)
CONTROLS = (
    ".widget-slider, .widget-dropdown, .widget-select, .widget-radio, .widget-toggle-buttons, .widget-text, "
    ".widget-textarea, .widget-checkbox, .widget-toggle-button, .widget-button, .widget-play, .widget-colorpicker, "
    ".widget-datepicker, .widget-combobox"
)
# The text of every cell's outputs, leaving out the widget controls themselves (a slider's readout
# changes when it moves: that must not count as "the output changed").
OUTPUTS_TEXT = f"""() => Array.from(document.querySelectorAll('.jp-Notebook .jp-Cell-outputArea')).map((area) => {{
    const copy = area.cloneNode(true);
    copy.querySelectorAll({json.dumps(CONTROLS)}).forEach((control) => control.remove());
    return copy.textContent.replace(/\\s+/g, ' ').trim();
}}).join('\\n')"""
LAB_SETTINGS = {
    # every cell in the page, so every output can be checked and appears in the screenshots
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    # the notebook is a temporary copy anyway, but nothing should be written while the test runs
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    # no news or update checks: this machine has no network
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
}


CHINESE = ("zh-Hans", "zh-Hant")
FEEDBACK_LESSON = "01_find_your_gpu.ipynb"  # its Check yourself: the Chinese feedback test answers one question
FEEDBACK_EXERCISE, FEEDBACK_ANSWER = "01-t4-gb", "15"  # 15360 MiB in GB answered in GiB: a named slip
CJK = re.compile(r"[\u4e00-\u9fff]")


def widget_lesson() -> Path:
    """The lesson to drive: the first with ipywidgets (one about a calculator first), else the fixture."""
    with_widgets = []
    for path in handouts.lessons(ROOT):
        nb = nbformat.read(path, as_version=4)
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        shows_widget = any(  # a stored widget view, e.g. lesson 05's `calc.widget()` made by lessonkit
            WIDGET_VIEW in out.get("data", {}) for c in nb.cells if c.cell_type == "code" for out in c.outputs
        )
        if shows_widget or USES_WIDGETS.search(code):
            text = "\n".join(c.source for c in nb.cells).lower()
            with_widgets.append(("calculator" not in text, path))
    return min(with_widgets)[1] if with_widgets else FIXTURE


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def children_of(pid: int) -> list[int]:
    """PIDs whose parent is `pid` (Linux /proc), e.g. the kernels JupyterLab started."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def shut_down_kernels(base: str, token: str) -> None:
    """Ask the server to stop every kernel (what File → Shut Down does), before the server itself stops."""
    headers = {"Authorization": f"token {token}"}
    try:
        with urllib.request.urlopen(urllib.request.Request(f"{base}/api/kernels", headers=headers), timeout=5) as r:
            running = json.load(r)
        for kernel in running:
            request = urllib.request.Request(f"{base}/api/kernels/{kernel['id']}", headers=headers, method="DELETE")
            urllib.request.urlopen(request, timeout=15).close()
    except OSError:
        pass  # the server is already gone: the PID checks below still run


@pytest.fixture(scope="module")
def target() -> Path:
    path = widget_lesson()
    print(f"\nwidget lesson under test: {path.relative_to(ROOT)}")
    return path


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, target: Path):
    """JupyterLab on 127.0.0.1 with a token, serving a copy of the lesson; stopped by its PID at the end."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    home = tmp_path_factory.mktemp("lab")
    root = home / "root"
    (root / "notebooks").mkdir(parents=True)
    shutil.copy(target, root / "notebooks" / target.name)  # lessons are never written to by the test
    for language in CHINESE:  # the Chinese editions' lesson 01, for the feedback test
        (root / "notebooks" / language).mkdir()
        shutil.copy(ROOT / "notebooks" / language / FEEDBACK_LESSON, root / "notebooks" / language / FEEDBACK_LESSON)
    settings = home / "settings"
    for name, values in LAB_SETTINGS.items():
        file = settings / name
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(json.dumps(values))
    port, token = free_port(), secrets.token_hex(16)
    env = dict(
        os.environ,
        JUPYTERLAB_SETTINGS_DIR=str(settings),
        JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        JUPYTER_CONFIG_DIR=str(home / "config"),
        PYDEVD_DISABLE_FILE_VALIDATION="1",
    )
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        # Another program may take that port before JupyterLab binds it: then JupyterLab moves on to
        # another, and writes the one it got into its runtime file, which is where the test reads it.
        "--ServerApp.port_retries=50",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        "--LabApp.news_url=None",
        "--LabApp.extension_manager=readonly",
        # window.jupyterapp: the reading test opens and closes lessons with the app's own commands
        "--LabApp.expose_app_in_browser=True",
    ]
    if sys.platform != "win32":  # the lesson's kernel on local sockets: no free TCP port to race for
        command += ["--KernelManager.transport=ipc", f"--KernelManager.ip={home / 'kernel'}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    log = open(SHOTS / "jupyterlab.log", "w")
    proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    server_info = home / "runtime" / f"jpserver-{proc.pid}.json"
    base = f"http://127.0.0.1:{port}"
    kernels: set[int] = set()
    try:
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, f"JupyterLab exited with status {proc.returncode}: see {log.name}"
            try:
                port = json.loads(server_info.read_text())["port"]
                base = f"http://127.0.0.1:{port}"
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except (OSError, ValueError, KeyError):  # no runtime file yet, half written, or no answer yet
                pass
            assert time.monotonic() < deadline, f"JupyterLab did not answer within 90 s: see {log.name}"
            time.sleep(0.25)
        yield {
            "base": base,
            "token": token,
            "notebook": f"notebooks/{target.name}",
            "kernels": kernels,
            "pid": proc.pid,
            "root": root,
        }
    finally:
        kernels.update(children_of(proc.pid))
        if proc.poll() is None:
            shut_down_kernels(base, token)
            os.kill(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        log.close()
        deadline = time.monotonic() + 10
        while (port_open(port) or any(alive(k) for k in kernels)) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = [k for k in kernels if alive(k)]
        for k in left:
            os.kill(k, signal.SIGKILL)
        assert not left, f"kernels {left} outlived JupyterLab"
        assert not port_open(port), f"port {port} is still in use after JupyterLab stopped"


@pytest.fixture(scope="module")
def browser_context(tmp_path_factory: pytest.TempPathFactory):
    """Debian's chromium, headless, with a fresh profile; no chromium process is left when it closes."""
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            args=list(handouts.CHROMIUM_ARGS),
            viewport={"width": 1280, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        left = [
            cmd.parent.name
            for cmd in Path("/proc").glob("[0-9]*/cmdline")
            if _read(cmd).find(str(profile)) >= 0 and alive(int(cmd.parent.name))
        ]
        if not left:
            break
        time.sleep(0.2)
    assert not left, f"chromium processes {left} outlived the test"


def _read(path: Path) -> str:
    try:
        return path.read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


KERNEL_STATUS = """() => {
    const item = Array.from(document.querySelectorAll('#jp-main-statusbar .jp-StatusBar-TextItem'))
        .find((el) => (el.getAttribute('title') || '').startsWith('Change kernel'));
    return item ? item.textContent.split('|').pop().trim() : '';
}"""
RUNNING_CELLS = """() => Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt'))
    .some((prompt) => prompt.textContent.includes('*'))"""


def accept_kernel_dialog(page: Page) -> None:
    """A slow start can make JupyterLab ask which kernel to use: take the one it proposes (the notebook's)."""
    dialog = page.locator(".jp-Dialog", has_text="Select Kernel")
    if dialog.count():
        dialog.locator("button.jp-mod-accept").click()


def wait_until_idle(page: Page, timeout_s: float = 180) -> None:
    """Wait until the kernel says Idle in the status bar and no cell is queued or running ([*])."""
    deadline = time.monotonic() + timeout_s
    status = ""
    while time.monotonic() < deadline:
        accept_kernel_dialog(page)
        status = page.evaluate(KERNEL_STATUS)
        if status == "Idle" and not page.evaluate(RUNNING_CELLS):
            return
        time.sleep(0.25)
    raise AssertionError(f"the notebook was not idle after {timeout_s:.0f} s (kernel status: {status!r})")


def open_and_run_all(page: Page, lab: dict, served: str) -> None:
    """Open `served` (a path under the server's root) in JupyterLab, wait for its kernel, click Run → Run All Cells."""
    page.goto(f"{lab['base']}/lab/tree/{served}?token={lab['token']}")
    page.wait_for_selector(".jp-Notebook .jp-CodeCell", timeout=60_000)
    wait_until_idle(page)  # the kernel has started and connected
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator("li.lm-Menu-item[data-command='runmenu:run-all']").click()


@pytest.fixture(scope="module")
def ran(lab, browser_context) -> Page:
    """The widget lesson open in JupyterLab, after Run → Run All Cells has finished."""
    page = browser_context.new_page()
    open_and_run_all(page, lab, lab["notebook"])
    page.wait_for_timeout(1000)
    wait_until_idle(page)
    lab["kernels"].update(children_of(lab["pid"]))
    page.screenshot(path=str(SHOTS / "lab_run_all.png"), full_page=True)
    return page


def test_every_cell_ran_without_an_error(ran: Page):
    cells = ran.locator(".jp-Notebook .jp-CodeCell")
    prompts = [p.strip() for p in ran.locator(".jp-Notebook .jp-CodeCell .jp-InputPrompt").all_text_contents()]
    assert cells.count() >= 1
    numbered = [p for p in prompts if re.fullmatch(r"\[\d+\]:", p)]
    assert len(numbered) == cells.count(), f"cells without an execution count: {prompts}"
    errors = ran.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    shown = [t[:300] for t in errors.all_text_contents()]
    assert not shown, f"cells wrote errors or warnings: {shown}"
    assert ran.locator(".jp-Dialog").count() == 0, "JupyterLab shows a dialog (kernel or file problem)"


def _change(page: Page, control, kind: str) -> str:
    """Move a slider with the keyboard or pick another dropdown option; return what was done."""
    if kind == "dropdown":
        index, count = control.evaluate("(s) => [s.selectedIndex, s.options.length]")
        if count < 2:
            return ""
        control.select_option(index=(index + 1) % count)
        return f"dropdown option {index} -> {(index + 1) % count}"
    now, top = (float(control.get_attribute(a) or 0) for a in ("aria-valuenow", "aria-valuemax"))
    key = "ArrowLeft" if now >= top else "ArrowRight"
    control.focus()
    for _ in range(3):
        control.press(key)
    return f"slider {now:g} -> {control.get_attribute('aria-valuenow')} ({key} x3)"


def test_changing_a_widget_changes_its_output(ran: Page):
    outputs = ran.locator(".jp-Notebook .jp-Cell-outputArea")
    dropdowns = outputs.locator(".widget-dropdown select")
    sliders = outputs.locator(".widget-slider .noUi-handle")
    controls = [(dropdowns.nth(i), "dropdown") for i in range(dropdowns.count())]
    controls += [(sliders.nth(i), "slider") for i in range(sliders.count())]
    assert controls, "the widget lesson shows no slider or dropdown"
    ran.screenshot(path=str(SHOTS / "widget_before.png"), full_page=True)
    changed, tried = [], []
    for number, (control, kind) in enumerate(controls[:6]):
        control.scroll_into_view_if_needed()
        before = ran.evaluate(OUTPUTS_TEXT)
        done = _change(ran, control, kind)
        if not done:
            continue
        deadline = time.monotonic() + 15
        after = before
        while after == before and time.monotonic() < deadline:
            ran.wait_for_timeout(200)
            after = ran.evaluate(OUTPUTS_TEXT)
        tried.append(done)
        if after != before:
            changed.append(done)
            ran.screenshot(path=str(SHOTS / f"widget_after_{number}_{kind}.png"), full_page=True)
    wait_until_idle(ran)
    errors = ran.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").all_text_contents()
    assert not errors, f"changing a widget raised: {[e[:300] for e in errors]}"
    print(f"\nchanged the output: {changed}; tried: {tried}")
    assert changed, f"no widget change altered the output text (tried: {tried})"


# --- the handouts that `make handouts` wrote -------------------------------------------------------

# Both editions' lesson pages, dist/handouts/{student,teacher}/NN_name.html, in reading order.
HANDOUT_FILES = [
    HANDOUTS / edition / f"{lesson.stem}.html"
    for edition in handouts.EDITIONS
    for lesson in handouts.lessons(ROOT)
    if (HANDOUTS / edition / f"{lesson.stem}.html").is_file()
]


# The Chinese editions' handouts (make handouts builds them from the stored outputs): dist/handouts/zh-*/.
ZH_HANDOUT_FILES = [
    HANDOUTS / language / edition / f"{lesson.stem}.html"
    for language in ("zh-Hans", "zh-Hant")
    for edition in handouts.EDITIONS
    for lesson in handouts.lessons(ROOT, language)
    if (HANDOUTS / language / edition / f"{lesson.stem}.html").is_file()
]


def handout_id(path: Path) -> str:
    language = path.parent.parent.name
    return f"{language + '/' if language in ('zh-Hans', 'zh-Hant') else ''}{path.parent.name}/{path.name}"


def handout_source(path: Path) -> Path:
    """The notebook a handout was made from: notebooks/NN.ipynb, or notebooks/<language>/NN.ipynb."""
    language = path.parent.parent.name
    folder = ROOT / "notebooks" / language if language in ("zh-Hans", "zh-Hant") else ROOT / "notebooks"
    return folder / f"{path.stem}.ipynb"


CHECK_PAGE = """() => {
    const images = Array.from(document.querySelectorAll('.jp-OutputArea-output img, .handout-widget img'));
    const maths = Array.from(document.querySelectorAll('math'));
    return {
        images: images.map((img) => ({complete: img.complete, width: img.naturalWidth,
                                      shown: img.getBoundingClientRect().height})),
        maths: maths.map((m) => m.getBoundingClientRect().width),
        widgets: Array.from(document.querySelectorAll('.handout-widget')).map((w) => w.textContent.trim()),
        banner: (document.querySelector('.handout-banner') || {textContent: ''}).textContent,
    };
}"""


def open_offline(context, path: Path) -> tuple[Page, list[str]]:
    """Open a local file with every network request refused, and record what it asked for."""
    asked: list[str] = []
    page = context.new_page()
    page.route(re.compile(r"^(https?|wss?|ftp)://"), lambda route: (asked.append(route.request.url), route.abort()))
    page.goto(path.resolve().as_uri(), wait_until="load")
    return page, asked


def test_handouts_were_built_for_every_lesson():
    lessons = {p.stem for p in handouts.lessons(ROOT)}
    for edition in handouts.EDITIONS:
        names = {p.stem for p in HANDOUT_FILES if p.parent.name == edition}
        assert names == lessons, f"the {edition} edition lacks some lessons: run `make handouts` (make e2e does)"
        assert (HANDOUTS / edition / "index.html").is_file()
    assert (HANDOUTS / "index.html").is_file()


@pytest.mark.parametrize("path", HANDOUT_FILES + ZH_HANDOUT_FILES, ids=handout_id)
def test_handout_is_offline_and_its_plots_are_visible(browser_context, path: Path):
    page, asked = open_offline(browser_context, path)
    try:
        found = page.evaluate(CHECK_PAGE)
        assert not asked, f"{path.name} asked the network for {asked}"
        words = ("outputs", "输出", "輸出")
        assert any(w in found["banner"] for w in words), "the banner says where the outputs came from"
        for image in found["images"]:
            assert image["complete"] and image["width"] > 0 and image["shown"] > 50, f"a plot is not visible: {image}"
        assert all(width > 0 for width in found["maths"]), "a formula has no width"
        assert all(w for w in found["widgets"]), "a widget snapshot is empty"
        plots = page.locator(".jp-OutputArea-output img")
        if plots.count():
            plots.first.scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / f"handout_{handout_id(path).replace('/', '_')}_plot.png"))
        else:
            page.screenshot(path=str(SHOTS / f"handout_{handout_id(path).replace('/', '_')}.png"))
    finally:
        page.close()


def test_some_handout_has_a_plot(browser_context):
    counts = []
    for path in HANDOUT_FILES:
        page, _ = open_offline(browser_context, path)
        counts.append(page.locator(".jp-OutputArea-output img").count())
        page.close()
    assert sum(counts) >= 1, "no handout shows a plot: lessons 02 and 03 both draw one"


def test_widget_snapshot_and_math_render_offline(browser_context, tmp_path: Path):
    """A notebook with a widget and TeX, run and turned into a handout: both must be readable."""
    nb = nbformat.read(FIXTURE, as_version=4)
    nb.cells.append(
        nbformat.v4.new_markdown_cell(r"Weights: $n \times 2$ bytes, and $$\frac{16\,\text{GiB}}{2^{30}}$$")
    )
    handouts.execute(nb, FIXTURE, "fixture", handouts.Progress(), timeout=120)
    assert handouts.staticize_widgets(nb) == 1
    page_html, formulas = handouts.to_html(nb, "Widget fixture", "outputs from a test run")
    assert formulas == 2 and handouts.remote_references(page_html) == []
    target = tmp_path / "fixture.html"
    target.write_text(page_html, "utf-8")
    page, asked = open_offline(browser_context, target)
    try:
        found = page.evaluate(CHECK_PAGE)
        assert not asked
        assert len(found["maths"]) == 2 and min(found["maths"]) > 5
        (snapshot,) = found["widgets"]
        assert "Batch size" in snapshot and "8 x 1,000,000 values x 2 bytes = 16,000,000 bytes" in snapshot
        assert "in GB (10^9 bytes): 0.0160" in snapshot
        page.screenshot(path=str(SHOTS / "handout_widget_and_math.png"), full_page=True)
    finally:
        page.close()


TEACHER_NOTES = """() => Array.from(document.querySelectorAll('.handout-teacher-notes')).map((notes) => ({
    id: notes.getAttribute('data-exercise'),
    shown: notes.getBoundingClientRect().height,
    rows: Array.from(notes.querySelectorAll('table.handout-teacher-table tbody tr'))
        .map((row) => row.children[1].textContent.trim()),
}))"""


def exercises_noted(lesson: Path) -> list[str]:
    """The exercises whose notes the teacher edition of `lesson` must show: those it asks, then the rest of its own."""
    asked = handouts.asked_exercises(nbformat.read(lesson, as_version=4))
    own = [ex.id for ex in handouts.lesson_exercises(lesson.name[:2]) if ex.id not in asked.ids]
    return list(dict.fromkeys(asked.ids)) + own


@pytest.mark.parametrize("lesson", handouts.lessons(ROOT), ids=lambda p: p.name)
def test_student_edition_hides_and_teacher_edition_shows_the_solutions(browser_context, lesson: Path):
    student, teacher = (HANDOUTS / edition / f"{lesson.stem}.html" for edition in handouts.EDITIONS)
    nb = nbformat.read(lesson, as_version=4)
    asked = handouts.asked_exercises(nb)
    assert handouts.solution_leaks(student.read_text("utf-8"), asked.ids, asked.demos) == []
    page, _ = open_offline(browser_context, student)
    try:
        assert page.locator("details").count() == 0, f"student/{student.name} has a <details> answer"
        assert page.evaluate(TEACHER_NOTES) == [], f"student/{student.name} shows teacher notes"
        checks = page.locator(".jp-OutputArea-output", has_text="Not attempted yet").count()
        assert checks >= len(asked.checks), "every check in the student edition says Not attempted"
    finally:
        page.close()
    page, _ = open_offline(browser_context, teacher)
    try:
        notes = page.evaluate(TEACHER_NOTES)
        assert [n["id"] for n in notes] == exercises_noted(lesson)
        for n in notes:
            assert n["shown"] > 50, f"{n['id']}'s notes are not visible"
            assert n["rows"] and n["rows"][0].endswith("correct") and "incorrect" not in n["rows"][0], n
        if notes:
            page.locator(".handout-teacher-notes").first.scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / f"handout_teacher_{lesson.stem}_notes.png"))
    finally:
        page.close()


@pytest.mark.parametrize("edition", handouts.EDITIONS)
def test_course_pdf_has_a_cover_and_every_lesson(edition: str):
    from pypdf import PdfReader

    reader = PdfReader(str(HANDOUTS / handouts.PDF_NAMES[edition]))
    lessons = handouts.lessons(ROOT)
    assert len(reader.pages) >= len(lessons) + 1
    cover = reader.pages[0].extract_text()
    assert "Where and when these outputs were made" in cover and "Generated" in cover
    assert handouts.EDITION_TITLES[edition] in cover
    titles = [item.title for item in reader.outline if not isinstance(item, list)]
    expected = [handouts.lesson_title(nbformat.read(path, as_version=4), path.stem) for path in lessons]
    assert titles[1:] == expected, "the lessons in reading order, after the cover"
    text = handouts.squeeze("".join(page.extract_text() for page in reader.pages[1:]))
    for ident in (ident for lesson in lessons for ident in exercises_noted(lesson)):
        marker = handouts.squeeze(f"Teacher edition · exercise {ident}")
        solution = handouts.squeeze(f"Solution ({handouts.EXERCISES[ident].title}):")
        if edition == handouts.TEACHER:
            assert marker in text and solution in text, f"course-teacher.pdf lacks {ident}'s notes"
        else:
            assert marker not in text and solution not in text, f"course-student.pdf shows {ident}'s solution"


# --- every lesson as a reader sees it (issue 12) -------------------------------------------------------

# whatever notebooks/NN_*.ipynb and the editions' notebooks/zh-*/NN_*.ipynb hold when the tests are collected
LESSONS = handouts.lessons(ROOT) + [p for language in CHINESE for p in handouts.lessons(ROOT, language)]
SENTINEL_ID = "reader-check-sentinel"
# The last cell of each copy JupyterLab renders: a formula, so that the test knows MathJax has typeset
# the page (JupyterLab loads MathJax on the first formula and typesets cell by cell, in order).
SENTINEL = nbformat.v4.new_markdown_cell("$x$", id=SENTINEL_ID, metadata={"tags": [reader_check.ALLOW_MATH_TAG]})
RENDERED = """([scope, index, count]) => {
    const panel = document.querySelector(scope);
    if (!panel) return false;
    const cells = panel.querySelectorAll('.jp-MarkdownCell');
    if (cells.length !== count) return false;
    if (!Array.from(cells).every((cell) => cell.querySelector('.jp-RenderedMarkdown'))) return false;
    return Boolean(panel.querySelector(`.jp-Cell[data-windowed-list-index="${index}"] mjx-container`));
}"""
SHOW_FORMULA = """([scope, sentinel]) => {
    const shown = Array.from(document.querySelectorAll(`${scope} mjx-container`))
        .find((m) => !m.closest(`.jp-Cell[data-windowed-list-index="${sentinel}"]`));
    if (shown) shown.scrollIntoView({block: 'center'});
    return Boolean(shown);
}"""
OPEN = """async (path) => {
    const widget = await window.jupyterapp.commands.execute('docmanager:open', {path, factory: 'Notebook'});
    await widget.context.ready;
    return widget.id;
}"""
CLOSE = """async (id) => {
    const widget = Array.from(window.jupyterapp.shell.widgets('main')).find((w) => w.id === id);
    if (widget) {
        await widget.sessionContext.shutdown();
        widget.dispose();
    }
}"""


SETTLED = """(scope) => {
    const bodies = Array.from(document.querySelectorAll(`${scope} .jp-MarkdownCell .jp-RenderedMarkdown`));
    return [bodies.length, bodies.reduce((n, b) => n + b.innerHTML.length, 0),
            document.querySelectorAll(`${scope} mjx-container`).length].join(' ');
}"""


def wait_until_settled(page: Page, scope: str, quiet_s: float = 1.0, timeout_s: float = 30) -> None:
    """Wait until the rendered markdown stops changing for `quiet_s`: a cell whose markdown took longer to
    render (a code block's highlighting, say) than the sentinel is typeset before it is read."""
    deadline, last, since = time.monotonic() + timeout_s, None, time.monotonic()
    while time.monotonic() < deadline:
        now = page.evaluate(SETTLED, scope)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet_s:
            return
        page.wait_for_timeout(200)
    raise AssertionError(f"the rendered markdown kept changing for {timeout_s:.0f} s")


def end_sessions(lab, path: str) -> None:
    """Stop any kernel JupyterLab still runs for the notebook at server path `path` (it is only read)."""
    headers = {"Authorization": f"token {lab['token']}"}
    with urllib.request.urlopen(
        urllib.request.Request(f"{lab['base']}/api/sessions", headers=headers), timeout=10
    ) as r:
        sessions = json.load(r)
    for session in sessions:
        if session.get("path") == path:
            request = urllib.request.Request(
                f"{lab['base']}/api/sessions/{session['id']}", headers=headers, method="DELETE"
            )
            urllib.request.urlopen(request, timeout=15).close()


def lab_href(href: str, lab, served: str) -> str:
    """A link as the lesson wrote it, from the address JupyterLab made of it (/files/<path>?_xsrf=…#anchor)."""
    parts = urllib.parse.urlsplit(href)
    if not href.startswith(lab["base"] + "/") or not parts.path.startswith(("/files/", "/lab/tree/")):
        return href
    path = urllib.parse.unquote(
        parts.path[len("/files/") :] if parts.path.startswith("/files/") else parts.path[len("/lab/tree/") :]
    )
    relative = posixpath.relpath(path, posixpath.dirname(served))
    return urllib.parse.quote(relative) + (f"#{parts.fragment}" if parts.fragment else "")


@pytest.fixture(scope="module")
def reader(lab, browser_context) -> Page:
    """JupyterLab in a workspace of its own, no document open: read_in_lab opens the lessons in it one by one."""
    page = browser_context.new_page()
    page.goto(f"{lab['base']}/lab/workspaces/reader-{secrets.token_hex(4)}?token={lab['token']}")
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.commands.hasCommand('docmanager:open')", timeout=120_000
    )
    page.evaluate("() => window.jupyterapp.restored")
    yield page
    page.close()


def read_in_lab(reader: Page, lab, source: Path, folder: str) -> tuple[list[reader_check.Cell], list[str]]:
    """Render a copy of `source` (plus SENTINEL) in JupyterLab; return its markdown cells and the ids it shows.

    The copy is opened with JupyterLab's own command, read once MathJax has typeset it, then closed and its
    kernel stopped. Each link is handed back as the lesson wrote it, relative to `source`.
    """
    nb = nbformat.read(source, as_version=4)
    nb.cells.append(nbformat.from_dict(json.loads(json.dumps(SENTINEL))))
    served = f"{folder}/{source.name}"
    (lab["root"] / folder).mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, lab["root"] / served)
    widget = reader.evaluate(OPEN, served)
    scope = f"#{widget} .jp-Notebook"
    try:
        markdown = sum(1 for c in nb.cells if c.cell_type == "markdown")
        try:
            reader.wait_for_function(RENDERED, arg=[scope, len(nb.cells) - 1, markdown], timeout=120_000, polling=250)
        except Exception as error:  # a timeout: keep a picture of what was there
            reader.screenshot(path=str(SHOTS / f"read_{source.stem}_timeout.png"))
            raise AssertionError(f"JupyterLab did not render {source.name}'s markdown and math in 120 s") from error
        wait_until_settled(reader, scope)
        found = reader.evaluate(reader_check.EXTRACT_JS, scope)
        if reader.evaluate(SHOW_FORMULA, [scope, len(nb.cells) - 1]):  # a picture of the first one
            reader.screenshot(path=str(SHOTS / f"read_{source.stem}_formula.png"))
    finally:
        reader.evaluate(CLOSE, widget)
        end_sessions(lab, served)
    cells = [c for c in reader_check.cells_from_page(found, nb) if c.cell_id != SENTINEL_ID]
    for cell in cells:
        cell.links = [lab_href(href, lab, served) for href in cell.links]
    return cells, found["ids"]


@pytest.fixture(scope="module")
def read_lessons(lab, reader):
    """Every lesson rendered in JupyterLab: {lesson: its cells}, and the anchors of all of them."""
    anchors = reader_check.Anchors()
    read = {}
    started = time.monotonic()
    for lesson in LESSONS:
        folder = "read/notebooks" if lesson.parent.name == "notebooks" else f"read/notebooks/{lesson.parent.name}"
        cells, ids = read_in_lab(reader, lab, lesson, folder)
        anchors.add(lesson, ids)
        read[lesson] = cells
    print(f"\nrendered {len(LESSONS)} lessons in JupyterLab in {time.monotonic() - started:.0f} s")
    return read, anchors


@pytest.mark.parametrize(
    "lesson", LESSONS, ids=lambda p: p.name if p.parent.name == "notebooks" else f"{p.parent.name}/{p.name}"
)
def test_lesson_reads_as_meant_in_jupyterlab(read_lessons, lesson: Path):
    read, anchors = read_lessons
    found = reader_check.problems(lesson.name, lesson, read[lesson], anchors)
    assert read[lesson], f"JupyterLab showed no markdown cell of {lesson.name}"
    assert not found, f"{lesson.name} as JupyterLab renders it:\n{reader_check.report(found)}"


@pytest.mark.parametrize("path", HANDOUT_FILES + ZH_HANDOUT_FILES, ids=handout_id)
def test_handout_reads_as_meant(browser_context, path: Path):
    source = handout_source(path)
    if not source.is_file():
        pytest.skip(f"{path.name} is left from an earlier build: notebooks/{source.name} is gone")
    cells, found = read_handout(browser_context, path, nbformat.read(source, as_version=4))
    assert cells, f"{path.name} shows no markdown cell"
    anchors = reader_check.Anchors()
    anchors.add(path, found["ids"])
    problems = reader_check.problems(source.name, path, cells, anchors)
    assert not problems, f"handout {handout_id(path)}:\n{reader_check.report(problems)}"


def read_handout(context, path: Path, nb) -> tuple[list[reader_check.Cell], dict]:
    """A handout's markdown cells as the browser shows them (offline), matched with the notebook's by id."""
    page, asked = open_offline(context, path)
    try:
        found = page.evaluate(reader_check.EXTRACT_JS, "body")
    finally:
        page.close()
    assert not asked, f"{path.name} asked the network for {asked}"
    return reader_check.cells_from_page(found, nb), found


# A throw-away lesson with one defect a cell (and cells that must pass): what each path must report.
# (cell id, markdown, cell tags, problems in JupyterLab, problems in a handout)
PLANTED = [
    ("title", "# Planted defects", [], [], []),
    # JupyterLab pairs the two dollars (issue 12, lesson 05); the handout's converter follows pandoc's
    # rule (no digit right after a closing $), so there it is text, as meant.
    ("price", "A 24 GB card rents for about $0.35 to $1.10 an hour.", [], ["math"], []),
    ("price-entity", "A 24 GB card rents for about &#36;0.35 to &#36;1.10 an hour.", [], ["math"], []),
    (
        "price-span",
        "A 24 GB card rents for about <span>&#36;</span>0.35 to <span>&#36;</span>1.10 an hour.",
        [],
        [],
        [],
    ),
    ("formula-untagged", r"The weights take $n \times 2$ bytes.", [], ["math"], ["math"]),
    ("formula-tagged", r"The weights take $n \times 2$ bytes.", [reader_check.ALLOW_MATH_TAG], [], []),
    (
        "details",
        "<details><summary>Answer</summary>\n**16 GB**, because 8 B × 2 bytes.\n</details>",
        [],
        ["raw"],
        ["raw"],
    ),
    ("entity", "A T4 rents for &amp;#36;0.35 an hour.", [], ["raw"], ["raw"]),
    ("tag-as-text", r"Click the \<details> marker to open the answer.", [], ["raw"], ["raw"]),
    ("broken-link", "Read [the docs](https://example.com/a page) first.", [], ["raw"], ["raw"]),
    ("table", "| GPU | memory |\n| T4 | 16 GB |", [], ["raw"], ["raw"]),
    ("link-missing", "Next: [lesson 99](99_no_such_lesson.ipynb).", [], ["link"], ["link"]),
    ("anchor-missing", "See [its first step](00_target.ipynb#No-such-step).", [], ["link"], ["link"]),
    ("anchor-here-missing", "See [above](#Nowhere).", [], ["link"], ["link"]),
    (
        "clean",
        "**Bold**, *emphasis*, `$5 and $6 in code`, [the target's step 1](00_target.ipynb#Step-1-—-Start), "
        "[this lesson's title](#Planted-defects) and a table:\n\n| GPU | memory |\n|---|---|\n| T4 | 16 GB |",
        [],
        [],
        [],
    ),
]


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """The throw-away lesson (00_planted.ipynb) and the lesson it links to (00_target.ipynb), in tmp_path."""
    cells = [nbformat.v4.new_markdown_cell(text, id=cid, metadata={"tags": tags}) for cid, text, tags, *_ in PLANTED]
    kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(
        nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": kernelspec}), tmp_path / "00_planted.ipynb"
    )
    target = [
        nbformat.v4.new_markdown_cell("# Target", id="t1"),
        nbformat.v4.new_markdown_cell("## Step 1 — Start", id="t2"),
    ]
    nbformat.write(
        nbformat.v4.new_notebook(cells=target, metadata={"kernelspec": kernelspec}), tmp_path / "00_target.ipynb"
    )
    return tmp_path / "00_planted.ipynb"


def _caught(found: list[reader_check.Problem]) -> dict[str, list[str]]:
    caught: dict[str, list[str]] = {}
    for problem in found:
        caught.setdefault(problem.cell, []).append(problem.kind)
    return caught


def _expected(column: int) -> dict[str, list[str]]:
    return {row[0]: row[column] for row in PLANTED if row[column]}


def test_planted_defects_are_caught_in_jupyterlab(lab, reader, planted: Path):
    cells, ids = read_in_lab(reader, lab, planted, "planted")
    anchors = reader_check.Anchors()
    anchors.add(planted, ids)
    found = reader_check.problems(planted.name, planted, cells, anchors)
    print(f"\nJupyterLab, planted defects:\n{reader_check.report(found)}")
    assert {c.cell_id for c in cells} == {row[0] for row in PLANTED}, "every planted cell was rendered"
    assert _caught(found) == _expected(3)
    (price,) = [p for p in found if p.cell == "price"]
    assert "0.35" in price.detail and "1.10" in price.detail, "the report shows what the reader sees"


def test_planted_defects_are_caught_in_a_handout(browser_context, planted: Path, tmp_path: Path):
    target = planted.with_name("00_target.ipynb")
    handout_of = {p.resolve(): f"{p.stem}.html" for p in (planted, target)}
    pages = {}
    for source in (planted, target):
        nb = nbformat.read(source, as_version=4)
        page_html, _ = handouts.to_html(
            nb, source.stem, "planted", lambda href, s=source: handouts.handout_href(href, s, handout_of)
        )
        pages[source] = tmp_path / f"{source.stem}.html"
        pages[source].write_text(page_html, "utf-8")
    cells, found_ids = read_handout(browser_context, pages[planted], nbformat.read(planted, as_version=4))
    anchors = reader_check.Anchors()
    anchors.add(pages[planted], found_ids["ids"])
    found = reader_check.problems(planted.name, pages[planted], cells, anchors)
    print(f"\nhandout, planted defects:\n{reader_check.report(found)}")
    assert {c.cell_id for c in cells} == {row[0] for row in PLANTED}
    assert _caught(found) == _expected(4)


# --- the Chinese editions (issue 16) ----------------------------------------------------------------


def _cell_index(nb: nbformat.NotebookNode, exercise: str) -> int:
    """The index of the `answer = ...` cell just before the check cell of `exercise`."""
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and f'EXERCISES["{exercise}"]' in cell.source:
            assert nb.cells[index - 1].source.strip() == "answer = ...", "the answer cell comes just before"
            return index - 1
    raise AssertionError(f"no check cell of {exercise}")


def expected_feedback(language: str, exercise: str, answer: str) -> str:
    """What lessonkit says, in `language`, to `answer`: computed here, in the test's own process."""
    import lessonkit
    from lessonkit.exercises import EXERCISES

    lessonkit.set_language(language)
    try:
        return EXERCISES[exercise].check(eval(answer), record=False).message
    finally:
        lessonkit.set_language("en")


@pytest.mark.parametrize("language", CHINESE)
def test_exercise_feedback_speaks_the_editions_language_in_jupyterlab(lab, browser_context, language: str):
    """Run the edition's lesson 01, answer one question wrongly by typing in the cell, and read the feedback."""
    served = f"notebooks/{language}/{FEEDBACK_LESSON}"
    nb = nbformat.read(ROOT / served, as_version=4)
    answer_cell = _cell_index(nb, FEEDBACK_EXERCISE)
    page = browser_context.new_page()
    try:
        open_and_run_all(page, lab, served)
        page.wait_for_timeout(1000)
        wait_until_idle(page)
        lab["kernels"].update(children_of(lab["pid"]))
        cells = page.locator(".jp-Notebook .jp-Cell")
        editor = cells.nth(answer_cell).locator(".cm-content")
        editor.scroll_into_view_if_needed()
        editor.click()
        page.keyboard.press("Control+a")
        page.keyboard.type(f"answer = {FEEDBACK_ANSWER}")
        page.keyboard.press("Shift+Enter")  # runs the answer cell and moves to the check cell
        page.keyboard.press("Shift+Enter")  # runs the check cell
        page.wait_for_timeout(500)
        wait_until_idle(page)
        shown = cells.nth(answer_cell + 1).locator(".jp-Cell-outputArea").inner_text()
        cells.nth(answer_cell + 1).scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"lab_feedback_{language}.png"))
    finally:
        page.close()
    expected = expected_feedback(language, FEEDBACK_EXERCISE, FEEDBACK_ANSWER)
    assert CJK.search(expected), f"lessonkit's {language} feedback is not Chinese: {expected!r}"
    assert handouts.squeeze(expected) in handouts.squeeze(shown), f"JupyterLab shows {shown!r}"
    assert expected != expected_feedback("en", FEEDBACK_EXERCISE, FEEDBACK_ANSWER)


def chinese_handouts(language: str) -> list[Path]:
    return sorted((HANDOUTS / language).glob("*/[0-9][0-9]_*.html"))


def pdf_font_families(path: Path) -> set[str]:
    """The font families a PDF embeds: /BaseFont of each font, or its descriptor's /FontFamily (Type3)."""
    from pypdf import PdfReader

    families = set()
    for page in PdfReader(str(path)).pages:
        for font in (page.get("/Resources", {}).get("/Font") or {}).values():
            font = font.get_object()
            descriptor = font.get("/FontDescriptor")
            family = descriptor.get_object().get("/FontFamily") if descriptor is not None else None
            name = str(family or font.get("/BaseFont", ""))
            families.add(re.sub(r"^/?[A-Z]{6}\+", "", name).lstrip("/"))
    return families


def installed_cmap() -> set[int]:
    """Every character some installed font has a glyph for (fontconfig's fonts, read with fontTools)."""
    from fontTools.ttLib import TTCollection, TTFont

    files = subprocess.run(["fc-list", "--format", "%{file}\\n"], capture_output=True, text=True, check=True)
    covered: set[int] = set()
    for name in sorted(set(files.stdout.split())):
        try:
            fonts = TTCollection(name).fonts if name.lower().endswith(".ttc") else [TTFont(name, lazy=True)]
        except Exception:  # a font format fontTools cannot read (a bitmap font): not one the handouts use
            continue
        for font in fonts:
            covered.update(font.getBestCmap() or {})
    return covered


@pytest.mark.parametrize("language", CHINESE)
def test_chinese_handouts_were_built_for_every_lesson(language: str):
    lessons = {p.stem for p in handouts.lessons(ROOT, language)}
    assert len(lessons) == len(handouts.lessons(ROOT))
    for edition in handouts.EDITIONS:
        names = {p.stem for p in (HANDOUTS / language / edition).glob("[0-9][0-9]_*.html")}
        assert names == lessons, f"dist/handouts/{language}/{edition} lacks lessons: run `make handouts`"


@pytest.mark.parametrize("language", CHINESE)
@pytest.mark.parametrize("edition", handouts.EDITIONS)
def test_chinese_pdf_embeds_the_editions_cjk_font_and_every_lesson(language: str, edition: str):
    from pypdf import PdfReader

    path = HANDOUTS / language / handouts.PDF_NAMES[edition]
    reader = PdfReader(str(path))
    words = handouts.WORDS[language]
    cover = reader.pages[0].extract_text()
    assert CJK.search(cover)
    titles = [item.title for item in reader.outline if not isinstance(item, list)]
    assert titles[0] == words["cover_bookmark"] and len(titles) == 1 + len(handouts.lessons(ROOT, language))
    families = pdf_font_families(path)
    script = "SC" if language == "zh-Hans" else "TC"
    other = {f for f in families if re.search(r"CJK (JP|KR|HK|SC|TC)$", f) and not f.endswith(script)}
    print(f"\n{path.relative_to(ROOT)}: {len(reader.pages)} pages; fonts: {sorted(families)}")
    assert f"Noto Sans CJK {script}" in families, f"{path.name} embeds no {script} face: {sorted(families)}"
    assert not other, f"{path.name} draws some Chinese in another script's face: {sorted(other)}"


@pytest.mark.parametrize("language", CHINESE)
def test_chinese_handouts_have_a_glyph_for_every_character(browser_context, language: str):
    """No missing-glyph box: every character the pages show is in a font installed here; a screenshot each."""
    covered = installed_cmap()
    missing: dict[str, set[str]] = {}
    pages = chinese_handouts(language)
    assert pages, f"no handouts in dist/handouts/{language}: run `make handouts`"
    for path in pages:
        text = handouts.visible_text(path.read_text("utf-8"))
        lacking = {ch for ch in set(text) if not ch.isspace() and ord(ch) >= 0x20 and ord(ch) not in covered}
        if lacking:
            missing[handout_id(path)] = lacking
    assert not missing, f"characters no installed font can draw: {missing}"
    page, asked = open_offline(
        browser_context, HANDOUTS / language / handouts.STUDENT / FEEDBACK_LESSON.replace(".ipynb", ".html")
    )
    try:
        assert CJK.search(page.inner_text("body")) and not asked
        page.screenshot(path=str(SHOTS / f"handout_{language}_01.png"))
    finally:
        page.close()


# --- tables that line up where the learner reads them (issue 28, item 3) ---------------------------------
# A text table padded for a terminal (a Chinese character counted as two columns) does not line up in a browser,
# where a Chinese character is about 1.67 monospace columns wide; lessonkit.table shows a table as HTML in the
# notebook instead. Each edition's table is opened in JupyterLab, photographed, and its columns measured: every
# column's cells must start (left-aligned) or end (right-aligned) at the same x, within a pixel and a half. The
# same table as padded text, planted beside it, must fail the same measurement.

COLUMN_EDGES = """(scope) => {
    const edges = (range) => { const r = range.getBoundingClientRect(); return [r.left, r.right]; };
    return Array.from(document.querySelectorAll(`${scope} .jp-Cell-outputArea`)).map((area) => {
        const table = area.querySelector('table');
        if (table) {
            return Array.from(table.rows).map((row) => Array.from(row.cells).map((cell) => {
                const range = document.createRange();
                range.selectNodeContents(cell);
                return edges(range);
            }));
        }
        const pre = area.querySelector('pre');
        if (!pre) return [];
        const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
        const nodes = [];
        let all = '';
        while (walker.nextNode()) { nodes.push([walker.currentNode, all.length]); all += walker.currentNode.data; }
        const span = (from, to) => {  // the box of characters from..to of the <pre>'s text
            const range = document.createRange();
            const place = (offset, setter) => {
                let node = nodes[0];
                for (const n of nodes) if (n[1] <= offset) node = n;
                setter.call(range, node[0], Math.min(offset - node[1], node[0].data.length));
            };
            place(from, range.setStart);
            place(to, range.setEnd);
            return edges(range);
        };
        const rows = [];
        let start = 0;
        for (const line of all.split('\\n')) {
            const fields = [];
            const field = /\\S+(?: \\S+)*/g;  // a field: words with single spaces between them
            let m;
            while ((m = field.exec(line))) fields.push(span(start + m.index, start + m.index + m[0].length));
            rows.push(fields);
            start += line.length + 1;
        }
        return rows;
    });
}"""


def misaligned(rows: list[list[list[float]]], tolerance: float = 1.5) -> list[str]:
    """The columns of a measured table whose cells neither start nor end at one x (within `tolerance` px)."""
    counts = [len(r) for r in rows if r]
    if not counts:
        return ["no table found"]
    columns = max(set(counts), key=counts.count)  # the table's rows; a title or a note has another count
    body = [r for r in rows if len(r) == columns]
    found = []
    for j in range(columns):
        lefts, rights = [r[j][0] for r in body], [r[j][1] for r in body]
        spread = min(max(lefts) - min(lefts), max(rights) - min(rights))
        if spread > tolerance:
            found.append(f"column {j + 1} of {columns}: its cells' edges are {spread:.1f} px apart")
    return found


def edition_table(language: str):
    """Lesson 03's budget table (how much of a T4 is left for Llama 3 8B's fp16 weights) in the edition's words."""
    import lessonkit
    from lessonkit.table import table

    words = {
        "zh-Hans": (("预算", "GB", "放下 8B 权重后", "结果"),
                    ("nvidia-smi 总量（15360 MiB）", "Colab 上 CUDA 报告的总量", "CUDA 总量减去 400 MiB 上下文"),
                    ("还剩", "不够")),
        "zh-Hant": (("預算", "GB", "放下 8B 權重後", "結果"),
                    ("nvidia-smi 總量（15360 MiB）", "Colab 上 CUDA 回報的總量", "CUDA 總量扣掉 400 MiB 上下文"),
                    ("還剩", "不夠")),
    }[language]  # fmt: skip
    (head, labels, (left, short)) = words
    lessonkit.set_language(language)
    try:
        return table(
            [
                (labels[0], "16.11 GB", "43 MiB", left),
                (labels[1], "15.84 GB", "214 MiB", short),
                (labels[2], "15.42 GB", "614 MiB", short),
            ],
            head=head,
        )
    finally:
        lessonkit.set_language("en")


@pytest.mark.parametrize("language", CHINESE)
def test_an_editions_table_lines_up_in_jupyterlab(lab, reader, language: str):
    """lessonkit's HTML table lines up in JupyterLab; the same table as padded text (planted) does not."""
    shown = edition_table(language)
    data = {"text/html": shown._repr_html_(), "text/plain": str(shown)}
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("table(rows, head=head)", outputs=[nbformat.v4.new_output("display_data", data)]),
            nbformat.v4.new_code_cell("print(table(rows, head=head))", outputs=[
                nbformat.v4.new_output("stream", name="stdout", text=str(shown) + "\n")
            ]),  # planted: the text a terminal lines up
        ],
        metadata={"language": language},
    )  # fmt: skip
    served = f"tables/{language}.ipynb"
    (lab["root"] / "tables").mkdir(exist_ok=True)
    nbformat.write(nb, lab["root"] / served)
    widget = reader.evaluate(OPEN, served)
    scope = f"#{widget} .jp-Notebook"
    try:
        reader.wait_for_function(
            "(scope) => document.querySelector(`${scope} .jp-Cell-outputArea table`) && "
            "document.querySelectorAll(`${scope} .jp-Cell-outputArea pre`).length >= 1",
            arg=scope,
            timeout=60_000,
        )
        reader.wait_for_timeout(500)  # the fonts settle
        no_kernel = reader.locator(".jp-Dialog button", has_text="No Kernel")  # only stored outputs are read
        if no_kernel.count():
            no_kernel.first.click()
        reader.screenshot(path=str(SHOTS / f"lab_table_{language}.png"))
        html_rows, text_rows = reader.evaluate(COLUMN_EDGES, scope)
    finally:
        reader.evaluate(CLOSE, widget)
        end_sessions(lab, served)
    assert len(html_rows) == 4 and all(len(r) == 4 for r in html_rows), html_rows
    assert misaligned(html_rows) == [], f"{language}: lessonkit's HTML table does not line up in JupyterLab"
    planted = misaligned(text_rows)
    assert planted, f"{language}: the padded text table lined up: the measurement cannot tell (see {SHOTS})"
    assert any(p.startswith("column 2 of 4") for p in planted), planted


# --- the VRAM calculator under quick changes (issue 24) ----------------------------------------------
# Learners saw the calculator redraw as a blank plot after quick changes. JupyterLab 4.4+ sends widget
# messages to a kernel subshell when the kernel has them (ipykernel 7), so a control's callback can run on a
# thread of its own beside the main thread. Here the keyboard moves the Batch slider and the GPU list as fast
# as it can while another cell runs on the main thread and shows pyplot figures (as the lesson's later cells
# do, and as matplotlib-inline's end-of-cell flush does). Afterwards the controls show what the keys chose
# (no change set back), the calculator shows one plot, with bars, of that state, and the other cell shows
# only its own figures.
QUICK_CELLS = (
    "from lessonkit.calculator import Calculator\n\ncalc = Calculator()\ncalc.widget()",
    "import time\n\nimport matplotlib.pyplot as plt\n\n"
    "made, end = 0, time.monotonic() + 12\n"
    "while time.monotonic() < end:\n"
    "    fig, ax = plt.subplots(figsize=(2, 1))\n"
    "    ax.plot([0, 1], [0, made])\n"
    "    made += 1\n"
    "    plt.show()  # shows every figure pyplot holds, as the inline backend does at the end of a cell\n"
    "    time.sleep(0.4)\n"
    "print(f'made {made} figures')",
)
QUICK_STATE = """(cell) => {
    const output = cell.querySelector('.widget-output');
    const gpu = Array.from(cell.querySelectorAll('.widget-dropdown'))
        .find((d) => (d.querySelector('label') || {}).textContent === 'GPU').querySelector('select');
    return {
        batch: Number(cell.querySelector('.widget-slider .noUi-handle').getAttribute('aria-valuenow')),
        gpu_index: gpu.selectedIndex,
        gpu: gpu.options[gpu.selectedIndex].textContent.replace(/\\u00a0/g, ' '),  // ipywidgets writes nbsp
        text: output.innerText,
        images: Array.from(output.querySelectorAll('img')).map((img) => img.src),
    };
}"""


def _weights_pixels(src: str) -> int:
    """Pixels of the weights' colour in a data: URL PNG: the calculator's bars (a blank plot has almost none)."""
    import base64
    import io

    import matplotlib.image
    import numpy as np
    from matplotlib.colors import to_rgb

    from lessonkit.memparts import PARTS

    image = matplotlib.image.imread(io.BytesIO(base64.b64decode(src.split(",", 1)[1])), format="png")
    return int((np.abs(image[..., :3] - np.array(to_rgb(PARTS["weights"].colour))).max(axis=-1) < 0.02).sum())


def test_calculator_redraws_its_last_state_after_quick_changes(lab, browser_context):
    served = "notebooks/calculator_quick_changes.ipynb"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in QUICK_CELLS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, lab["root"] / served)
    page = browser_context.new_page()
    try:
        open_and_run_all(page, lab, served)
        cells = page.locator(".jp-Notebook .jp-CodeCell")
        slider = cells.nth(0).locator(".widget-slider .noUi-handle")
        gpu = cells.nth(0).locator(".widget-dropdown", has=page.locator("label", has_text=re.compile("^GPU$")))
        slider.wait_for(timeout=120_000)
        batch = round(float(slider.get_attribute("aria-valuenow")))
        low, high = (round(float(slider.get_attribute(a))) for a in ("aria-valuemin", "aria-valuemax"))
        options = gpu.locator("select").evaluate("(s) => s.options.length")
        presses, picked, end = 0, None, time.monotonic() + 8  # the second cell runs 12 s meanwhile
        while time.monotonic() < end:
            right = presses % 8 < 6
            slider.press("ArrowRight" if right else "ArrowLeft")
            batch = min(high, batch + 1) if right else max(low, batch - 1)  # where the keys put the slider
            presses += 1
            if presses % 5 == 0:
                picked = presses // 5 % options
                gpu.locator("select").select_option(index=picked)
        wait_until_idle(page)
        lab["kernels"].update(children_of(lab["pid"]))
        state, last, since = None, None, time.monotonic()
        while time.monotonic() - since < 2:  # the calculator has stopped changing for 2 s
            state = cells.nth(0).evaluate(QUICK_STATE)
            if state != last:
                last, since = state, time.monotonic()
            page.wait_for_timeout(200)
        ran = cells.nth(1).locator(".jp-OutputArea-output")
        printed = ran.last.inner_text()
        own_figures = ran.locator("img").count()
        cells.nth(0).scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "calculator_quick_changes.png"), full_page=True)
    finally:
        page.close()
        end_sessions(lab, served)
    shown = f"batch {state['batch']} on {state['gpu']}"
    print(f"\n{presses} key presses to batch {batch}, GPU option {picked}; the calculator shows {shown}; {printed}")
    assert (state["batch"], state["gpu_index"]) == (batch, picked), "a learner's change was set back"
    made = re.fullmatch(r"made (\d+) figures", printed.strip())
    assert made and own_figures == int(made[1]), f"the other cell showed {own_figures} figures: {printed!r}"
    assert len(state["images"]) == 1, f"the calculator shows {len(state['images'])} plots"
    assert _weights_pixels(state["images"][0]) > 1000, "the calculator's plot is blank"
    report = state["text"]
    assert f"x batch {state['batch']}" in report, f"the report is not of the batch the slider shows: {report!r}"
    assert f"on {state['gpu'].rsplit(' (', 1)[0]}" in report, f"the report is not of the GPU shown: {report!r}"
