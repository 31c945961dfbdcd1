"""The CashFlow sheet: years as columns (C = year 0), one block of live formulas per plan.

Each block holds the plan's timeline (docs/model.md, "Years"): the price, electricity and cost
indices and the utilization of every year; then per pool (a tranche) whether it serves, its tokens,
revenue, each opex line, its capex in the year it is paid, its depreciation and its value at the
horizon; then the plan's sums, depreciation, taxable income, the loss carried forward, tax, the cash
flow, the cumulative flow and the discount factor. Columns past a plan's horizon hold 0.
NPV = CF0 + NPV(r, CF1:CFn) (Excel's NPV() discounts its first value, so year 0 stays outside);
IRR = IRR(CF0:CFn); payback = the first time the cumulative flow reaches 0, linear within the
year, in months ("never" if it does not within the horizon).
"""
from __future__ import annotations

import math

from openpyxl.utils import get_column_letter

from ..engine.finance.quantities import YEAR_QUANTITY_BY_KEY
from ..engine.scenario import Scenario
from . import sheets as S
from .xlsx_checks import banner
from .xlsx_layout import CF_BANNER_ROW, CF_YEAR_ROW, IRR_ATTEMPTS, IRR_GUESSES, Layout, base_key, cf_keys
from .xlsx_na import NA, NaGuard, none_na
from .xlsx_raw_cells import RawCells
from .xlsx_styles import (
    HEADER_FILL, HEADER_FONT, NEVER, TOTAL_BORDER, header, key_cell, section, set_text,
    LABEL_HEADER, label_cell, label_width, widths, with_unit,
)
from .xlsx_labels import cashflow_label

CF_UNITS = {
    "price_index": "ratio", "electricity_index": "ratio", "cost_index": "ratio", "utilization": "fraction",
    "output_tokens": "tokens", "input_tokens": "tokens", "active": "flag",
    "payback_year_fraction": "years", "npv_usd": "USD", "irr_guess_engine": "fraction", "irr_guess_flows": "fraction",
    "irr_guess_first_year": "fraction", "irr_guess_last_year": "fraction", "irr": "fraction", "payback_months": "months",
    "discount_factor": "ratio", "flow_last_sign": "sign", "flow_sign_change": "flag", "cumulative_last_sign": "sign",
    "cumulative_sign_change": "flag", "irr_floor": "fraction", **{key: "fraction" for key in IRR_ATTEMPTS},
}
CF_HELP = {
    "active": "1 in the years the pool serves (after its purchase year, up to the horizon), else 0.",
    "opex_usd": "-(energy + colocation + maintenance + software + rent + staff): opex as a cash outflow.",
    "capex_usd": "-capex of the tranches paid in the year.",
    "tax_usd": "tax_rate x max(0, taxable income - loss carried from the year before).",
    "loss_carried_usd": "max(0, loss carried from the year before - taxable income).",
    "taxable_income_usd": "Revenue - opex - depreciation (the residual sale is not taxed).",
    "payback_year_fraction": "Helper: the year (with fraction) where the cumulative flow crosses 0.",
    "flow_last_sign": "Helper: the sign of the last non-zero cash flow up to the year.",
    "flow_sign_change": "Helper: 1 where the cash flow changes sign (IRR is unique where it changes sign once).",
    "cumulative_last_sign": "Helper: the sign of the last non-zero cumulative cash flow up to the year.",
    "cumulative_sign_change": "Helper: 1 where the cumulative cash flow changes sign (once: one positive IRR).",
    "npv_usd": "= CF0 + NPV(discount_rate, CF1:CFn): year t discounted by (1 + r)^t.",
    "irr_guess_engine": "Helper, a starting point for IRR(): the engine's IRR (a value) when the file was written.",
    "irr_guess_flows": "Helper, a starting point for IRR(): (sum of inflows / sum of outflows)^(1/years) - 1.",
    "irr_guess_first_year": "Helper, a starting point for IRR(): CF1 / -CF0 - 1 (good for high rates).",
    "irr_guess_last_year": "Helper, a starting point for IRR(): CFn / -CF(n-1) - 1 (good near -100%).",
    "irr_floor": "Helper: -1 where the flows change sign once (IRR is unique), 0 where only the cumulative flow "
                 "changes sign once (the one positive rate is the IRR), 'none' where no rate is unique.",
    **{key: f"Helper: IRR() from the starting point {guess}, kept if it converges above irr_floor."
       for key, guess in zip(IRR_ATTEMPTS, IRR_GUESSES)},
    "irr": "IRR(CF0:CFn) where it is unique: where the flows change sign once (any rate above -100%), or else "
           "where the cumulative flow changes sign once (the one positive rate); tried from each starting point in "
           "turn (the engine's, the three live ones above, IRR_GUESS_LOW, IRR_GUESS_LOWEST) until one converges: "
           "Excel's IRR() is a Newton iteration that can fail from a poor start. n/a where no unique rate exists.",
    "payback_months": "First time the cumulative cash flow reaches 0, linear within the year, x 12; never if not within years.",
}
SUMMARY_ROWS = ("npv_usd", "irr_guess_engine", "irr_guess_flows", "irr_guess_first_year", "irr_guess_last_year", "irr",
                "payback_months")
