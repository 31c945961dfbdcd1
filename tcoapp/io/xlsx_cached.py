"""Cached values of the exported formulas: every formula cell whose value the engine knows carries it,
so pandas, file previewers and the shipped samples show numbers without a spreadsheet application.
A spreadsheet application recalculates every formula on load (fullCalcOnLoad) to the same numbers
(tested with LibreOffice); helper cells the engine has no value for (IRR attempts) stay empty.
"""
from __future__ import annotations

import math
import re
from xml.sax.saxutils import escape

import numpy as np
from openpyxl.utils import get_column_letter

from ..engine.pipeline.compute import PlanResult
from ..engine.quantities.finance import CACHED_YEAR_ROWS, CARRIED_YEAR_ROWS
from ..engine.quantities.metrics import CASHFLOW_METRICS, METRIC_BY_KEY, missing_text
from ..engine.plan.scenario import Scenario
from . import sheets as S
from .xlsx_agentic import AGENTIC_KEYS
from .xlsx_layout import CF_BANNER_ROW, CF_POOL_ROWS, Layout
from .xlsx_montecarlo import STATUS_CURRENT
from .xlsx_printed_tables import printed_tables_values
from .xlsx_results import BANNER_ROW, not_entered_text
from .xlsx_workloads import workloads_values

NA = "n/a"
CF_NEGATIVE = {"opex_usd", "capex_usd", "replacement_capex_usd"}
CF_PLAN = CACHED_YEAR_ROWS
CARRIED = CARRIED_YEAR_ROWS  # past a plan's horizon these stay at their last value

def _cell_value(value):
    if value is None:
        return None
    if isinstance(value, str):
        return value
    value = float(value)
    return value if math.isfinite(value) else NA


def results_values(scenario: Scenario, results: tuple[PlanResult, ...], layout: Layout) -> dict[str, object]:
    out: dict[str, object] = {}
    for index, (plan, result) in enumerate(zip(scenario.plans, results)):
        if result.finance is None:
            continue
        col = get_column_letter(S.FIRST_PLAN_COLUMN + index)
        for key, row in layout.result_rows.items():
            value = _result_value(plan, result, key)
            if value is not None:
                out[f"{col}{row}"] = value
    return out


def _result_value(plan, result: PlanResult, key: str):
    if key == "plan_check":
        return "current"
    if key == "costs_not_entered":
        return not_entered_text(plan)
    if key == "warnings":
        return None
    if key.startswith("served_"):   # the requests served: the mix's (engine values, written) or the plan's keys
        served = key.removeprefix("served_")
        value = getattr(plan, served)
        if served == "price_usd_per_million_cached_input_tokens" and value is None:
            value = plan.price_usd_per_million_input_tokens
        return None if plan.workloads else _cell_value(float(value))
    if key in AGENTIC_KEYS:   # the plan's agentic answer (xlsx_agentic.py): n/a without one
        value = (result.agentic or {}).get(key)
        return NA if value is None else _cell_value(value)
    if key.startswith("pool") and "." in key:
        k, base = int(key[4:key.index(".")]), key.split(".", 1)[1]
        if k > len(result.pools) or base in ("pool", "role", "device"):
            return None
        if base == "tokens_per_s_per_user":
            return _cell_value(result.fleet.pool_points[k - 1].tokens_per_s_per_user)
        source = result.finance.pools if base in result.finance.pools else result.inputs
        return _cell_value(np.asarray(source[base], float)[..., k - 1])
    if key in METRIC_BY_KEY:
        value = getattr(result.metrics, key)
        return missing_text(key, result.metrics) if not np.isfinite(value) else float(value)
    if key in result.finance:
        return _cell_value(np.asarray(result.finance[key], float))
    return None


