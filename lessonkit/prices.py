"""Cloud GPU prices with their sources, read from lessonkit/data/prices.json when first asked for (lesson 05)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from lessonkit._data import read_json, read_record
from lessonkit.i18n import LANGUAGES, Lazy, get_language, lazy, translate_fields

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
    provider: str
    gpu: str
    memory_gb: int | None  # None: the listing does not say which memory size
    gpu_class: str
    usd_per_gpu_hour: float
    read: str  # the date the price was read, as precise as the source is
    source: str  # where it was read: a URL and what was read there


def _usd_per_hour(entry: dict[str, Any]) -> float:
    """The listing's US$ per GPU-hour, worked out as lesson 05 describes when the source gives another unit."""
    if "usd_per_gpu_hour" in entry:
        return float(entry["usd_per_gpu_hour"])
    price = entry["price"]
    if "usd_per_second" in price:
        return price["usd_per_second"] * 3600
    return price["usd_per_100_units"] / 100 * price["units_per_hour"]


def price_listings() -> tuple[PriceListing, ...]:
    """Every listing in lessonkit/data/prices.json, in file order, its words in lessonkit's language (lesson 05)."""
    return _listings(get_language())


@lru_cache(maxsize=len(LANGUAGES))
def _listings(language: str) -> tuple[PriceListing, ...]:
    """The listings as price_listings() gives them while lessonkit speaks `language`, read once per language."""
    data = read_json("prices.json")
    sources = data["sources"]
    listings = (
        read_record(PriceListing, e, usd_per_gpu_hour=_usd_per_hour(e), source=sources[e["source"]])
        for e in data["listings"]
    )
    return tuple(translate_fields(p, _SHOWN_FIELDS, _SHOWN) for p in listings)
