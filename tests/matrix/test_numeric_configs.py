"""The stored outputs hold on any CPU: every lesson passes strict nbval under settings that change float results.

A learner's CPU takes other code paths than the machine that recorded the outputs (AVX2 instead of AVX-512 or
AMX, another BLAS kernel, another thread count), so floats can differ in their last digits. tests/numeric_configs.py
lists settings that reproduce such differences on one machine; benchmarks/numeric_configs.py shows which of them
change lesson 07's losses here. The first test proves the perturbation is real on the machine the suite runs on,
so that the second one, every lesson under each setting, is worth something.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.numeric_configs import CONFIGS

ROOT = Path(__file__).resolve().parents[2]
NBVAL = ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", "tests/nbval_sanitize.cfg"]

# Lesson 07's overfitting run in miniature: 150 full-batch AdamW steps, printed at full precision.
TRAIN = """
import torch, torch.nn as nn, torch.nn.functional as F
torch.set_num_threads(1)
g = torch.Generator().manual_seed(0)
x, y = torch.randn(60, 2, generator=g), torch.randint(0, 3, (60,), generator=g)
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 3))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
for _ in range(150):
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(repr(loss.item()))
"""


def environment(config: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {k for c in CONFIGS.values() for k in c.env}}
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    if config:
        env.update(CONFIGS[config].env)
    return env


def test_some_setting_changes_training_results_on_this_machine():
    """Without this, passing under the settings below could just mean they change nothing here."""
    losses = {}
    for config in (None, *CONFIGS):
        done = subprocess.run([sys.executable, "-c", TRAIN], env=environment(config), capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        losses[config] = done.stdout.strip()
    changed = [name for name in CONFIGS if losses[name] != losses[None]]
    print("settings that change the loss after 150 steps here:", changed, losses)
    assert changed, f"no setting changed a single bit of the loss on this machine: {losses}"


@pytest.mark.parametrize("config", CONFIGS)
def test_every_lesson_passes_strict_nbval(config):
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "notebooks", *NBVAL, "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        env=environment(config),
        capture_output=True,
        text=True,
    )
    settings = " ".join(f"{k}={v}" for k, v in CONFIGS[config].env.items())
    assert done.returncode == 0, f"strict nbval failed with {settings}:\n{done.stdout[-6000:]}"