def cashflow_values(scenario: Scenario, results: tuple[PlanResult, ...], layout: Layout) -> dict[str, object]:
    out: dict[str, object] = {}
    width = layout.max_years + 1
    for index, (plan, result) in enumerate(zip(scenario.plans, results)):
        if result.finance is None:
            continue
        years = result.finance.years
        rows = {key: _padded(np.asarray(years[key], float), width, key, plan) for key in CF_PLAN}
        for k in range(len(result.pools)):
            for base in CF_POOL_ROWS:
                rows[f"pool{k + 1}.{base}"] = _padded(np.asarray(years[f"pool_{base}"], float)[k], width, base, plan)
        if np.all(np.isfinite(rows["cash_flow_usd"])):  # else the helpers read n/a: left to the spreadsheet
            rows.update(_helpers(rows["cash_flow_usd"], rows["cumulative_cash_flow_usd"]))
            rows.update(_discounted(rows["cash_flow_usd"], rows["discount_factor"]))
        equity = rows.get("equity_cash_flow_usd")
        if equity is not None and np.all(np.isfinite(equity)):
            signs = _sign_rows(equity, np.cumsum(equity))
            rows.update({f"equity_{key}": values for key, values in signs.items()})
        for key, values in rows.items():
            row = layout.cf_row(index, key)
            for year, value in enumerate(values):
                if value is not None:
                    out[f"{get_column_letter(S.FIRST_PLAN_COLUMN + year)}{row}"] = _cell_value(value)
        first = get_column_letter(S.FIRST_PLAN_COLUMN)
        for key in CASHFLOW_METRICS:
            value = getattr(result.metrics, key)
            out[f"{first}{layout.cf_row(index, key)}"] = (float(value) if np.isfinite(value)
                                                         else missing_text(key, result.metrics))
    return out


def _padded(values: np.ndarray, width: int, key: str, plan) -> np.ndarray:
    out = np.zeros(width)
    n = min(values.shape[-1], width)
    out[:n] = values[:n]
    if key in CARRIED and n < width:
        out[n:] = values[n - 1]
    if key == "discount_factor":  # every column, past the horizon too (mid-year: t - 0.5 from year 1)
        t = np.arange(width, dtype=float)
        out = 1.0 / (1.0 + plan.discount_rate) ** np.where((plan.discounting == "mid_year") & (t >= 1), t - 0.5, t)
    return -out if key in CF_NEGATIVE else out


def _sign_rows(flows: np.ndarray, cumulative: np.ndarray) -> dict[str, list]:
    """The sign helper rows of a flow and its cumulative, as the CashFlow formulas compute them."""
    rows = {}
    for name, series in (("flow", flows), ("cumulative", cumulative)):
        signs, changes = [float(np.sign(series[0]))], [0.0]
        for value in series[1:]:
            last = signs[-1]
            changes.append(1.0 if value != 0 and last != 0 and np.sign(value) != last else 0.0)
            signs.append(float(np.sign(value)) if value != 0 else last)
        rows[f"{name}_last_sign"], rows[f"{name}_sign_change"] = signs, changes
    return rows


def _helpers(flows: np.ndarray, cumulative: np.ndarray) -> dict[str, list]:
    """The sign helper rows and the payback crossing, as the CashFlow formulas compute them."""
    rows = _sign_rows(flows, cumulative)
    crossing = [None]
    for t in range(1, cumulative.size):
        before, after = cumulative[t - 1], cumulative[t]
        crossing.append((t - 1) + -before / (after - before) if before < 0 <= after else "")
    rows["payback_year_fraction"] = crossing
    return rows


def _discounted(flows: np.ndarray, factors: np.ndarray) -> dict[str, list]:
    """The discounted flows, their running sum and its crossing from below 0, as the CashFlow formulas compute them."""
    discounted = flows * factors
    cumulative = np.cumsum(discounted)
    crossing = [None] + [(t - 1) + -cumulative[t - 1] / (cumulative[t] - cumulative[t - 1])
                         if cumulative[t - 1] < 0 <= cumulative[t] else "" for t in range(1, cumulative.size)]
    return {"discounted_cash_flow_usd": discounted, "cumulative_discounted_cash_flow_usd": cumulative,
            "discounted_payback_year_fraction": crossing}


def checks_values(ws) -> dict[str, object]:
    """Every check passes at export (tested): the counts 0, plans current. (The detail rows carry their own cached
    values: xlsx_checks writes them as raw cells.)"""
    out: dict[str, object] = {"B1": 0.0, "B2": 0.0}
    for row in ws.iter_rows(min_row=4):
        for cell in row:
            text = cell.value
            if isinstance(text, str) and text.startswith("=SUMIF"):
                out[cell.coordinate] = 0.0
            elif isinstance(text, str) and text.startswith("=IF(ISERROR(") and text.endswith(",1,0)"):   # not deleted
                out[cell.coordinate] = 0.0
            elif isinstance(text, str) and text.endswith('"current","STALE"))'):
                out[cell.coordinate] = "current"
    return out


