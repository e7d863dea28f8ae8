"""lessonkit.spirals is lesson 07's toy problem, unchanged: lessons 09 and 10 start from exactly what 06 built.

Lesson 07 writes make_spirals, the split, make_loader, make_model, train and evaluate in its own cells. This test
runs those cells (found by cell id) on the CPU and checks that lessonkit.spirals gives the same tensors, the same
starting weights and the same training losses, so an edit to either copy that the other lacks fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from lessonkit import spirals

LESSON_06 = Path(__file__).resolve().parent.parent / "notebooks" / "07_how_a_gpu_trains_a_model.ipynb"
CELLS = ("feb06c97", "28fc2671", "c58903ed", "88bfb358", "462e77e7")  # imports, data, split, loader, helpers


@pytest.fixture(scope="module")
def lesson():
    """The namespace lesson 07's cells leave behind, run on the CPU."""
    cells = {c["id"]: "".join(c["source"]) for c in json.loads(LESSON_06.read_text("utf-8"))["cells"]}
    missing = [cid for cid in CELLS if cid not in cells]
    assert not missing, f"lesson 07 no longer has cells {missing}: update CELLS and lessonkit/spirals.py"
    namespace: dict = {}
    threads = torch.get_num_threads()
    try:
        for cid in CELLS:
            exec(compile(cells[cid], f"lesson 07 cell {cid}", "exec"), namespace)
            namespace["device"] = torch.device("cpu")  # as lessonkit.spirals defaults to, on any machine
    finally:
        torch.set_num_threads(threads)  # the imports cell pins one thread on a CPU
    return namespace


def test_the_data_is_lesson_06s(lesson):
    x, y = spirals.make_spirals()
    raw = lesson["make_spirals"]()
    assert torch.equal(x, raw[0]) and torch.equal(y, raw[1])
    data = spirals.spiral_data()
    for name in ("x_train", "y_train", "x_val", "y_val"):
        assert torch.equal(getattr(data, name), lesson[name]), name
    noisy = spirals.make_spirals(noise=0.6, seed=2)  # lesson 07's overfitting set
    assert all(torch.equal(a, b) for a, b in zip(noisy, lesson["make_spirals"](noise=0.6, seed=2), strict=True))


@pytest.mark.parametrize("kwargs", [{}, {"width": 512}, {"width": 128, "dropout": 0.5}])
def test_the_model_starts_from_lesson_06s_weights(lesson, kwargs):
    mine, theirs = spirals.make_model(**kwargs), lesson["make_model"](**kwargs)
    assert str(mine) == str(theirs)
    for (name, a), (_, b) in zip(mine.state_dict().items(), theirs.state_dict().items(), strict=True):
        assert torch.equal(a, b), name


def test_training_and_evaluation_match_lesson_06(lesson):
    data = spirals.spiral_data()
    results = []
    for helpers in (spirals, None):
        make_model = spirals.make_model if helpers else lesson["make_model"]
        make_loader = spirals.make_loader if helpers else lesson["make_loader"]
        train = spirals.train if helpers else lesson["train"]
        evaluate = spirals.evaluate if helpers else lesson["evaluate"]
        model = make_model()
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
        losses = train(model, make_loader(data.x_train, data.y_train), optimizer, epochs=2)
        results.append((losses, evaluate(model, data.x_val, data.y_val)))
    assert results[0] == results[1]
    assert len(results[0][0]) == 2 * 30  # 900 points in batches of 30, two epochs


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: spirals.make_spirals(n_per_class=0), "n_per_class must be"),
        (lambda: spirals.make_spirals(noise="a lot"), "noise must be a number"),
        (lambda: spirals.make_model(width=2.5), "width must be an integer"),
        (lambda: spirals.make_model(dropout=1.0), "dropout must be a probability below 1"),
        (lambda: spirals.make_loader(torch.zeros(4, 2), torch.zeros(4), batch_size=0), "batch_size must be"),
        (lambda: spirals.train(spirals.make_model(), [], None), "loader must be a torch DataLoader"),
        (lambda: spirals.make_model(device="gpu0"), "device"),
    ],
)
def test_bad_arguments_are_named(call, words):
    with pytest.raises((TypeError, ValueError), match=words):
        call()


def test_every_label_lesson_07_shows_is_known_and_its_key_cannot_be_translated_away():
    """Lesson 07 keeps one-word English keys in its code and shows LABELS[key] (issue 28): a key LABELS lacks would
    show as the English key itself in every edition, and a key with a space in it is a sentence the Chinese
    catalogs may translate in one cell and not in the next."""
    import re

    cells = [c for c in json.loads(LESSON_06.read_text("utf-8"))["cells"] if c["cell_type"] == "code"]
    used = {key for c in cells for key in re.findall(r"""LABELS\[["']([^"']+)["']\]""", "".join(c["source"]))}
    # the runs' names, shown as LABELS[name]: dict keys ("plain": {}, "sgd": lambda ...) and ("sorted", False)
    named = re.compile(r"""["'](\w+)["']: (?:\{|\(|lambda)|\(["'](\w+)["'], (?:True|False)\)""")
    keyed = {a or b for c in cells for a, b in named.findall("".join(c["source"]))}
    assert {"epoch", "train_loss"} <= used and {"plain", "sorted", "sgd", "raw"} <= keyed, (used, keyed)
    assert used <= set(spirals.LABELS), sorted(used - set(spirals.LABELS))
    assert keyed <= set(spirals.LABELS), sorted(keyed - set(spirals.LABELS))
    assert all(re.fullmatch(r"\w+", key) for key in spirals.LABELS)
