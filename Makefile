# The course's commands. `make lab` and `make test` each create .venv on first use (tools/make_venv.py).
PYTHON ?= python3
VENV   ?= .venv
# The learner's copies of the lessons (git-ignored): make lab opens these, never notebooks/ itself.
MY_LESSONS ?= my-lessons
# EDITION=zh-Hans or EDITION=zh-Hant: make lab opens a Chinese edition (notebooks/zh-Hans/ -> my-lessons/zh-Hans/),
# and make lab, make setup and make doctor speak its language.
EDITION ?=

# TORCH=cpu installs PyTorch's CPU-only build (Linux without an NVIDIA GPU: no CUDA libraries, README "On Linux").
TORCH ?=

# make handouts and make e2e print with or drive this browser (Debian's chromium; any Chrome or Chromium will do).
# Set before the `export` line below: `export NAME` defines NAME (empty), and a later `NAME ?= …` would then keep it
# empty: make e2e once failed with ' is still missing: pass CHROMIUM=…' on a machine where chromium was installed.
CHROMIUM ?= /usr/bin/chromium

# What a learner types into a variable (PYTHON, VENV, MY_LESSONS, EDITION, LAB_ARGS, REPO, REF, CHROMIUM,
# GPU_CHECK_ARGS, TORCH) reaches a command only through the environment, as "$$NAME" inside double quotes: the shell
# never reads a quote, a `;` or a `$$(...)` in it as code. VENV is also part of file names in make's own rules
# ($(STAMP) below), which no quoting protects, so it may hold only the characters listed here: a folder such as
# .venv, ../envs/gpu-course or /home/me/venvs/course (no spaces).
export PYTHON VENV MY_LESSONS EDITION LAB_ARGS REPO REF CHROMIUM GPU_CHECK_ARGS TORCH
VENV_CHARS := a b c d e f g h i j k l m n o p q r s t u v w x y z A B C D E F G H I J K L M N O P Q R S T U V W X Y \
              Z 0 1 2 3 4 5 6 7 8 9 . _ - / + @
