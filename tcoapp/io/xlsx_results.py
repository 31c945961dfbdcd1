"""The Results sheet: the Plans layout (key, unit, one column per plan) with every metric
(docs/workbook_format.md) and the cost components, then one block per pool.

The first block holds the plan's operating point (engine values). Each pool block holds the values
a spreadsheet cannot compute (the device economics, the pool's tokens/s per device and power at
its operating point, the sized device count where the plan is sized; styled as engine values),
references to the Plans and Pools inputs they copy, and live formulas packing, pricing and powering
the pool on its own. The plan rows sum the pools and reproduce finance_metrics operation for
operation over Plans, the Constants sheet (named cells) and CashFlow. A value that does not exist
reads "n/a" (payback: "never"), where the engine has NaN.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..engine.pipeline.compute import PlanResult, not_entered
from ..engine.quantities.inputs import DEVICE_FIELDS, EQUIVALENT_KEYS, PLAN_FIELD_BY_NAME, PLAN_FIELDS, PRICE_TIER_FIELDS
from ..engine.quantities.finance import (
    COMPONENT_KEYS, DEVICE_ECONOMICS_KEYS, DEVICE_LINE_PARTS, HELD_CAPEX_RATES, INPUT_BY_KEY, SUMMED_KEYS, OPEX_PARTS, PART_ANNUAL_KEYS,
    PART_YEAR_KEYS, PLAN_EXPRESSIONS, POOL_EXPRESSIONS, POOL_QUANTITY_BY_KEY, QUANTITY_BY_KEY, SERVER_CAPEX, TOKEN_TYPE_KEYS,
)
from ..engine.quantities.expr import IN_POOL, POOL_COUNT, POOLS_MAX, POOLS_MIN
from ..engine.quantities.metrics import CASHFLOW_METRICS, METRIC_BY_KEY, METRICS
from ..engine.plan.scenario import Scenario
from . import sheets as S
from openpyxl.utils import get_column_letter

from .xlsx_agentic import AGENTIC_TITLE, agentic_rows, write_agentic
from .xlsx_checks import banner, plan_header, plan_status, plan_status_formats
from .xlsx_layout import Layout, PlanRefs, base_key, field_column, served_key
from .xlsx_cf_relocate import Movable, block_of
from .xlsx_na import NA, NOT_AVAILABLE, NaGuard, compiled, none_na
from .xlsx_labels import result_label
from .xlsx_styles import (
    PLAN_WIDTH_MAX,
    LABEL_HEADER, header, key_cell, label_cell, label_width, put, section, set_text, widths, with_unit, wrap,
    wrap_longer,
)

Formula = Callable[[PlanRefs], str]

# key, where the engine value comes from ("metric": the plan's operating point)
ENGINE_ROWS = (
    ("batch", "metric"),
    ("tokens_per_s_per_device", "metric"),
    ("tokens_per_s_per_user", "metric"),
    ("ttft_s", "metric"),
    ("power_w", "metric"),
    ("max_batch_by_memory", "metric"),
)
ENGINE_HELP = {
    "batch": "Operating batch (concurrent sequences per replica) chosen by the engine; n/a where pools differ.",
    "tokens_per_s_per_device": "Output tokens/s per device at the operating point, over all the plan's pools.",
    "tokens_per_s_per_user": "Output tokens/s each sequence sees at the operating point (the slowest pool).",
    "ttft_s": "Time to first token at the operating point (the slowest pool; disaggregated: prefill + KV transfer + a step).",
    "power_w": "Power per device at the operating point, over all the plan's pools.",
    "max_batch_by_memory": "Largest batch whose weights and KV cache fit in memory.",
}

# per pool: key, where the value comes from ("text", "engine", "live")
POOL_VALUE_ROWS = (
    ("pool", "text"), ("role", "text"), ("device", "text"),
    ("device_count", "live"), ("price_usd", "live"), ("devices_per_server", "live"),
    ("server_price_usd", "live"), ("tdp_w", "live"), ("idle_w", "live"), ("server_overhead_w", "live"), ("power_limit_w", "live"),
    ("rack_power_cap_kw", "live"), ("servers_per_rack_max", "live"),
    ("tokens_per_s_per_device", "engine"), ("tokens_per_s_per_user", "engine"), ("power_w", "engine"),
    ("price_usd_per_million_output_tokens", "live"), ("owned", "live"), ("rent_usd_per_device_hour", "live"),
    ("purchase_year", "live"), ("prefill_share", "engine"),
)
PLAN_HELP = {"costs_not_entered": "Cost inputs left at 0 on Plans, which reads as 'not entered': those costs are "
                                   "left out of opex and cost per token (none: every cost is entered)."}
POOL_TEXT_HELP = {"pool": "Pool name (Pools sheet; a plan without pool rows is one pool).",
                  "role": "serve, prefill or decode.", "device": "The pool's accelerator."}

PoolFormula = Callable[["PoolRefs"], str]


POOL_EXPRESSION_BY_KEY = dict(POOL_EXPRESSIONS)


def _pool_expression(key: str) -> tuple[str, PoolFormula]:
    """A pool row written as an expression in the quantity table: its formula compiled from it (a key is the
    pool's row where the pool block has one, else the plan's input on Plans)."""
    return key, lambda q: compiled(POOL_EXPRESSION_BY_KEY[key], q.ref, q.guard)


POOL_FORMULAS: tuple[tuple[str, PoolFormula], ...] = (
    _pool_expression("servers"),
    _pool_expression("server_nameplate_w"),
    _pool_expression("servers_per_rack"),
    _pool_expression("racks"),
    _pool_expression("hardware_capex_usd"),
    _pool_expression("capex_usd"),
    _pool_expression("device_avg_w"),
    _pool_expression("it_avg_kw"),
    _pool_expression("it_provisioned_kw"),
    _pool_expression("energy_usd_per_year"),
    _pool_expression("colocation_usd_per_year"),
    _pool_expression("maintenance_usd_per_year"),
    *(_pool_expression(PART_ANNUAL_KEYS[part]) for part in HELD_CAPEX_RATES),
    *(_pool_expression(PART_ANNUAL_KEYS[part]) for part in DEVICE_LINE_PARTS),
    _pool_expression("software_usd_per_year"),
    _pool_expression("rent_usd_per_year"),
    _pool_expression("output_tokens_per_year"),
    _pool_expression("input_tokens_per_year"),
    _pool_expression("revenue_usd_per_year"),
)
POOL_ROW_KEYS = frozenset(key for key, _ in POOL_VALUE_ROWS + POOL_FORMULAS)  # the rows of a pool block
# plan rows levelized from the CashFlow year rows: key -> (CashFlow row, sign)
LEVELIZED = {"output_tokens_per_year": ("output_tokens", ""), "input_tokens_per_year": ("input_tokens", ""),
             "revenue_usd_per_year": ("revenue_usd", ""),
             "uncached_input_revenue_usd_per_year": ("uncached_input_revenue_usd", ""),
             "cached_input_revenue_usd_per_year": ("cached_input_revenue_usd", ""), "opex_usd_per_year": ("opex_usd", "-"),
             **{PART_ANNUAL_KEYS[part]: (PART_YEAR_KEYS[part], "") for part in OPEX_PARTS}}


def pool_key(k: int, key: str) -> str:
    """The Results key of pool k's (1-based) quantity `key`."""
    return f"pool{k}.{key}"


