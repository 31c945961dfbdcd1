"""The Checks sheet and the workbook-level names `master_check` and `montecarlo_check` (docs/workbook_format.md,
"Checks").

A workbook is trusted only while it says it is current. Every input the engine computed from and the
spreadsheet cannot follow is snapshotted here at export and compared with its cell by a formula. Which inputs
is derived from the field table (engine/quantities/inputs.py) by exclusion: every field but documentation, the identity a
row is found by and the inputs the workbook's own formulas follow (LIVE_*), so a new engine input is checked
without being listed. Checks find their cell by key, never by address (the Plans row by its key, a table row by
its name or its plan and pool, the column by its key in row 1), so sorting, moving sheets and inserting or
deleting rows keep them on their input, and every status turns an error into a failure: `master_check` = the
number of failing checks, always a count (0: all pass). Output integrity (formula cells still formulas, engine
values unchanged), the constants, the plan count, the horizon and the sums of cost components are checked too.
Results, Summary and CashFlow show master_check in their top row, every plan has its own status row on Results,
and the MonteCarlo sheet shows montecarlo_check (its Uncertainty rows).
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from openpyxl.formatting.rule import FormulaRule, Rule
from openpyxl.styles.differential import DifferentialStyle
from openpyxl.styles.numbers import NumberFormat
from openpyxl.styles import Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.workbook.defined_name import DefinedName

import numpy as np

from ..engine.quantities.inputs import (
    CURVE_ARRAYS, SIZING_INPUTS,
    CURVE_POINT_FIELDS, DEVICE_FIELDS, MODEL_FIELDS, PLAN_FIELDS, POOL_FIELDS, SEARCH_FIELDS, SELECTION_FIELDS,
    LATER_SEARCH_FIELDS,
    REQUEST_CLASS_FIELDS, SERVING_FIELDS, TARGET_FIELDS, WORKLOAD_FIELDS,
)
from ..engine.quantities.row import attribute
from ..engine.uncertainty.fields import UNCERTAINTY_FIELDS
from ..engine.quantities.finance import COMPONENT_KEYS, INPUT_BY_KEY as FINANCE_INPUT_KEYS, PART_ANNUAL_KEYS
from ..engine.performance.factors import FACTOR_NAMES
from ..engine.plan.scenario import Scenario
from . import sheets as S
from .xlsx_layout import SEARCH_MARGIN, WHOLE, Layout, cf_keys, count_where, plan_name_cell, row_where, table_column
from ..engine.performance.measured import config_text
from .xlsx_raw_cells import RawCells
from .xlsx_styles import header, put, set_text, widths, wrap, written_value
from .xlsx_constants import SEAL_CHARS, SEAL_SCALE

MASTER = "master_check"
MONTE_CARLO_CHECK = "montecarlo_check"
RED = PatternFill("solid", start_color="FFC7CE", end_color="FFC7CE")
GREEN = PatternFill("solid", start_color="C6EFCE", end_color="C6EFCE")
BOLD = Font(bold=True)

# Which fields of the field table (engine/quantities/inputs.py) the Checks compare. The rule is by exclusion, so a field
# added to a table is checked unless it is named here: documentation text, the identity a row is found by, or
# an input the workbook's own formulas follow (live: an edit of it is recomputed by the spreadsheet).
def _marked(tables, mark: str) -> frozenset[str]:
    return frozenset(f.name for fields in tables for f in fields if f.checks == mark)


_TABLES = (DEVICE_FIELDS, MODEL_FIELDS, CURVE_POINT_FIELDS, POOL_FIELDS, UNCERTAINTY_FIELDS)
DOC_FIELDS = _marked(_TABLES, "doc") | {"source"}  # (a curve's source the engine reads: checked there)
SIZING_INPUT = SIZING_INPUTS
# live plan keys: every plan field the finance layer reads (a finance input of the quantity table; the CashFlow and
# Results formulas are the finance layer, operand for operand) unless the operating point reads it too (the
# request's shape), the price-tier table's name and the sizing inputs (a one-pool plan is sized by a formula)
OPERATING_POINT_KEYS = frozenset(f.name for f in SELECTION_FIELDS + WORKLOAD_FIELDS + SERVING_FIELDS + TARGET_FIELDS
                                 + SEARCH_FIELDS + LATER_SEARCH_FIELDS)
LIVE_PLAN_KEYS = frozenset(f.name for f in PLAN_FIELDS if f.name in FINANCE_INPUT_KEYS
                           and f.name not in OPERATING_POINT_KEYS) | {"price_tiers"} | {
    key for keys in SIZING_INPUTS.values() for key in keys} | {"device_count"}
LIVE_DEVICE_FIELDS = _marked((DEVICE_FIELDS,), "live")
LIVE_POOL_FIELDS = _marked((POOL_FIELDS,), "live")
IDENTITY = _marked(_TABLES, "identity")

def reads_device_economics(plan, result) -> bool:
    """The engine reads the device's live economics (price, server price and power, devices per server)
    where no workbook formula follows them: sizing several pools, and the serving search's cost per
    token, which picks the configuration of a searched pool."""
    searched = plan.search_objective == "cost_per_million_output_tokens_usd" and any(
        s is not None for s in result.searches)
    return (plan.sizing_mode != "devices" and len(result.pools) != 1) or searched


def engine_plan_keys() -> tuple[str, ...]:
    """Plans keys every plan's checks compare (the engine reads them; no workbook formula follows them)."""
    return tuple(f.name for f in PLAN_FIELDS if f.name not in LIVE_PLAN_KEYS | DOC_FIELDS)


