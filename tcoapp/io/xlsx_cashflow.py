"""The CashFlow sheet: years as columns (C = year 0), one block of live formulas per plan.

Each block holds the plan's timeline (docs/model.md, "Years"): the price, electricity and cost
indices and the utilization of every year; then per pool (a tranche) whether it serves, its tokens,
revenue, each opex line, its capex in the year it is paid, its depreciation and its value at the
horizon; then the plan's sums, depreciation, taxable income, the loss carried forward, tax, the cash
flow, the cumulative flow and the discount factor. Columns past a plan's horizon hold 0.
NPV = CF0 + NPV(r, CF1:CFn) (Excel's NPV() discounts its first value, so year 0 stays outside);
IRR = IRR(CF0:CFn); payback = the earliest time after which the cumulative flow stays >= 0 up to the
horizon (the last crossing from below 0), linear within the year, in months; 0 where it is never below 0;
"never" where it is below 0 at the horizon.
"""
from __future__ import annotations

import functools
import math
from xml.sax.saxutils import escape

from openpyxl.utils import get_column_letter

from ..engine.finance.depreciation import MACRS_5_PERCENT, MACRS_7_PERCENT
from ..engine.finance.year_rows import OUTFLOW_ROWS, PLAN_YEAR_EXPRESSIONS, POOL_YEAR_EXPRESSIONS
from ..engine.quantities.expr import ALL_YEARS, IN_POOL, PLAN_YEAR, POOL_COUNT, POOLS, TO_DATE, YEAR, YEAR_NUMBER, Expr
from ..engine.quantities.finance import OPEX_PARTS, POOL_YEAR_KEYS, YEAR_QUANTITY_BY_KEY
from ..engine.plan.scenario import Scenario
from . import sheets as S
from .xlsx_checks import banner
from .xlsx_layout import (
    CF_BANNER_ROW, CF_YEAR_ROW, EQUITY_IRR_ATTEMPTS, EQUITY_IRR_GUESSES, IRR_ATTEMPTS, IRR_GUESSES, Layout, base_key,
    cf_keys, served_key,
)
from .xlsx_na import NA, THIS_YEAR, YEAR_BEFORE, NaGuard, compiled, none_na
from .xlsx_results import POOL_ROW_KEYS
from .xlsx_raw_cells import RawCells
from .xlsx_cf_relocate import Movable, block_of
from .xlsx_styles import (
    HEADER_FILL, HEADER_FONT, NEVER, TOTAL_BORDER, header, key_cell, section, set_text, styled,
    LABEL_HEADER, label_cell, label_width, widths, with_unit,
)
from .xlsx_labels import cashflow_label
from ..engine.quantities import names

