"""The Results rows of the plans' agentic answer (docs/model.md, "A plan's agentic answer"), written only in a
workbook where a plan has an agentic request class (a workbook without one is unchanged):

- concurrent agents per device: an engine value (the session model's, engine/serving/agentic.py);
- agents per MW = agents per device x the pool's devices x W_PER_KW / (its provisioned IT kW x PUE): a formula;
- cost per agent-hour = cost per device-hour / (agents per device x utilization): a formula.

Each for the plan's first agentic class on its first pool serving users (engine/pipeline/agentic_block.py). A
plan without an agentic class reads n/a in all three: it has no agents to count.
"""
from __future__ import annotations

from ..engine.pipeline.agentic_block import agentic_class, agentic_pool_index
from ..engine.quantities.metrics import AGENTIC_ROWS
from . import sheets as S
from .xlsx_layout import Layout, PlanRefs
from .xlsx_na import NA, NaGuard
from .xlsx_styles import NOT_AVAILABLE, key_cell, label_cell, put, section

AGENTIC_TITLE = ("Agentic sessions (docs/model.md \"A plan's agentic answer\"): concurrent agents per device (engine "
                 "value, the session model's), agents per MW and cost per agent-hour (formulas), for each plan's first "
                 "agentic request class on its first pool serving users; n/a for a plan without one")
AGENTIC_KEYS = tuple(row.key for row in AGENTIC_ROWS)
SESSIONS_KEY = AGENTIC_KEYS[0]   # the engine value the formulas read
SESSIONS_FORMAT = "#,##0.0"      # its cells' (the unit "sessions" has no workbook format: Plans' inputs stay as they are)


def has_agentic(scenario) -> bool:
    """Whether any plan of the scenario has an agentic request class (its workbook has the rows)."""
    return any(agentic_class(plan) is not None for plan in scenario.plans)


def agentic_rows(first: int) -> dict[str, int]:
    """The rows of the agentic keys, the section title on row `first`."""
    return {key: first + 1 + i for i, key in enumerate(AGENTIC_KEYS)}


def _formulas(x: PlanRefs, k: int) -> dict[str, str]:
    """The two live rows of plan x's agentic answer, on its pool k (1-based): their cores, guarded against n/a."""
    sessions, count, kw = x.r(SESSIONS_KEY), x.r(f"pool{k}.device_count"), x.r(f"pool{k}.it_provisioned_kw")
    pue, utilization, hourly = x.p("pue"), x.p("utilization"), x.r("cost_per_device_hour_usd")
    return {"agents_per_mw": f"IF({kw}*{pue}>0,{sessions}*{count}*W_PER_KW/({kw}*{pue}),{NA})",
            "cost_per_agent_hour_usd": f"IF({sessions}*{utilization}>0,{hourly}/({sessions}*{utilization}),{NA})"}


def write_agentic(ws, scenario, results, layout: Layout, last_col: int) -> None:
    """The section (AGENTIC_TITLE), where the layout has its rows."""
    rows = {key: layout.result_rows[key] for key in AGENTIC_KEYS if key in layout.result_rows}
    if not rows:
        return
    section(ws, rows[SESSIONS_KEY] - 1, AGENTIC_TITLE, max(last_col, 2))
    for row in AGENTIC_ROWS:
        key_cell(ws, rows[row.key], row.key, row.help)
        label_cell(ws, rows[row.key], 2, row.label, row.unit)
    guard = NaGuard(S.RESULTS, layout.row_key)
    for index, result in enumerate(results):
        col, answer = S.FIRST_PLAN_COLUMN + index, getattr(result, "agentic", None)
        k = agentic_pool_index(result.pools)
        if answer is None or k is None:
            for row in AGENTIC_ROWS:
                put(ws, rows[row.key], col, NOT_AVAILABLE, "engine", row.unit)
            continue
        unit = {row.key: row.unit for row in AGENTIC_ROWS}
        cell = put(ws, rows[SESSIONS_KEY], col, float(answer[SESSIONS_KEY]), "engine", unit[SESSIONS_KEY])
        cell.number_format = SESSIONS_FORMAT
        for key, core in _formulas(PlanRefs(layout, index), k + 1).items():
            put(ws, rows[key], col, guard(core), "formula", unit[key])
