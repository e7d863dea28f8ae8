# The course's commands. `make lab` and `make test` each create .venv on first use (tools/make_venv.py).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The learner's copies of the lessons (git-ignored): make lab opens these, never notebooks/ itself.
MY_LESSONS ?= my-lessons
# The stored outputs were recorded on a CPU. On a machine with a working NVIDIA GPU or Apple silicon the
# lessons measure that GPU and print other numbers, so there `make test` checks that every cell runs without
# an error (nbval-lax) instead of comparing outputs. Force either with NBVAL_MODE=--nbval or --nbval-lax.
GPU_HERE   := $(shell nvidia-smi -L >/dev/null 2>&1 && echo nvidia; test "$$(uname -sm)" = "Darwin arm64" && echo apple)
NBVAL_MODE ?= $(if $(strip $(GPU_HERE)),--nbval-lax,--nbval)
GPU_NOTE   := A GPU is here ($(strip $(GPU_HERE))): the lessons print other numbers than the stored CPU outputs, so the notebooks are checked for errors only ($(NBVAL_MODE)).
# Every pytest run here loads tests/pytest_startup.py first (it skips an import no test needs: ~2 s per process).
PYTEST := $(BIN)/python -m pytest -p tests.pytest_startup
# The unit tests run in parallel, one process per core up to 4 (pytest-xdist), each test file in one process.
UNITS  := -n auto --maxprocesses 4 --dist loadfile
# More pytest options for test, test-units and test-notebooks, e.g. make test-units PYTEST_ARGS="-k doctor".
PYTEST_ARGS ?=
NBVAL  := $(NBVAL_MODE) --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg --nbval-cell-timeout 120
export PYDEVD_DISABLE_FILE_VALIDATION := 1
# JupyterLab refuses to start as root unless told to; rented cloud GPUs often log you in as root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root)

.PHONY: help setup lab test test-units test-notebooks test-matrix lint refresh badges clean

help:  ## list the commands
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-15s %s\n", $$1, $$2}'

# tools/make_venv.py (Python 3.6+; anything older or missing gets the line above it) checks PYTHON's version
# before it creates anything (requirements.txt needs 3.11+), rebuilds
# a .venv that is half-made (no pip, no stamp, a python that does not run) or too old, shows pip's progress and
# builds matplotlib's font cache (not as a stderr message inside a notebook under test). A .venv whose stamp is
# there but which broke since (its base Python removed, say) is rebuilt too: --check finds it in a moment.
VENV_BROKEN := $(if $(wildcard $(STAMP)),$(shell $(BIN)/python tools/make_venv.py --check --venv "$(VENV)" >/dev/null 2>&1 || echo yes))
SETUP_GOAL  := $(or $(firstword $(MAKECMDGOALS)),setup)

$(STAMP): requirements.txt pyproject.toml $(if $(VENV_BROKEN),FORCE)
	@$(PYTHON) -c "import sys; sys.exit(sys.version_info < (3, 6))" >/dev/null 2>&1 || { echo "$(PYTHON) does not run here or is older than 3.6: install Python 3.11 or newer, then run: make PYTHON=python3.12 $(SETUP_GOAL)" >&2; exit 2; }
	@$(PYTHON) tools/make_venv.py --venv "$(VENV)" --goal "$(SETUP_GOAL)"

.PHONY: FORCE
FORCE:

setup: $(STAMP)  ## create .venv and install everything, or repair it (done for you by the other commands)

# EDITION=zh-Hans or EDITION=zh-Hant opens a Chinese edition (notebooks/zh-Hans/ -> my-lessons/zh-Hans/).
EDITION  ?=
LAB_FROM := notebooks$(if $(EDITION),/$(EDITION))
LAB_TO   := $(MY_LESSONS)$(if $(EDITION),/$(EDITION))

lab: $(STAMP)  ## copy new lessons into my-lessons/ (yours stay as they are) and open them in JupyterLab (EDITION=zh-Hans, LAB_ARGS="--port 8899")
	@$(BIN)/python tools/my_lessons.py --from "$(LAB_FROM)" --to "$(LAB_TO)"
	$(BIN)/jupyter lab "$(LAB_TO)" $(ALLOW_ROOT) $(LAB_ARGS)

test: $(STAMP)  ## unit tests + every notebook executed and compared under strict nbval (lax on a GPU machine)
	@$(if $(strip $(GPU_HERE)),echo "$(GPU_NOTE)")
	$(PYTEST) tests notebooks --ignore=tests/matrix $(NBVAL) $(PYTEST_ARGS)

test-units: $(STAMP)  ## unit tests only (fast)
	$(PYTEST) tests --ignore=tests/matrix $(UNITS) $(PYTEST_ARGS)

test-matrix: $(STAMP)  ## lessons offline, elsewhere, twice, in fake Colab, with broken nvidia-smi; Colab-like and oldest envs
	$(PYTEST) tests/matrix
	$(BIN)/python tools/env_check.py colab oldest

