"""The Checks sheet and the workbook-level name `master_check` (docs/workbook_format.md, "Checks").

A workbook is trusted only while it says it is current. Every input the engine computed from and the
spreadsheet cannot follow (the device, model, curve, workload, serving configuration, targets,
pools, the catalog rows and calibration factors it read) is snapshotted here at export and compared
with its cell by a formula; the horizon must fit the CashFlow sheet; cost components must add up to
their totals. `master_check` = the number of failing checks (0: all pass); Results and CashFlow show
it in their top row, and every plan has its own status row on Results.
"""
from __future__ import annotations

from dataclasses import dataclass

from openpyxl.formatting.rule import FormulaRule
from openpyxl.styles import Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.workbook.defined_name import DefinedName

from ..engine.fields import CURVE_POINT_FIELDS, DEVICE_FIELDS, MODEL_FIELDS, PLAN_FIELDS, POOL_FIELDS
from ..engine.finance.quantities import COST_COMPONENTS, OPEX_PARTS
from ..engine.performance.factors import FACTOR_NAMES
from ..engine.pools import POOL_SERVING_KEYS
from ..engine.scenario import Scenario
from . import sheets as S
from .xlsx_layout import Layout, cf_keys, field_column as _col
from .xlsx_raw_cells import RawCells
from .xlsx_styles import header, put, set_text, widths, wrap, written_value

MASTER = "master_check"
RED = PatternFill("solid", start_color="FFC7CE", end_color="FFC7CE")
GREEN = PatternFill("solid", start_color="C6EFCE", end_color="C6EFCE")
BOLD = Font(bold=True)

# Plans keys the engine reads (their effect is not a spreadsheet formula)
ENGINE_PLAN_KEYS = tuple(f.name for f in PLAN_FIELDS if f.group in ("selection", "workload", "serving", "target")
                         and f.name != "price_tiers") + ("sizing_mode",)
SIZING_INPUT = {"facility_power": ("facility_power_kw", "pue"), "capex_budget": ("capex_budget_usd", "other_capex_fraction",
                                                                   "network_usd_per_device", "storage_usd_per_device",
                                                                   "installation_usd_per_server"),
                "demand": ("demand_tokens_per_day", "utilization")}
ENGINE_POOL_KEYS = ("role", "device", "curve") + POOL_SERVING_KEYS
PERF_DEVICE_FIELDS = ("memory_gb", "mem_bw_gb_s", "peak_tflops_bf16", "peak_tflops_fp8", "peak_tflops_fp4", "tdp_w",
                      "idle_w", "scale_up_domain", "interconnect_gb_s", "scale_out_gb_s")
ECON_DEVICE_FIELDS = ("price_usd", "devices_per_server", "server_price_usd", "server_overhead_w")
MODEL_KEYS = tuple(f.name for f in MODEL_FIELDS if f.type in ("int", "float"))
CURVE_SUMS = ("batch", "tokens_per_s_per_device", "tokens_per_s_per_user", "power_w", "ttft_s")
FIRST_DETAIL_ROW_OFFSET = 3  # rows between the per-plan summary and the detail table


@dataclass(frozen=True)
class InputRows:
    """Where the input cells are: the Devices and Models sheet row of each entry, curve point counts."""

    devices: dict[str, int]
    models: dict[str, int]
    curve_points: int


@dataclass(frozen=True)
class CheckRefs:
    plan_status: dict[int, str]  # plan index -> the cell holding its failing-check count
    detail: RawCells             # the check rows, to put into the saved sheet (xlsx_raw_cells)


