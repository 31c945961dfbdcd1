"""The Checks sheet covers every input the engine reads, derived from the field table (engine/quantities/inputs.py):
each field of the Plans, Pools, Devices, Models and Curves tables is either compared by a Checks row, or
documentation (notes, sources), or followed live by the workbook's own formulas, which is proven here by
finding the formulas that read it. A field added to a table is therefore checked unless someone makes it
live (and this test then wants the formula)."""
from __future__ import annotations

import dataclasses
import re

import numpy as np
import openpyxl
import pytest

from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.engine.quantities.inputs import CURVE_POINT_FIELDS, DEVICE_FIELDS, MODEL_FIELDS, PLAN_FIELDS, POOL_FIELDS
from tcoapp.engine.performance.factors import FACTOR_NAMES
from tcoapp.engine.performance.measured import make_measured_curve
from tcoapp.io import sheets as S
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario
from tcoapp.io.xlsx_checks import (
    DOC_FIELDS, IDENTITY, LIVE_DEVICE_FIELDS, LIVE_PLAN_KEYS, LIVE_POOL_FIELDS, constant_values,
)
from tcoapp.io.xlsx_constants import CONSTANTS
from tcoapp.io.xlsx_inputs import plan_rows
from tcoapp.io.xlsx_layout import field_column

import pathlib

SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "samples"


def _scenarios():
    base = default_scenario()
    plan = base.plans[0]
    batch = np.array([1.0, 8, 64, 256])
    curve = make_measured_curve("c", plan.device, plan.model, batch, 40.0 * batch ** 0.8, 60.0 * batch ** -0.3,
                                300 + batch, 0.05 + 0.001 * batch, source="benchmark")
    with_curve = dataclasses.replace(base.with_plans([plan.with_(curve="c")]), curves={"c": curve})
    moe = read_scenario(SAMPLES / "moe_rack_scale.xlsx")
    sized = {mode: base.with_plans([plan.with_(sizing_mode=mode)]) for mode in ("devices", "facility_power", "capex_budget", "demand")}
    sized_pools = moe.with_plans([p.with_(sizing_mode="capex_budget") for p in moe.plans if p.pools])
    return {"curve": with_curve, "moe": moe, "sized_pools": sized_pools, **sized}


@pytest.fixture(scope="module")
def books(tmp_path_factory):
    folder = tmp_path_factory.mktemp("coverage")
    out = {}
    for name, scenario in _scenarios().items():
        path = folder / f"{name}.xlsx"
        write_scenario(scenario, path, compute_scenario(scenario))
        out[name] = openpyxl.load_workbook(path)
    return out


def _checks(wb) -> set[str]:
    return {str(row[1].value) for row in wb[S.CHECKS].iter_rows(min_row=4) if row[1].value}


def _formulas(wb) -> str:
    texts = []
    for sheet in (S.RESULTS, S.CASH_FLOW):
        for row in wb[sheet].iter_rows():
            texts.extend(c.value for c in row if isinstance(c.value, str) and c.value.startswith("="))
    return "\n".join(texts)


def _engine_read(fields, doc=DOC_FIELDS):
    """The fields of a table the engine reads: all but documentation and the row's identity."""
    return [f.name for f in fields if f.name not in doc | IDENTITY]


def test_every_plans_key_the_engine_reads_is_checked_or_live(books):
    checks = _checks(books["curve"])
    rows = plan_rows()
    formulas = "\n".join(_formulas(wb) for wb in books.values())
    for key in _engine_read(PLAN_FIELDS):
        if key in LIVE_PLAN_KEYS:
            assert re.search(rf"{S.PLANS}!\$?C\$?{rows[key]}\b", formulas), f"{key} is declared live but no formula reads it"
        else:
            assert f"Plans {key}" in checks, key