# the units of the CashFlow rows that are no quantity of the table (its helper cells); a quantity's is the table's
CF_UNITS = {
    "active": "flag", "payback_year_fraction": "years", "discounted_cash_flow_usd": "USD",
    "cumulative_discounted_cash_flow_usd": "USD", "discounted_payback_year_fraction": "years",
    "irr_guess_engine": "fraction", "irr_guess_flows": "fraction",
    "irr_guess_first_year": "fraction", "irr_guess_last_year": "fraction",
    "flow_last_sign": "sign", "flow_sign_change": "flag", "cumulative_last_sign": "sign",
    "cumulative_sign_change": "flag", "irr_floor": "fraction", **{key: "fraction" for key in IRR_ATTEMPTS},
    "equity_irr_guess_engine": "fraction", **{key: "fraction" for key in EQUITY_IRR_ATTEMPTS},
    "equity_flow_last_sign": "sign", "equity_flow_sign_change": "flag", "equity_cumulative_last_sign": "sign",
    "equity_cumulative_sign_change": "flag", "equity_irr_floor": "fraction",
}
CF_HELP = {
    "active": "1 in the years the pool serves (after its purchase year, up to the horizon), else 0.",
    "opex_usd": "-(" + " + ".join(part.replace("_", " ") for part in OPEX_PARTS) + "): opex as a cash outflow.",
    "capex_usd": "-capex of the tranches paid in the year.",
    "loss_carried_usd": "The loss carried from the year before, less what it offset (at most tax_loss_limit x the "
                        "taxable income), plus the year's loss.",
    "taxable_income_usd": "Revenue - opex - depreciation + the horizon sale's gain over book value (a loss deducted).",
    "disposal_gain_usd": "At the horizon: the tranches' values less their book values (capex - depreciation taken) = "
                         "residual value + capex (outflows) + depreciation, summed over the years.",
    "equity_npv_usd": "= equity CF0 + NPV(equity discount rate, equity CF1:CFn) (x (1 + r)^0.5 mid-year).",
    "equity_irr_guess_engine": "Helper, a starting point for the equity IRR(): the engine's equity IRR when written.",
    **{key: f"Helper: IRR() of the equity flows from the starting point {guess}."
       for key, guess in zip(EQUITY_IRR_ATTEMPTS, EQUITY_IRR_GUESSES)},
    "equity_irr": "IRR of the equity flows where they change sign (the project IRR without debt); n/a otherwise.",
    "min_dscr": "The smallest DSCR over the years with debt service; n/a without debt.",
    "dscr": "(revenue - opex - replacements - levered tax) / (debt service - balloon), in the years with scheduled "
            "debt service (the balloon is repaid from the sale).",
    "debt_drawn_usd": "debt_fraction x the capex of the tranches paid in the year (an inflow to equity).",
    "payback_year_fraction": "Helper: the year (with fraction) where the cumulative flow crosses 0 from below.",
    "flow_last_sign": "Helper: the sign of the last non-zero cash flow up to the year.",
    "flow_sign_change": "Helper: 1 where the cash flow changes sign (IRR is unique where it changes sign once).",
    "cumulative_last_sign": "Helper: the sign of the last non-zero cumulative cash flow up to the year.",
    "cumulative_sign_change": "Helper: 1 where the cumulative cash flow changes sign (once: one positive IRR).",
    "equity_flow_last_sign": "Helper: the sign of the last non-zero equity cash flow up to the year.",
    "equity_flow_sign_change": "Helper: 1 where the equity cash flow changes sign (its IRR is unique where it changes "
                               "sign once).",
    "equity_cumulative_last_sign": "Helper: the sign of the last non-zero cumulative equity cash flow up to the year.",
    "equity_cumulative_sign_change": "Helper: 1 where the cumulative equity cash flow changes sign (once: one "
                                     "positive IRR).",
    "equity_irr_floor": "Helper: -1 where the equity flows change sign once (their IRR is unique), 0 where only "
                        "their cumulative flow changes sign once (the one positive rate), 'none' where no rate is "
                        "unique (the equity IRR reads n/a, as the engine's).",
    "npv_usd": "= CF0 + NPV(discount_rate, CF1:CFn): year t discounted by (1 + r)^t (discounting = mid_year: "
               "x (1 + r)^0.5, year t by (1 + r)^(t - 0.5)).",
    "tax_usd": "tax_rate x max(0, taxable income - MIN(loss carried from the year before, tax_loss_limit x taxable "
               "income)); tax_losses = credit: "
               "tax_rate x taxable income (negative in a loss year).",
    "irr_guess_engine": "Helper, a starting point for IRR(): the engine's IRR (a value) when the file was written.",
    "irr_guess_flows": "Helper, a starting point for IRR(): (sum of inflows / sum of outflows)^(1/years) - 1.",
    "irr_guess_first_year": "Helper, a starting point for IRR(): CF1 / -CF0 - 1 (good for high rates).",
    "irr_guess_last_year": "Helper, a starting point for IRR(): CFn / -CF(n-1) - 1 (good near -100%).",
    "irr_floor": "Helper: -1 where the flows change sign once (IRR is unique); 0 where only the cumulative flow "
                 "changes sign once (exactly one positive rate, Norstrom's criterion: it holds after an edit too); "
                 "where the engine found an IRR when "
                 "the file was written (irr_guess_engine: the only rate above -100% that makes NPV = 0, or the only one "
                 "above 0%, from the real roots of the NPV polynomial, docs/model.md, Finance), 0 for a positive one "
                 "and -1 otherwise; 'none' where no rate is unique.",
    **{key: f"Helper: IRR() from the starting point {guess}, kept if it converges above irr_floor."
       for key, guess in zip(IRR_ATTEMPTS, IRR_GUESSES)},
    "irr": "IRR(CF0:CFn) where it is unique: where the flows change sign once (any rate above -100%), or else "
           "where exactly one rate makes NPV = 0 (the engine's count of roots, irr_floor); tried from each starting point in "
           "turn (the engine's, the three live ones above, IRR_GUESS_LOW, IRR_GUESS_LOWEST) until one converges: "
           "Excel's IRR() is a Newton iteration that can fail from a poor start. n/a where no unique rate exists.",
    "discounted_cash_flow_usd": "The year's cash flow x its discount factor.",
    "cumulative_discounted_cash_flow_usd": "The discounted cash flows summed to this year.",
    "discounted_payback_year_fraction": "Helper: the year (with fraction) where the cumulative discounted flow crosses 0 "
                                        "from below.",
    "discounted_payback_months": "Payback of the discounted flows: as payback, over the cumulative discounted flow "
                                 "(never where it is below 0 at the horizon, i.e. NPV < 0).",
    "payback_months": "The earliest time after which the cumulative cash flow stays >= 0 up to the horizon (the last "
                      "crossing from below 0), linear within the year, x 12; 0 where it is never below 0; never where "
                      "it is below 0 at the horizon.",
}
SUMMARY_ROWS = ("equity_npv_usd", "equity_irr_guess_engine", "equity_irr_floor", *EQUITY_IRR_ATTEMPTS, "equity_irr", "min_dscr", "npv_usd", "irr_guess_engine", "irr_guess_flows", "irr_guess_first_year", "irr_guess_last_year", "irr",
                "payback_months")