EXPRESSIONS = dict(PLAN_EXPRESSIONS)


def _expression(key: str) -> tuple[str, Formula]:
    """The Results row of a plan quantity written as an expression: its formula compiled from the table (n/a for
    a plan without pools where it reads over pools)."""
    def formula(x: PlanRefs) -> str:
        try:
            return EXPRESSIONS[key].excel(plan_ref(x), NA)
        except _NoPools:
            return NA
    return key, formula


class _NoPools(LookupError):
    """An expression over pools on a plan that has none."""


def plan_ref(x: PlanRefs) -> Callable[[str], str]:
    """The cell of each name a plan quantity's expression reads on Results: its row, else the plan's input on
    Plans; over pools (engine/quantities/expr.py): each pool's row (a pools_total's terms), MIN / MAX of the pools'
    cells."""
    def ref(name: str) -> str:
        if name == POOL_COUNT:
            count = x.layout.pool_counts[x.index] if x.layout.pool_counts else 1
            if not count:
                raise _NoPools(name)
            return str(count)
        if name.startswith(IN_POOL):
            k, key = name[len(IN_POOL):].split(".", 1)
            return x.r(pool_key(int(k), key)) if key in POOL_ROW_KEYS else x.p(key)
        for prefix, call in ((POOLS_MIN, "MIN"), (POOLS_MAX, "MAX")):
            if name.startswith(prefix):
                cells = x.pools(name[len(prefix):])
                if not cells:
                    raise _NoPools(name)
                return f"{call}({cells})"
        return x.r(name) if name in x.layout.result_rows else x.p(name)
    return ref


def _levelized(row: str, sign: str) -> Formula:
    """PV of a CashFlow row over years 1..n x the capital recovery factor (the year's amount when
    nothing changes by year)."""
    return lambda x: (f'IF({none_na(x.cf_range(row, 1))},'
                      f'{sign}SUMPRODUCT({x.cf_range(row, 1)},{x.cf_range("discount_factor", 1)})'
                      f'*{x.r("capital_recovery_factor")},{NA})')


def _in_service(count_key: str) -> Formula:
    """Racks (or devices) that exist, levelized: sum over pools of the count x the PV of its CashFlow
    `active` row over years 1..n, x the capital recovery factor (the engine's `_in_service`)."""
    def formula(x) -> str:
        count = x.layout.pool_counts[x.index] if x.layout.pool_counts else 1
        cells = x.pools(count_key)
        if not cells:
            return NA
        terms = "+".join(f'{x.r(f"pool{k}.{count_key}")}*SUMPRODUCT({x.cf_range(f"pool{k}.active", 1)},'
                         f'{x.cf_range("discount_factor", 1)})' for k in range(1, count + 1))
        return f'IF(COUNT({cells})={count},({terms})*{x.r("capital_recovery_factor")},{NA})'
    return formula


