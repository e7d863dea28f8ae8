"""Cloud GPU prices with their sources, read from lessonkit/data/prices.json when first asked for (lesson 05).

Every listing has a kind, one of PRICE_KINDS: "on_demand" (yours while you pay), "spot" (cheaper, but the provider
can take it back at any moment) or "serverless" (billed per second while a request runs). A table or a price range
holds one kind, or labels each row with `kind_label`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from lessonkit._checks import check_choice
from lessonkit._data import read_json, read_record
from lessonkit.i18n import LANGUAGES, Lazy, get_language, lazy, text, translate_fields

PRICE_KINDS = ("on_demand", "spot", "serverless")
# What each kind is called in a table, and what a learner must know about it, in the language lessonkit speaks.
_KIND_LABELS: dict[str, Lazy] = {
    "on_demand": lazy("on demand"),
    "spot": lazy("spot"),
    "serverless": lazy("serverless"),
}
_KIND_NOTES: dict[str, Lazy] = {
    "on_demand": lazy("rented for as long as you pay, at a listed price; nobody can take it away"),
    "spot": lazy("cheaper spare capacity that the provider can take back at any moment: save your work often"),
    "serverless": lazy(
        "billed per second only while a request runs (shown here x 3600); the first request after a pause waits "
        "for a cold start"
    ),
}

# The words of prices.json a learner reads (offers, GPU classes, sources), in the language lessonkit speaks when
# price_listings() is called; the file keeps the English. A GPU class keeps its " (" and its "NN GB": lesson 05
# groups listings by what comes before " (".
_SHOWN_FIELDS = ("offer", "gpu_class", "source")
_SHOWN: tuple[Lazy, ...] = (
    lazy("RunPod Community Cloud, spot"),
    lazy("RunPod serverless"),
    lazy("RunPod serverless (L4, A5000 or 3090)"),
    lazy("RunPod serverless (4090 PRO)"),
    lazy("RunPod serverless (H100 PRO)"),
    lazy("Colab pay-as-you-go, T4"),
    lazy("Colab pay-as-you-go, A100"),
    lazy("Vast.ai marketplace, median"),
    lazy("Lambda, 8-GPU machine"),
    lazy("24 GB consumer (RTX 4090)"),
    lazy("24 GB consumer (RTX 3090)"),
    lazy("24 GB serverless pool (L4, RTX A5000, RTX 3090)"),
    lazy("16 GB data centre (T4)"),
    lazy("A100, memory not stated"),
    lazy(
        "https://www.runpod.io/pricing as transcribed in https://github.com/datareceipts/data-receipts "
        "(109-gpu-pricing/vendors.json)"
    ),
    lazy("https://github.com/datareceipts/data-receipts (109-gpu-pricing/hyperscalers.json, list prices, us-east)"),
    lazy(
        "https://lambda.ai/instances as transcribed in https://github.com/api-evangelist/lambda-labs "
        "(plans/lambda-labs-plans-pricing.yml)"
    ),
    lazy("https://docs.runpod.io/serverless/pricing (per-second flex price x 3600)"),
    lazy(
        "$9.99 per 100 compute units (https://techcrunch.com/2022/09/29/google-colaboratory-launches-a-pay-as-"
        "you-go-option-premium-gpu-access/); units per hour measured in "
        "https://www.currypurin.com/entry/2022/09/30/093810"
    ),
)


@dataclass(frozen=True)
class PriceListing:
    """One offer of a GPU by the hour: who, which GPU, US$ per GPU-hour, when read and where (lesson 05)."""

    offer: str
    kind: str  # one of PRICE_KINDS
    provider: str
    gpu: str
    memory_gb: int | None  # None: the listing does not say which memory size
    gpu_class: str
    usd_per_gpu_hour: float
    read: str  # the date the price was read, as precise as the source is
    source: str  # where it was read: a URL and what was read there

    @property
    def kind_label(self) -> str:
        """The listing's kind as a table shows it ('on demand', 'spot', 'serverless'), translated (lesson 05)."""
        return kind_label(self.kind)


def kind_label(kind: str) -> str:
    """'on demand', 'spot' or 'serverless' for one of PRICE_KINDS, in the language lessonkit speaks (lesson 05)."""
    return text(_KIND_LABELS[check_choice("kind", kind, PRICE_KINDS)])


def kind_note(kind: str) -> str:
    """One sentence on what a price of this kind buys (a spot machine can be taken away), translated (lesson 05)."""
    return text(_KIND_NOTES[check_choice("kind", kind, PRICE_KINDS)])


def kind_source(kind: str) -> str:
    """Where prices.json's description of a kind comes from (URLs with what was read there) (lesson 05)."""
    return read_json("prices.json")["kinds"][check_choice("kind", kind, PRICE_KINDS)]["source"]


def _usd_per_hour(entry: dict[str, Any]) -> float:
    """The listing's US$ per GPU-hour, worked out as lesson 05 describes when the source gives another unit."""
    if "usd_per_gpu_hour" in entry:
        return float(entry["usd_per_gpu_hour"])
    price = entry["price"]
    if "usd_per_second" in price:
        return price["usd_per_second"] * 3600
    return price["usd_per_100_units"] / 100 * price["units_per_hour"]


def price_listings(kind: str | None = None) -> tuple[PriceListing, ...]:
    """The listings of lessonkit/data/prices.json in file order, its words in lessonkit's language (lesson 05).

    `kind` ("on_demand", "spot" or "serverless") keeps only that kind; None (the default) keeps all of them.
    """
    listings = _listings(get_language())
    if kind is None:
        return listings
    check_choice("kind", kind, PRICE_KINDS)
    return tuple(p for p in listings if p.kind == kind)


@lru_cache(maxsize=len(LANGUAGES))
def _listings(language: str) -> tuple[PriceListing, ...]:
    """The listings as price_listings() gives them while lessonkit speaks `language`, read once per language."""
    data = read_json("prices.json")
    sources = data["sources"]
    unknown = {e.get("kind") for e in data["listings"]} - set(PRICE_KINDS)
    if unknown:
        raise ValueError(f"prices.json has a listing of an unknown kind: {sorted(map(str, unknown))}")
    listings = (
        read_record(PriceListing, e, usd_per_gpu_hour=_usd_per_hour(e), source=sources[e["source"]])
        for e in data["listings"]
    )
    return tuple(translate_fields(p, _SHOWN_FIELDS, _SHOWN) for p in listings)
