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


# --- three kinds of price, never mixed (issue 26, item 8) ---------------------------------------------------


def test_every_listing_has_a_kind_and_the_spot_and_serverless_ones_say_so():
    from lessonkit.prices import PRICE_KINDS

    listings = price_listings()
    assert {p.kind for p in listings} == set(PRICE_KINDS)
    for p in listings:
        assert ("spot" in p.offer.lower()) == (p.kind == "spot"), p.offer
        assert ("serverless" in p.offer.lower()) == (p.kind == "serverless"), p.offer
    assert [p.usd_per_gpu_hour for p in price_listings("spot")] == [0.34]  # the RunPod 4090 price lesson 05 quoted
    assert sum(len(price_listings(k)) for k in PRICE_KINDS) == len(listings)


def test_kinds_have_labels_notes_and_sources():
    from lessonkit.prices import PRICE_KINDS, kind_label, kind_note, kind_source

    assert [kind_label(k) for k in PRICE_KINDS] == ["on demand", "spot", "serverless"]
    assert "take back at any moment" in kind_note("spot") and "cold start" in kind_note("serverless")
    assert all(kind_source(k).startswith("https://") for k in PRICE_KINDS)
    assert price_listings()[0].kind_label == "spot"


def test_a_range_by_kind_never_mixes_kinds():
    """What lesson 05's summary does per GPU class, per kind: the spot $0.34 is no longer the on-demand floor."""
    on_demand = [p.usd_per_gpu_hour for p in price_listings("on_demand") if p.gpu == "RTX 4090"]
    assert on_demand == [0.6] and min(on_demand) > 0.34


def test_an_unknown_kind_is_refused():
    import pytest

    from lessonkit.prices import kind_label

    with pytest.raises(ValueError, match="kind must be one of"):
        price_listings("reserved")
    with pytest.raises(ValueError, match="kind must be one of"):
        kind_label("on-demand")