def _snapshot_rows(scenario: Scenario, results, layout: Layout, rows: InputRows):
    """(plan index, what, cell reference, snapshot value, kind) per compared cell."""
    out = []
    for index, (plan, result) in enumerate(zip(scenario.plans, results)):
        col = layout.plan_col(index)
        one_pool = len(result.pools) == 1  # a one-pool plan's sizing is a formula on Results
        keys = list(ENGINE_PLAN_KEYS) + ([] if one_pool else list(SIZING_INPUT.get(plan.sizing_mode, ())))
        if plan.sizing_mode == "devices" and (plan.pools or len(result.pools) > 1):
            keys.append("device_count")  # split between pools (or unused) by the engine
        for key in dict.fromkeys(keys):
            out.append((index, f"Plans {key}", f"{S.PLANS}!${col}${layout.plan_rows[key]}", getattr(plan, key), "exact"))
        for k, pool in enumerate(plan.pools):
            row = layout.pool_rows[(plan.name, pool.pool)]
            pool_keys = list(ENGINE_POOL_KEYS) + (["ownership"] if plan.sizing_mode == "capex_budget" else [])
            if plan.sizing_mode != "devices" or pool.role != "serve":
                pool_keys.append("device_count")
            for key in pool_keys:
                out.append((index, f"Pools {pool.pool} {key}", f"{S.POOLS}!${_col(POOL_FIELDS, key)}${row}",
                            getattr(pool, key), "exact"))
        device_keys = PERF_DEVICE_FIELDS + (ECON_DEVICE_FIELDS if plan.sizing_mode != "devices" and not one_pool else ())
        for name in dict.fromkeys(p.device for p in result.pools):
            if name not in rows.devices:
                continue
            device = scenario.device(name)
            for key in device_keys:
                out.append((index, f"Devices {name} {key}", f"{S.DEVICES}!${_col(DEVICE_FIELDS, key)}${rows.devices[name]}",
                            getattr(device, key), "exact"))
        if plan.model in rows.models:
            model = scenario.model(plan.model)
            for key in MODEL_KEYS:
                out.append((index, f"Models {plan.model} {key}",
                            f"{S.MODELS}!${_col(MODEL_FIELDS, key)}${rows.models[plan.model]}", getattr(model, key), "exact"))
        for name in dict.fromkeys(p.curve for p in result.pools if p.curve):
            curve = scenario.curves.get(name)
            if curve is None:
                continue
            last = S.FIRST_ENTRY_ROW + rows.curve_points - 1
            names = f"{S.CURVES}!$A${S.FIRST_ENTRY_ROW}:$A${last}"
            for key in CURVE_SUMS:
                column = _col(CURVE_POINT_FIELDS, key)
                total = float(sum(v for v in getattr(curve, key) if v == v))
                # SUMPRODUCT of an exact match, not SUMIF: a name is not read as a criterion ("=...", "*")
                formula = (f'SUMPRODUCT(({names}={_quoted(name)})*{S.CURVES}!${column}${S.FIRST_ENTRY_ROW}'
                           f':${column}${last})')
                out.append((index, f"Curves {name} sum of {key}", formula, total, "sum"))
        factor_sets = [scenario.factors] + list(scenario.device_factors.values())
        for c, factors in enumerate(factor_sets, start=3):
            for r, name in enumerate(FACTOR_NAMES, start=2):
                out.append((index, f"Calibration {name}", f"{S.CALIBRATION}!${get_column_letter(c)}${r}",
                            getattr(factors, name), "exact"))
    return out


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _sum_checks(scenario: Scenario, layout: Layout):
    """(plan index, what, status formula) for totals that must equal the sum of their parts."""
    out = []
    for index, _ in enumerate(scenario.plans):
        col = layout.plan_col(index)
        r = lambda key: f"{S.RESULTS}!${col}${layout.result_rows[key]}"  # noqa: E731
        parts = {"cost_per_million_output_tokens_usd": [r(f"cost_per_million_output_tokens_{p}_usd") for p in COST_COMPONENTS],
                 "opex_usd_per_year": [r(f"{p}_usd_per_year") for p in OPEX_PARTS],
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
    snapshots = _snapshot_rows(scenario, results, layout, rows)
    sums = _sum_checks(scenario, layout) + _error_checks(scenario, layout)
    first = 4 + n + FIRST_DETAIL_ROW_OFFSET + 1
    last = first + len(snapshots) + len(sums)  # + the horizon check
    status = f"$F${first}:$F${last}"
    set_text(ws.cell(row=1, column=1), MASTER)
    ws.cell(row=1, column=1).font = BOLD
    put(ws, 1, 2, f"=SUM({status})", "formula")
    ws.cell(row=1, column=2).font = BOLD
    wrap(ws.cell(row=1, column=3, value="Failing checks (0: the workbook is current). A plan whose engine inputs "
                                        "changed since export must be recomputed in tcoapp (open the file and save)."))
    workbook.defined_names[MASTER] = DefinedName(MASTER, attr_text=f"'{ws.title}'!$B$1")
    for col, text in enumerate(("plan", "name", "failing checks", "status"), start=1):
        header(ws, 3, col, text)
    refs = {}
    for index, plan in enumerate(scenario.plans):
        row = 4 + index
        put(ws, row, 1, index + 1, "engine")
        set_text(ws.cell(row=row, column=2), plan.name)
        put(ws, row, 3, f"=SUMIF($A${first}:$A${last},A{row},{status})", "formula")
        put(ws, row, 4, f'=IF(C{row}=0,"current","STALE")', "formula")
        refs[index] = f"{S.CHECKS}!$C${row}"
    head = first - 1
    for col, text in enumerate(("plan", "check", "cell", "snapshot at export", "current", "status (1 = fails)"), start=1):
        header(ws, head, col, text)
    # the detail rows (thousands for 20 plans) as worksheet XML, each with its value at export (all pass)
    raw = RawCells(ws.title)
    book = ws.parent
    engine, formula, plain = (raw.style_id(book, kind) for kind in ("engine", "formula", "plain"))
    row = first
    for index, what, ref, value, kind in snapshots:
        shown = written_value(value, "engine")  # the snapshot as the cell holds it
        raw.value(row, 1, index + 1, engine)
        raw.value(row, 2, what, plain)
        raw.value(row, 3, ref if kind == "exact" else "(sum)", plain)
        raw.value(row, 4, shown, engine)
        raw.formula(row, 5, f"={ref}", formula, 0.0 if shown is None else shown)
        status = (f"=IF(EXACT({ref},D{row}),0,1)" if kind == "exact"
                  else f"=IF(ABS({ref}-D{row})<=CHECK_TOLERANCE*MAX(1,ABS(D{row})),0,1)")
        raw.formula(row, 6, status, formula, 0.0)
        row += 1
    for index, what, status in sums:
        raw.value(row, 1, index + 1, engine)
        raw.value(row, 2, what, plain)
        raw.formula(row, 6, status, formula, 0.0)
        row += 1
    years = f"{S.PLANS}!${layout.plan_col(0)}${layout.plan_rows['years']}:${layout.plan_col(max(n - 1, 0))}${layout.plan_rows['years']}"
    raw.value(row, 1, 0, engine)
    raw.value(row, 2, "horizon: every plan's years fit the CashFlow sheet", plain)
    raw.value(row, 4, layout.max_years, engine)
    raw.formula(row, 5, f"=MAX({years})", formula, float(max(p.years for p in scenario.plans)) if n else 0.0)
    raw.formula(row, 6, f"=IF(MAX({years})<=CASHFLOW_LAST_YEAR,0,1)", formula, 0.0)
    ws.conditional_formatting.add(f"F{first}:F{last}", FormulaRule(formula=[f"F{first}>0"], fill=RED))
    ws.conditional_formatting.add("B1", FormulaRule(formula=["B1>0"], fill=RED))
    ws.conditional_formatting.add("B1", FormulaRule(formula=["B1=0"], fill=GREEN))
    ws.freeze_panes = "A4"
    widths(ws, {1: 8, 2: 46, 3: 34, 4: 22, 5: 22, 6: 16})
    return CheckRefs(refs, raw)


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
    ws.conditional_formatting.add(area, FormulaRule(formula=[f"{MASTER}>0"], fill=RED))
    ws.conditional_formatting.add(area, FormulaRule(formula=[f"{MASTER}=0"], fill=GREEN))
