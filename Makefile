# The course's commands. `make lab` and `make test` each create .venv on first use.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg --nbval-cell-timeout 120
export PYDEVD_DISABLE_FILE_VALIDATION := 1
# JupyterLab refuses to start as root unless told to; rented cloud GPUs often log you in as root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root)

.PHONY: help setup lab test test-units test-notebooks test-matrix lint refresh badges clean

help:  ## list the commands
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-15s %s\n", $$1, $$2}'

$(STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.txt
	@# build matplotlib's font cache now, not as a stderr message inside a notebook under test
	$(BIN)/python -c "import matplotlib.pyplot"
	@touch $(STAMP)

setup: $(STAMP)  ## create .venv and install everything (done for you by the other commands)

lab: $(STAMP)  ## open the course in JupyterLab (extra options: LAB_ARGS="--port 8899")
	$(BIN)/jupyter lab notebooks $(ALLOW_ROOT) $(LAB_ARGS)

test: $(STAMP)  ## unit tests + every notebook executed and compared under strict nbval
	$(BIN)/python -m pytest tests notebooks --ignore=tests/matrix $(NBVAL)

test-units: $(STAMP)  ## unit tests only (fast)
	$(BIN)/python -m pytest tests --ignore=tests/matrix

test-matrix: $(STAMP)  ## lessons offline, elsewhere, twice, in fake Colab, with broken nvidia-smi; Colab-like and oldest envs
	$(BIN)/python -m pytest tests/matrix
	$(BIN)/python tools/env_check.py colab oldest

test-notebooks: $(STAMP)  ## the notebooks only, under strict nbval
	$(BIN)/python -m pytest notebooks $(NBVAL)

lint: $(STAMP)  ## ruff over the package, tests, tools and notebooks
	$(BIN)/ruff check .
	$(BIN)/ruff format --check lessonkit tests tools benchmarks

refresh: $(STAMP)  ## re-execute the notebooks on this machine and store their outputs
	$(BIN)/python tools/run_notebooks.py --write

badges: $(STAMP)  ## rewrite Colab badges and install lines from lessonkit/course.py
	$(BIN)/python tools/sync_badges.py

clean:  ## remove .venv and build leftovers
	rm -rf $(VENV) dist build *.egg-info