POOL_SUMMED = ("output_tokens", "revenue_usd", "energy_usd", "colocation_usd", "maintenance_usd", "software_usd",
               "rent_usd", "capex_usd", "depreciation_usd", "residual_value_usd")


def cf_unit(key: str) -> str:
    base = base_key(key)
    return CF_UNITS.get(base) or (YEAR_QUANTITY_BY_KEY[base].unit if base in YEAR_QUANTITY_BY_KEY else "USD")


def cf_help(key: str) -> str | None:
    base = base_key(key)
    if base in CF_HELP:
        return CF_HELP[base]
    quantity = YEAR_QUANTITY_BY_KEY.get(base)
    if quantity is None:
        return None
    return ("This pool's part: " if base != key else "") + quantity.help


def write_cashflow(ws, scenario: Scenario, layout: Layout, irr_by_plan=(), cached=None) -> RawCells:
    """irr_by_plan: the engine's IRR per plan (NaN where none), used only as IRR's starting point; cached: the
    engine's value of each formula cell by coordinate (xlsx_cached.cashflow_values).

    The keys, labels and titles are written here; the formula cells are returned, to be put into the saved
    sheet's XML (xlsx_raw_cells: openpyxl would take most of the export's time on them)."""
    raw = RawCells(ws.title)
    last_col = S.FIRST_PLAN_COLUMN + layout.max_years
    header(ws, CF_YEAR_ROW, 1, "key", "Cash-flow line. Years are year-end; year 0 is the start.")
    header(ws, CF_YEAR_ROW, 2, LABEL_HEADER)
    for year in range(layout.max_years + 1):
        cell = ws.cell(row=CF_YEAR_ROW, column=S.FIRST_PLAN_COLUMN + year, value=year)
        cell.font, cell.fill = HEADER_FONT, HEADER_FILL
        cell.number_format = '"year "0'
    banner(ws, CF_BANNER_ROW, last_col)
    irrs = list(irr_by_plan) + [None] * (len(scenario.plans) - len(irr_by_plan))
    for index, plan in enumerate(scenario.plans):
        _block(ws, layout, index, plan.name, last_col, irrs[index], raw, cached or {})
    ws.freeze_panes = "C2"
    label = label_width(with_unit(cashflow_label(key), cf_unit(key)) for key in cf_keys(layout.max_pools))
    widths(ws, {1: 30, 2: label, **{S.FIRST_PLAN_COLUMN + y: 21 for y in range(layout.max_years + 1)}})
    return raw


