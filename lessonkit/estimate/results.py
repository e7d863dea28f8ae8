"""The estimator's answers: an Estimate (memory part by part at each moment) and a Fit (lesson 05)."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from lessonkit.i18n import _, lazy, pad, text
from lessonkit.memparts import PARTS
from lessonkit.vram import format_bytes

# The parts the ZeRO paper (Rajbhandari et al. 2020, https://arxiv.org/abs/1910.02054) calls model states:
# parameters, gradients and optimizer states (its optimizer states include the fp32 master weights).
MODEL_STATE_PARTS = ("weights", "quant_scales", "adapters", "master_weights", "optimizer_state", "gradients")

# The moments the estimates consider, as a learner reads them; the moments' keys stay English.
_MOMENT_NAMES = {
    "reading the prompt": lazy("reading the prompt"),
    "start of backward": lazy("start of backward"),
    "optimizer step": lazy("optimizer step"),
}


@dataclass(frozen=True)
class Estimate:
    """Memory at the busiest moment of a step, part by part (lesson 05).

    `breakdown` maps each part (see lessonkit.memparts.PARTS) to bytes at that moment and `total` is
    their sum; `moments` holds the breakdown at every moment considered, `peak_moment` names the
    largest. Prints as a table in text and, in Jupyter, in HTML.
    """

    label: str
    moments: dict[str, dict[str, int]]
    notes: tuple[str, ...] = ()
    n_params: int = 0
    details: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def peak_moment(self) -> str:
        """The moment whose memory is largest (lesson 05)."""
        return max(self.moments, key=lambda m: sum(self.moments[m].values()))

    @property
    def breakdown(self) -> dict[str, int]:
        """Part -> bytes at the peak moment, in PARTS order, zero parts left out (lesson 05)."""
        parts = self.moments[self.peak_moment]
        return {k: parts[k] for k in PARTS if parts.get(k)}

    @property
    def total(self) -> int:
        """Bytes needed at the peak moment (lesson 05)."""
        return sum(self.breakdown.values())

    @property
    def model_states(self) -> int:
        """Weights, gradients, master weights and optimizer state, the ZeRO paper's "model states" (lesson 05).

        Taken at the moment where they are largest together (in training, the optimizer step); leaves
        out activations, temporaries, fp32 gradient copies, the KV cache and the CUDA context.
        """
        return max(sum(parts.get(k, 0) for k in MODEL_STATE_PARTS) for parts in self.moments.values())

    def moment_label(self, moment: str | None = None) -> str:
        """A moment's name (default: the peak's) in the language lessonkit speaks now; keys stay English (lesson 05)."""
        moment = self.peak_moment if moment is None else moment
        return text(_MOMENT_NAMES.get(moment, moment))

    def rows(self, unit: str = "GiB") -> list[tuple[str, str, str]]:
        """(part, amount, share of the total) for each part, then the total (lesson 05)."""
        total = self.total or 1
        out = [
            (text(PARTS[k].label), format_bytes(v, unit, 2), f"{100 * v / total:.0f}%")
            for k, v in self.breakdown.items()
        ]
        out.append((_("total"), format_bytes(self.total, unit, 2), "100%"))
        return out

    def __repr__(self) -> str:
        return str(self)

    def __str__(self) -> str:
        lines = [self.label, _("peak: {moment}").format(moment=self.moment_label())]
        lines += [f"  {pad(name, 22)}{amount:>12}{share:>6}" for name, amount, share in self.rows()]
        lines += ["  " + _("note: {note}").format(note=n) for n in self.notes]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        body = "".join(
            f"<tr><td style='text-align:left'>{html.escape(n)}</td><td>{a}</td><td>{s}</td></tr>"
            for n, a, s in self.rows()
        )
        notes = "".join(f"<li>{html.escape(n)}</li>" for n in self.notes)
        peak = html.escape(_("peak: {moment}").format(moment=self.moment_label()))
        head = "<th style='text-align:left'>{}</th><th>{}</th><th>{}</th>".format(
            html.escape(_("component")), html.escape(_("memory")), html.escape(_("share"))
        )
        return f"<p><b>{html.escape(self.label)}</b><br>{peak}</p><table><tr>{head}</tr>{body}</table>" + (
            f"<ul>{notes}</ul>" if notes else ""
        )


@dataclass(frozen=True)
class Fit:
    """Whether an estimate fits a GPU: true or false like a bool, and says by how much (lesson 05)."""

    needed: int
    available: int
    gpu: str
    basis: str = ""  # which figure `available` is, e.g. "the total CUDA reports on a Colab T4"

    @property
    def margin(self) -> int:
        """Bytes to spare (negative: bytes short) (lesson 05)."""
        return self.available - self.needed

    def __bool__(self) -> bool:
        return self.margin >= 0

    def __repr__(self) -> str:
        return str(self)

    def __str__(self) -> str:
        needed, available = format_bytes(self.needed, "GiB", 2), format_bytes(self.available, "GiB", 2)
        head = _("needs {needed} of {available} on {gpu}").format(needed=needed, available=available, gpu=self.gpu)
        head += _(" ({basis})").format(basis=self.basis) if self.basis else ""
        if self:
            return _("fits: {head}, {spare} to spare").format(head=head, spare=format_bytes(self.margin, "GiB", 2))
        return _("does not fit: {head}, {short} short").format(head=head, short=format_bytes(-self.margin, "GiB", 2))

    def _repr_html_(self) -> str:
        colour = "green" if self else "#b00"
        return f"<p style='color:{colour}'>{html.escape(str(self))}</p>"
