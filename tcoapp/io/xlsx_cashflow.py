"""The CashFlow sheet: years as columns (C = year 0), one block of formulas per plan.

Convention (docs/model.md section 3): year-end flows; year 0 = -capex; years 1..years = revenue - opex;
the last year adds residual_value_fraction x capex; columns past a plan's horizon hold 0.
NPV = CF0 + NPV(r, CF1:CFn) (Excel's NPV() discounts its first value, so year 0 stays outside);
IRR = IRR(CF0:CFn); payback = the first time the cumulative flow reaches 0, linear within the
year, in months ("never" if it does not within the horizon).
"""
from __future__ import annotations

import math

from ..engine.scenario import Scenario
from . import sheets as S
from .xlsx_layout import CF_ROWS, CF_YEAR_ROW, Layout
from .xlsx_styles import (
    HEADER_FILL, HEADER_FONT, NEVER, NOT_AVAILABLE, TOTAL_BORDER, header, key_cell, put, section, set_text,
    unit_cell, widths,
)

NA = f'"{NOT_AVAILABLE}"'
CF_UNITS = {
    "revenue_usd": "USD", "opex_usd": "USD", "capex_usd": "USD", "residual_value_usd": "USD",
    "cash_flow_usd": "USD", "cumulative_cash_flow_usd": "USD", "payback_year_fraction": "years",
    "npv_usd": "USD", "irr_guess_engine": "fraction", "irr_guess_flows": "fraction",
    "irr_guess_first_year": "fraction", "irr_guess_last_year": "fraction", "irr": "fraction", "payback_months": "months",
}
CF_HELP = {
    "payback_year_fraction": "Helper: the year (with fraction) where the cumulative flow crosses 0.",
    "npv_usd": "= CF0 + NPV(discount_rate, CF1:CFn): year t discounted by (1 + r)^t.",
    "irr_guess_engine": "Helper, a starting point for IRR(): the engine's IRR (a value) when the file was written.",
    "irr_guess_flows": "Helper, a starting point for IRR(): (sum of inflows / sum of outflows)^(1/years) - 1.",
    "irr_guess_first_year": "Helper, a starting point for IRR(): CF1 / -CF0 - 1 (good for high rates).",
    "irr_guess_last_year": "Helper, a starting point for IRR(): CFn / -CF(n-1) - 1 (good near -100%).",
    "irr": "IRR(CF0:CFn) where the flows change sign, tried from each starting point in turn (the engine's, the "
           "three live ones above, IRR_GUESS_LOW, IRR_GUESS_LOWEST) until one converges to a rate above -100%: "
           "Excel's IRR() is a Newton iteration that can fail from a poor start. n/a where no rate exists.",
    "payback_months": "First time the cumulative cash flow reaches 0, linear within the year, x 12; never if not within years.",
}


def write_cashflow(ws, scenario: Scenario, layout: Layout, irr_by_plan=()) -> None:
    """irr_by_plan: the engine's IRR per plan (NaN where none), used only as IRR's starting point."""
    last_col = S.FIRST_PLAN_COLUMN + layout.max_years
    header(ws, CF_YEAR_ROW, 1, "key", "Cash-flow line. Years are year-end; year 0 is the purchase.")
    header(ws, CF_YEAR_ROW, 2, "unit")
    for year in range(layout.max_years + 1):
        cell = ws.cell(row=CF_YEAR_ROW, column=S.FIRST_PLAN_COLUMN + year, value=year)
        cell.font, cell.fill = HEADER_FONT, HEADER_FILL
        cell.number_format = '"year "0'
    irrs = list(irr_by_plan) + [None] * (len(scenario.plans) - len(irr_by_plan))
    for index, plan in enumerate(scenario.plans):
        _block(ws, layout, index, plan.name, last_col, irrs[index])
    ws.freeze_panes = "C2"
    widths(ws, {1: 28, 2: 10, **{S.FIRST_PLAN_COLUMN + y: 15 for y in range(layout.max_years + 1)}})


def _block(ws, layout: Layout, index: int, name: str, last_col: int, irr: float | None) -> None:
    title_row = layout.cf_block_row(index)
    section(ws, title_row, "", last_col)
    set_text(ws.cell(row=title_row, column=1), name)
    for key in CF_ROWS:
        row = layout.cf_row(index, key)
        key_cell(ws, row, key, CF_HELP.get(key))
        unit_cell(ws, row, 2, CF_UNITS[key])
    cells = _BlockFormulas(layout, index)
    for year in range(layout.max_years + 1):
        for key, text in cells.year_cells(year).items():
            cell = put(ws, layout.cf_row(index, key), S.FIRST_PLAN_COLUMN + year, text, "formula", CF_UNITS[key])
            if key == "cash_flow_usd":
                cell.border = TOTAL_BORDER
    for key, text in cells.summary_cells().items():
        put(ws, layout.cf_row(index, key), S.FIRST_PLAN_COLUMN, text, "formula", CF_UNITS[key])
    if irr is not None and math.isfinite(irr):
        put(ws, layout.cf_row(index, "irr_guess_engine"), S.FIRST_PLAN_COLUMN, irr, "engine", "fraction")