def _block(ws, layout: Layout, index: int, name: str, last_col: int, irr: float | None, raw: RawCells,
           cached: dict) -> None:
    title_row = layout.cf_block_row(index)
    section(ws, title_row, "", last_col)
    set_text(ws.cell(row=title_row, column=1), name)
    ws.cell(row=title_row, column=1).value = f"={S.PLANS}!{layout.plan_col(index)}$1"  # a renamed plan is named here too
    pools = layout.pool_counts[index] if layout.pool_counts else 1
    for key in cf_keys(pools):
        row = layout.cf_row(index, key)
        key_cell(ws, row, key, cf_help(key) if index == 0 else None)  # the help once, on the first block
        label_cell(ws, row, 2, cashflow_label(key), cf_unit(key))
    cells = _BlockFormulas(layout, index, pools)
    book = ws.parent
    for year in range(layout.max_years + 1):
        col = S.FIRST_PLAN_COLUMN + year
        for key, text in cells.year_cells(year).items():
            row = layout.cf_row(index, key)
            style = raw.style_id(book, "formula", cf_unit(key), TOTAL_BORDER if key == "cash_flow_usd" else None)
            raw.formula(row, col, text, style, cached.get(f"{get_column_letter(col)}{row}"))
    for key, text in cells.summary_cells().items():
        row = layout.cf_row(index, key)
        raw.formula(row, S.FIRST_PLAN_COLUMN, text, raw.style_id(book, "formula", cf_unit(key)),
                    cached.get(f"{get_column_letter(S.FIRST_PLAN_COLUMN)}{row}"))
    if irr is not None and math.isfinite(irr):
        raw.number(layout.cf_row(index, "irr_guess_engine"), S.FIRST_PLAN_COLUMN, irr,
                   raw.style_id(book, "engine", "fraction"))


