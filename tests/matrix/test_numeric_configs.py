"""The matrix's numeric perturbation is real on the machine it runs on: it changes training results here.

A learner's CPU takes other code paths than the machine that recorded the outputs (AVX2 instead of AVX-512 or
AMX, another BLAS kernel, another thread count), so floats can differ in their last digits.
tests/matrix/test_notebooks_elsewhere.py runs every lesson under strict nbval (stored outputs compared number by
number, tests/nbval_numbers.py) with tests/numeric_configs.py's PERTURBATION. Passing there means something only
if the perturbation changes results on this machine: the test below shows it does, on lesson 07's overfitting
run in miniature.
benchmarks/numeric_configs.py shows what each of the other settings changes here.
"""

from __future__ import annotations

import os
import subprocess
import sys

from tests.numeric_configs import CONFIGS, PERTURBATION

# Lesson 07's overfitting run in miniature: 150 full-batch AdamW steps, printed at full precision.
TRAIN = """
import torch, torch.nn as nn, torch.nn.functional as F
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


def run(settings: dict[str, str]) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in {k for c in CONFIGS.values() for k in c.env}}
    env.update(settings)
    done = subprocess.run([sys.executable, "-c", TRAIN], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_perturbation_changes_training_results_on_this_machine():
    """Without this, passing under the perturbation could just mean it changes nothing here."""
    plain, perturbed = run({}), run(PERTURBATION)
    print(f"loss after 150 steps: {plain} with no setting, {perturbed} with {PERTURBATION}")
    assert plain != perturbed, f"{PERTURBATION} changed not a single bit of the loss here: {plain}"