def _headers(scenario: Scenario) -> dict[str, object]:
    """The plan-name headers of Results and Summary (formulas reading Plans row 1)."""
    return {f"{get_column_letter(S.FIRST_PLAN_COLUMN + i)}1": plan.name for i, plan in enumerate(scenario.plans)}


def banner_values(ws, row: int) -> dict[str, object]:
    return {f"B{row}": 0.0, f"C{row}": "All checks pass: these numbers are the engine's for the inputs shown"}


def summary_values(ws, results_values_by_cell: dict[str, object]) -> dict[str, object]:
    out = {}
    for row in ws.iter_rows(min_row=3):
        for cell in row:
            text = cell.value
            if isinstance(text, str) and text.startswith(f"={S.RESULTS}!"):
                ref = text.split("!", 1)[1]
                if ref in results_values_by_cell:
                    out[cell.coordinate] = results_values_by_cell[ref]
            elif isinstance(text, str) and text.startswith(f"=IF({S.CHECKS}!"):   # a plan's status: all pass at export
                out[cell.coordinate] = "current"
    return out


_CELL = re.compile(r'<c r="([A-Z]+\d+)"([^>]*)><f>([^<]*)</f><v\s*/></c>')  # one cell: an escaped formula has no '<'


def _fill(xml: str, values: dict[str, object]) -> str:
    def replace(match):
        coord, attrs, formula = match.groups()
        value = values.get(coord)
        if value is None or value == "":
            return match.group(0)
        if isinstance(value, str):
            return f'<c r="{coord}"{attrs} t="str"><f>{formula}</f><v>{escape(value)}</v></c>'
        return f'<c r="{coord}"{attrs}><f>{formula}</f><v>{repr(float(value))}</v></c>'
    return _CELL.sub(replace, xml)


def cached_transforms(values_by_sheet: dict[str, dict[str, object]]) -> dict:
    """Per sheet title, the edit writing the known values into its formula cells (for xlsx_bulk.splice_rows)."""
    return {title: (lambda xml, v=values: _fill(xml, v)) for title, values in values_by_sheet.items() if values}


def all_cached_values(workbook, scenario: Scenario, results, layout: Layout) -> dict[str, dict[str, object]]:
    res = results_values(scenario, results, layout)
    return {
        S.RESULTS: {**res, **banner_values(workbook[S.RESULTS], BANNER_ROW), **_headers(scenario)},
        S.CASH_FLOW: {**banner_values(workbook[S.CASH_FLOW], CF_BANNER_ROW),
                      **{f"A{layout.cf_block_row(i)}": plan.name for i, plan in enumerate(scenario.plans)}},  # its formula cells carry theirs (xlsx_raw_cells)
        S.CHECKS: checks_values(workbook[S.CHECKS]),
        S.SUMMARY: {**summary_values(workbook[S.SUMMARY], res), **banner_values(workbook[S.SUMMARY], 2),
                    **_headers(scenario)},
        **({S.MONTE_CARLO: {"B2": 0.0, "C2": STATUS_CURRENT}} if S.MONTE_CARLO in workbook.sheetnames
           and workbook[S.MONTE_CARLO]["B2"].value == "=montecarlo_check" else {}),
        S.CONSTANTS: {"C4": 31536000.0} if workbook[S.CONSTANTS]["A4"].value == "SECONDS_PER_YEAR" else {},
        S.PRINTED_TABLES: printed_tables_values(workbook[S.PRINTED_TABLES], workbook[S.DEVICES], workbook[S.MODELS]),
        S.PLANS: plans_formula_values(workbook[S.PLANS], scenario),
        **({S.WORKLOADS: workloads_values(scenario, layout.class_rows)} if S.WORKLOADS in workbook.sheetnames else {}),
    }


def plans_formula_values(ws, scenario: Scenario) -> dict[str, object]:
    """The value of each formula in a Plans input cell (the analyst's, kept: kept_work.write_plans_formulas): the
    plan's value of the row's key, which the formula gave when the workbook was read."""
    out: dict[str, object] = {}
    for (row, col), cell in ws._cells.items():
        index = col - S.FIRST_PLAN_COLUMN
        if row < 2 or not 0 <= index < len(scenario.plans) or not (isinstance(cell.value, str) and cell.value.startswith("=")):
            continue
        key = ws._cells.get((row, 1))
        value = getattr(scenario.plans[index], str(key.value), None) if key is not None and key.value else None
        if isinstance(value, (int, float, str)) and not isinstance(value, bool):
            out[cell.coordinate] = value
    return out