FINANCING_POOL_ROWS = tuple(k for k in POOL_YEAR_KEYS[1:] if YEAR_QUANTITY_BY_KEY[k].cashflow == "financing")
POOL_SUMMED = tuple(k for k in POOL_YEAR_KEYS if k not in ("active", "utilization") + FINANCING_POOL_ROWS)  # plan row = the pools' sum (a plan's utilization is its own row)


@functools.lru_cache(maxsize=None)   # ~800 rows a sample, of a few dozen keys
def cf_unit(key: str) -> str:
    base = base_key(key)
    return names.unit(base) or CF_UNITS.get(base) or "USD"


@functools.lru_cache(maxsize=None)
def cf_help(key: str) -> str | None:
    base = base_key(key)
    if base in CF_HELP:
        return CF_HELP[base]
    quantity = YEAR_QUANTITY_BY_KEY.get(base)
    if quantity is None:
        return None
    return ("This pool's part: " if base != key else "") + quantity.help


def write_cashflow(ws, scenario: Scenario, layout: Layout, irr_by_plan=(), cached=None, equity_irr_by_plan=()) -> RawCells:
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
        styled(cell, font=HEADER_FONT, fill=HEADER_FILL)
        cell.number_format = '"year "0'
    banner(ws, CF_BANNER_ROW, last_col)
    irrs = list(irr_by_plan) + [None] * (len(scenario.plans) - len(irr_by_plan))
    equity = list(equity_irr_by_plan) + [None] * (len(scenario.plans) - len(equity_irr_by_plan))
    compiled_by_pools: dict = {}   # the first block of each pool count's year template (xlsx_cf_relocate)
    for index, plan in enumerate(scenario.plans):
        _block(ws, layout, index, plan.name, last_col, (irrs[index], equity[index]), raw, cached or {},
               compiled_by_pools)
    ws.freeze_panes = "C2"
    label = label_width(with_unit(cashflow_label(key), cf_unit(key)) for key in cf_keys(layout.max_pools))
    widths(ws, {1: 30, 2: label, **{S.FIRST_PLAN_COLUMN + y: 21 for y in range(layout.max_years + 1)}})
    return raw


def _block(ws, layout: Layout, index: int, name: str, last_col: int, irrs: tuple, raw: RawCells,
           cached: dict, compiled_by_pools: dict | None = None) -> None:
    title_row = layout.cf_block_row(index)
    section(ws, title_row, "", last_col)
    set_text(ws.cell(row=title_row, column=1), name)
    ws.cell(row=title_row, column=1).value = f"={S.PLANS}!{layout.plan_col(index)}$1"  # a renamed plan is named here too
    pools = layout.pool_counts[index] if layout.pool_counts else 1
    book = ws.parent
    for key in cf_keys(pools):
        row = layout.cf_row(index, key)
        if index == 0:   # the help once, on the first block (a comment: openpyxl's cell), its labels openpyxl's too
            key_cell(ws, row, key, cf_help(key))
            label_cell(ws, row, 2, cashflow_label(key), cf_unit(key))
        else:   # the others' as the raw cells label_cell and key_cell give, their rows' other cells raw already
            raw.value(row, 1, key, None)
            raw.value(row, 2, with_unit(cashflow_label(key), cf_unit(key)), raw.late_style(book, "label"))
    cells = _BlockFormulas(layout, index, pools)
    rows, styles = {}, {}  # by key, found once for the block's ~70 rows x 11+ years
    template = cells.year_template() if compiled_by_pools is None else cells.moved_template(compiled_by_pools)
    escaped = {key: escape(text[1:]) for key, text in template.items()}   # escaped once: the XML of every year's
    for year in range(layout.max_years + 1):                               # cells (the placeholders need none)
        col = S.FIRST_PLAN_COLUMN + year
        letter = get_column_letter(col)
        bodies = cells.from_template(escaped, year, escape) if year else \
            {key: escape(text[1:]) for key, text in cells.year_zero().items()}
        for key in bodies:
            if key not in rows:
                rows[key] = layout.cf_row(index, key)
                styles[key] = raw.style_id(book, "formula", cf_unit(key), TOTAL_BORDER if key == "cash_flow_usd" else None)
        raw.formula_column(letter, ((rows[key], body, styles[key]) for key, body in bodies.items()), cached)
    for key, text in cells.summary_cells().items():
        row = layout.cf_row(index, key)
        raw.formula(row, S.FIRST_PLAN_COLUMN, text, raw.style_id(book, "formula", cf_unit(key)),
                    cached.get(f"{get_column_letter(S.FIRST_PLAN_COLUMN)}{row}"))
    for key, irr in zip(("irr_guess_engine", "equity_irr_guess_engine"), irrs):  # the engine's, as IRR() starts
        if irr is not None and math.isfinite(irr):
            raw.number(layout.cf_row(index, key), S.FIRST_PLAN_COLUMN, irr, raw.style_id(book, "engine", "fraction"))