NOT_ENTERED_NONE, NOT_ENTERED_LEAD = "none", "not entered (0): "


def not_entered_text(plan) -> str:
    """What the Results row `costs_not_entered` reads for `plan` (the formula below, in Python)."""
    missing = not_entered(plan)
    return NOT_ENTERED_LEAD + "".join(f"{m}; " for m in missing) if missing else NOT_ENTERED_NONE


def _not_entered(x) -> str:
    """The cost inputs left at 0 ("not entered"), named in words, live over Plans."""
    parts = [f'IF({x.p(f.name)}=0,"{f.label.lower()}; ","")' for f in PLAN_FIELDS if f.zero_text]
    joined = "&".join(parts)
    return f'IF(LEN({joined})=0,"{NOT_ENTERED_NONE}","{NOT_ENTERED_LEAD}"&{joined})'


def _summed(key: str) -> Formula:
    """The plan's total of a pool quantity: the sum over its pools (n/a where a pool's is)."""
    return lambda x: f'SUM({x.pools(key)})' if x.pools(key) else NA


FORMULA_SECTIONS: tuple[tuple[str, tuple[tuple[str, Formula], ...]], ...] = (
    ("Plan totals over its pools (formulas)", tuple((key, _summed(key)) for key in SUMMED_KEYS) + (
        _expression("servers_per_rack"),
        ("tokens_per_joule", lambda x: f'IF({x.r("power_w")}>0,{x.r("tokens_per_s_per_device")}/{x.r("power_w")},{NA})'),
    )),
    ("Levelized over the years (formulas over CashFlow: present value x capital recovery factor)", (
        ("capital_recovery_factor",  # mid-year discounting: 1 / the discount factors of years 1..n summed
         lambda x: f'IF({x.p("discounting")}="mid_year",1/SUMPRODUCT(--({x.cf_year_range(1)}<={x.p("years")}),'
                   f'{x.cf_range("discount_factor", 1)}),'
                   f'IF({x.p("discount_rate")}=0,1/{x.p("years")},'
                   f'{x.p("discount_rate")}/(1-(1+{x.p("discount_rate")})^-{x.p("years")})))'),
        ("capex_usd_per_year",
         lambda x: f'IF(AND({none_na(x.cf_range("capex_usd"))},{none_na(x.cf_range("replacement_capex_usd"))},'
                   f'{none_na(x.cf_range("residual_value_usd"))}),'
                   f'(SUMPRODUCT(-{x.cf_range("capex_usd")},{x.cf_range("discount_factor")})'
                   f'+SUMPRODUCT(-{x.cf_range("replacement_capex_usd")},{x.cf_range("discount_factor")})'
                   f'-SUMPRODUCT({x.cf_range("residual_value_usd")},{x.cf_range("discount_factor")}))'
                   f'*{x.r("capital_recovery_factor")},{NA})'),
    ) + tuple((key, _levelized(row, sign)) for key, (row, sign) in LEVELIZED.items()) + (
        ("racks_in_service", _in_service("racks")),
        ("device_count_in_service", _in_service("device_count")),
        ("costs_not_entered", _not_entered),
        _expression("prefill_share_of_device_time"),
    )),
    ("Cost per million tokens (formulas)", tuple(_expression(key) for key in (
        *(m.key for m in METRICS if m.text_group == "Costs" and m.expr is not None), *COMPONENT_KEYS.values()))),
    ("Revenue and returns (formulas)", (
        *(_expression(key) for key in TOKEN_TYPE_KEYS),
        *(_expression(m.key) for m in METRICS if m.text_group == "Returns" and m.expr is not None),
        _expression("net_usd_per_year"),
        ("npv_usd", lambda x: x.cf("npv_usd")),
        ("irr", lambda x: x.cf("irr")),
        ("payback_months", lambda x: x.cf("payback_months")),
        ("discounted_payback_months", lambda x: x.cf("discounted_payback_months")),
        ("mirr", lambda x: _mirr(x)),
        ("unused_tax_loss_usd", lambda x: f'IF({none_na(x.cf_range("loss_carried_usd"))},'
                                          f'INDEX({x.cf_range("loss_carried_usd")},1,{x.p("years")}+1),{NA})'),
        ("roi",
         lambda x: f'IF({none_na(x.cf_range("cash_flow_usd"))},'
                   f'IF({x.r("capex_usd")}>0,(SUM({x.cf_range("cash_flow_usd", 1)})-SUM({x.cf_range("capex_usd", 1)}))'
                   f'/{x.r("capex_usd")}-1,{NA}),{NA})'),
    )),
    ("Financing (formulas; docs/model.md \"Financing\")", (
        ("equity_npv_usd", lambda x: x.cf("equity_npv_usd")),
        ("equity_irr", lambda x: x.cf("equity_irr")),
        ("min_dscr", lambda x: x.cf("min_dscr")),
        ("wacc", lambda x: f'IF({x.p("debt_fraction")}>0,(1-{x.p("debt_fraction")})*IF(ISBLANK({x.p("equity_discount_rate")}),'
                           f'{x.p("discount_rate")},{x.p("equity_discount_rate")})+{x.p("debt_fraction")}*{x.p("debt_rate")}'
                           f'*(1-{_shield(x)}),{NA})'),
        ("npv_at_wacc_usd", lambda x: _npv_at_wacc(x)),
    )),
)
def _mirr(x) -> str:
    """MIRR of the year-end flows of years 0..n at the discount rate for both finance and reinvestment: the inflows
    compounded to year n over the outflows discounted to year 0, ^(1/n) - 1 (Excel's MIRR over CF0:CFn)."""
    flows, years, n, r = x.cf_range("cash_flow_usd"), x.cf_year_range(), x.p("years"), x.p("discount_rate")
    gains = f"SUMPRODUCT(({years}<={n})*({flows}>0)*{flows}*(1+{r})^({n}-{years}))"
    costs = f"-SUMPRODUCT(({years}<={n})*({flows}<0)*{flows}/(1+{r})^{years})"
    return f"IF({none_na(flows)},IF(AND({gains}>0,{costs}>0),({gains}/({costs}))^(1/{n})-1,{NA}),{NA})"