def checked_fields(fields, live=frozenset(), doc=DOC_FIELDS) -> tuple[str, ...]:
    """The fields of a table the Checks compare: every one but documentation, identity and live fields."""
    return tuple(f.name for f in fields if f.name not in live | doc | IDENTITY)


ENGINE_PLAN_KEYS = engine_plan_keys()
ENGINE_POOL_KEYS = checked_fields(POOL_FIELDS, LIVE_POOL_FIELDS)
CLASS_KEYS = checked_fields(REQUEST_CLASS_FIELDS, _marked((REQUEST_CLASS_FIELDS,), "identity"))
PERF_DEVICE_FIELDS = checked_fields(DEVICE_FIELDS, LIVE_DEVICE_FIELDS)
ECON_DEVICE_FIELDS = tuple(f.name for f in DEVICE_FIELDS if f.name in LIVE_DEVICE_FIELDS)
MODEL_KEYS = checked_fields(MODEL_FIELDS)
CURVE_SCALARS = tuple(k for k in checked_fields(CURVE_POINT_FIELDS, doc=DOC_FIELDS - {"source"}) if k not in CURVE_ARRAYS)
UNCERTAINTY_KEYS = checked_fields(UNCERTAINTY_FIELDS)
FIRST_DETAIL_ROW_OFFSET = 3  # rows between the per-plan summary and the detail table
# detail table columns: the status beside the check's name (what prints and what a reader scans)
COL_GROUP, COL_WHAT, COL_STATUS, COL_CURRENT, COL_SNAPSHOT, COL_FOUND, COL_AREA, COL_SEAL = range(1, 9)
DETAIL_HEADERS = ("plan (0: every plan)", "check", "status (1 = fails)", "current", "snapshot at export",
                  "found at row", "sheet", "seal of the snapshot")
_L = {c: get_column_letter(c) for c in range(1, 16)}
EVERY_PLAN_AREA = "every plan"
AREA_SHEETS = {"outputs": (S.RESULTS, S.SUMMARY, S.CASH_FLOW), EVERY_PLAN_AREA: (S.PLANS, S.CONSTANTS, S.SUMMARY)}
STATUS_ROWS = ((S.SUMMARY, 2), (S.RESULTS, 2), (S.CASH_FLOW, 2))   # the banner rows (master_check, its text)
SUMMARY_AREAS = (S.PLANS, S.POOLS, S.DEVICES, S.MODELS, S.CURVES, S.CALIBRATION, "outputs", EVERY_PLAN_AREA)
GONE_COL = 5 + len(SUMMARY_AREAS)   # the per-plan summary's helper: 1 where the plan's Plans column is deleted
GONE_HEADER = "deleted from Plans (1)"
LAST_ROW = 1_048_576
EVERY_PLAN = 0               # the group of a check that concerns every plan (Constants, the plan count)
MONTE_CARLO_GROUP = "MonteCarlo"  # the group of the Uncertainty checks (they make the MonteCarlo sheet stale)


@dataclass(frozen=True)
class InputRows:
    """Where the input cells are: the Devices and Models sheet row of each entry, curve point counts."""

    devices: dict[str, int]
    models: dict[str, int]
    curve_points: int


@dataclass(frozen=True)
class Check:
    """One row of the Checks sheet: group (plan index + 1, EVERY_PLAN or MONTE_CARLO_GROUP), what it compares,
    the formula finding the row it reads (or None), the formula of its current value, the snapshot at export,
    and how they compare ("exact"; "near": within CHECK_TOLERANCE; "horizon": the current years fit CashFlow)."""

    group: object
    what: str
    found: str | None
    current: str
    snapshot: object
    kind: str = "exact"


@dataclass
class CheckRefs:
    plan_status: dict[int, str]  # plan index -> the cell holding its failing-check count
    detail: RawCells             # the check rows, to put into the saved sheet (xlsx_raw_cells)
    next_row: int = 0            # the next free detail row (output integrity rows are added after Results)


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _wild(text: str) -> str:
    """`text` as a MATCH / COUNTIF pattern that matches only itself (wildcards ~ * ? escaped)."""
    return _quoted(text.replace("~", "~~").replace("*", "~*").replace("?", "~?"))


def _key_row(sheet: str, key: str, column: str = "A") -> str:
    """The row of `key` in a sheet's key column, by value (survives sorting, inserted and deleted rows)."""
    return f"MATCH({_wild(key)},{sheet}!${column}:${column},0)"


def _key_col(sheet: str, key: str) -> str:
    return f"MATCH({_wild(key)},{sheet}!$1:$1,0)"


def _at(sheet: str, row_cell: str, col: str) -> str:
    """The cell of a sheet at the row a check found (its C cell) and a column (a number or MATCH)."""
    return f"INDEX({sheet}!{WHOLE},IF({row_cell}>0,{row_cell},NA()),{col})"


