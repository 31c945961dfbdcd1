"""Announced next-generation devices: catalog rows marked estimated with sources and an available_from
month; a tranche may not buy one before it (the refusal names the sheet and cell); a plan that waits for
one is ranked against buying now on one site."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import openpyxl
import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.quantities.dates import CATALOG_DATE
from tcoapp.io.catalog import load_catalog
from tcoapp.io.load import load_scenario

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
ANNOUNCED = {"VR200-NVL72": "2026-10", "VR300-NVL576": "2027-10", "MI455X-Helios": "2026-10"}


@pytest.mark.parametrize("name, month", ANNOUNCED.items())
def test_announced_rows_are_estimates_with_sources_and_a_date(name, month):
    device = load_catalog().devices[name]
    assert device.available_from == month
    estimated = set(device.estimated_fields.split(";"))
    assert {"price_usd", "tdp_w", "mem_bw_gb_s", "peak_tflops_fp4"} <= estimated
    assert "ANNOUNCED, NOT SHIPPING" in device.source and "ESTIMATE" in device.notes
    assert re.search(r"https?://|\.com/", device.source) and re.search(r"20\d\d-\d\d-\d\d", device.source)


def test_shipping_rows_have_no_available_from():
    assert all(d.available_from == "" for n, d in load_catalog().devices.items() if n not in ANNOUNCED)


def _edited(tmp_path, cells):
    path = tmp_path / "book.xlsx"
    shutil.copy(SAMPLES / "years_price_decline.xlsx", path)
    book = openpyxl.load_workbook(path)
    for sheet, cell, value in cells:
        book[sheet][cell] = value
    book.save(path)
    return path


def test_a_tranche_before_the_device_ships_is_refused_at_its_cell(tmp_path):
    """Pools!D3 is year 0's tranche (2026-12): Rubin Ultra ships 2027-10; Plans!C2, a plan without Pools rows,
    buys in year 0 too."""
    assert CATALOG_DATE == "2026-12"
    path = _edited(tmp_path, [("Pools", "D3", "VR300-NVL576"), ("Plans", "C2", "VR300-NVL576")])
    with pytest.raises(ValidationError) as caught:
        load_scenario(str(path))
    text = str(caught.value)
    assert "Pools!D3" in text and "Plans!C2" in text
    assert "available from 2027-10" in text and "bought in 2026-12" in text and "purchase_year >= 1" in text
    assert "'VR300-NVL576'" in text and "Traceback" not in text


def test_a_tranche_after_the_device_ships_computes(tmp_path):
    """Pools!D4 is bought in year 2 (2028-12), after Rubin Ultra's 2027-10."""
    from tcoapp.engine.pipeline.compute import compute_scenario
    path = _edited(tmp_path, [("Pools", "D4", "VR300-NVL576"), ("Pools", "E4", 144), ("Pools", "G4", 1),
                               ("Pools", "P4", 600), ("Pools", "Q4", 1)])
    scenario = load_scenario(str(path))
    plan = next(p for p in scenario.plans if p.pools)
    assert any(pool.device == "VR300-NVL576" and pool.purchase_year == 2 for pool in plan.pools)
    result = compute_scenario(scenario)
    assert all(r.metrics.npv_usd == r.metrics.npv_usd for r in result)


def test_a_bad_available_from_names_the_devices_cell():
    from tcoapp.engine.quantities.records import make_device
    raw = {"name": "X", "memory_gb": 1, "mem_bw_gb_s": 1, "peak_tflops_bf16": 1, "tdp_w": 1, "price_usd": 1}
    with pytest.raises(ValidationError) as caught:
        make_device({**raw, "available_from": "soon"}, where=lambda key: f"Devices!{key}")
    assert "Devices!available_from" in str(caught.value) and "YYYY-MM" in str(caught.value)
    assert make_device({**raw, "available_from": "2027-03-15"}).available_from == "2027-03"


def test_waiting_is_ranked_against_buying_now_on_one_site():
    """Buy Vera Rubin now, or wait a year for Rubin Ultra, on one 1 MW site over the same five years: the
    decision ranks by NPV with the headline per MW and a confidence."""
    import sys
    sys.path.insert(0, str(SAMPLES))
    from build_samples import buy_now_or_wait
    from tcoapp.engine.decision.choice import decide
    from tcoapp.engine.pipeline.compute import compute_scenario
    from tcoapp.present.decision_text import reason
    scenario = buy_now_or_wait()
    results = compute_scenario(scenario)
    assert {p.years for p in scenario.plans} == {5} and {p.facility_power_kw for p in scenario.plans} == {1000}
    waits = [p for p in scenario.plans if p.pools and p.pools[0].purchase_year == 1]
    assert waits
    for r in results:
        assert r.metrics.npv_usd == r.metrics.npv_usd, r.name
    d = decide(scenario, results)
    assert d.objective == "npv_usd" and d.p_first_beats_second is not None
    assert "per MW of facility power" in reason(d)


@pytest.mark.libreoffice
@pytest.mark.slow
def test_the_buy_now_or_wait_workbook_recalculates_as_the_engine(tmp_path):
    """The sample's scenario written as a workbook and recalculated by LibreOffice equals the engine."""
    import sys
    sys.path.insert(0, str(SAMPLES))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from build_samples import buy_now_or_wait
    from workbook_recalc import SOFFICE, compare, recalc
    from tcoapp.engine.pipeline.compute import compute_scenario
    from tcoapp.io.workbook_write import write_scenario
    if SOFFICE is None:
        pytest.skip("LibreOffice Calc (soffice) is not installed")
    scenario = buy_now_or_wait()
    results = compute_scenario(scenario)
    path = tmp_path / "buy_now_or_wait.xlsx"
    write_scenario(scenario, path, results)
    (out,) = recalc([path], tmp_path / "recalculated")
    assert compare(out, scenario, results) == []