def _shield(x) -> str:
    """The tax rate the interest deduction saves over the horizon: (tax - tax after interest) / interest, summed
    over the years; 0 without interest."""
    interest = x.cf_range("interest_usd")
    return (f"IF(SUM({interest})>0,(SUM({x.cf_range('tax_usd')})-SUM({x.cf_range('levered_tax_usd')}))"
            f"/SUM({interest}),0)")


def _npv_at_wacc(x) -> str:
    """The project flows discounted at the WACC (the plan's discounting); n/a without debt."""
    flows, later, wacc = x.cf_range("cash_flow_usd"), x.cf_range("cash_flow_usd", 1), x.r("wacc")
    mid = f'IF({x.p("discounting")}="mid_year",(1+{wacc})^HALF_YEAR,1)'
    return (f"IF({x.p('debt_fraction')}>0,IF({none_na(flows)},INDEX({flows},1,1)+NPV({wacc},{later})*{mid},{NA}),"
            f"{NA})")


# a plan quantity with an expression that no section above places: its own section, at the end
_PLACED = {key for _, entries in FORMULA_SECTIONS for key, _ in entries}
FORMULA_SECTIONS += tuple(("More metrics (formulas from their expressions)", entries) for entries in [tuple(
    _expression(key) for key in EXPRESSIONS if key not in _PLACED)] if entries)

# Results rows that are plain references to a formula elsewhere (no n/a guard: they hold its value)
PASS_THROUGH = frozenset(CASHFLOW_METRICS) | {"staff_usd_per_year"}
ENGINE_TITLE = "Engine outputs (values computed by the tcoapp engine, not formulas: change inputs in the app)"


def pool_title(k: int) -> str:
    return (f"Pool {k}: engine values (italic) and formulas: each pool is packed, priced and powered on its own "
            "(empty where a plan has fewer pools)")


BANNER_ROW = 2  # the master check
MIN_VALUE_WIDTH = 22  # wide enough for "-$12,345,678,901" and "33,324,730,362,620" at default fonts (no ###)
LABEL_WIDTH = 40      # the label column: with five plan columns a landscape page at 8 pt (a longer label wraps)
CHECK_ROW = 4   # each plan's own status (row 3: its section title)


def result_rows(max_pools: int = 1, classes: bool = False, agentic: bool = False) -> dict[str, int]:
    """Row of every Results key (section title rows sit between the blocks); `classes`: the workbook has request
    classes, and the requests each plan serves have rows of their own at the end (SERVED_TITLE); `agentic`: a plan
    has an agentic class, and the agentic answer has rows after those (xlsx_agentic.py)."""
    rows, row = {"plan_check": CHECK_ROW}, CHECK_ROW + 2  # the engine block's title sits in between
    for key, _ in ENGINE_ROWS:
        rows[key] = row
        row += 1
    for _, entries in FORMULA_SECTIONS:
        row += 1  # the section title
        for key, _ in entries:
            rows[key] = row
            row += 1
    for k in range(1, max_pools + 1):
        row += 1
        for key in [key for key, _ in POOL_VALUE_ROWS] + [key for key, _ in POOL_FORMULAS]:
            rows[pool_key(k, key)] = row
            row += 1
    rows["warnings"] = row + 1
    rows["serving"] = row + 2
    rows["prediction_interval"] = row + 3
    rows["frontier_share"] = row + 4
    if classes:
        rows.update({served_key(key): row + 6 + i for i, key in enumerate(EQUIVALENT_KEYS)})
    if classes and agentic:
        rows.update(agentic_rows(row + 6 + len(EQUIVALENT_KEYS)))
    return rows