class _BlockFormulas:
    """The formulas of one plan's block."""

    def __init__(self, layout: Layout, index: int, pools: int):
        self.layout, self.index, self.pools = layout, index, pools
        self.col = layout.plan_col(index)
        self._na = NaGuard(S.CASH_FLOW, layout.row_key)  # n/a where an operand is n/a; errors stay visible
        self._rows: dict[str, int] = {}

    def row(self, key: str) -> int:
        row = self._rows.get(key)
        if row is None:
            row = self._rows[key] = self.layout.cf_row(self.index, key)
        return row

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
        p = self.plans
        horizon = p("years")
        serving = f"AND({year_ref}>=1,{year_ref}<={horizon})"
        index = lambda change: self._na(f"IF({serving},(1+{p(change)})^({year_ref}-1),0)")  # noqa: E731
        first, ramp, util = p("first_year_utilization"), p("ramp_years"), p("utilization")
        cells = {
            "price_index": index("price_change_per_year"),
            "electricity_index": index("electricity_price_change_per_year"),
            "cost_index": index("cost_change_per_year"),
            "utilization": self._na(f"IF({serving},IF(OR({ramp}=0,ISBLANK({first})),{util},"
                                    f"{first}+({util}-{first})*MIN(1,({year_ref}-1)/{ramp})),0)"),
        }
        for k in range(1, self.pools + 1):
            cells.update(self._pool_cells(k, year_ref, here, horizon))
        for key in POOL_SUMMED:
            cells[key] = self._na("+".join(here(f"pool{k}.{key}") for k in range(1, self.pools + 1)))
        cells["input_tokens"] = self._na(f"{here('output_tokens')}*{p('input_tokens')}/{p('output_tokens')}")
        cells["staff_usd"] = self._na.when(serving, f"{p('staff_usd_per_year')}*{here('cost_index')}")
        cells["opex_usd"] = self._na("-(" + "+".join(here(f"{part}_usd") for part in (
            "energy", "colocation", "maintenance", "software", "rent", "staff")) + ")")
        cells["taxable_income_usd"] = self._na.when(serving, f"{here('revenue_usd')}+{here('opex_usd')}"
                                                              f"-{here('depreciation_usd')}")
        cells["cash_flow_usd"] = self._na(f"{here('revenue_usd')}+{here('opex_usd')}-{here('tax_usd')}+{here('capex_usd')}"
                                          f"+{here('residual_value_usd')}")
        cells["discount_factor"] = self._na(f"1/(1+{p('discount_rate')})^{year_ref}")
        if year == 0:
            cells["loss_carried_usd"] = "=0"
            cells["tax_usd"] = "=0"
            cells["cumulative_cash_flow_usd"] = self._na(here("cash_flow_usd"))
            for flow in ("flow", "cumulative"):
                source = here("cash_flow_usd" if flow == "flow" else "cumulative_cash_flow_usd")
                cells[f"{flow}_last_sign"] = self._na(f"SIGN({source})")
                cells[f"{flow}_sign_change"] = "=0"
            return cells
        prev = self.layout.year_col(year - 1)
        for flow in ("flow", "cumulative"):
            source = here("cash_flow_usd" if flow == "flow" else "cumulative_cash_flow_usd")
            last = f"{prev}{self.row(f'{flow}_last_sign')}"
            cells[f"{flow}_last_sign"] = self._na(f"IF({source}<>0,SIGN({source}),{last})")
            cells[f"{flow}_sign_change"] = self._na(f"IF(AND({source}<>0,{last}<>0,SIGN({source})<>{last}),1,0)")
        before_loss = f"{prev}{self.row('loss_carried_usd')}"
        cells["tax_usd"] = self._na.when(serving, f"{p('tax_rate')}*MAX(0,{here('taxable_income_usd')}-{before_loss})")
        cells["loss_carried_usd"] = self._na(f"MAX(0,{before_loss}-{here('taxable_income_usd')})")
        before = f"{prev}{self.row('cumulative_cash_flow_usd')}"
        after = here("cumulative_cash_flow_usd")
        cells["cumulative_cash_flow_usd"] = self._na(f"{before}+{here('cash_flow_usd')}")
        cells["payback_year_fraction"] = (f'=IF(AND(ISNUMBER({before}),ISNUMBER({after})),IF(AND({before}<0,{after}>=0),'
                                          f'{prev}${CF_YEAR_ROW}+-{before}/({after}-{before}),""),"")')
        return cells

    def _pool_cells(self, k: int, year_ref: str, here, horizon: str) -> dict[str, str]:
        """One pool's (tranche's) rows in one year: the engine's operations, operand for operand."""
        q = lambda key: self.results(f"pool{k}.{key}")  # noqa: E731
        p = self.plans
        own = lambda key: here(f"pool{k}.{key}")  # noqa: E731
        active, bought = own("active"), q("purchase_year")
        util = here("utilization")
        life = f"IF(ISBLANK({p('depreciation_years')}),{horizon},{p('depreciation_years')})"
        resid = p("residual_value_fraction")
        age = f"({horizon}-{bought})"
        value = f"IF({age}>={horizon},{resid},1-(1-{resid})*MIN(1,{age}/{horizon}))"
        out = own("output_tokens")
        gated = lambda core: self._na.when(f"{active}=1", core)  # noqa: E731  (a pool that does not serve costs nothing)
        return {
            f"pool{k}.active": self._na(f"IF(AND({year_ref}>{bought},{year_ref}<={horizon}),1,0)"),
            f"pool{k}.output_tokens": gated(f"{q('tokens_per_s_per_device')}*{q('device_count')}*{util}*SECONDS_PER_YEAR"
                                          f"*{active}"),
            f"pool{k}.revenue_usd": gated(f"{out}*({q('price_usd_per_million_output_tokens')}*{here('price_index')})"
                                        f"/TOKENS_PER_MILLION+{out}*{p('input_tokens')}/{p('output_tokens')}"
                                        f"*({p('price_usd_per_million_input_tokens')}*{here('price_index')})"
                                        f"/TOKENS_PER_MILLION"),
            f"pool{k}.energy_usd": gated(f"{q('owned')}*(({q('device_count')}*({util}*{q('power_w')}+(1-{util})"
                                       f"*{q('idle_w')})+{q('servers')}*{q('server_overhead_w')})/W_PER_KW)*{p('pue')}"
                                       f"*HOURS_PER_YEAR*{p('electricity_usd_per_kwh')}*{here('electricity_index')}"
                                       f"*{active}"),
            f"pool{k}.colocation_usd": gated(f"{q('owned')}*{q('it_provisioned_kw')}*{p('colocation_usd_per_kw_month')}"
                                           f"*MONTHS_PER_YEAR*{here('cost_index')}*{active}"),
            f"pool{k}.maintenance_usd": gated(f"{q('hardware_capex_usd')}*{p('maintenance_fraction_per_year')}"
                                            f"*{here('cost_index')}*{active}"),
            f"pool{k}.software_usd": gated(f"{q('device_count')}*{p('software_usd_per_device_year')}*{here('cost_index')}"
                                         f"*{active}"),
            f"pool{k}.rent_usd": gated(f"(1-{q('owned')})*{q('device_count')}*{q('rent_usd_per_device_hour')}"
                                     f"*HOURS_PER_YEAR*{here('cost_index')}*{active}"),
            f"pool{k}.capex_usd": self._na.when(f"{year_ref}={bought}", f"-{q('capex_usd')}"),
            f"pool{k}.depreciation_usd": self._na.when(f"AND({year_ref}>{bought},{year_ref}<={bought}+{life},"
                                                  f"{year_ref}<={horizon})", f"{q('capex_usd')}*(1-{resid})/{life}"),
            f"pool{k}.residual_value_usd": self._na.when(f"{year_ref}={horizon}", f"{q('capex_usd')}*{value}"),
        }

    def summary_cells(self) -> dict[str, str]:
        flows, later = self.rng("cash_flow_usd"), self.rng("cash_flow_usd", 1)
        complete = none_na(flows)
        first = f"{self.layout.year_col(0)}{self.row('cash_flow_usd')}"
        cum0 = f"{self.layout.year_col(0)}{self.row('cumulative_cash_flow_usd')}"
        crossing = self.rng("payback_year_fraction", 1)
        sign_change = f"AND(MAX({flows})>0,MIN({flows})<0)"
        year1 = f"{self.layout.year_col(1)}{self.row('cash_flow_usd')}"
        horizon = self.plans("years")
        return {
            "npv_usd": self._na(f"IF({complete},{first}+NPV({self.plans('discount_rate')},{later}),{NA})"),
            "irr_guess_flows": f'=IF(AND({complete},SUMIF({flows},">0")>0,SUMIF({flows},"<0")<0),'
                               f'(SUMIF({flows},">0")/-SUMIF({flows},"<0"))^(1/{self.plans("years")})-1,"")',
            "irr_guess_first_year": f'=IF(AND({complete},ISNUMBER({first})),IF({first}<0,{year1}/-{first}-1,""),"")',
            "irr_guess_last_year": f'=IF({complete},IF(INDEX({flows},1,{horizon})<>0,'
                                   f'INDEX({flows},1,{horizon}+1)/-INDEX({flows},1,{horizon})-1,""),"")',
            "irr_floor": f'=IF(SUM({self.rng("flow_sign_change")})=1,-1,'
                         f'IF(SUM({self.rng("cumulative_sign_change")})=1,0,"none"))',
            **self._irr_attempts(flows),
            "irr": self._na(f"IF({complete},IF(AND({sign_change},ISNUMBER({self._c('irr_floor')})),"
                       f"{self._first_number()},{NA}),{NA})"),
            "payback_months": self._na(f'IF({complete},IF({cum0}>=0,0,IF(COUNT({crossing})=0,"{NEVER}",'
                                  f'MONTHS_PER_YEAR*MIN({crossing}))),{NA})'),
        }

    def _c(self, key: str) -> str:
        return f"{self.layout.year_col(0)}{self.row(key)}"

    def _irr_attempts(self, flows: str) -> dict[str, str]:
        """One IRR() per starting point; kept where it converges above the floor, else blank. The one IFERROR of
        the workbook: IRR()'s Newton iteration failing to converge from a start is an outcome, not an error."""
        floor = self._c("irr_floor")
        cells = {}
        for key, guess in zip(IRR_ATTEMPTS, IRR_GUESSES):
            start = guess if guess.isupper() else self._c(guess)
            cells[key] = f'=IFERROR(IF(IRR({flows},{start})>{floor},IRR({flows},{start}),""),"")'
        return cells

    def _first_number(self) -> str:
        """The first attempt that converged, else n/a."""
        chain = NA
        for key in reversed(IRR_ATTEMPTS):
            chain = f"IF(ISNUMBER({self._c(key)}),{self._c(key)},{chain})"
        return chain