space      := $(subst ,, )
strip_chars = $(if $(2),$(call strip_chars,$(subst $(firstword $(2)),,$(1)),$(wordlist 2,$(words $(2)),$(2))),$(1))
$(if $(strip $(VENV)),,$(error VENV must name a folder, such as VENV=.venv))
$(if $(call strip_chars,$(subst $(space),%,$(value VENV)),$(VENV_CHARS)),$(error VENV may hold only letters, \
  digits and . _ - / + @ (it is part of file names in make's rules, which no quoting protects); pick such a folder))
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The stored outputs were recorded on a CPU. On a machine with a working NVIDIA GPU or Apple silicon the
# lessons measure that GPU and print other numbers, so there `make test` checks that every cell runs without
# an error (nbval-lax) instead of comparing outputs. Force either with NBVAL_MODE=--nbval or --nbval-lax.
# tools/gpu_here.sh asks nvidia-smi with a time limit (10 s; GPU_PROBE_S in the environment), and only the
# commands that use the answer ask (the `=` below runs it once, when first needed): a hanging nvidia-smi never
# holds up make help, make lab or make setup.
GPU_HERE    = $(eval GPU_HERE := $(shell sh tools/gpu_here.sh))$(GPU_HERE)
NBVAL_MODE ?= $(if $(strip $(GPU_HERE)),--nbval-lax,--nbval)
GPU_NOTE    = A GPU is here ($(strip $(GPU_HERE))): the lessons print other numbers than the stored CPU outputs, so the notebooks are checked for errors only ($(NBVAL_MODE)).
# Every pytest run here loads tests/pytest_startup.py first (it skips an import no test needs: ~2 s per process),
# and writes Python's bytecode caches (__pycache__/, git-ignored) even where PYTHONDONTWRITEBYTECODE is set, as in
# many container images: without them every process compiles lessonkit and pytest rewrites every test file again.
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -p tests.pytest_startup
# Tests run in parallel, one process per core up to 4 (pytest-xdist), each file in one process: a notebook's
# cells stay together, in order, in one kernel.
UNITS  := -n auto --maxprocesses 4 --dist loadfile
# More pytest options for test, test-units and test-notebooks, e.g. make test-units PYTEST_ARGS="-k doctor".
PYTEST_ARGS ?=
NBVAL   = $(NBVAL_MODE) --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg --nbval-cell-timeout 120
export PYDEVD_DISABLE_FILE_VALIDATION := 1

.PHONY: help setup lab doctor test test-units test-notebooks test-matrix lint refresh badges clean

help:  ## list the commands
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-15s %s\n", $$1, $$2}'

# tools/make_venv.py (Python 3.6+; anything older or missing gets the line above it) checks PYTHON's version
# before it creates anything (requirements.txt needs 3.11+), rebuilds
# a .venv that is half-made (no pip, no stamp, a python that does not run) or too old, shows pip's progress and
# builds matplotlib's font cache (not as a stderr message inside a notebook under test). A .venv whose stamp is
# there but which broke since (its base Python removed, say) is rebuilt too: --check finds it in a moment.
# make_venv.py deletes nothing it did not make (its stamp .made-by-make_venv says it made a folder).
VENV_BROKEN := $(if $(wildcard $(STAMP)),$(shell $(BIN)/python tools/make_venv.py --check --venv $(VENV) >/dev/null 2>&1 || echo yes))
GOALS       := setup lab doctor test test-units test-notebooks test-matrix lint refresh badges reading-time translations \
               glossary handouts e2e
SETUP_GOAL  := $(or $(filter $(GOALS),$(firstword $(MAKECMDGOALS))),setup)
# The one message make itself prints before Python runs, in the edition's language (make lab EDITION=...).
NO_PYTHON_en      := does not run here or is older than 3.6: install Python 3.11 or newer, then run:
NO_PYTHON_zh-Hans := 在这里无法运行，或者比 3.6 还旧：请安装 Python 3.11 或更新版本，然后运行：
NO_PYTHON_zh-Hant := 在這裡無法執行，或者比 3.6 還舊：請安裝 Python 3.11 或更新版本，然後執行：
SAYS        := $(or $(filter zh-Hans zh-Hant,$(EDITION)),en)

$(STAMP): requirements.txt pyproject.toml $(if $(VENV_BROKEN),FORCE)
	@"$$PYTHON" -c "import sys; sys.exit(sys.version_info < (3, 6))" >/dev/null 2>&1 || { echo "$$PYTHON $(NO_PYTHON_$(SAYS)) make PYTHON=python3.12 $(SETUP_GOAL)" >&2; exit 2; }
	@"$$PYTHON" tools/make_venv.py --venv "$$VENV" --goal $(SETUP_GOAL) --lang "$$EDITION" --torch "$$TORCH"

.PHONY: FORCE
FORCE:

setup: $(STAMP)  ## create .venv and install everything, or repair it (done for you by the other commands)

# tools/my_lessons.py copies the lessons (outputs cleared), then starts JupyterLab in the course's folder, open at
# my-lessons/, so the lessons' links to the README work; LAB_ARGS is read there as JupyterLab's options.
lab: $(STAMP)  ## copy new lessons into my-lessons/ (yours stay as they are) and open them in JupyterLab (EDITION=zh-Hans, LAB_ARGS="--port 8899")
	@$(BIN)/python tools/my_lessons.py --lab --from notebooks --to "$$MY_LESSONS" --edition "$$EDITION" --jupyter $(BIN)/jupyter --lab-args "$$LAB_ARGS"

doctor: $(STAMP)  ## check this machine's GPU, driver and PyTorch (lessonkit doctor, from .venv; EDITION=zh-Hans for Chinese)
	$(BIN)/lessonkit doctor $(if $(EDITION),--lang "$$EDITION")

test: $(STAMP)  ## unit tests + every notebook executed and compared under strict nbval (lax on a GPU machine)
	@$(if $(strip $(GPU_HERE)),echo "$(GPU_NOTE)")
	$(PYTEST) tests notebooks --ignore=tests/matrix $(NBVAL) $(UNITS) $(PYTEST_ARGS)

test-units: $(STAMP)  ## unit tests only (fast)
	$(PYTEST) tests --ignore=tests/matrix $(UNITS) $(PYTEST_ARGS)

test-matrix: $(STAMP)  ## lessons offline, elsewhere, perturbed, twice, in fake Colab, with broken nvidia-smi; Colab-like and oldest envs
	$(PYTEST) tests/matrix $(UNITS) $(PYTEST_ARGS)
	$(BIN)/python tools/env_check.py colab oldest

test-notebooks: $(STAMP)  ## the notebooks only, under strict nbval (lax on a GPU machine)
	@$(if $(strip $(GPU_HERE)),echo "$(GPU_NOTE)")
	$(PYTEST) notebooks $(NBVAL) $(UNITS) $(PYTEST_ARGS)

lint: $(STAMP)  ## ruff over the package, tests, tools and notebooks
	$(BIN)/ruff check .
	$(BIN)/ruff format --check lessonkit tests tools benchmarks

refresh: $(STAMP)  ## re-execute the notebooks on this machine and store their outputs
	$(BIN)/python tools/run_notebooks.py --write

badges: $(STAMP)  ## rewrite Colab badges, setup cells and the README's lesson table from lessonkit/course.py (REPO=owner/name REF=v0.1.0 to publish a copy)
	$(BIN)/python tools/sync_badges.py $(if $(REPO),--repo "$$REPO") $(if $(REF),--ref "$$REF")

# make_venv.py --remove deletes the environment only inside the course's folder and only if it made it.
clean:  ## remove .venv and build leftovers (your my-lessons/ stays)
	"$$PYTHON" tools/make_venv.py --remove --venv "$$VENV"
	rm -rf dist build *.egg-info

.PHONY: reading-time
reading-time: $(STAMP)  ## how long each lesson takes a beginner: narration, code cells and lines, exercises, run time (core path <= 2.5 h, lessons <= 1 h)
	$(BIN)/python tools/reading_time.py

.PHONY: translations
translations: $(STAMP)  ## after an English or a catalog change: refresh i18n/*/*.po, compile lessonkit's catalogs, build notebooks/zh-*/
	$(BIN)/python tools/i18n.py update
	$(BIN)/python tools/i18n.py compile
	$(BIN)/python tools/i18n.py build

.PHONY: glossary
glossary: $(STAMP)  ## rewrite GLOSSARY.md's and the Chinese READMEs' glossary tables from lessonkit/data/glossary.json
	$(BIN)/python tools/render_glossary.py

# --- Handouts and the real-browser test (issue 7) -------------------------------------------
# Both print or drive Debian's chromium. `make chromium` installs it with apt-get when it is
# missing; elsewhere (macOS, other Linux) point CHROMIUM at any Chrome or Chromium binary (its default is set at the
# top, before `export`).
SUDO      := $(if $(filter 0,$(shell id -u 2>/dev/null)),,sudo)
E2E_STAMP := $(VENV)/.installed-e2e

.PHONY: fonts chromium handouts e2e

$(E2E_STAMP): requirements-e2e.txt $(STAMP)
	$(BIN)/python -m pip install --disable-pip-version-check -r requirements-e2e.txt
	@touch $(E2E_STAMP)

# The Chinese editions' figures and handouts need a CJK font. Debian's fonts-noto-cjk (Noto Sans CJK SC and TC, the
# glyph shapes of each edition; about 90 MB) rather than a font from PyPI: the one wheel there that carries one
# (mplfonts, 85 MB) has only the Simplified face, so zh-Hant would be drawn with mainland shapes. macOS and Windows
# ship a CJK font (PingFang, Microsoft YaHei/JhengHei) that lessonkit.plotfont finds.
fonts:  ## install the Chinese and emoji fonts the editions' figures and handouts need, if missing (apt-get)
	@{ fc-list :lang=zh 2>/dev/null | grep -q . && fc-list 2>/dev/null | grep -qi "color emoji"; } || { \
	  command -v apt-get >/dev/null || { echo "No Chinese or emoji font: install Noto Sans CJK and Noto Color Emoji (macOS and Windows have a Chinese font already)"; exit 1; }; \
	  echo "Installing Debian's fonts-noto-cjk and fonts-noto-color-emoji (the editions' Chinese and the hints' 💡) ..."; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk fonts-noto-color-emoji >/dev/null 2>&1 || { \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk fonts-noto-color-emoji; }; }

chromium: fonts  ## install Debian's chromium, Chinese and emoji fonts if missing (apt-get, with sudo when not root)
	@test -x "$$CHROMIUM" || { \
	  command -v apt-get >/dev/null || { echo "No $$CHROMIUM and no apt-get: install Chrome or Chromium, then pass CHROMIUM=/path/to/it"; exit 1; }; \
	  echo "Installing Debian's chromium (for make handouts and make e2e) ..."; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }
	@test -x "$$CHROMIUM" || { echo "$$CHROMIUM is still missing: pass CHROMIUM=/path/to/chrome"; exit 1; }

handouts: $(E2E_STAMP) chromium  ## run every lesson, write dist/handouts/{student,teacher}/ HTML and course-{student,teacher}.pdf; the same for dist/handouts/zh-Hans/ and zh-Hant/ (stored outputs)
	$(BIN)/python tools/handouts.py --chromium "$$CHROMIUM"
	$(BIN)/python tools/handouts.py --chromium "$$CHROMIUM" --language zh-Hans --stored-outputs
	$(BIN)/python tools/handouts.py --chromium "$$CHROMIUM" --language zh-Hant --stored-outputs

e2e: handouts  ## real-browser test: JupyterLab + chromium run a widget lesson, render every lesson's markdown, check both handout editions
	$(PYTEST) tests/e2e/lab_e2e.py -v

# GPU check (benchmarks/gpu_check.py). It needs no network, so it does not depend on $(STAMP): it uses
# .venv when there is one and otherwise the python on PATH (a GPU image with torch already installed).
GPU_PY := $(if $(wildcard $(BIN)/python),$(BIN)/python,"$$PYTHON")
.PHONY: gpu-check
gpu-check:  ## on a CUDA GPU: run every notebook, timer fidelity and matmul TFLOP/s, report in reports/ (GPU_CHECK_ARGS="--record")
	set -f; $(GPU_PY) benchmarks/gpu_check.py $$GPU_CHECK_ARGS