def _plan_checks(index: int, plan, result, layout: Layout) -> list[Check]:
    letter = get_column_letter(S.FIRST_PLAN_COLUMN + index)
    col = f"COLUMN({S.PLANS}!${letter}$1)"  # follows the plan's column as the Results formulas do (no literal)
    group = index + 1
    one_pool = len(result.pools) == 1  # a one-pool plan's sizing is a formula on Results
    keys = list(ENGINE_PLAN_KEYS) + ([] if one_pool else list(SIZING_INPUT.get(plan.sizing_mode, ())))
    if plan.sizing_mode == "devices" and (plan.pools or len(result.pools) > 1):
        keys.append("device_count")  # split between pools (or unused) by the engine
    named = plan.name if len(plan.name) <= 200 else plan.name[:200] + "…"
    out = [Check(group, f"Plans: plan {named!r} is on the sheet (deleted: its other checks are off; open and "
                        "save the file in tcoapp to drop it everywhere)", None, f"ISREF({plan_name_cell(index)})", True,
                 "deleted")]
    out += [Check(group, f"Plans {key}", _key_row(S.PLANS, key), col, getattr(plan, key)) for key in dict.fromkeys(keys)]
    out.append(Check(group, "horizon: the plan's years fit the CashFlow sheet (CASHFLOW_LAST_YEAR)",
                     _key_row(S.PLANS, "years"), col, plan.years, "horizon"))
    return out


def _pool_checks(index: int, plan, last_pool_row: int) -> list[Check]:
    """The plan's Pools rows, found by the plan's live name (its Plans header): a plan renamed on Plans and in its
    Pools rows keeps them; renamed on Plans only, the first check names it."""
    keys = list(ENGINE_POOL_KEYS) + (["ownership"] if plan.sizing_mode == "capex_budget" else [])
    entries = [(pool.pool, pool, keys + (["device_count"] if plan.sizing_mode != "devices" or pool.role != "serve"
                                         else [])) for pool in plan.pools]
    return _plan_rows_checks(index, S.POOLS, "pool", entries, last_pool_row)


def _class_checks(index: int, plan, last_class_row: int) -> list[Check]:
    """The plan's Workloads rows (its request classes), found as its Pools rows are; every column but the plan and
    class names is compared (the engine reads them all)."""
    entries = [(rc.class_, rc, CLASS_KEYS) for rc in plan.workloads]
    return _plan_rows_checks(index, S.WORKLOADS, "class", entries, last_class_row)


def _plan_rows_checks(index: int, sheet: str, name_key: str, entries, last_row: int) -> list[Check]:
    """A long table's rows of one plan (Pools, Workloads): how many name the plan by its live name, each entry one
    row, and each entry's `keys` (entries: (name, record, keys))."""
    last = last_row + SEARCH_MARGIN
    name = plan_name_cell(index)
    out = [Check(index + 1, f"{sheet}: {len(entries)} row(s) name the plan as Plans row 1 does (a plan renamed "
                            f"on Plans is renamed in its {sheet} rows too)", None,
                 count_where(sheet, (("plan", name),), last), len(entries))]
    for entry_name, record, keys in entries:
        pairs = (("plan", name), (name_key, entry_name))
        found = row_where(sheet, pairs, last)
        out.append(Check(index + 1, f"{sheet} {entry_name}: one row", None, count_where(sheet, pairs, last), 1))
        out.extend(Check(index + 1, f"{sheet} {entry_name} {key}", found, _key_col(sheet, key),
                         getattr(record, attribute(key))) for key in keys)
    return out


def _entry_checks(index: int, sheet: str, name: str, entry, keys) -> list[Check]:
    group = index + 1
    out = [Check(group, f"{sheet} {name}: one row", None, f"COUNTIF({sheet}!$A:$A,\"=\"&{_wild(name)})", 1)]
    found = _key_row(sheet, name)
    out.extend(Check(group, f"{sheet} {name} {key}", found, _key_col(sheet, key), getattr(entry, key)) for key in keys)
    return out


def _curve_checks(index: int, curve, last_point_row: int) -> list[Check]:
    """The curve's point count, sum of each column and sum of batch x each column: sorting the sheet keeps them,
    an edit, an added or removed point and two values swapped between points change them."""
    group, name = index + 1, curve.name
    last = last_point_row + SEARCH_MARGIN
    rng = lambda key: table_column(S.CURVES, key, last)  # noqa: E731
    mine = f"({rng('curve')}={_quoted(name)})"
    batch = np.asarray(curve.batch, float)
    out = [Check(group, f"Curves {name}: number of points", None, f"COUNTIF({S.CURVES}!$A:$A,\"=\"&{_wild(name)})",
                 int(batch.size))]
    for key in CURVE_ARRAYS:
        values = np.nan_to_num(np.asarray(getattr(curve, key), float))
        out.append(Check(group, f"Curves {name} sum of {key}", None, f"SUMPRODUCT({mine}*{rng(key)})",
                         float(values.sum()), "near"))
        out.append(Check(group, f"Curves {name} sum of batch x {key}", None,
                         f"SUMPRODUCT({mine}*{rng('batch')}*{rng(key)})", float((batch * values).sum()), "near"))
    found = _key_row(S.CURVES, name)
    for key in CURVE_SCALARS:
        value = getattr(curve, key)
        if key == "config":
            value = config_text(value)
        out.append(Check(group, f"Curves {name} {key} (first point)", found, _key_col(S.CURVES, key), value))
    return out