def result_unit(key: str) -> str:
    """Unit of a Results row, from the engine's metric and quantity tables."""
    base = base_key(key)
    if base in METRIC_BY_KEY:
        return METRIC_BY_KEY[base].unit
    for table in (POOL_QUANTITY_BY_KEY, QUANTITY_BY_KEY, INPUT_BY_KEY):
        if base in table:
            return table[base].unit
    return ""


def result_help(key: str) -> str | None:
    base = base_key(key)
    if key in ENGINE_HELP:
        return ENGINE_HELP[key]
    if key in PLAN_HELP:
        return PLAN_HELP[key]
    if base in POOL_TEXT_HELP:
        return POOL_TEXT_HELP[base]
    if base in METRIC_BY_KEY and base == key:
        return METRIC_BY_KEY[base].help
    for table in ((POOL_QUANTITY_BY_KEY, INPUT_BY_KEY) if base != key else (QUANTITY_BY_KEY,)):
        if base in table:
            return table[base].help
    return None


def write_results(ws, scenario: Scenario, results: tuple[PlanResult, ...], layout: Layout, checks=None) -> None:
    n = len(scenario.plans)
    last_col = S.FIRST_PLAN_COLUMN + n - 1
    header(ws, 1, 1, "key", "Metric key (docs/workbook_format.md). Outputs: recomputed on import, never read.")
    header(ws, 1, 2, LABEL_HEADER)
    for index, plan in enumerate(scenario.plans):
        plan_header(ws, 1, S.FIRST_PLAN_COLUMN + index, plan.name)
    banner(ws, BANNER_ROW, max(last_col, 3))
    if checks is not None:
        _check_row(ws, checks, n, last_col)
    _engine_block(ws, results, layout, last_col)
    guard, by_pools = NaGuard(S.RESULTS, layout.row_key), {}   # one guard: it keeps what it found of each operand
    texts = [formula_texts(layout, index, guard, by_pools) for index in range(n)]
    for title, entries in FORMULA_SECTIONS:
        section(ws, layout.result_rows[entries[0][0]] - 1, title, max(last_col, 2))
        for key, _ in entries:
            _formula_row(ws, layout, key, [plan_texts[key] for plan_texts in texts])
    for k in range(1, layout.max_pools + 1):
        _pool_block(ws, scenario, results, layout, k, last_col)
    _warnings_row(ws, results, layout, last_col)
    _served_block(ws, scenario, results, layout, last_col)
    write_agentic(ws, scenario, results, layout, last_col)
    ws.freeze_panes = "C2"
    label = min(LABEL_WIDTH, label_width(with_unit(result_label(key), result_unit(key)) for key in layout.result_rows))
    widths(ws, {1: 46, 2: label, **{S.FIRST_PLAN_COLUMN + i: max(MIN_VALUE_WIDTH, min(PLAN_WIDTH_MAX, len(p.name) + 4))
                                for i, p in enumerate(scenario.plans)}})
    wrap_longer(ws, 2, label)


SERVED_TITLE = ("Requests served: a plan with request classes serves its mix's equivalent request (engine values: "
                "request-weighted mean lengths, token-weighted hit rate and prices; docs/model.md \"Request classes\"); a "
                "plan without classes its Plans keys (formulas). The formulas above read these rows")


def _served_block(ws, scenario, results, layout: Layout, last_col: int) -> None:
    """The requests each plan serves (SERVED_TITLE), in a workbook with request classes: the engine's equivalent
    request of a plan's mix (a change on Workloads shows as stale on Checks until the app recomputes), its Plans
    cells for a plan without classes (live)."""
    first = layout.result_rows.get(served_key(EQUIVALENT_KEYS[0]))
    if first is None:
        return
    section(ws, first - 1, SERVED_TITLE, max(last_col, 2))
    for key in EQUIVALENT_KEYS:
        row, field = layout.result_rows[served_key(key)], PLAN_FIELD_BY_NAME[key]
        key_cell(ws, row, served_key(key), f"Served: {field.help}")
        label_cell(ws, row, 2, f"Served: {field.label}", field.unit)
        for index, (plan, result) in enumerate(zip(scenario.plans, results)):
            blended = result.workloads_blended
            if plan.workloads and blended is not None:
                value = blended[SERVED_JSON.get(key, key)]
                put(ws, row, S.FIRST_PLAN_COLUMN + index, NOT_AVAILABLE if value is None else float(value), "engine",
                    field.unit)
            else:
                cell = lambda k: f"{S.PLANS}!{layout.plan_col(index)}{layout.plan_rows[k]}"  # noqa: E731
                formula = (f"=IF(ISBLANK({cell(key)}),{cell('price_usd_per_million_input_tokens')},{cell(key)})"
                           if key == "price_usd_per_million_cached_input_tokens" else f"={cell(key)}")
                put(ws, row, S.FIRST_PLAN_COLUMN + index, formula, "formula", field.unit)


