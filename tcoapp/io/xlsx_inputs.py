"""The input sheets of the exported workbook: Plans, Devices, Models, Curves, PriceTiers, Calibration.

Their layout is the one `workbook_read.read_scenario` reads (docs/workbook_format.md), so an exported
workbook imports back to the identical scenario. Every label, unit and help text comes from the
field table (engine/quantities/inputs.py).
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ..engine.plan.calibration_scope import QUALITY_ROWS
from ..engine.quantities.factors import FACTOR_FIELD_BY_NAME
from ..engine.quantities.inputs import (
    CURVE_ARRAYS, CURVE_POINT_FIELDS, DEVICE_FIELDS, MODEL_FIELDS, PLAN_FIELDS, POOL_FIELDS, PRICE_TIER_FIELDS, Field,
)
from ..engine.performance.factors import FACTOR_NAMES
from ..engine.performance.measured import config_text
from ..engine.plan.scenario import Scenario
from . import sheets as S
from .xlsx_bulk import PendingRows
from .xlsx_styles import (
    LABEL_HEADER, PLAN_WIDTH_MAX, header, key_cell, label_cell, label_width, put, unit_cell, widths, with_unit, wrap,
)

def field_comment(field: Field) -> str:
    default = "none" if field.default is None else ("empty" if field.default == "" else f"{field.default}")
    unit = f" [{field.unit}]" if field.unit else ""
    return f"{field.label}{unit}\n{field.help}\nAllowed: {field.range_text()}. Default: {default}."


def plan_rows() -> dict[str, int]:
    """Row of each plan key on the Plans sheet."""
    return {field.name: row for row, field in enumerate(PLAN_FIELDS, start=2)}


def write_plans(ws, scenario: Scenario) -> dict[str, int]:
    rows = plan_rows()
    header(ws, 1, 1, "key", "Parameter key (docs/workbook_format.md). Rows may be left out: the default applies.")
    header(ws, 1, 2, LABEL_HEADER, "What the key is, and its unit (not read: the key and the values are).")
    for index, plan in enumerate(scenario.plans):
        header(ws, 1, S.FIRST_PLAN_COLUMN + index, plan.name)
        wrap(ws.cell(row=1, column=S.FIRST_PLAN_COLUMN + index))   # a long name wraps (PLAN_WIDTH_MAX)
    for field in PLAN_FIELDS:
        row = rows[field.name]
        key_cell(ws, row, field.name, field_comment(field))
        label_cell(ws, row, 2, field.label, field.unit)
        for index, plan in enumerate(scenario.plans):
            cell = put(ws, row, S.FIRST_PLAN_COLUMN + index, _cell_value(getattr(plan, field.name)), "input", field.unit)
            if field.zero_text:
                base = cell.number_format if cell.number_format not in (None, "General") else "0.####"
                cell.number_format = f'{base};-{base};"0 ({field.zero_text})"'
    ws.freeze_panes = "C2"
    label = label_width(with_unit(f.label, f.unit) for f in PLAN_FIELDS)
    widths(ws, {1: 34, 2: label, **{S.FIRST_PLAN_COLUMN + i: max(16, min(PLAN_WIDTH_MAX, len(p.name) + 4))
                                   for i, p in enumerate(scenario.plans)}})
    return rows


def _cell_value(value):
    """Blank for "not set" (None, empty text, NaN); else the value itself."""
    if value is None or value == "":
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def used_device_names(scenario: Scenario) -> list[str]:
    names = []
    for plan in scenario.plans:
        names.extend(n for n in (plan.device, plan.prefill_device, plan.decode_device) if n)
        names.extend(pool.device for pool in plan.pools)
    names.extend(scenario.devices)
    return list(dict.fromkeys(names))


def used_model_names(scenario: Scenario) -> list[str]:
    return list(dict.fromkeys([p.model for p in scenario.plans if p.model] + list(scenario.models)))


def write_table(ws, fields: tuple[Field, ...], records, bulk: bool = False, rows=None) -> PendingRows | None:
    """Row 1 keys, row 2 units, one record (an object with the field attributes, or a dict) per row from row 3;
    or `rows`: each row's cell values in field order, made beforehand (None: empty).

    bulk: only the first record goes through openpyxl (the template row); the others are returned
    as PendingRows for xlsx_bulk.splice_rows to write after saving (fast for thousands of rows).
    """
    for col, field in enumerate(fields, start=1):
        header(ws, 1, col, field.name, field_comment(field))
        unit_cell(ws, 2, col, field.unit)
    pending = PendingRows(ws.title, S.FIRST_ENTRY_ROW, len(fields)) if bulk else None
    if rows is None:
        rows = ([_cell_value(record[f.name] if isinstance(record, dict) else getattr(record, f.name)) for f in fields]
                for record in records)
    for row, values in enumerate(rows, start=S.FIRST_ENTRY_ROW):
        if pending is not None and row > S.FIRST_ENTRY_ROW:
            pending.rows.append(values)
            continue
        for col, (field, value) in enumerate(zip(fields, values), start=1):
            put(ws, row, col, value, "input", field.unit)
    ws.freeze_panes = ws.cell(row=S.FIRST_ENTRY_ROW, column=2).coordinate
    widths(ws, {col: _width(field) for col, field in enumerate(fields, start=1)})
    return pending


def _width(field: Field) -> float:
    if field.name in ("source", "notes", "config"):
        return 50
    if field.name in ("name", "curve", "device", "model", "price_tiers", "estimated_fields"):
        return 24
    return max(12, len(field.name) + 2)


def write_devices(ws, scenario: Scenario) -> dict[str, int]:
    """The Devices sheet (the devices the plans use, and the scenario's own); returns each device's row."""
    records = []
    for name in used_device_names(scenario):
        try:
            records.append(scenario.device(name))
        except KeyError:
            continue  # a dangling name: the Plans cell still names it, and import reports it
    write_table(ws, DEVICE_FIELDS, records)
    return {r.name: row for row, r in enumerate(records, start=S.FIRST_ENTRY_ROW)}


def write_models(ws, scenario: Scenario) -> dict[str, int]:
    records = []
    for name in used_model_names(scenario):
        try:
            records.append(scenario.model(name))
        except KeyError:
            continue
    write_table(ws, MODEL_FIELDS, records)
    return {r.name: row for row, r in enumerate(records, start=S.FIRST_ENTRY_ROW)}


def curve_rows(scenario: Scenario):
    """Each measured point's Curves row: its cell values in CURVE_POINT_FIELDS order (None: empty), made
    curve by curve from its columns (the long format: a curve's name, device, ... on each of its points)."""
    keys = [f.name for f in CURVE_POINT_FIELDS]
    for curve in scenario.curves.values():
        fixed = {"curve": curve.name, "device": curve.device, "model": curve.model, "precision": curve.precision,
                 "tensor_parallel": curve.tensor_parallel, "source": curve.source, "config": config_text(curve.config)}
        points = {key: _float_cells(getattr(curve, key)) for key in CURVE_ARRAYS}
        n = len(points["batch"])
        yield from zip(*(points[k] if k in points else itertools.repeat(_cell_value(fixed[k]), n) for k in keys))


def _float_cells(values) -> list:
    """Python floats (not one numpy scalar a cell), None where NaN (an empty cell)."""
    values = np.asarray(values, float)
    cells = values.tolist()
    for k in np.flatnonzero(np.isnan(values)).tolist():
        cells[k] = None
    return cells


def write_curves(ws, scenario: Scenario) -> PendingRows | None:
    return write_table(ws, CURVE_POINT_FIELDS, (), bulk=True, rows=curve_rows(scenario))


def write_price_tiers(ws, scenario: Scenario) -> int:
    records = [
        {"price_tiers": tiers.name, "min_tokens_per_s_per_user": threshold,
         "price_usd_per_million_output_tokens": price, "source": tiers.source}
        for tiers in scenario.price_tiers.values()
        for threshold, price in zip(tiers.min_tokens_per_s_per_user, tiers.price_usd_per_million_output_tokens)
    ]
    write_table(ws, PRICE_TIER_FIELDS, records)
    return len(records)


def pool_records(scenario: Scenario) -> list[dict]:
    """One dict per Pools row (plans with pool rows only), in POOL_FIELDS keys."""
    return [pool.as_dict() | {"plan": plan.name} for plan in scenario.plans for pool in plan.pools]


def write_pools(ws, scenario: Scenario) -> dict[tuple[str, str], int]:
    """The Pools sheet; returns the row of each (plan, pool)."""
    records = pool_records(scenario)
    write_table(ws, POOL_FIELDS, records)
    return {(r["plan"], r["pool"]): row for row, r in enumerate(records, start=S.FIRST_ENTRY_ROW)}


def write_calibration(ws, scenario: Scenario) -> None:
    """key | unit | value for every efficiency factor of the generated curve, a column per calibration
    scope (`DEVICE` or `DEVICE | MODEL_CLASS | STACK`), then the fit_* rows: what each scope's factors
    were fitted on and how well."""
    header(ws, 1, 1, "key", "Efficiency factor of the generated (roofline) curve.")
    header(ws, 1, 2, "unit")
    header(ws, 1, 3, "value", "Fitted to measured points by calibration, or the documented default.")
    sets = [scenario.factors] + list(scenario.device_factors.values())
    for col, scope in enumerate(scenario.device_factors, start=4):
        header(ws, 1, col, scope, f"Factors calibrated for plans in scope {scope} (device | model class | serving "
                                  "stack; tcoapp calibrate --write); a blank cell takes the value column's.")
    for row, name in enumerate(FACTOR_NAMES, start=2):
        key_cell(ws, row, name, FACTOR_FIELD_BY_NAME[name].help)
        unit_cell(ws, row, 2, FACTOR_FIELD_BY_NAME[name].unit)
        for col, factors in enumerate(sets, start=3):
            cell = put(ws, row, col, getattr(factors, name), "input")
            cell.number_format = "General"
    quality = getattr(scenario, "calibration_quality", {}) or {}
    if any(quality.get(scope) for scope in scenario.device_factors):
        for row, (key, (unit, _kind, help_)) in enumerate(QUALITY_ROWS.items(), start=2 + len(FACTOR_NAMES)):
            key_cell(ws, row, key, help_)
            unit_cell(ws, row, 2, unit)
            for col, scope in enumerate(scenario.device_factors, start=4):
                value = quality.get(scope, {}).get(key)
                if value is not None:
                    put(ws, row, col, value, "input").number_format = "General"
    ws.freeze_panes = "C2"
    widths(ws, {1: 28, 2: 12, **{col: 14 for col in range(3, 4 + len(scenario.device_factors))}})