def _factor_checks(index: int, scenario: Scenario) -> list[Check]:
    out = []
    sets = [("value", scenario.factors)] + list(scenario.device_factors.items())
    for column, factors in sets:
        for name in FACTOR_NAMES:
            label = "" if column == "value" else f" ({column})"
            out.append(Check(index + 1, f"Calibration {name}{label}", _key_row(S.CALIBRATION, name),
                             _key_col(S.CALIBRATION, column), getattr(factors, name)))
    return out


def _input_checks(scenario: Scenario, results, layout: Layout, rows: InputRows) -> list[Check]:
    out = []
    last_pool_row = max(layout.pool_rows.values(), default=S.FIRST_ENTRY_ROW)
    last_class_row = max(layout.class_rows.values(), default=S.FIRST_ENTRY_ROW)
    last_point_row = S.FIRST_ENTRY_ROW + rows.curve_points - 1
    for index, (plan, result) in enumerate(zip(scenario.plans, results)):
        out.extend(_plan_checks(index, plan, result, layout))
        if plan.pools:
            out.extend(_pool_checks(index, plan, last_pool_row))
        if plan.workloads:
            out.extend(_class_checks(index, plan, last_class_row))
        device_keys = PERF_DEVICE_FIELDS + (ECON_DEVICE_FIELDS if reads_device_economics(plan, result) else ())
        for name in dict.fromkeys(p.device for p in result.pools):
            if name in rows.devices:
                out.extend(_entry_checks(index, S.DEVICES, name, scenario.device(name), device_keys))
        if plan.model in rows.models:
            out.extend(_entry_checks(index, S.MODELS, plan.model, scenario.model(plan.model), MODEL_KEYS))
        for name in dict.fromkeys(p.curve for p in result.pools if p.curve):
            if name in scenario.curves:
                out.extend(_curve_checks(index, scenario.curves[name], last_point_row))
        out.extend(_factor_checks(index, scenario))
    return out


def _workbook_checks(scenario: Scenario, max_years: int) -> list[Check]:
    """Checks of every plan at once: the plan count, the engine's constants."""
    n = len(scenario.plans)
    out = [Check(EVERY_PLAN, f"Plans: {n} plan(s) in row 1, a deleted one counted (a plan added is computed only by "
                             "tcoapp)", None,
                 f'{plan_count()}+SUM({S.CHECKS}!${_L[GONE_COL]}$4:${_L[GONE_COL]}${3 + n})', n)]
    frozen = "+".join(f"SUMPRODUCT(--_xlfn.ISFORMULA({sheet}!$B${row}:$C${row}))" for sheet, row in STATUS_ROWS)
    out.append(Check(EVERY_PLAN, "Summary: the master_check rows of " + ", ".join(s for s, _ in STATUS_ROWS)
                     + " are formulas (not pasted over as values)", None, frozen, 2 * len(STATUS_ROWS)))
    for name, value in {**constant_values(), "CASHFLOW_LAST_YEAR": max_years, **seal_constants()}.items():
        out.append(Check(EVERY_PLAN, f"Constants {name} (the engine's constant)", None, name, value))
    return out


def plan_count() -> str:
    """The number of plan names in Plans row 1: the whole row less its first two cells (key, label), each found by
    reference that no column inserted at C or later moves, so a column inserted anywhere (a plan in front of plan 1 too) is counted; a fixed range such as $C$1:$AMJ$1
    would shift past a column inserted before it. ($A$1:$B$1 grows with a column inserted between them, and moves
    with one inserted before A: key and label either way.)"""
    return f"(COUNTA({S.PLANS}!$1:$1)-COUNTA({S.PLANS}!$A$1:$B$1))"


def _uncertainty_checks(scenario: Scenario) -> list[Check]:
    """The Uncertainty rows the MonteCarlo sheet was simulated from (found by plan and key)."""
    if not scenario.uncertainty:
        return []
    n = len(scenario.uncertainty)
    last = S.FIRST_ENTRY_ROW + n - 1 + SEARCH_MARGIN
    out = [Check(MONTE_CARLO_GROUP, f"Uncertainty: {n} row(s)", None,
                 f"COUNTA({S.UNCERTAINTY}!$A$3:$A${LAST_ROW})", n)]
    for item in scenario.uncertainty:
        pairs = (("plan", item.plan), ("key", item.key))
        found = row_where(S.UNCERTAINTY, pairs, last)
        label = f"Uncertainty {item.plan} {item.key}"
        out.append(Check(MONTE_CARLO_GROUP, f"{label}: one row", None, count_where(S.UNCERTAINTY, pairs, last), 1))
        out.extend(Check(MONTE_CARLO_GROUP, f"{label} {key}", found, _key_col(S.UNCERTAINTY, key), getattr(item, key))
                   for key in UNCERTAINTY_KEYS)
    return out


