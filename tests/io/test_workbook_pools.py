"""The Pools sheet: round trip, every bad row named by sheet and cell, schema-1 workbooks migrated,
and the Results pool blocks recalculated by LibreOffice to the engine's numbers."""
from __future__ import annotations

import sys
from pathlib import Path

import openpyxl
import pytest

from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.engine.core.errors import ValidationError
from tcoapp.io import sheets as S
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario

from .workbook_recalc import SOFFICE, compare, recalc

ROOT = Path(__file__).resolve().parents[2]
HETERO = ROOT / "samples" / "heterogeneous_disaggregated.xlsx"


def test_pools_roundtrip(tmp_path):
    scenario = read_scenario(HETERO)
    assert any(plan.pools for plan in scenario.plans)
    write_scenario(scenario, tmp_path / "back.xlsx")
    assert read_scenario(tmp_path / "back.xlsx") == scenario


def _edit(tmp_path, edits) -> Path:
    wb = openpyxl.load_workbook(HETERO)
    ws = wb[S.POOLS]
    for cell, value in edits.items():
        ws[cell] = value
    path = tmp_path / "edited.xlsx"
    wb.save(path)
    return path


def _column(key: str) -> str:
    wb = openpyxl.load_workbook(HETERO, read_only=True)
    header = [c.value for c in next(wb[S.POOLS].iter_rows(min_row=1, max_row=1))]
    return openpyxl.utils.get_column_letter(header.index(key) + 1)


def test_every_bad_pool_row_is_named_by_sheet_and_cell(tmp_path):
    plan, device, role, count = (_column(k) for k in ("plan", "device", "role", "device_count"))
    path = _edit(tmp_path, {f"{plan}3": "No such plan", f"{role}5": "router", f"{count}6": -4})
    with pytest.raises(ValidationError) as error:
        read_scenario(path)
    text = str(error.value)
    assert f"Pools!{plan}3 plan = 'No such plan' (row 3): no plan of that name" in text
    assert f"Pools!{role}5 role = 'router': must be one of serve, prefill, decode" in text
    assert f"Pools!{count}6 device_count = -4" in text
    with pytest.raises(ValidationError) as error:
        read_scenario(_edit(tmp_path, {f"{device}4": "No-such-device"}))
    assert str(error.value).startswith(f"Pools!{device}4 device = 'No-such-device': no device of that name")


def test_a_schema_1_workbook_opens_unchanged(tmp_path):
    """Schema 1 had no Pools sheet; its disaggregated plans become their two pools."""
    wb = openpyxl.load_workbook(HETERO)
    del wb[S.POOLS]
    about = wb[S.ABOUT]
    for row in about.iter_rows():
        if row[0].value == S.ABOUT_SCHEMA_KEY:
            row[1].value = 1
    wb[S.PLANS].delete_cols(wb[S.PLANS].max_column - 1, 2)  # the two pool plans
    path = tmp_path / "v1.xlsx"
    wb.save(path)
    scenario = read_scenario(path)
    hetero = scenario.plan("All-H100 disaggregated 1:3")
    results = {r.name: r for r in compute_scenario(scenario)}
    assert [p.role for p in results[hetero.name].pools] == ["prefill", "decode"]


@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice is needed to recalculate formulas")
def test_libreoffice_recalculates_the_pool_blocks(tmp_path):
    scenario = read_scenario(ROOT / "samples" / "moe_rack_scale.xlsx")
    results = compute_scenario(scenario)
    path = tmp_path / "pools.xlsx"
    write_scenario(scenario, path, results)
    (out,) = recalc([path], tmp_path / "out")
    assert compare(out, scenario, results) == []
    wb = openpyxl.load_workbook(out, data_only=True)
    ws = wb[S.RESULTS]
    keys = {ws.cell(r, 1).value: r for r in range(1, ws.max_row + 1)}
    col = 3 + len(scenario.plans) - 1
    fleet = results[-1]
    assert ws.cell(keys["pool2.racks"], col).value == fleet.pool_rows()[1]["racks"]
    assert ws.cell(keys["racks"], col).value == fleet.metrics.racks
