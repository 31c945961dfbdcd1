"""The Results sheet: the Plans layout (key, unit, one column per plan) with every metric of DESIGN
section 7 and the cost components.

The first block holds the engine outputs a spreadsheet cannot compute (the operating point on the
efficiency curve, the device economics, the sized device count, the effective output price):
they are values, styled as engine values. Every other row is a live formula over Plans, that
block, the Constants sheet (named cells) and CashFlow, reproducing finance_metrics (DESIGN
section 6) operation for operation. A value that does not exist reads "n/a" (payback: "never"),
where the engine has NaN.
"""
from __future__ import annotations

from typing import Callable

from ..engine.compute import PlanResult
from ..engine.finance.metrics import COST_COMPONENTS
from ..engine.metric_table import METRIC_BY_KEY
from ..engine.scenario import Scenario
from . import sheets as S
from .xlsx_layout import Layout, PlanRefs
from .xlsx_styles import NOT_AVAILABLE, header, key_cell, put, section, set_text, unit_cell, widths, wrap

Formula = Callable[[PlanRefs], str]
NA = f'"{NOT_AVAILABLE}"'

# key, unit, where the engine value comes from ("metric" or "input")
ENGINE_ROWS = (
    ("batch", "sequences", "metric"),
    ("tokens_per_s_per_device", "tokens/s", "input"),
    ("tokens_per_s_per_user", "tokens/s", "metric"),
    ("ttft_s", "s", "metric"),
    ("power_w", "W", "input"),
    ("max_batch_by_memory", "sequences", "metric"),
    ("price_usd", "USD", "input"),
    ("devices_per_server", "devices", "input"),
    ("server_price_usd", "USD", "input"),
    ("tdp_w", "W", "input"),
    ("idle_w", "W", "input"),
    ("server_overhead_w", "W", "input"),
    ("device_count", "devices", "input"),
    ("effective_price_usd_per_million_output_tokens", "USD/Mtok", "input"),
)
ENGINE_HELP = {
    "batch": "Operating batch (concurrent sequences per replica) chosen by the engine.",
    "tokens_per_s_per_device": "Output tokens/s per device at the operating point (efficiency curve).",
    "tokens_per_s_per_user": "Output tokens/s each sequence sees at the operating point.",
    "ttft_s": "Time to first token at the operating point.",
    "power_w": "Power per device at the operating point.",
    "max_batch_by_memory": "Largest batch whose weights and KV cache fit in memory.",
    "device_count": "Devices after sizing (a formula over Plans when sizing_mode = devices).",
    "effective_price_usd_per_million_output_tokens":
        "Output price used for revenue: the Plans price, or the price tier the interactivity reaches.",
}


def _components() -> tuple:
    rows = []
    for part in COST_COMPONENTS:
        annual = "capex_usd_per_year" if part == "capex" else f"{part}_usd_per_year"
        rows.append((f"cost_per_million_output_tokens_{part}_usd", "USD/Mtok",
                     lambda x, a=annual: f'IF({x.r("output_tokens_per_year")}>0,'
                                         f'{x.r(a)}/{x.r("output_tokens_per_year")}*TOKENS_PER_MILLION,{NA})'))
    return tuple(rows)