test-notebooks: $(STAMP)  ## the notebooks only, under strict nbval (lax on a GPU machine)
	@$(if $(strip $(GPU_HERE)),echo "$(GPU_NOTE)")
	$(PYTEST) notebooks $(NBVAL) $(PYTEST_ARGS)

lint: $(STAMP)  ## ruff over the package, tests, tools and notebooks
	$(BIN)/ruff check .
	$(BIN)/ruff format --check lessonkit tests tools benchmarks

refresh: $(STAMP)  ## re-execute the notebooks on this machine and store their outputs
	$(BIN)/python tools/run_notebooks.py --write

badges: $(STAMP)  ## rewrite Colab badges, setup cells and the README's lesson table from lessonkit/course.py (REPO=owner/name REF=v0.1.0 to publish a copy)
	$(BIN)/python tools/sync_badges.py $(if $(REPO),--repo "$(REPO)") $(if $(REF),--ref "$(REF)")

clean:  ## remove .venv and build leftovers (your my-lessons/ stays)
	rm -rf $(VENV) dist build *.egg-info

.PHONY: reading-time
reading-time: $(STAMP)  ## how long each lesson takes a beginner: narration, code cells and lines, exercises, run time (core path <= 2.5 h, lessons <= 1 h)
	$(BIN)/python tools/reading_time.py

.PHONY: translations
translations: $(STAMP)  ## after an English or a catalog change: refresh i18n/*/*.po, compile lessonkit's catalogs, build notebooks/zh-*/
	$(BIN)/python tools/i18n.py update
	$(BIN)/python tools/i18n.py compile
	$(BIN)/python tools/i18n.py build

.PHONY: glossary
glossary: $(STAMP)  ## rewrite the README's glossary table from lessonkit/data/glossary.json
	$(BIN)/python tools/render_glossary.py

# --- Handouts and the real-browser test (issue 7) -------------------------------------------
# Both print or drive Debian's chromium. `make chromium` installs it with apt-get when it is
# missing; elsewhere (macOS, other Linux) point CHROMIUM at any Chrome or Chromium binary.
CHROMIUM  ?= /usr/bin/chromium
SUDO      := $(if $(filter 0,$(shell id -u 2>/dev/null)),,sudo)
E2E_STAMP := $(VENV)/.installed-e2e

.PHONY: chromium handouts e2e

$(E2E_STAMP): requirements-e2e.txt $(STAMP)
	$(BIN)/python -m pip install --disable-pip-version-check -r requirements-e2e.txt
	@touch $(E2E_STAMP)

chromium:  ## install Debian's chromium, Chinese and emoji fonts if missing (apt-get, with sudo when not root)
	@test -x "$(CHROMIUM)" || { \
	  command -v apt-get >/dev/null || { echo "No $(CHROMIUM) and no apt-get: install Chrome or Chromium, then pass CHROMIUM=/path/to/it"; exit 1; }; \
	  echo "Installing Debian's chromium (for make handouts and make e2e) ..."; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }
	@test -x "$(CHROMIUM)" || { echo "$(CHROMIUM) is still missing: pass CHROMIUM=/path/to/chrome"; exit 1; }
	@{ fc-list :lang=zh 2>/dev/null | grep -q . && fc-list 2>/dev/null | grep -qi "color emoji"; } || { \
	  command -v apt-get >/dev/null || { echo "No Chinese or emoji font: install Noto Sans CJK and Noto Color Emoji for the handouts"; exit 1; }; \
	  echo "Installing Debian's fonts-noto-cjk and fonts-noto-color-emoji (the handouts' Chinese and the hints' 💡) ..."; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk fonts-noto-color-emoji >/dev/null 2>&1 || { \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk fonts-noto-color-emoji; }; }

handouts: $(E2E_STAMP) chromium  ## run every lesson, write dist/handouts/{student,teacher}/ HTML and course-{student,teacher}.pdf; the same for dist/handouts/zh-Hans/ and zh-Hant/ (stored outputs)
	$(BIN)/python tools/handouts.py --chromium "$(CHROMIUM)"
	$(BIN)/python tools/handouts.py --chromium "$(CHROMIUM)" --language zh-Hans --stored-outputs
	$(BIN)/python tools/handouts.py --chromium "$(CHROMIUM)" --language zh-Hant --stored-outputs

e2e: handouts  ## real-browser test: JupyterLab + chromium run a widget lesson, render every lesson's markdown, check both handout editions
	CHROMIUM="$(CHROMIUM)" $(PYTEST) tests/e2e/lab_e2e.py -v

# GPU check (benchmarks/gpu_check.py). It needs no network, so it does not depend on $(STAMP): it uses
# .venv when there is one and otherwise the python on PATH (a GPU image with torch already installed).
GPU_PY := $(if $(wildcard $(BIN)/python),$(BIN)/python,$(PYTHON))
.PHONY: gpu-check
gpu-check:  ## on a CUDA GPU: run every notebook, timer fidelity and matmul TFLOP/s, report in reports/ (GPU_CHECK_ARGS="--record")
	$(GPU_PY) benchmarks/gpu_check.py $(GPU_CHECK_ARGS)
