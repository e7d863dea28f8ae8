"""The toy problem lesson 07 builds and lessons 09 and 10 reuse: spiral data, a small perceptron, its loop.

Lesson 07 writes each of these in front of the learner, and shows its runs under LABELS; lessons 09 and 10 continue
with the same data and model without re-running lesson 07, so they import them from here. tests/test_spirals.py runs
lesson 07's own cells next to these functions and checks that both give the same tensors, weights and losses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from lessonkit._checks import check_number
from lessonkit.device import as_device
from lessonkit.i18n import Labels

_RAW_SCALE, _RAW_OFFSET = (40.0, 15.0), (100.0, -30.0)  # lesson 07's "raw units" of the two features
_N_TRAIN = 900  # of the 1200 points; the other 300 are the validation set
_MAX_POINTS, _MAX_WIDTH, _MAX_EPOCHS, _MAX_SEED = 10**6, 2**14, 10**5, 2**63 - 1  # a toy problem stays small

# What lesson 07's tables and figures call its runs and axes. The lesson's code keeps these one-word English keys
# (a dict key, a lookup in a later cell) and shows LABELS[key], in the language lessonkit speaks when it is shown.
LABELS = Labels(
    "lesson 07: a training run or an axis, as a table or a figure shows it",
    {
        "epoch": "epoch",
        "step": "step",
        "lr": "learning rate",
        "train_loss": "training loss",
        "val_loss": "validation loss",
        "sorted": "class-sorted, not shuffled",
        "shuffled": "shuffled every epoch",
        "raw": "raw features",
        "normalised": "normalised features",
        "sgd": "SGD, lr 0.1",
        "adamw": "AdamW, lr 0.01",
        "cosine": "AdamW, warm-up + cosine",
        "plain": "no regularisation",
        "weight_decay": "weight decay 1.0",
        "dropout": "dropout 0.5",
        "augmented": "augmentation, shifts of 0.3",
    },
)


def _check_tensors(x: object, y: object) -> None:
    for name, value in (("x", x), ("y", y)):
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__} {value!r}")
    if len(x) != len(y) or len(x) == 0:  # type: ignore[arg-type]
        raise ValueError(f"x and y must have the same, non-zero number of rows, got {len(x)} and {len(y)}")  # type: ignore[arg-type]


def _check_model(model: object) -> nn.Module:
    if not isinstance(model, nn.Module) or next(model.parameters(), None) is None:
        raise TypeError(f"model must be a torch.nn.Module with parameters, got {type(model).__name__} {model!r}")
    return model


def make_spirals(n_per_class: int = 400, noise: float = 0.25, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Three interleaved spiral arms in 2-D, one per class, returned class by class (lessons 07, 09, 10)."""
    n_per_class = check_number("n_per_class", n_per_class, integer=True, positive=True, maximum=_MAX_POINTS)
    noise = float(check_number("noise", noise))
    seed = check_number("seed", seed, integer=True, maximum=_MAX_SEED)
    g = torch.Generator().manual_seed(seed)
    points, labels = [], []
    for c in range(3):
        radius = torch.linspace(0.05, 1.0, n_per_class)
        angle = torch.linspace(0.0, 4.0, n_per_class) + c * 2 * math.pi / 3
        angle = angle + noise * torch.randn(n_per_class, generator=g)
        points.append(torch.stack([radius * torch.sin(angle), radius * torch.cos(angle)], dim=1))
        labels.append(torch.full((n_per_class,), c))
    return torch.cat(points), torch.cat(labels)


@dataclass(frozen=True)
class SpiralData:
    """Lesson 07's training and validation sets, normalised with the training set's statistics."""

    x_train: torch.Tensor
    y_train: torch.Tensor
    x_val: torch.Tensor
    y_val: torch.Tensor


def spiral_data() -> SpiralData:
    """The 900 training and 300 validation points of lesson 07, split and normalised as it does (lessons 09, 10)."""
    x, y = make_spirals()
    x = x * torch.tensor(_RAW_SCALE) + torch.tensor(_RAW_OFFSET)
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(1))
    train_idx, val_idx = order[:_N_TRAIN], order[_N_TRAIN:]
    mean, std = x[train_idx].mean(0), x[train_idx].std(0)
    return SpiralData((x[train_idx] - mean) / std, y[train_idx], (x[val_idx] - mean) / std, y[val_idx])


def make_loader(x: torch.Tensor, y: torch.Tensor, batch_size: int = 30, shuffle: bool = True) -> DataLoader:
    """Batches of (x, y); with shuffle=True a new, seeded random order every epoch (lessons 07, 09)."""
    _check_tensors(x, y)
    batch_size = check_number("batch_size", batch_size, integer=True, positive=True)
    g = torch.Generator().manual_seed(0)
    return DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=bool(shuffle), generator=g, num_workers=0)


def make_model(width: int = 64, dropout: float = 0.0, device: torch.device | str = "cpu") -> nn.Sequential:
    """A 2 -> width -> width -> 3 perceptron with the same (seeded) starting weights every time (lessons 07, 09, 10)."""
    width = check_number("width", width, integer=True, positive=True, maximum=_MAX_WIDTH)
    dropout = float(check_number("dropout", dropout))
    if dropout >= 1:
        raise ValueError(f"dropout must be a probability below 1, got {dropout}")
    device = as_device(device)
    torch.manual_seed(0)
    layers: list[nn.Module] = [nn.Linear(2, width), nn.ReLU()]
    layers += [nn.Dropout(dropout)] if dropout else []
    layers += [nn.Linear(width, width), nn.ReLU()]
    layers += [nn.Dropout(dropout)] if dropout else []
    layers += [nn.Linear(width, 3)]
    return nn.Sequential(*layers).to(device)


def _device_of(model: nn.Module) -> torch.device:
    return next(model.parameters()).device


def train(
    model: nn.Module,
    loader: DataLoader,
    optimizer: torch.optim.Optimizer,
    epochs: int = 1,
    scheduler: torch.optim.lr_scheduler.LRScheduler | None = None,
) -> list[float]:
    """The training loop, on the model's device; returns the loss of every step (lessons 07, 09)."""
    device = _device_of(_check_model(model))
    if not isinstance(loader, DataLoader):
        raise TypeError(
            f"loader must be a torch DataLoader (make_loader makes one), got {type(loader).__name__} {loader!r}"
        )
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"optimizer must be a torch.optim optimizer, got {type(optimizer).__name__} {optimizer!r}")
    if scheduler is not None and not isinstance(scheduler, torch.optim.lr_scheduler.LRScheduler):
        raise TypeError(f"scheduler must be None or a torch learning-rate scheduler, got {type(scheduler).__name__}")
    epochs = check_number("epochs", epochs, integer=True, positive=True, maximum=_MAX_EPOCHS)
    model.train()
    losses = []
    for _ in range(epochs):
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
            losses.append(loss.item())
    return losses


@torch.no_grad()
def evaluate(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> tuple[float, float]:
    """(loss, accuracy) on a whole dataset, without tracking gradients (lessons 07, 09)."""
    device = _device_of(_check_model(model))
    _check_tensors(x, y)
    model.eval()
    logits = model(x.to(device))
    y = y.to(device)
    return F.cross_entropy(logits, y).item(), (logits.argmax(dim=1) == y).float().mean().item()