FORMULA_SECTIONS: tuple[tuple[str, tuple[tuple[str, str, Formula], ...]], ...] = (
    ("Capacity and power (formulas)", (
        ("tokens_per_joule", "tokens/J",
         lambda x: f'IF({x.r("power_w")}>0,{x.r("tokens_per_s_per_device")}/{x.r("power_w")},{NA})'),
        ("servers", "servers", lambda x: f'ROUNDUP({x.r("device_count")}/{x.r("devices_per_server")},0)'),
        ("server_nameplate_w", "W",
         lambda x: f'{x.r("devices_per_server")}*{x.r("tdp_w")}+{x.r("server_overhead_w")}'),
        ("servers_per_rack", "servers",
         lambda x: f'MIN({x.p("servers_per_rack_max")},'
                   f'ROUNDDOWN({x.p("rack_power_cap_kw")}*W_PER_KW/{x.r("server_nameplate_w")},0))'),
        ("racks", "racks",
         lambda x: f'IF({x.r("servers_per_rack")}>0,ROUNDUP({x.r("servers")}/{x.r("servers_per_rack")},0),{NA})'),
        ("device_avg_w", "W",
         lambda x: f'{x.p("utilization")}*{x.r("power_w")}+(1-{x.p("utilization")})*{x.r("idle_w")}'),
        ("it_avg_kw", "kW",
         lambda x: f'({x.r("device_count")}*{x.r("device_avg_w")}+{x.r("servers")}*{x.r("server_overhead_w")})'
                   f'/W_PER_KW'),
        ("it_provisioned_kw", "kW", lambda x: f'{x.r("servers")}*{x.r("server_nameplate_w")}/W_PER_KW'),
    )),
    ("Capex (formulas)", (
        ("hardware_capex_usd", "USD",
         lambda x: f'{x.r("device_count")}*{x.r("price_usd")}+{x.r("servers")}*{x.r("server_price_usd")}'),
        # a plan that cannot be racked or buys no device does not exist: no capex, so no cost or return
        ("capex_usd", "USD", lambda x: f'IF(AND(ISNUMBER({x.r("racks")}),{x.r("device_count")}>=1),'
                                       f'{x.r("hardware_capex_usd")}*(1+{x.p("other_capex_fraction")}),{NA})'),
        ("capital_recovery_factor", "1/yr",
         lambda x: f'IF({x.p("discount_rate")}=0,1/{x.p("years")},'
                   f'{x.p("discount_rate")}/(1-(1+{x.p("discount_rate")})^-{x.p("years")}))'),
        ("capex_usd_per_year", "USD/yr",
         lambda x: f'({x.r("capex_usd")}-{x.p("residual_value_fraction")}*{x.r("capex_usd")}'
                   f'/(1+{x.p("discount_rate")})^{x.p("years")})*{x.r("capital_recovery_factor")}'),
    )),
    ("Opex (formulas)", (
        ("energy_usd_per_year", "USD/yr",
         lambda x: f'{x.r("it_avg_kw")}*{x.p("pue")}*HOURS_PER_YEAR*{x.p("electricity_usd_per_kwh")}'),
        ("colocation_usd_per_year", "USD/yr",
         lambda x: f'{x.r("it_provisioned_kw")}*{x.p("colocation_usd_per_kw_month")}*MONTHS_PER_YEAR'),
        ("maintenance_usd_per_year", "USD/yr",
         lambda x: f'{x.r("hardware_capex_usd")}*{x.p("maintenance_fraction_per_year")}'),
        ("software_usd_per_year", "USD/yr",
         lambda x: f'{x.r("device_count")}*{x.p("software_usd_per_device_year")}'),
        ("staff_usd_per_year", "USD/yr", lambda x: f'{x.p("staff_usd_per_year")}'),
        ("opex_usd_per_year", "USD/yr",
         lambda x: "+".join(x.r(k) for k in ("energy_usd_per_year", "colocation_usd_per_year",
                                              "maintenance_usd_per_year", "software_usd_per_year",
                                              "staff_usd_per_year"))),
    )),
    ("Tokens and cost per million tokens (formulas)", (
        ("output_tokens_per_year", "tokens/yr",
         lambda x: f'{x.r("tokens_per_s_per_device")}*{x.r("device_count")}*{x.p("utilization")}*SECONDS_PER_YEAR'),
        ("input_tokens_per_year", "tokens/yr",
         lambda x: f'{x.r("output_tokens_per_year")}*{x.p("input_tokens")}/{x.p("output_tokens")}'),
        ("cost_per_million_output_tokens_usd", "USD/Mtok",
         lambda x: f'IF({x.r("output_tokens_per_year")}>0,({x.r("capex_usd_per_year")}+{x.r("opex_usd_per_year")})'
                   f'/{x.r("output_tokens_per_year")}*TOKENS_PER_MILLION,{NA})'),
        ("cost_per_million_total_tokens_usd", "USD/Mtok",
         lambda x: f'IF({x.r("output_tokens_per_year")}+{x.r("input_tokens_per_year")}>0,'
                   f'({x.r("capex_usd_per_year")}+{x.r("opex_usd_per_year")})'
                   f'/({x.r("output_tokens_per_year")}+{x.r("input_tokens_per_year")})*TOKENS_PER_MILLION,{NA})'),
    ) + _components()),
    ("Revenue and returns (formulas)", (
        ("revenue_usd_per_year", "USD/yr",
         lambda x: f'{x.r("output_tokens_per_year")}*{x.r("effective_price_usd_per_million_output_tokens")}'
                   f'/TOKENS_PER_MILLION+{x.r("input_tokens_per_year")}*{x.p("price_usd_per_million_input_tokens")}'
                   f'/TOKENS_PER_MILLION'),
        ("revenue_usd_per_rack_per_year", "USD/rack/yr",
         lambda x: f'IF({x.r("racks")}>0,{x.r("revenue_usd_per_year")}/{x.r("racks")},{NA})'),
        ("net_usd_per_year", "USD/yr", lambda x: f'{x.r("revenue_usd_per_year")}-{x.r("opex_usd_per_year")}'),
        ("npv_usd", "USD", lambda x: x.cf("npv_usd")),
        ("irr", "fraction", lambda x: x.cf("irr")),
        ("payback_months", "months", lambda x: x.cf("payback_months")),
        ("roi", "fraction",
         lambda x: f'IF(COUNT({x.cf_range("cash_flow_usd")})=COLUMNS({x.cf_range("cash_flow_usd")}),'
                   f'IF({x.r("capex_usd")}>0,SUM({x.cf_range("cash_flow_usd", 1)})/{x.r("capex_usd")}-1,{NA}),{NA})'),
    )),
)