def test_every_device_field_the_engine_reads_is_checked_or_live(books):
    checks = _checks(books["curve"])
    device = default_scenario().plans[0].device
    formulas = _formulas(books["curve"])
    for key in _engine_read(DEVICE_FIELDS):
        if key in LIVE_DEVICE_FIELDS:
            assert f"{S.DEVICES}!${field_column(DEVICE_FIELDS, key)}$" in formulas, key
            # live for a plan the spreadsheet sizes; checked where the engine sizes it (several pools, by budget)
            pooled = next(p for p in read_scenario(SAMPLES / "moe_rack_scale.xlsx").plans if p.pools).pools[0].device
            assert f"Devices {pooled} {key}" in _checks(books["sized_pools"]), key
        else:
            assert f"Devices {device} {key}" in checks, key
    for key in ("fast_memory_gb", "fast_mem_bw_gb_s", "step_overhead_s", "layer_overhead_s"):  # the four
        assert f"Devices {device} {key}" in checks


def test_a_searched_plans_device_economics_are_checked(books):
    """The serving search picks the configuration cheapest per token from the device's price, server price,
    server power and devices per server: no formula follows that choice, so the Checks snapshot them."""
    scenario = _scenarios()["devices"]
    result = compute_scenario(scenario)[0]
    assert any(s is not None for s in result.searches)
    device = scenario.plans[0].device
    for key in LIVE_DEVICE_FIELDS:
        assert f"Devices {device} {key}" in _checks(books["devices"]), key
        assert f"Devices {device} {key}" not in _checks(books["curve"]), key  # a measured curve: not searched


def test_every_model_curve_pool_and_factor_input_is_checked(books):
    checks = _checks(books["curve"])
    model = default_scenario().plans[0].model
    for key in _engine_read(MODEL_FIELDS):
        assert f"Models {model} {key}" in checks, key
    for key in _engine_read(CURVE_POINT_FIELDS, DOC_FIELDS - {"source"}):
        assert any(what.startswith(f"Curves c ") and key in what for what in checks), key
    for name in FACTOR_NAMES:
        assert f"Calibration {name}" in checks, name
    pools = _checks(books["moe"]) | _checks(books["sized_pools"])
    moe = read_scenario(SAMPLES / "moe_rack_scale.xlsx")
    pool = next(p for p in moe.plans if p.pools).pools[0].pool
    for key in _engine_read(POOL_FIELDS):
        if key in LIVE_POOL_FIELDS - {"ownership", "device_count"}:
            assert f'MATCH("{key}",{S.POOLS}!$1:$1,0)' in _formulas(books["moe"]), key
        else:
            assert f"Pools {pool} {key}" in pools, key


def test_every_constant_is_checked(books):
    checks = _checks(books["curve"])
    for name, *_ in CONSTANTS:
        assert f"Constants {name} (the engine's constant)" in checks
    assert constant_values()["SECONDS_PER_YEAR"] == 8760 * 3600


def test_checks_find_their_rows_by_key_not_by_address(books):
    """No check reads an input sheet at a fixed cell: rows are found by key (MATCH, COUNTIF, SUMPRODUCT), so
    sorting a table or inserting and deleting rows keeps each check on its input."""
    # a cell of an input sheet below its header row (row 1: the plan names and keys), not the start of a range
    fixed = re.compile(rf"({S.PLANS}|{S.DEVICES}|{S.MODELS}|{S.POOLS}|{S.CURVES}|{S.CALIBRATION})!\$?[A-Z]+\$?(?!1\b)\d+\b(?!:)")
    seen = 0
    for wb in books.values():
        for row in wb[S.CHECKS].iter_rows(min_row=4):
            what, found, current = (str(row[i].value or "") for i in (1, 5, 3))
            if not what.split(" ")[0].rstrip(":") in (S.PLANS, S.DEVICES, S.MODELS, S.POOLS, S.CURVES, S.CALIBRATION):
                continue
            seen += 1
            text = found + current
            assert any(f in text for f in ("MATCH(", "COUNTIF(", "COUNTA(", "SUMPRODUCT(", "INDEX(")) or (
                re.fullmatch(rf"=(ISREF\()?{S.PLANS}!\$[A-Z]+\$1\)?", current)), (what, text)  # a plan's name: its header cell
            assert not fixed.search(current), (what, current)
    assert seen > 200