def seal_constants() -> dict[str, int]:
    """The workbook's own constants of the snapshot seals (named cells of Constants, checked as the engine's are)."""
    return {"SEAL_SCALE": SEAL_SCALE, "SEAL_CHARS": SEAL_CHARS}


def constant_values() -> dict[str, float]:
    """The value of each named constant of the Constants sheet, as the engine uses it."""
    from .xlsx_constants import CONSTANTS

    values: dict[str, float] = {}
    for name, _unit, value, _text in CONSTANTS:
        if isinstance(value, str):  # a formula over other constants: A*B
            left, right = value[1:].split("*")
            value = values[left] * values[right]
        values[name] = value
    return values


def _sum_checks(scenario: Scenario, layout: Layout):
    """(plan index, what, status formula) for totals that must equal the sum of their parts."""
    out = []
    for index, _ in enumerate(scenario.plans):
        col = layout.plan_col(index)
        r = lambda key: f"{S.RESULTS}!${col}${layout.result_rows[key]}"  # noqa: E731
        parts = {"cost_per_million_output_tokens_usd": [r(k) for k in COMPONENT_KEYS.values()],
                 "opex_usd_per_year": [r(k) for k in PART_ANNUAL_KEYS.values()],
                 "capex_usd": [r(f"pool{k}.capex_usd") for k in range(1, layout.cf_pools(index) + 1)]}
        for total, cells in parts.items():
            listed = ",".join(cells)
            errors = ",".join(f"ISERROR({c})" for c in [r(total), *cells])
            status = (f"=IF(OR({errors}),1,"
                      f"IF(ISNUMBER({r(total)}),IF(ABS(SUM({listed})-{r(total)})<=CHECK_TOLERANCE*MAX(1,ABS({r(total)})),0,1),0))")
            out.append((index, f"Results {total} = sum of its parts", status))
    return out


def _error_checks(scenario: Scenario, layout: Layout):
    """(plan index, what, status formula): no formula of the plan's Results column or CashFlow block is an
    error. Errors are never caught in the workbook (a value that does not exist reads n/a): they fail here."""
    out = []
    rows = [row for key, row in layout.result_rows.items() if key != "plan_check"]
    for index, _ in enumerate(scenario.plans):
        col = layout.plan_col(index)
        column = f"{S.RESULTS}!${col}${min(rows)}:${col}${max(rows)}"
        block = [layout.cf_row(index, key) for key in cf_keys(layout.cf_pools(index))]
        area = (f"{S.CASH_FLOW}!${layout.year_col(0)}${min(block)}:${layout.year_col(layout.max_years)}${max(block)}")
        for what, rng in (("Results: no formula error in the plan's column", column),
                          ("CashFlow: no formula error in the plan's block", area)):
            out.append((index, what, f"=IF(SUMPRODUCT(--ISERROR({rng}))=0,0,1)"))
    return out


