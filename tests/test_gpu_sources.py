"""Every figure in lessonkit/data/gpus.json has a source, and a primary one (lessons 03, 05, 06).

The catalog declares its primary hosts (vendors' sites, NVIDIA's document library, arXiv) under
`primary_sources`. A figure whose only source is elsewhere (a reseller, a blog, a stranger's
notebook) fails here unless the entry's `no_primary_source` names the field with the reason and its
notes say "no primary source". What real machines print (nvidia-smi totals, torch's device names) is
published by no vendor: those observed fields need a source, any https one.
"""

from __future__ import annotations

import copy
import re
from urllib.parse import urlparse

import pytest

from lessonkit._data import read_json

CATALOG = read_json("gpus.json")
PRIMARY = CATALOG["primary_sources"]
ENTRIES = CATALOG["gpus"]


def figures(entry: dict) -> list[str]:
    """The sourced figures an entry states, named as in its `sources` ('peak_tflops.fp16')."""
    single = ("memory_gb_sold", "memory_type", "compute_capability", "bandwidth_gb_s", "tdp_w")
    names = [f for f in single if entry.get(f) is not None]
    names += [f for f in ("interconnect", "min_software") if entry.get(f)]
    for group in ("peak_tflops", "peak_tops", "other_published"):
        names += [f"{group}.{p}" for p in entry.get(group) or {}]
    if any((entry.get("tensor_cores") or {}).values()):
        names.append("tensor_cores")
    return names


def is_primary(url: str, hosts: list[str]) -> bool:
    host = urlparse(url).hostname or ""
    return any(host == h or host.endswith("." + h) for h in hosts)


def source_problems(entry: dict, primary: dict = PRIMARY) -> list[str]:
    """Everything wrong with one entry's sources, each as '<key>.<field>: <what>'; empty when all is well."""
    key, sources = entry["key"], entry.get("sources", {})
    secondary, exempt = entry.get("secondary_sources", {}), entry.get("no_primary_source", {})
    stated = figures(entry)
    observed = [f for f in primary["observed_fields"] if entry.get(f)]
    problems = []
    for field in stated + observed:
        url = sources.get(field, "")
        if not url.startswith("https://"):
            problems.append(f"{key}.{field}: no https source")
        elif field in stated and not is_primary(url, primary["hosts"]) and len(exempt.get(field, "")) < 20:
            host = urlparse(url).hostname
            problems.append(f"{key}.{field}: {host} is not a primary host and no_primary_source gives no reason")
    for field in exempt:
        if field not in stated:
            problems.append(f"{key}.{field}: no_primary_source names a figure the entry does not state")
        elif is_primary(sources.get(field, ""), primary["hosts"]):
            problems.append(f"{key}.{field}: no_primary_source, yet the source is primary")
    if exempt and "no primary source" not in (entry.get("notes") or "").lower():
        problems.append(f"{key}: no_primary_source is not explained in the notes")
    for field, urls in secondary.items():
        if field not in sources:
            problems.append(f"{key}.{field}: a secondary source with no source beside it")
        if not urls or not all(u.startswith("https://") for u in urls):
            problems.append(f"{key}.{field}: secondary sources must be a list of https URLs")
    stale = set(sources) - set(stated) - set(observed) - {"architecture"}
    problems += [f"{key}.{field}: a source for a figure the entry does not state" for field in sorted(stale)]
    for fact in entry.get("export_control") or ():
        if not (
            re.fullmatch(r"\d{4}-\d{2}-\d{2}", fact.get("date", "")) and fact.get("source", "").startswith("https://")
        ):
            problems.append(f"{key}.export_control: every fact needs a date (YYYY-MM-DD) and an https source")
        if len(fact.get("fact", "")) < 40:
            problems.append(f"{key}.export_control: a fact must say what happened")
    return problems


def test_the_catalog_declares_its_primary_hosts():
    assert {"nvidia.com", "apple.com"} <= set(PRIMARY["hosts"]) and PRIMARY["why"]
    assert set(PRIMARY["observed_fields"]) == {"memory_mib_smi", "torch_names", "ecc"}
    assert is_primary("https://rocm.docs.amd.com/en/latest/reference/gpu-specs.html", PRIMARY["hosts"])
    assert not any(is_primary(u, PRIMARY["hosts"]) for u in ("https://github.com/x/y", "https://notnvidia.com/a"))
    assert is_primary("https://images.nvidia.com/a.pdf", PRIMARY["hosts"])


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e["key"])
def test_every_figure_has_a_primary_source_or_says_why_not(entry: dict):
    assert source_problems(entry) == []