class _BlockFormulas:
    """The formulas of one plan's block."""

    def __init__(self, layout: Layout, index: int, pools: int):
        self.layout, self.index, self.pools = layout, index, pools
        self.col = layout.plan_col(index)
        self._na = NaGuard(S.CASH_FLOW, layout.row_key)  # n/a where an operand is n/a; errors stay visible
        self._rows: dict[str, int] = {}
        self._steady: dict[str, str] | None = None   # year_template's cells before the carried ones

    def row(self, key: str) -> int:
        row = self._rows.get(key)
        if row is None:
            row = self._rows[key] = self.layout.cf_row(self.index, key)
        return row

    def plans(self, key: str) -> str:
        """The plan's Plans input; a key of the requests served, in a workbook with request classes: its Results row."""
        if served_key(key) in self.layout.result_rows:
            return self.results(served_key(key))
        return f"{S.PLANS}!${self.col}${self.layout.plan_rows[key]}"

    def results(self, key: str) -> str:
        return f"{S.RESULTS}!${self.col}${self.layout.result_rows[key]}"

    def rng(self, key: str, first_year: int = 0) -> str:
        return self.layout.cf_range(self.index, key, first_year)

    def year_template(self) -> dict[str, str]:
        """The formulas of every year from 1 on, their column and the column before as placeholders: those years'
        formulas differ only there (the replacement depreciation, a sum over the years before, aside), so the block
        guards its formulas against n/a once, not once a year (the export's costliest step). Built as year 2's: year 0's
        cells differ (they start the running rows)."""
        return self.year_cells(2, THIS_YEAR, YEAR_BEFORE, keep_steady=True)

    def moved_template(self, compiled_by_pools: dict) -> dict[str, str]:
        """year_template(), moved from the first block with as many pools where it can be (xlsx_cf_relocate: the
        same formulas in other rows and another plan column), else compiled; compiled_by_pools holds, per pool
        count, the first block's template and steady cells (xlsx_cf_relocate.Movable, keys ("t"|"s", key))."""
        block = block_of(self.layout, self.index)
        first = compiled_by_pools.get(self.pools)
        moved = first.moved(block) if first is not None else None
        if moved is not None:
            self._steady = {key: text for (part, key), text in moved.items() if part == "s"}
            return {key: text for (part, key), text in moved.items() if part == "t"}
        template = self.year_template()
        if first is None and self._steady is not None:
            compiled_by_pools[self.pools] = Movable({**{("t", key): text for key, text in template.items()},
                                                     **{("s", key): text for key, text in self._steady.items()}}, block)
        return template

    def year_zero(self) -> dict[str, str]:
        """year_cells(0), after year_template(): the cells that do not carry from the year before are the template's
        with year 0's column (its replacement depreciation none), the carried ones year 0's own; the block's formulas
        are compiled once, not twice (tests/io pin it equal to year_cells(0))."""
        steady = self._steady
        if steady is None or any(YEAR_BEFORE in text for text in steady.values()):
            return self.year_cells(0)
        col = self.layout.year_col(0)
        cells = {key: text.replace(THIS_YEAR, col) for key, text in steady.items()}
        cells["replacement_depreciation_usd"] = self._replacement_depreciation(0, self._serving(col))
        return self._running_cells(cells, 0, lambda key: f"{col}{self.row(key)}", self._serving(col), "")

    def from_template(self, template: dict[str, str], year: int, escaping=None) -> dict[str, str]:
        """year_cells(year) for a year >= 1, from year_template(); with escaping (saxutils.escape), the template's
        texts are escaping(text[1:]), each cell's formula as its XML holds it, and so are those returned."""
        col, prev = self.layout.year_col(year), self.layout.year_col(year - 1)
        cells = {key: text.replace(THIS_YEAR, col).replace(YEAR_BEFORE, prev) for key, text in template.items()}
        depreciation = self._replacement_depreciation(year, self._serving(col))
        cells["replacement_depreciation_usd"] = escaping(depreciation[1:]) if escaping else depreciation
        return cells

    def _serving(self, col: str) -> str:
        year_ref = f"{col}${CF_YEAR_ROW}"
        return f"AND({year_ref}>=1,{year_ref}<={self.plans('years')})"

    def year_cells(self, year: int, col: str = "", prev: str = "", keep_steady: bool = False) -> dict[str, str]:
        """The formulas of the year's column; col, prev: the letters of its column and the column before (default:
        theirs; year_template's placeholders); keep_steady: the cells before the carried ones kept for year_zero."""
        col = col or self.layout.year_col(year)
        prev = prev or (self.layout.year_col(year - 1) if year else "")
        here = lambda key: f"{col}{self.row(key)}"  # noqa: E731
        year_ref = f"{col}${CF_YEAR_ROW}"
        p = self.plans
        horizon = p("years")
        serving = self._serving(col)
        cells = {"throughput_index": self._throughput_index(year_ref, serving, here)}
        for k in range(1, self.pools + 1):
            cells.update(self._pool_cells(k, year_ref, here, horizon))
        for key in POOL_SUMMED:
            cells[key] = self._na("+".join(here(f"pool{k}.{key}") for k in range(1, self.pools + 1)))
        plan_ref = self._plan_ref(year_ref, here)
        cells.update({key: self._compiled(expr, plan_ref, key in OUTFLOW_ROWS) for key, expr in PLAN_YEAR_EXPRESSIONS})
        cells["depreciation_rate_by_age"] = self._rate_by_age(year_ref)
        cells["replacement_depreciation_usd"] = self._replacement_depreciation(year, serving)
        capex_all, taken = self.rng("capex_usd"), self.rng("depreciation_usd")
        replaced = self.rng("replacement_capex_usd")
        cells["disposal_gain_usd"] = self._na.when(  # the tranches' and replacements' values less their book values
            f"{year_ref}={horizon}", f"IF(AND({none_na(capex_all)},{none_na(replaced)},{none_na(taken)}),"
                                     f"{here('residual_value_usd')}+SUM({capex_all})+SUM({replaced})+SUM({taken}),{NA})")
        for key in FINANCING_POOL_ROWS:
            cells[key] = self._na("+".join(here(f"pool{k}.{key}") for k in range(1, self.pools + 1)))
        service = f'({here("debt_service_usd")}-{here("balloon_usd")})'  # from operations (the balloon: from the sale)
        cells["dscr"] = self._na(f'IF({service}>0,({here("revenue_usd")}+{here("opex_usd")}'
                                 f'+{here("replacement_capex_usd")}-{here("levered_tax_usd")})/{service},"")')
        if keep_steady:
            self._steady = dict(cells)
        return self._running_cells(cells, year, here, serving, prev)

    def _sign_sources(self, here) -> tuple[tuple[str, str], ...]:
        """(helper prefix, the flow it follows) of the sign helpers: the project's cash flow and its cumulative, the
        equity cash flow and its cumulative (a sum from year 0: no row of its own)."""
        equity = here("equity_cash_flow_usd")
        first = f"${self.layout.year_col(0)}{self.row('equity_cash_flow_usd')}"
        return (("flow", here("cash_flow_usd")), ("cumulative", here("cumulative_cash_flow_usd")),
                ("equity_flow", equity), ("equity_cumulative", f"SUM({first}:{equity})"))

    def _running_cells(self, cells: dict[str, str], year: int, here, serving: str, prev: str) -> dict[str, str]:
        """The rows that carry from the year before (tax losses, cumulative flow, sign changes, payback), into cells."""
        p = self.plans
        if year == 0:
            cells["loss_carried_usd"] = "=0"
            cells["tax_usd"] = "=0"
            cells["levered_loss_carried_usd"] = "=0"
            cells["levered_tax_usd"] = "=0"
            cells["cumulative_cash_flow_usd"] = self._na(here("cash_flow_usd"))
            cells["discounted_cash_flow_usd"] = self._na(f"{here('cash_flow_usd')}*{here('discount_factor')}")
            cells["cumulative_discounted_cash_flow_usd"] = self._na(here("discounted_cash_flow_usd"))
            for flow, source in self._sign_sources(here):
                cells[f"{flow}_last_sign"] = self._na(f"SIGN({source})")
                cells[f"{flow}_sign_change"] = "=0"
            return cells
        for flow, source in self._sign_sources(here):
            last = f"{prev}{self.row(f'{flow}_last_sign')}"
            cells[f"{flow}_last_sign"] = self._na(f"IF({source}<>0,SIGN({source}),{last})")
            cells[f"{flow}_sign_change"] = self._na(f"IF(AND({source}<>0,{last}<>0,SIGN({source})<>{last}),1,0)")
        before_loss = f"{prev}{self.row('loss_carried_usd')}"
        credit = f'{p("tax_losses")}="credit"'
        levered, before_levered = here("levered_taxable_income_usd"), f"{prev}{self.row('levered_loss_carried_usd')}"
        for prefix, income, loss in (("", here("taxable_income_usd"), before_loss), ("levered_", levered, before_levered)):
            # the losses carried offset at most tax_loss_limit x the year's income
            offset = f"MIN({loss},{p('tax_loss_limit')}*MAX(0,{income}))"
            cells[f"{prefix}tax_usd"] = self._na.when(serving, f"IF({credit},{p('tax_rate')}*{income},"
                                                               f"{p('tax_rate')}*MAX(0,{income}-{offset}))")
            cells[f"{prefix}loss_carried_usd"] = self._na(f"IF({credit},0,IF({income}>0,{loss}-{offset},{loss}-{income}))")
        before = f"{prev}{self.row('cumulative_cash_flow_usd')}"
        after = here("cumulative_cash_flow_usd")
        cells["cumulative_cash_flow_usd"] = self._na(f"{before}+{here('cash_flow_usd')}")
        cells["payback_year_fraction"] = (f'=IF(AND(ISNUMBER({before}),ISNUMBER({after})),IF(AND({before}<0,{after}>=0),'
                                          f'{prev}${CF_YEAR_ROW}+-{before}/({after}-{before}),""),"")')
        cells["discounted_cash_flow_usd"] = self._na(f"{here('cash_flow_usd')}*{here('discount_factor')}")
        before = f"{prev}{self.row('cumulative_discounted_cash_flow_usd')}"
        after = here("cumulative_discounted_cash_flow_usd")
        cells["cumulative_discounted_cash_flow_usd"] = self._na(f"{before}+{here('discounted_cash_flow_usd')}")
        cells["discounted_payback_year_fraction"] = (
            f'=IF(AND(ISNUMBER({before}),ISNUMBER({after})),IF(AND({before}<0,{after}>=0),'
            f'{prev}${CF_YEAR_ROW}+-{before}/({after}-{before}),""),"")')
        return cells

    def _pool_cells(self, k: int, year_ref: str, here, horizon: str) -> dict[str, str]:
        """One pool's (tranche's) rows in one year: the engine's operations, operand for operand."""
        q = lambda key: self.results(f"pool{k}.{key}")  # noqa: E731
        p = self.plans
        bought = q("purchase_year")
        life = f"IF(ISBLANK({p('depreciation_years')}),{horizon},{p('depreciation_years')})"
        resid = p("residual_value_fraction")
        return {
            **{f"pool{k}.{key}": self._compiled(expr, self._pool_ref(k, year_ref, here), key in OUTFLOW_ROWS)
               for key, expr in POOL_YEAR_EXPRESSIONS},
            f"pool{k}.depreciation_usd": self._depreciation(year_ref, bought, horizon, life, resid, q("capex_usd")),
            **self._debt_cells(k, year_ref, horizon, here),
        }

    def _compiled(self, expr: Expr, ref, outflow: bool = False) -> str:
        return compiled(expr, ref, self._na, outflow)

    def _plan_ref(self, year_ref: str, here):
        """The cell of each name a plan's year expression reads (year_rows.plan_values, the engine's): the plan's
        year row, the pools' year rows added, the plan's input on Plans."""
        def ref(name: str) -> str:
            if name == YEAR_NUMBER:
                return year_ref
            if name == POOL_COUNT:
                return str(self.pools)
            if name.startswith(IN_POOL):   # a pools_total's term: pool k's name
                k, pool_name = name[len(IN_POOL):].split(".", 1)
                return self._pool_ref(int(k), year_ref, here)(pool_name)
            if name.startswith(POOLS + YEAR):
                key = name[len(POOLS + YEAR):]
                return "+".join(here(f"pool{k}.{key}") for k in range(1, self.pools + 1))
            if name.startswith(ALL_YEARS):
                key = name[len(ALL_YEARS):]
                return ("-" if key in OUTFLOW_ROWS else "") + self.rng(key)
            if name.startswith((YEAR, PLAN_YEAR)):
                key = name.split(".", 1)[1]
                return ("-" if key in OUTFLOW_ROWS else "") + here(key)   # an outflow's cell holds -value
            return self.plans(name)
        return ref

    def _pool_ref(self, k: int, year_ref: str, here):
        """The cell (or range) of each name a pool's year expression reads (year_rows.pool_values, the engine's):
        the pool's own year row where it has one, else the plan's; the pool's Results row where the pool block
        has one, else the plan's input on Plans."""
        def ref(name: str) -> str:
            if name == YEAR_NUMBER:
                return year_ref
            if name.startswith((YEAR, TO_DATE, PLAN_YEAR)):
                key = name.split(".", 1)[1]
                row = f"pool{k}.{key}" if key in POOL_YEAR_KEYS and not name.startswith(PLAN_YEAR) else key
                if name.startswith(TO_DATE):
                    return f"${self.layout.year_col(0)}{self.row(row)}:{here(row)}"
                return ("-" if key in OUTFLOW_ROWS else "") + here(row)   # an outflow's cell holds -value
            return self.results(f"pool{k}.{name}") if name in POOL_ROW_KEYS else self.plans(name)
        return ref

    def _throughput_index(self, year_ref: str, serving: str, here) -> str:
        """The year's throughput index (docs/model.md, "Finance over time"): (1 + throughput_change_per_year)^(t-1),
        a demand-sized plan's at most its demand over its output tokens at year-1 speed (never below 1)."""
        p = self.plans
        index = f"IF({serving},(1+{p('throughput_change_per_year')})^({year_ref}-1),0)"
        base = "+".join(f"{self.results(f'pool{k}.tokens_per_s_per_device')}*{self.results(f'pool{k}.device_count')}"
                        f"*{here(f'pool{k}.utilization')}*SECONDS_PER_YEAR*{here(f'pool{k}.active')}"
                        for k in range(1, self.pools + 1))
        demand = f"{p('demand_tokens_per_day')}*SECONDS_PER_YEAR/SECONDS_PER_DAY"
        # only a demand-sized plan reads its pools' tokens (n/a where they are): the others' index is (1 + g)^(t-1)
        return (f'=IF({serving},IF({p("sizing_mode")}="demand",'
                + self._na.expr(f"IF(({base})>0,MIN({index},MAX(1,{demand}/({base}))),{index})")
                + f",{index}),0)")

    def _rate_by_age(self, age: str) -> str:
        """The share of a tranche's capex deducted at `age` (the schedule replacements follow; 0 past the
        horizon): straight line (1 - residual) / life at ages 1..life, the half-year and MACRS schedules as
        `_depreciation`."""
        p = self.plans
        method, resid = p("depreciation_method"), p("residual_value_fraction")
        life = f"IF(ISBLANK({p('depreciation_years')}),{p('years')},{p('depreciation_years')})"
        return (f'=IF(OR({age}<1,{age}>{p("years")}),0,IF({method}="straight_line",IF({age}<={life},(1-{resid})/{life},0),'
                f'IF(OR({method}="macrs_5",{method}="macrs_7"),1,1-{resid})*{self._schedule(method, life, age)}))')

    def _schedule(self, method: str, life: str, age: str) -> str:
        """The half-year or MACRS fraction of the basis at `age` >= 1 (0 for straight line)."""
        half = f"IF({age}=1,HALF_YEAR/{life},IF({age}<={life},1/{life},IF({age}={life}+1,HALF_YEAR/{life},0)))"
        tables = [f'IF({method}="macrs_{life_years}",IF({age}<=COUNT({names}),CHOOSE({age},{names}),0),'
                  for life_years, pct in ((5, MACRS_5_PERCENT), (7, MACRS_7_PERCENT))
                  for names in [",".join(f"MACRS_{life_years}_{k}" for k in range(1, len(pct) + 1))]]
        return f'IF({method}="half_year",{half},' + "".join(tables) + "0)))"

    def _replacement_depreciation(self, year: int, serving: str) -> str:
        """sum over the years s before this one of the replacements bought in s x the rate at age (year - s)."""
        if year == 0:
            return "=0"
        repl, rate = self.row("replacement_capex_usd"), self.row("depreciation_rate_by_age")
        terms = "+".join(f"{self.layout.year_col(s)}{repl}*{self.layout.year_col(year - s)}{rate}" for s in range(year))
        return self._na.when(serving, f"-({terms})")

    def _debt_cells(self, k: int, year_ref: str, horizon: str, here) -> dict[str, str]:
        """One tranche's loan in the year (docs/model.md, "Financing"): debt_fraction x capex borrowed when
        paid, a level annuity over debt_years at debt_rate from the next year, the balance still owed
        repaid at the horizon; B(j) = ((1 + i)^m - (1 + i)^j) / ((1 + i)^m - 1) of the loan after j payments."""
        p = self.plans
        loan = f"{p('debt_fraction')}*{self.results(f'pool{k}.capex_usd')}"
        rate, bought = p("debt_rate"), self.results(f"pool{k}.purchase_year")
        term = f"IF(ISBLANK({p('debt_years')}),{horizon},{p('debt_years')})"
        paid = f"({year_ref}-{bought})"
        owed = lambda j: (f"IF({rate}=0,1-MIN({j},{term})/{term},"  # noqa: E731
                          f"((1+{rate})^{term}-(1+{rate})^MIN({j},{term}))/((1+{rate})^{term}-1))")
        payment = f"IF({rate}=0,1/{term},{rate}/(1-(1+{rate})^-{term}))"
        paying = f"AND({paid}>=1,{paid}<={term},{year_ref}<={horizon})"
        interest = here(f"pool{k}.interest_usd")
        scheduled = f"IF({paying},{loan}*{payment}-{interest},0)"
        at_sale = f"AND({year_ref}={horizon},{paid}>=1)"
        # only the years with a payment or the sale read the loan (a tranche that cannot be racked has none)
        return {
            f"pool{k}.interest_usd": self._na.when(paying, f"{rate}*{loan}*{owed(f'{paid}-1')}"),
            f"pool{k}.balloon_usd": self._na.when(at_sale, f"{loan}*{owed(paid)}"),
            f"pool{k}.principal_usd": self._na.when(f"OR({paying},{at_sale})",
                                                    f"{scheduled}+{here(f'pool{k}.balloon_usd')}"),
            f"pool{k}.debt_service_usd": self._na.when(f"OR({paying},{at_sale})",
                                                       f"{interest}+{here(f'pool{k}.principal_usd')}"),
        }

    def _depreciation(self, year_ref, bought, horizon, life, resid, capex) -> str:
        """A tranche's depreciation in the year (docs/model.md, "Finance conventions"): straight line as
        before; half_year and MACRS by the tranche's age, the MACRS percentages of IRS Publication 946,
        Table A-1 (half-year convention), are the Constants sheet's MACRS_5_1.. and MACRS_7_1.., picked by CHOOSE()."""
        method = self.plans("depreciation_method")
        straight = self._na.expr(f"{capex}*(1-{resid})/{life}")
        age = f"({year_ref}-{bought})"
        rate = self._schedule(method, life, age)
        scheduled = self._na.expr(f'{capex}*IF(OR({method}="macrs_5",{method}="macrs_7"),1,1-{resid})*{rate}')
        return (f'=IF({method}="straight_line",IF(AND({year_ref}>{bought},{year_ref}<={bought}+{life},'
                f'{year_ref}<={horizon}),{straight},0),IF(AND({year_ref}>{bought},{year_ref}<={horizon}),{scheduled},0))')

    def summary_cells(self) -> dict[str, str]:
        flows, later = self.rng("cash_flow_usd"), self.rng("cash_flow_usd", 1)
        complete = none_na(flows)
        first = f"{self.layout.year_col(0)}{self.row('cash_flow_usd')}"
        cumulative = self.rng("cumulative_cash_flow_usd")
        crossing = self.rng("payback_year_fraction", 1)
        sign_change = f"AND(MAX({flows})>0,MIN({flows})<0)"
        year1 = f"{self.layout.year_col(1)}{self.row('cash_flow_usd')}"
        horizon = self.plans("years")
        return {
            "npv_usd": self._na(f"IF({complete},{first}+NPV({self.plans('discount_rate')},{later})"
                                f'*IF({self.plans("discounting")}="mid_year",(1+{self.plans("discount_rate")})^HALF_YEAR,1),'
                                f"{NA})"),
            "irr_guess_flows": f'=IF(AND({complete},SUMIF({flows},">0")>0,SUMIF({flows},"<0")<0),'
                               f'(SUMIF({flows},">0")/-SUMIF({flows},"<0"))^(1/{self.plans("years")})-1,"")',
            "irr_guess_first_year": f'=IF(AND({complete},ISNUMBER({first})),IF({first}<0,{year1}/-{first}-1,""),"")',
            "irr_guess_last_year": f'=IF({complete},IF(INDEX({flows},1,{horizon})<>0,'
                                   f'INDEX({flows},1,{horizon}+1)/-INDEX({flows},1,{horizon})-1,""),"")',
            "irr_floor": f'=IF(SUM({self.rng("flow_sign_change")})=1,-1,'
                         f'IF(SUM({self.rng("cumulative_sign_change")})=1,0,'
                         f'IF(ISNUMBER({self._c("irr_guess_engine")}),IF({self._c("irr_guess_engine")}>0,0,-1),'
                         f'"none")))',
            **self._irr_attempts(flows),
            "irr": self._na(f"IF({complete},IF(AND({sign_change},ISNUMBER({self._c('irr_floor')})),"
                       f"{self._first_number()},{NA}),{NA})"),
            "payback_months": self._na(f'IF({complete},IF(INDEX({cumulative},1,COLUMNS({cumulative}))<0,"{NEVER}",'
                                  f'IF(MIN({cumulative})>=0,0,MONTHS_PER_YEAR*MAX({crossing}))),{NA})'),
            "discounted_payback_months": self._discounted_payback(complete),
            **self._equity_cells(),
        }

    def _discounted_payback(self, complete: str) -> str:
        """Payback of the discounted flows: as payback_months over the cumulative discounted flow."""
        cumulative = self.rng("cumulative_discounted_cash_flow_usd")
        crossing = self.rng("discounted_payback_year_fraction", 1)
        return self._na(f'IF({complete},IF(INDEX({cumulative},1,COLUMNS({cumulative}))<0,"{NEVER}",'
                        f'IF(MIN({cumulative})>=0,0,MONTHS_PER_YEAR*MAX({crossing}))),{NA})')

    def _equity_cells(self) -> dict[str, str]:
        """Equity NPV at the equity discount rate (the plan's discounting), equity IRR (IRR() tried from the
        engine's value, the project IRR and IRR_GUESS_LOW, where the equity flows change sign; the project
        IRR itself without debt, as the flows are the same), min DSCR over the years with debt service."""
        p = self.plans
        flows, later = self.rng("equity_cash_flow_usd"), self.rng("equity_cash_flow_usd", 1)
        complete = none_na(flows)
        first = f"{self.layout.year_col(0)}{self.row('equity_cash_flow_usd')}"
        rate = f"IF(ISBLANK({p('equity_discount_rate')}),{p('discount_rate')},{p('equity_discount_rate')})"
        cells = {"equity_npv_usd": self._na(f'IF({complete},{first}+NPV({rate},{later})'
                                            f'*IF({p("discounting")}="mid_year",(1+{rate})^HALF_YEAR,1),{NA})')}
        cells["equity_irr_floor"] = (f'=IF(SUM({self.rng("equity_flow_sign_change")})=1,-1,'
                                     f'IF(SUM({self.rng("equity_cumulative_sign_change")})=1,0,"none"))')
        floor = self._c("equity_irr_floor")
        for key, guess in zip(EQUITY_IRR_ATTEMPTS, EQUITY_IRR_GUESSES):
            start = guess if guess.isupper() else self._c(guess)
            cells[key] = f'=IFERROR(IF(IRR({flows},{start})>{floor},IRR({flows},{start}),""),"")'
        chain = NA
        for key in reversed(EQUITY_IRR_ATTEMPTS):
            chain = f"IF(ISNUMBER({self._c(key)}),{self._c(key)},{chain})"
        unique = f"AND(MAX({flows})>0,MIN({flows})<0,ISNUMBER({floor}))"   # the engine's rule (cashflow.irr)
        cells["equity_irr"] = (f'=IF({p("debt_fraction")}=0,{self._c("irr")},IF({complete},'
                               f'IF({unique},{chain},{NA}),{NA}))')
        dscr = self.rng("dscr")
        cells["min_dscr"] = f'=IF(COUNT({dscr})>0,MIN({dscr}),{NA})'
        return cells

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