def write_checks(ws, workbook, scenario: Scenario, results, layout: Layout, rows: InputRows) -> CheckRefs:
    n = len(scenario.plans)
    checks = _workbook_checks(scenario, layout.max_years) + _input_checks(scenario, results, layout, rows) + _uncertainty_checks(scenario)
    first = 4 + n + FIRST_DETAIL_ROW_OFFSET + 1
    groups = f"$A${first}:$A${LAST_ROW}"
    status = f"${_L[COL_STATUS]}${first}:${_L[COL_STATUS]}${LAST_ROW}"  # rows added later are counted too
    areas = f"${_L[COL_AREA]}${first}:${_L[COL_AREA]}${LAST_ROW}"
    set_text(ws.cell(row=1, column=1), MASTER)
    ws.cell(row=1, column=1).font = BOLD
    put(ws, 1, 2, f"=SUM({status})", "formula")
    ws.cell(row=1, column=2).font = BOLD
    wrap(ws.cell(row=1, column=3, value="Failing checks (0: the workbook is current). A plan whose engine inputs "
                                        "changed since export must be recomputed in tcoapp (open the file and save)."))
    workbook.defined_names[MASTER] = DefinedName(MASTER, attr_text=f"'{ws.title}'!$B$1")
    set_text(ws.cell(row=2, column=1), MONTE_CARLO_CHECK)
    put(ws, 2, 2, f'=SUMIF({groups},"{MONTE_CARLO_GROUP}",{status})', "formula")
    wrap(ws.cell(row=2, column=3, value="Failing checks of the Uncertainty rows the MonteCarlo sheet was simulated "
                                        "from (0: it is current; they count in master_check too)."))
    workbook.defined_names[MONTE_CARLO_CHECK] = DefinedName(MONTE_CARLO_CHECK, attr_text=f"'{ws.title}'!$B$2")
    for col, text in enumerate(("plan", "name", "failing checks", "status") + tuple(f"{a} checks failing" for a in
                                                                               SUMMARY_AREAS) + (GONE_HEADER,), start=1):
        header(ws, 3, col, text)
    refs = {}
    for index, plan in enumerate(scenario.plans):
        row = 4 + index
        put(ws, row, 1, index + 1, "engine")
        set_text(ws.cell(row=row, column=2), plan.name)
        put(ws, row, 3, f"=SUMIF({groups},A{row},{status})+SUMIF({groups},{EVERY_PLAN},{status})", "formula")
        put(ws, row, GONE_COL, f"=IF(ISERROR({plan_name_cell(index)}),1,0)", "formula")   # (outside the print area)
        put(ws, row, 4, f'=IF({_L[GONE_COL]}{row}=1,"{DELETED}",IF(C{row}=0,"current","STALE"))', "formula")
        for col, area in enumerate(SUMMARY_AREAS, start=5):
            group = f"{EVERY_PLAN}" if area == EVERY_PLAN_AREA else f"A{row}"
            names = AREA_SHEETS.get(area, (area,))
            put(ws, row, col, "=" + "+".join(f'SUMIFS({status},{groups},{group},{areas},"{name}")' for name in names),
                "formula")
        refs[index] = f"{S.CHECKS}!$C${row}"   # (plan_status reads the same cell)
    for col, text in enumerate(DETAIL_HEADERS, start=1):
        header(ws, first - 1, col, text)
    # the detail rows (thousands for 20 plans) as worksheet XML, each with its value at export (all pass)
    raw = RawCells(ws.title)
    book = ws.parent
    engine, formula, plain = (raw.style_id(book, kind) for kind in ("engine", "formula", "plain"))
    row = first
    for check in checks:
        _write_check(raw, row, check, (engine, formula, plain))
        row += 1
    for index, what, status_formula in _sum_checks(scenario, layout) + _error_checks(scenario, layout):
        raw.value(row, COL_GROUP, index + 1, engine)
        raw.value(row, COL_WHAT, what, plain)
        raw.value(row, COL_AREA, _sheet_of(what), plain)
        raw.formula(row, COL_STATUS, unless_deleted(index + 1, status_formula), formula, 0.0)
        row += 1
    c = _L[COL_STATUS]
    ws.conditional_formatting.add(f"{c}{first}:{c}{LAST_ROW}", FormulaRule(formula=[f"{c}{first}>0"], fill=RED))
    ws.conditional_formatting.add("B1:B2", FormulaRule(formula=["B1>0"], fill=RED))
    ws.conditional_formatting.add("B1:B2", FormulaRule(formula=["B1=0"], fill=GREEN))
    ws.freeze_panes = "A4"
    widths(ws, {1: 8, 2: 58, 3: 12, 4: 22, 5: 22, 6: 10, 7: 12, **{c: 12 for c in range(8, 5 + len(SUMMARY_AREAS))}})
    return CheckRefs(refs, raw, row)


NOTE_KEYS = ("warnings", "serving")  # Results rows of text notes (typing over them changes no number)


class _Text(str):
    """A text cell whose text starts with "=" (a name such as '=1+1' written by set_text): not a formula."""


def _is_formula(value) -> bool:
    return isinstance(value, str) and not isinstance(value, _Text) and value.startswith("=")


def _written(ws) -> dict[tuple[int, int], object]:
    """(row, col) -> value of the cells written so far (reading ws.cell() would add empty cells to the sheet);
    a text cell that merely starts with "=" is marked _Text, so it is not counted as a formula."""
    return {key: (_Text(cell.value) if cell.data_type == "s" and isinstance(cell.value, str) else cell.value)
            for key, cell in ws._cells.items()}


def add_output_checks(refs: CheckRefs, scenario: Scenario, layout: Layout, results_ws, summary_ws, cash_ws,
                      cash_raw: RawCells) -> None:
    """Output integrity: a number typed over a formula of Results, Summary or CashFlow changes the plan's count of
    formula cells (ISFORMULA), a value typed over an engine value of Results differs from its snapshot."""
    raw, row = refs.detail, refs.next_row
    book = results_ws.parent
    styles = tuple(raw.style_id(book, kind) for kind in ("engine", "formula", "plain"))
    rows = sorted(layout.result_rows.values())
    results, summary, cash = _written(results_ws), _written(summary_ws), _written(cash_ws)
    summary_last = max((r for r, _ in summary), default=1)
    # formula cells counted once per column (Results, Summary) and per row (CashFlow), not once per plan
    results_by_col = Counter(c for (r, c), v in results.items() if rows[0] <= r <= rows[-1] and _is_formula(v))
    summary_by_col = Counter(c for (_, c), v in summary.items() if _is_formula(v))
    cash_by_row = Counter(r for (r, _), v in cash.items() if _is_formula(v))
    for r, cells in cash_raw.rows.items():
        cash_by_row[r] += sum(1 for xml in cells if "<f>" in xml)
    for index, _plan in enumerate(scenario.plans):
        group, col = index + 1, S.FIRST_PLAN_COLUMN + index
        letter = get_column_letter(col)
        checks = [Check(group, "Results: the plan's formula cells are formulas", None,
                        f"SUMPRODUCT(--_xlfn.ISFORMULA({S.RESULTS}!${letter}${rows[0]}:${letter}${rows[-1]}))",
                        results_by_col[col])]
        checks.append(Check(group, "Summary: the plan's formula cells are formulas", None,
                            f"SUMPRODUCT(--_xlfn.ISFORMULA({S.SUMMARY}!${letter}$1:${letter}${summary_last}))",
                            summary_by_col[col]))
        checks.append(_cashflow_formula_check(layout, index, cash_by_row))
        checks += _engine_value_checks(layout, group, col, results)
        for check in checks:
            _write_check(raw, row, check, styles)
            row += 1
    refs.next_row = row