SERVED_JSON = {"prefix_cache_hit_rate": "achieved_prefix_hit_rate"}   # the JSON's name of a served key


CHECK_TITLE = "Is this plan current? (Checks sheet)"
NOTES_TITLE = "Notes from the engine"


def section_titles() -> frozenset[str]:
    """Every section title Results is written with but a pool's (pool_title): what column A holds besides keys."""
    return frozenset({CHECK_TITLE, NOTES_TITLE, ENGINE_TITLE, SERVED_TITLE, AGENTIC_TITLE,
                      *(title for title, _ in FORMULA_SECTIONS)})


def _check_row(ws, checks, n: int, last_col: int) -> None:
    section(ws, CHECK_ROW - 1, CHECK_TITLE, max(last_col, 2))
    key_cell(ws, CHECK_ROW, "plan_check", "current: the engine computed these numbers from the inputs shown; STALE: a formula of this plan is "
                                          "an error, or "
                                          "an engine input of this plan changed since export (see the Checks sheet)")
    label_cell(ws, CHECK_ROW, 2, result_label("plan_check"))
    for index in range(n):
        put(ws, CHECK_ROW, S.FIRST_PLAN_COLUMN + index, plan_status(index), "formula")
    plan_status_formats(ws, CHECK_ROW, n, last_col)


def _engine_block(ws, results, layout: Layout, last_col: int) -> None:
    section(ws, layout.result_rows[ENGINE_ROWS[0][0]] - 1, ENGINE_TITLE, max(last_col, 2))
    for key, _ in ENGINE_ROWS:
        row = layout.result_rows[key]
        key_cell(ws, row, key, result_help(key))
        unit = result_unit(key)
        label_cell(ws, row, 2, result_label(key), unit)
        for index, result in enumerate(results):
            put(ws, row, S.FIRST_PLAN_COLUMN + index, float(getattr(result.metrics, key)), "engine", unit)


def _pool_block(ws, scenario, results, layout: Layout, k: int, last_col: int) -> None:
    first = layout.result_rows[pool_key(k, POOL_VALUE_ROWS[0][0])]
    section(ws, first - 1, pool_title(k), max(last_col, 2))
    keys = [key for key, _ in POOL_VALUE_ROWS] + [key for key, _ in POOL_FORMULAS]
    for key in keys:
        row = layout.result_rows[pool_key(k, key)]
        key_cell(ws, row, pool_key(k, key), result_help(pool_key(k, key)))
        label_cell(ws, row, 2, result_label(pool_key(k, key)), result_unit(key))
    sources = dict(POOL_VALUE_ROWS)
    for index, (plan, result) in enumerate(zip(scenario.plans, results)):
        if k > len(result.pools):
            continue
        refs = PoolRefs(layout, index, k, plan, result)
        col = S.FIRST_PLAN_COLUMN + index
        for key, source in POOL_VALUE_ROWS:
            row, unit = layout.result_rows[pool_key(k, key)], result_unit(key)
            if source == "text":
                set_text(ws.cell(row=row, column=col), refs.text(key))
                continue
            live = refs.live(key) if sources[key] == "live" else None
            if live:
                put(ws, row, col, live, "formula", unit)
            else:
                put(ws, row, col, refs.engine_value(key), "engine", unit)
        for key, formula in POOL_FORMULAS:
            text = formula(refs)   # a core to guard, or a formula already guarded (PoolRefs.when)
            put(ws, layout.result_rows[pool_key(k, key)], col, text if text.startswith("=") else refs.guard(text),
                "formula", result_unit(key))