class _BlockFormulas:
    """The formulas of one plan's block."""

    def __init__(self, layout: Layout, index: int):
        self.layout, self.index = layout, index
        self.col = layout.plan_col(index)

    def row(self, key: str) -> int:
        return self.layout.cf_row(self.index, key)

    def plans(self, key: str) -> str:
        return f"{S.PLANS}!${self.col}${self.layout.plan_rows[key]}"

    def results(self, key: str) -> str:
        return f"{S.RESULTS}!${self.col}${self.layout.result_rows[key]}"

    def rng(self, key: str, first_year: int = 0) -> str:
        return self.layout.cf_range(self.index, key, first_year)

    def year_cells(self, year: int) -> dict[str, str]:
        col = self.layout.year_col(year)
        here = lambda key: f"{col}{self.row(key)}"  # noqa: E731
        year_ref = f"{col}${CF_YEAR_ROW}"
        horizon = self.plans("years")
        cells = {"cash_flow_usd": _na(f"{here('revenue_usd')}+{here('opex_usd')}+{here('capex_usd')}"
                                      f"+{here('residual_value_usd')}")}
        if year == 0:
            cells["capex_usd"] = _na(f"-{self.results('capex_usd')}")
            cells["cumulative_cash_flow_usd"] = _na(here("cash_flow_usd"))
            return cells
        prev = self.layout.year_col(year - 1)
        before = f"{prev}{self.row('cumulative_cash_flow_usd')}"
        after = here("cumulative_cash_flow_usd")
        cells.update({
            "revenue_usd": _na(f"IF({year_ref}<={horizon},{self.results('revenue_usd_per_year')},0)"),
            "opex_usd": _na(f"IF({year_ref}<={horizon},-{self.results('opex_usd_per_year')},0)"),
            "residual_value_usd": _na(f"IF({year_ref}={horizon},{self.plans('residual_value_fraction')}"
                                      f"*{self.results('capex_usd')},0)"),
            "cumulative_cash_flow_usd": _na(f"{before}+{here('cash_flow_usd')}"),
            "payback_year_fraction": f'=IFERROR(IF(AND({before}<0,{after}>=0),'
                                     f'{prev}${CF_YEAR_ROW}+-{before}/({after}-{before}),""),"")',
        })
        return cells

    def summary_cells(self) -> dict[str, str]:
        flows, later = self.rng("cash_flow_usd"), self.rng("cash_flow_usd", 1)
        complete = f"COUNT({flows})=COLUMNS({flows})"
        first = f"{self.layout.year_col(0)}{self.row('cash_flow_usd')}"
        cum0 = f"{self.layout.year_col(0)}{self.row('cumulative_cash_flow_usd')}"
        crossing = self.rng("payback_year_fraction", 1)
        sign_change = f"AND(MAX({flows})>0,MIN({flows})<0)"
        year1 = f"{self.layout.year_col(1)}{self.row('cash_flow_usd')}"
        horizon = self.plans("years")
        return {
            "npv_usd": _na(f"IF({complete},{first}+NPV({self.plans('discount_rate')},{later}),{NA})"),
            "irr_guess_flows": f'=IFERROR(IF({complete},(SUMIF({flows},">0")/-SUMIF({flows},"<0"))'
                               f'^(1/{self.plans("years")})-1,""),"")',
            "irr_guess_first_year": f'=IFERROR(IF({complete},{year1}/-{first}-1,""),"")',
            "irr_guess_last_year": f'=IFERROR(IF({complete},INDEX({flows},1,{horizon}+1)/-INDEX({flows},1,{horizon})-1,'
                                   f'""),"")',
            "irr": _na(f"IF({complete},IF({sign_change},{self._irr_attempts(flows)},{NA}),{NA})"),
            "payback_months": _na(f'IF({complete},IF({cum0}>=0,0,IF(COUNT({crossing})=0,"{NEVER}",'
                                  f'MONTHS_PER_YEAR*MIN({crossing}))),{NA})'),
        }

    def _irr_attempts(self, flows: str) -> str:
        """IRR from each starting point in turn; an attempt fails (NA) unless it converges above -100%."""
        col = self.layout.year_col(0)
        guesses = [f"{col}{self.row(key)}" for key in ("irr_guess_engine", "irr_guess_flows",
                                                                "irr_guess_first_year", "irr_guess_last_year")]
        guesses += ["IRR_GUESS_LOW", "IRR_GUESS_LOWEST"]
        attempts = [f"IF(IRR({flows},{g})>-1,IRR({flows},{g}),NA())" for g in guesses]
        chain = attempts[-1]
        for attempt in reversed(attempts[:-1]):
            chain = f"IFERROR({attempt},{chain})"
        return chain


def _na(core: str) -> str:
    return f"=IFERROR({core},{NA})"
