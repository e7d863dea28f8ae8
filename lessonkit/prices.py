"""Cloud GPU prices with their sources, read from lessonkit/data/prices.json when first asked for (lesson 07)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from lessonkit._data import read_json, read_record


@dataclass(frozen=True)
class PriceListing:
    """One offer of a GPU by the hour: who, which GPU, US$ per GPU-hour, when read and where (lesson 07)."""

    offer: str
    provider: str
    gpu: str
    memory_gb: int | None  # None: the listing does not say which memory size
    gpu_class: str
    usd_per_gpu_hour: float
    read: str  # the date the price was read, as precise as the source is
    source: str  # where it was read: a URL and what was read there


def _usd_per_hour(entry: dict[str, Any]) -> float:
    """The listing's US$ per GPU-hour, worked out as lesson 07 describes when the source gives another unit."""
    if "usd_per_gpu_hour" in entry:
        return float(entry["usd_per_gpu_hour"])
    price = entry["price"]
    if "usd_per_second" in price:
        return price["usd_per_second"] * 3600
    return price["usd_per_100_units"] / 100 * price["units_per_hour"]


@lru_cache(maxsize=1)
def price_listings() -> tuple[PriceListing, ...]:
    """Every listing in lessonkit/data/prices.json, in file order (lesson 07)."""
    data = read_json("prices.json")
    sources = data["sources"]
    return tuple(
        read_record(PriceListing, e, usd_per_gpu_hour=_usd_per_hour(e), source=sources[e["source"]])
        for e in data["listings"]
    )