class PoolRefs:
    """Cell references and values of pool k (1-based) of plan `index`, as seen from the Results sheet."""

    def __init__(self, layout: Layout, index: int, k: int, plan, result: PlanResult):
        self.layout, self.index, self.k, self.plan, self.result = layout, index, k, plan, result
        self.pool = result.pools[k - 1]
        self.plan_refs = PlanRefs(layout, index)
        self.guard = NaGuard(S.RESULTS, layout.row_key)   # a formula core -> the formula, n/a where an operand is

    def r(self, key: str) -> str:
        return self.plan_refs.r(pool_key(self.k, key))

    def p(self, key: str) -> str:
        return self.plan_refs.p(key)

    def ref(self, key: str) -> str:
        """A key of an expression: the pool's row where the pool block has one, else the plan's input."""
        return self.r(key) if key in POOL_ROW_KEYS else self.p(key)

    def when(self, condition: str, core: str) -> str:
        """The formula IF(condition, core or n/a, 0): `condition` (over inputs, never n/a) decides first."""
        return self.guard.when(condition, core)

    def text(self, key: str) -> str:
        return {"pool": self.pool.name, "role": self.pool.role, "device": self.pool.device}[key]

    def engine_value(self, key: str) -> float:
        if self.result.inputs is None:
            return float("nan")
        if key == "tokens_per_s_per_user":
            return float(self.result.fleet.pool_points[self.k - 1].tokens_per_s_per_user)
        return float(np.asarray(self.result.inputs[key], float)[..., self.k - 1])

    def with_kv_tiers(self, key: str, lookup: str | None) -> str | None:
        """The server price with the extra host memory and NVMe the plan buys (plan/kv_tiers.py), where it buys any."""
        if key != "server_price_usd" or lookup is None or not (self.plan.extra_host_memory_gb or self.plan.extra_nvme_tb):
            return lookup
        return (f'{lookup}+{self.p("extra_host_memory_gb")}*{self.p("host_memory_price_usd_per_gb")}'
                f'+{self.p("extra_nvme_tb")}*{self.p("nvme_price_usd_per_tb")}')

    def device_lookup(self, key: str) -> str | None:
        """A device field looked up on the Devices sheet by the pool's device name (so an edit there moves)."""
        if self.pool.device not in self.layout.device_rows:
            return None
        first, last = S.FIRST_ENTRY_ROW, max(self.layout.device_rows.values())
        column = field_column(DEVICE_FIELDS, key)
        names = f"{S.DEVICES}!$A${first}:$A${last}"
        return f"=INDEX({S.DEVICES}!${column}${first}:${column}${last},MATCH({self.r('device')},{names},0))"

    def tier_price(self) -> str:
        """The price of the fastest tier the pool's tokens/s per user reaches (0 below every tier), or the Plans
        price where the plan names no tier table: exact matches in SUMPRODUCT, never criteria strings."""
        first, last = S.FIRST_ENTRY_ROW, S.FIRST_ENTRY_ROW + max(self.layout.tier_rows, 1) - 1
        col = lambda key: (f"{S.PRICE_TIERS}!${field_column(PRICE_TIER_FIELDS, key)}${first}"  # noqa: E731
                           f":${field_column(PRICE_TIER_FIELDS, key)}${last}")
        table, rate = self.p("price_tiers"), self.r("tokens_per_s_per_user")
        names, thresholds, prices = col("price_tiers"), col("min_tokens_per_s_per_user"), col("price_usd_per_million_output_tokens")
        reached = f"({names}={table})*({thresholds}<={rate})"
        top = f"SUMPRODUCT(MAX({reached}*{thresholds}))"
        price = f"SUMPRODUCT(({names}={table})*({thresholds}={top})*{prices})"
        return (f'=IF({table}="",{self.p("price_usd_per_million_output_tokens")},IF(ISNUMBER({rate}),'
                f'IF(SUMPRODUCT({reached})=0,0,{price}),{NA}))')

    def sized_count(self) -> str | None:
        """A one-pool plan's sizing as a formula (whole servers; the engine's operations)."""
        if len(self.result.pools) != 1:
            return None
        dps = self.r("devices_per_server")
        mode = self.plan.sizing_mode
        if mode == "facility_power":
            core = (f'ROUNDDOWN({self.p("facility_power_kw")}*W_PER_KW/({self.r("server_nameplate_w")}'
                    f'*{self.p("pue")})+SIZING_EPSILON,0)*{dps}')
        elif mode == "capex_budget":  # a rented pool has no capex to size by
            per_server = SERVER_CAPEX.excel(self.ref, NA)
            core = (f'IF({self.r("owned")}=0,{NA},'
                    f'ROUNDDOWN({self.p("capex_budget_usd")}/({per_server})+SIZING_EPSILON,0)*{dps})')
        elif mode == "demand":  # no tokens per device-day: no fleet meets any demand
            day = f'{self.r("tokens_per_s_per_device")}*{self.p("utilization")}*SECONDS_PER_DAY'
            core = f'IF({day}>0,ROUNDUP({self.p("demand_tokens_per_day")}/({day})/{dps}-SIZING_EPSILON,0)*{dps},{NA})'
        else:
            return None
        return NaGuard(S.RESULTS, self.layout.row_key)(core)

    def live(self, key: str) -> str | None:
        """Engine inputs that are plain copies of a Plans or Pools input are references, so they move."""
        pool_row = self.layout.pool_rows.get((self.plan.name, self.pool.name)) if not self.pool.derived else None
        explicit = self.plan.pools[self.k - 1] if pool_row else None
        if key == "device_count" and self.plan.sizing_mode == "devices":
            if explicit is not None:
                return f"={self.layout.pools_cell(pool_row, key)}"
            return f"={self.p('device_count')}" if len(self.result.pools) == 1 else None
        if key == "device_count":
            return self.sized_count()
        if key in DEVICE_ECONOMICS_KEYS:
            return self.with_kv_tiers(key, self.device_lookup(key))
        if key == "owned":
            return f'=IF({self.layout.pools_cell(pool_row, "ownership")}="rent",0,1)' if explicit is not None else None
        if key in ("rack_power_cap_kw", "servers_per_rack_max"):
            if explicit is not None and getattr(explicit, key) is not None:
                return f"={self.layout.pools_cell(pool_row, key)}"
            return f"={self.p(key)}"
        if key == "price_usd_per_million_output_tokens":
            return None if self.pool.role == "prefill" else self.tier_price()
        if key in ("rent_usd_per_device_hour", "purchase_year") and explicit is not None:
            return f"={self.layout.pools_cell(pool_row, key)}"
        return None