def _cashflow_formula_check(layout: Layout, index: int, by_row: Counter) -> Check:
    """The count of formula cells in plan `index`'s CashFlow block (`by_row`: raw XML formulas and openpyxl ones, per
    row)."""
    block = [layout.cf_row(index, key) for key in cf_keys(layout.cf_pools(index))]
    first, last = layout.cf_block_row(index), max(block)
    in_block = sum(count for r, count in by_row.items() if first <= r <= last)
    area = f"{S.CASH_FLOW}!$A${first}:${layout.year_col(layout.max_years)}${last}"
    return Check(index + 1, "CashFlow: the plan's formula cells are formulas", None,
                 f"SUMPRODUCT(--_xlfn.ISFORMULA({area}))", in_block)


def _engine_value_checks(layout: Layout, group: int, col: int, results: dict) -> list[Check]:
    """Each engine value of the plan's Results column against its snapshot (a value typed over it differs)."""
    letter, checks = get_column_letter(col), []
    for key, r in layout.result_rows.items():
        value = results.get((r, col))
        if value is None or key in NOTE_KEYS or _is_formula(value):
            continue
        checks.append(Check(group, f"Results {key} (engine value)", _key_row(S.RESULTS, key),
                            f"COLUMN({S.RESULTS}!${letter}$1)", value))
    return checks


def _sheet_of(what: str) -> str:
    """The sheet a check reads: the first word of its description ("horizon" reads Plans)."""
    word = what.split(" ", 1)[0].rstrip(":")
    return S.PLANS if word == "horizon" else word


def _write_check(raw: RawCells, row: int, check: Check, styles) -> None:
    engine, formula, plain = styles
    shown = written_value(check.snapshot, "engine")  # the snapshot as the cell holds it
    raw.value(row, COL_GROUP, check.group, engine)
    raw.value(row, COL_WHAT, check.what, plain)
    raw.value(row, COL_SNAPSHOT, shown, engine)
    raw.value(row, COL_AREA, _sheet_of(check.what), plain)
    if check.found is not None:
        sheet = _sheet_of(check.what)
        raw.formula(row, COL_FOUND, f"={check.found}", formula, None)
        current = _at(sheet, f"${_L[COL_FOUND]}{row}", check.current)
    else:
        current = check.current
    cached = 0.0 if shown is None else shown
    raw.formula(row, COL_CURRENT, f"={current}", formula, cached)
    snap = f"{_L[COL_SNAPSHOT]}{row}"
    if check.kind == "deleted":  # the one check of a deleted plan that counts
        raw.formula(row, COL_STATUS, f"=IF({current},0,1)", formula, 0.0)
        return
    if check.kind == "horizon":  # the years may change (a finance edit) up to the sheet's last year
        status = f"=IF(ISERROR({current}),1,IF({current}<=CASHFLOW_LAST_YEAR,0,1))"
    elif check.kind == "near":
        status = f"=IF(ISERROR({current}),1,IF(ABS({current}-{snap})<=CHECK_TOLERANCE*MAX(1,ABS({snap})),0,1))"
    else:
        status = f"=IF(ISERROR({current}),1,IF(EXACT({current},{snap}),0,1))"
    sealed = seal_value(shown)
    if sealed is not None:   # the snapshot is still what was written (a Find & Replace over every sheet rewrites it)
        raw.value(row, COL_SEAL, sealed, engine)
        status = f"=IF({seal_holds(snap, f'{_L[COL_SEAL]}{row}', shown)},{status[1:]},1)"
    raw.formula(row, COL_STATUS, unless_deleted(check.group, status), formula, 0.0)


def seal_value(value):
    """The seal of a snapshot, a number that holds none of its text: a Find & Replace over every sheet (fp8 ->
    nvfp4, 0.7 -> 0.8) rewrites an input and its snapshot alike, but not the seal, so the check still fails. A
    number: value x SEAL_SCALE + 1; a text: its length + the sum of each character's code x its position over
    its first SEAL_CHARS characters; TRUE / FALSE: 1 / 0. None for an empty snapshot (or a character outside
    the basic plane, which a spreadsheet's LEN counts twice: compared exactly)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        sealed = float(value) * SEAL_SCALE + 1
        return sealed if math.isfinite(sealed) else None
    if not isinstance(value, str) or not value or any(ord(c) > 0xFFFF for c in value):
        return None
    return len(value) + sum(ord(c) * i for i, c in enumerate(value[:SEAL_CHARS], start=1))


def seal_holds(snap: str, sealed: str, value) -> str:
    """A condition (never an error) that the snapshot cell `snap` still matches its seal in cell `sealed`."""
    if isinstance(value, bool):
        return f"N({snap})={sealed}"
    if isinstance(value, (int, float)):
        return (f"IF(ISNUMBER({snap}),ABS({snap}*SEAL_SCALE+1-{sealed})<=CHECK_TOLERANCE*MAX(1,ABS({sealed})),"
                "FALSE)")
    positions = f'ROW(INDIRECT("1:"&MIN(LEN({snap}),SEAL_CHARS)))'
    return (f"IF(ISTEXT({snap}),IF(LEN({snap})>0,SUMPRODUCT(_xlfn.UNICODE(MID({snap},{positions},1))*{positions})"
            f"+LEN({snap})={sealed},FALSE),FALSE)")


DELETED = "deleted"   # a deleted plan's status on the Checks summary


def unless_deleted(group, status: str) -> str:
    """A plan's check `status` (a formula), off (0) once the plan's column is deleted from Plans: its one "deleted"
    check counts instead of every check reading the #REF! its deletion left."""
    if not isinstance(group, int) or isinstance(group, bool) or group < 1:
        return status
    return f"=IF(ISERROR({plan_name_cell(group - 1)}),0,{status[1:]})"