def test_figures_without_a_primary_source_are_few_and_named():
    exempt = {e["key"]: sorted(e["no_primary_source"]) for e in ENTRIES if e.get("no_primary_source")}
    assert set(exempt) == {"A10G", "A800_80GB_SXM", "H800_SXM", "H20", "B200"}
    assert exempt["B200"] == ["tdp_w"]  # NVIDIA gives only system power for HGX/DGX B200
    assert exempt["A10G"] == ["bandwidth_gb_s", "compute_capability", "memory_type", "tdp_w"]


def _t4() -> dict:
    return copy.deepcopy(next(e for e in ENTRIES if e["key"] == "T4"))


def test_a_planted_non_primary_source_is_flagged():
    entry = _t4()
    entry["sources"]["bandwidth_gb_s"] = "https://www.techpowerup.com/gpu-specs/tesla-t4.c3316"
    assert source_problems(entry) == [
        "T4.bandwidth_gb_s: www.techpowerup.com is not a primary host and no_primary_source gives no reason"
    ]
    entry["no_primary_source"] = {"bandwidth_gb_s": "planted: no vendor figure exists for this test"}
    assert source_problems(entry) == ["T4: no_primary_source is not explained in the notes"]
    entry["notes"] += " No primary source exists for the planted figure."
    assert source_problems(entry) == []


def test_missing_stale_and_orphaned_sources_are_flagged():
    entry = _t4()
    del entry["sources"]["peak_tops.int8"]
    entry["sources"]["peak_tflops.bf16"] = "https://www.nvidia.com/t4.pdf"  # the T4 states no bf16 peak
    entry["secondary_sources"]["tdp_w"] = ["http://example.com/not-https"]
    entry["no_primary_source"] = {"peak_tflops.fp32": "the primary T4 datasheet is cited, so this is stale"}
    entry["notes"] += " No primary source."
    assert source_problems(entry) == [
        "T4.peak_tops.int8: no https source",
        "T4.peak_tflops.fp32: no_primary_source, yet the source is primary",
        "T4.peak_tops.int8: a secondary source with no source beside it",
        "T4.tdp_w: secondary sources must be a list of https URLs",
        "T4.peak_tflops.bf16: a source for a figure the entry does not state",
    ]
    entry = _t4()
    entry["sources"]["memory_mib_smi"] = "colab printout"  # observed fields need a source too, any https one
    assert source_problems(entry) == ["T4.memory_mib_smi: no https source"]


def test_every_data_centre_gpu_says_how_it_talks_to_the_others():
    """Issue 26: the A800 and H800 differ from the A100 and H100 in their NVLink, so the catalog must say so."""
    consumer = {"RTX_3090", "RTX_4090", "RTX_5090"}
    missing = [
        e["key"]
        for e in ENTRIES
        if e["kind"] in ("cuda", "rocm") and e["key"] not in consumer and not e.get("interconnect")
    ]
    assert missing == ["A10G"], missing  # the one exception, explained in its notes
    by_key = {e["key"]: e["interconnect"] for e in ENTRIES if e.get("interconnect")}
    assert (by_key["A800_80GB_SXM"]["gb_s"], by_key["A100_80GB_SXM"]["gb_s"]) == (400.0, 600.0)
    assert (by_key["H800_SXM"]["gb_s"], by_key["H100_SXM"]["gb_s"]) == (400.0, 900.0)


def test_export_control_facts_are_dated_and_sourced():
    dated = {e["key"]: [f["date"] for f in e["export_control"]] for e in ENTRIES if e.get("export_control")}
    assert set(dated) == {"A800_80GB_SXM", "H800_SXM", "H20", "H200"}
    assert "2023-10-17" in dated["A800_80GB_SXM"] and "2023-10-17" in dated["H800_SXM"]
    assert dated["H20"][0] == "2025-04-09" and "2026-01-15" in dated["H200"]
    for e in ENTRIES:  # no present-tense "export-compliant" left in a note
        assert "export-compliant" not in (e.get("notes") or ""), e["key"]


def test_a_planted_undated_export_fact_is_flagged():
    entry = copy.deepcopy(next(e for e in ENTRIES if e["key"] == "H20"))
    entry["export_control"][0]["date"] = "April 2025"
    assert source_problems(entry) == ["H20.export_control: every fact needs a date (YYYY-MM-DD) and an https source"]