def formula_texts(layout: Layout, index: int, guard: NaGuard, by_pools: dict | None = None) -> dict[str, str]:
    """The formulas of plan `index` in the rows of FORMULA_SECTIONS, by key; with by_pools, moved from the first plan
    with as many pools where they can be (xlsx_cf_relocate: the same formulas in its column and its CashFlow
    block's rows), else compiled (and kept there for the next plans)."""
    pools = layout.pool_counts[index] if layout.pool_counts else 1
    block = block_of(layout, index)
    first = by_pools.get(pools) if by_pools is not None else None
    moved = first.moved(block) if first is not None else None
    if moved is not None:
        return moved
    refs, texts = PlanRefs(layout, index), {}
    for _, entries in FORMULA_SECTIONS:
        for key, formula in entries:
            core = formula(refs)
            texts[key] = f"={core}" if key in PASS_THROUGH else guard(core)
    if by_pools is not None and first is None:
        by_pools[pools] = Movable(texts, block, S.RESULTS)
    return texts


def _formula_row(ws, layout: Layout, key: str, texts: list[str]) -> None:
    """A row of formulas, one per plan (formula_texts)."""
    row = layout.result_rows[key]
    key_cell(ws, row, key, result_help(key))
    unit = result_unit(key)
    label_cell(ws, row, 2, result_label(key), unit)
    for index, text in enumerate(texts):
        put(ws, row, S.FIRST_PLAN_COLUMN + index, text, "formula", unit)


def _warnings_row(ws, results, layout: Layout, last_col: int) -> None:
    row = layout.result_rows["warnings"]
    section(ws, row - 1, NOTES_TITLE, max(last_col, 2))
    key_cell(ws, row, "warnings", "What the engine flagged for this plan (extrapolation, queueing, targets not met).")
    label_cell(ws, row, 2, result_label("warnings"))
    for index, result in enumerate(results):
        cell = ws.cell(row=row, column=S.FIRST_PLAN_COLUMN + index)
        if result.warnings:
            set_text(cell, "\n".join(result.warnings))
            wrap(cell)
    _serving_row(ws, results, layout)
    _interval_row(ws, results, layout)


def _interval_row(ws, results, layout: Layout) -> None:
    """The 80 % prediction interval of a generated plan point (docs/model.md, "How sure it is");
    empty on a measured curve."""
    _text_row(ws, results, layout, "prediction_interval",
              "80 % prediction interval of tokens/s per device and per user on a generated curve, from the model's "
              "leave-one-family-out residuals of the plan's regime and class (docs/model.md). Empty: a measured curve.", interval_text)


def interval_text(result) -> str:
    """The Results text of a plan's prediction interval ("" without one)."""
    band = getattr(result, "prediction_interval", None)
    if not band:
        return ""
    device, user = band["tokens_per_s_per_device"], band["tokens_per_s_per_user"]
    text = f"{band['level'] * 100:.0f} %: {device[0]:,.0f}-{device[1]:,.0f} tokens/s per device"
    text += f"; {user[0]:,.1f}-{user[1]:,.1f} tokens/s per user" if user else ""
    return f"{text} ({band['basis']})"


def _serving_row(ws, results, layout: Layout) -> None:
    """The configuration the serving search chose (docs/model.md, "Serving search"); empty where search is off."""
    _text_row(ws, results, layout, "serving",
              "serving_search = auto: the configuration the search chose per pool (TP, EP, attention-DP, precisions, "
              "draft tokens, batch) and its objective. Empty: the plan runs the configuration typed on Plans.",
              lambda result: result.serving_text())


def _text_row(ws, results, layout: Layout, key: str, help_text: str, text_of) -> None:
    """An engine text row of the Results sheet: key, label and, per plan, `text_of(result)` (empty: none)."""
    row = layout.result_rows[key]
    key_cell(ws, row, key, help_text)
    label_cell(ws, row, 2, result_label(key))
    for index, result in enumerate(results):
        text = text_of(result)
        if text:
            cell = ws.cell(row=row, column=S.FIRST_PLAN_COLUMN + index)
            set_text(cell, text)
            wrap(cell)
    _frontier_row(ws, results, layout)


def _frontier_row(ws, results, layout: Layout) -> None:
    """frontier_share (docs/model.md, "Serving search"): an engine value; n/a where no frontier exists."""
    row = layout.result_rows["frontier_share"]
    key_cell(ws, row, "frontier_share", "The plan's tokens/s per device at its target over the best its device "
                                        "reaches there in the widest serving search (n/a: several pools, a measured "
                                        "curve or no operating point). Below 0.8 the notes name the frontier.")
    label_cell(ws, row, 2, result_label("frontier_share"), "fraction")
    for index, result in enumerate(results):
        put(ws, row, S.FIRST_PLAN_COLUMN + index, result.frontier_share, "engine", "fraction")