def plan_status(index: int) -> str:
    """A plan's status formula, reading its failing-check count on the Checks summary directly (Results and Summary
    alike: a paste of values over one sheet cannot freeze the other's)."""
    ref = f"{S.CHECKS}!$C${4 + index}"
    return (f'=IF({ref}=0,"current","STALE: "&{ref}&" check(s) fail (an engine input changed, or a formula '
            f'error): see the Checks sheet")')


def plan_status_formats(ws, row: int, n: int, last_col: int) -> None:
    """The formats of a row of plan statuses (Results' and Summary's "Is the plan current?"): pasted over as values,
    a status still shows the plan's live state (the rule first), and a STALE one is red."""
    for index in range(n):
        cell, ref = f"{get_column_letter(S.FIRST_PLAN_COLUMN + index)}{row}", f"{S.CHECKS}!$C${4 + index}"
        frozen_status(ws, cell, f'AND({ref}>0,LEFT({cell},5)<>"STALE")', "STALE: see the Checks sheet (pasted as values)")
    first = get_column_letter(S.FIRST_PLAN_COLUMN)
    area = f"{first}{row}:{get_column_letter(max(last_col, 3))}{row}"
    ws.conditional_formatting.add(area, FormulaRule(formula=[f'LEFT({first}{row},5)="STALE"'], fill=RED))


def checks_last_column() -> int:
    """The last column of the per-plan summary (what prints)."""
    return 4 + len(SUMMARY_AREAS)


def plan_header(ws, row: int, col: int, name: str, plan_col: int | None = None) -> None:
    """A plan's name over its output column: a formula reading its Plans header, so a renamed plan's outputs say so."""
    header(ws, row, col, name)
    ws.cell(row=row, column=col).value = f"={S.PLANS}!{get_column_letter(plan_col or col)}$1"
    wrap(ws.cell(row=row, column=col))   # a long name wraps


def banner(ws, row: int, last_col: int) -> None:
    """The master check in one row nobody can miss (red while any check fails)."""
    set_text(ws.cell(row=row, column=1), MASTER)
    put(ws, row, 2, f"={MASTER}", "formula")
    text = (f'=IF({MASTER}=0,"All checks pass: these numbers are the engine\'s for the inputs shown",'
            f'"STOP: "&{MASTER}&" check(s) fail: an input changed that only tcoapp can recompute (see the Checks sheet)")')
    put(ws, row, 3, text, "formula")
    ws.cell(row=row, column=3).font = BOLD
    if last_col > 3:
        ws.merge_cells(start_row=row, start_column=3, end_row=row, end_column=last_col)
    area = f"A{row}:{get_column_letter(max(last_col, 3))}{row}"
    # first: a cell's first true rule is the one LibreOffice applies
    frozen_status(ws, f"B{row}", f"AND({MASTER}>0,$B${row}<>{MASTER})", "STOP")
    frozen_status(ws, f"C{row}", f'AND({MASTER}>0,LEFT($C${row},4)<>"STOP")', STOP_SHOWN)
    frozen_status(ws, f"C{row}", f'AND({MASTER}=0,LEFT($C${row},4)="STOP")', PASS_SHOWN)
    ws.conditional_formatting.add(area, FormulaRule(formula=[f"{MASTER}>0"], fill=RED))
    ws.conditional_formatting.add(area, FormulaRule(formula=[f"{MASTER}=0"], fill=GREEN))


STOP_SHOWN = "STOP: checks fail, see the Checks sheet (this row was pasted as values)"
PASS_SHOWN = "All checks pass (this row was pasted as values)"
_FROZEN_FORMATS: dict[str, int] = {}


def frozen_status(ws, area: str, condition: str, shown: str) -> None:
    """A status cell pasted over as values still shows the workbook's state: a conditional format (which a paste of
    values keeps) whose number format shows `shown` whatever the cell holds, while `condition` (a formula over the
    live master_check or the plan's failing checks) says the frozen value is wrong."""
    text = '"' + shown.replace('"', "'") + '"'
    code = ";".join([text] * 4)
    number = NumberFormat(numFmtId=_FROZEN_FORMATS.setdefault(code, 300 + len(_FROZEN_FORMATS)), formatCode=code)
    style = DifferentialStyle(numFmt=number, fill=RED if shown != PASS_SHOWN else GREEN, font=Font(bold=True))
    ws.conditional_formatting.add(area, Rule(type="expression", formula=[condition], dxf=style, stopIfTrue=True))
