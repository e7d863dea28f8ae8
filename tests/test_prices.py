"""lessonkit.prices: lesson 05's cloud GPU prices, each with its source and the date it was read."""

from __future__ import annotations

import json
import re
from importlib import resources

from lessonkit.prices import PriceListing, price_listings


def test_every_listing_is_complete_and_sourced():
    listings = price_listings()
    assert len(listings) == 20 and all(isinstance(p, PriceListing) for p in listings)
    for p in listings:
        assert p.offer and p.provider and p.gpu and p.gpu_class
        assert 0 < p.usd_per_gpu_hour < 20, p
        assert re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", p.read), p.read
        assert "https://" in p.source, p.source
        assert p.memory_gb is None or p.memory_gb in (16, 24, 40, 80)
        assert p.gpu in p.gpu_class or p.gpu_class in ("A100", "H100") and p.gpu == p.gpu_class


def test_prices_given_in_other_units_become_dollars_per_gpu_hour():
    by_offer = {(p.offer, p.gpu): p.usd_per_gpu_hour for p in price_listings()}
    assert by_offer[("RunPod serverless", "A100")] == 0.00076 * 3600  # per-second price x 3600
    assert by_offer[("Colab pay-as-you-go, T4", "T4")] == 9.99 / 100 * 1.96  # 100 units for $9.99, 1.96 units/hour


def test_every_source_in_the_file_is_used_and_the_file_is_read_once():
    data = json.loads(resources.files("lessonkit").joinpath("data/prices.json").read_text("utf-8"))
    assert {e["source"] for e in data["listings"]} == set(data["sources"])
    assert price_listings() is price_listings()


def test_a_price_class_never_mixes_memory_sizes():
    """An "A100 80 GB" range holds only 80 GB listings; a class never mixes two stated sizes (issue 12)."""
    sizes: dict[str, set] = {}
    for p in price_listings():
        sizes.setdefault(p.gpu_class.split(" (")[0], set()).add(p.memory_gb)
    for name, found in sizes.items():
        assert len(found - {None}) <= 1, (name, found)
        stated = re.search(r"(\d+) GB", name)
        if stated:
            assert found == {int(stated.group(1))}, (name, found)