# Results rows that are plain references to a formula elsewhere (no IFERROR needed)
PASS_THROUGH = {"npv_usd", "irr", "payback_months", "staff_usd_per_year"}
ENGINE_TITLE = "Engine outputs (values computed by the tcoapp engine, not formulas: change inputs in the app)"


def result_rows() -> dict[str, int]:
    """Row of every Results key (section title rows sit between the blocks)."""
    rows, row = {}, 3  # row 2: the engine block's title
    for key, _, _ in ENGINE_ROWS:
        rows[key] = row
        row += 1
    for _, entries in FORMULA_SECTIONS:
        row += 1  # the section title
        for key, _, _ in entries:
            rows[key] = row
            row += 1
    rows["warnings"] = row + 1
    return rows


def result_units() -> dict[str, str]:
    """Unit of every Results row; a metric key's unit is the engine metric table's."""
    units = {key: unit for key, unit, _ in ENGINE_ROWS}
    for _, entries in FORMULA_SECTIONS:
        units.update({key: unit for key, unit, _ in entries})
    units.update({key: METRIC_BY_KEY[key].unit for key in units if key in METRIC_BY_KEY})
    return units


def write_results(ws, scenario: Scenario, results: tuple[PlanResult, ...], layout: Layout) -> None:
    n = len(scenario.plans)
    last_col = S.FIRST_PLAN_COLUMN + n - 1
    header(ws, 1, 1, "key", "Metric key (DESIGN section 7). Outputs: recomputed on import, never read.")
    header(ws, 1, 2, "unit")
    for index, plan in enumerate(scenario.plans):
        header(ws, 1, S.FIRST_PLAN_COLUMN + index, plan.name)
    _engine_block(ws, scenario, results, layout, last_col)
    for title, entries in FORMULA_SECTIONS:
        section(ws, layout.result_rows[entries[0][0]] - 1, title, max(last_col, 2))
        for key, unit, formula in entries:
            _formula_row(ws, layout, n, key, unit, formula)
    _warnings_row(ws, results, layout, last_col)
    ws.freeze_panes = "C2"
    widths(ws, {1: 46, 2: 14, **{S.FIRST_PLAN_COLUMN + i: max(16, min(40, len(p.name) + 4))
                                for i, p in enumerate(scenario.plans)}})


def _engine_block(ws, scenario, results, layout: Layout, last_col: int) -> None:
    section(ws, layout.result_rows[ENGINE_ROWS[0][0]] - 1, ENGINE_TITLE, max(last_col, 2))
    for key, unit, source in ENGINE_ROWS:
        row = layout.result_rows[key]
        key_cell(ws, row, key, ENGINE_HELP.get(key, "Device economics used by the finance formulas (engine value)."))
        unit = result_units()[key]
        unit_cell(ws, row, 2, unit)
        for index, (plan, result) in enumerate(zip(scenario.plans, results)):
            col = S.FIRST_PLAN_COLUMN + index
            refs = PlanRefs(layout, index)
            live = _live_input(plan, key, refs)
            if live:
                put(ws, row, col, live, "formula", unit)
                continue
            value = result.metrics[key] if source == "metric" else result.details["inputs"][_input_key(key)]
            put(ws, row, col, float(value), "engine", unit)


def _input_key(key: str) -> str:
    return "price_usd_per_million_output_tokens" if key == "effective_price_usd_per_million_output_tokens" else key


def _live_input(plan, key: str, refs: PlanRefs) -> str | None:
    """Engine values that are plain copies of a Plans input are written as references, so they move."""
    if key == "device_count" and plan.sizing_mode == "devices":
        return f"={refs.p('device_count')}"
    if key == "effective_price_usd_per_million_output_tokens" and not plan.price_tiers:
        return f"={refs.p('price_usd_per_million_output_tokens')}"
    return None


def _formula_row(ws, layout: Layout, n: int, key: str, unit: str, formula: Formula) -> None:
    row = layout.result_rows[key]
    metric = METRIC_BY_KEY.get(key)
    key_cell(ws, row, key, metric.help if metric else None)
    unit = result_units()[key]
    unit_cell(ws, row, 2, unit)
    for index in range(n):
        core = formula(PlanRefs(layout, index))
        text = f"={core}" if key in PASS_THROUGH else f'=IFERROR({core},{NA})'
        put(ws, row, S.FIRST_PLAN_COLUMN + index, text, "formula", unit)


def _warnings_row(ws, results, layout: Layout, last_col: int) -> None:
    row = layout.result_rows["warnings"]
    section(ws, row - 1, "Notes from the engine", max(last_col, 2))
    key_cell(ws, row, "warnings", "What the engine flagged for this plan (extrapolation, queueing, targets not met).")
    for index, result in enumerate(results):
        cell = ws.cell(row=row, column=S.FIRST_PLAN_COLUMN + index)
        if result.warnings:
            set_text(cell, "\n".join(result.warnings))
            wrap(cell)
