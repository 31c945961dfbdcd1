"""Where things are in the exported workbook: the cell references the Results and CashFlow formulas use.

Plans, Results and CashFlow share the plan order: plan i is column C+i on Plans and Results and
block i on CashFlow. CashFlow has one column per year (C = year 0) up to the longest horizon.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

from openpyxl.utils import get_column_letter

from ..engine.quantities.finance import CASHFLOW_FINANCING_ROWS, CASHFLOW_YEAR_ROWS, POOL_YEAR_KEYS
from ..engine.quantities.inputs import POOL_FIELDS
from . import sheets as S

IRR_GUESSES = ("irr_guess_engine", "irr_guess_flows", "irr_guess_first_year", "irr_guess_last_year", "IRR_GUESS_LOW",
               "IRR_GUESS_LOWEST")  # the starting points of IRR(), in the order they are tried
IRR_ATTEMPTS = tuple(f"irr_attempt_{i}" for i in range(1, len(IRR_GUESSES) + 1))
EQUITY_IRR_GUESSES = ("equity_irr_guess_engine", "irr", "IRR_GUESS_LOW")  # the equity IRR()'s starting points
EQUITY_IRR_ATTEMPTS = tuple(f"equity_irr_attempt_{i}" for i in range(1, len(EQUITY_IRR_GUESSES) + 1))
# financing (docs/model.md "Financing"): the debt's year rows, the equity flows and their summary cells
EQUITY_SIGN_ROWS = ("equity_flow_last_sign", "equity_flow_sign_change", "equity_cumulative_last_sign",
                    "equity_cumulative_sign_change")   # the equity flows' sign helpers (its IRR's uniqueness rule)
FINANCING_ROWS = (*CASHFLOW_FINANCING_ROWS, *EQUITY_SIGN_ROWS, "equity_npv_usd",
                  "equity_irr_guess_engine", "equity_irr_floor", *EQUITY_IRR_ATTEMPTS, "equity_irr", "min_dscr")
# CashFlow block rows, relative to the block's first row (its title row): the plan's year rows, its
# summary cells (column C), then one group of rows per pool ("pool1.output_tokens", ...)
CF_ROWS = (*CASHFLOW_YEAR_ROWS, "payback_year_fraction",
           "flow_last_sign", "flow_sign_change", "cumulative_last_sign", "cumulative_sign_change",
           "npv_usd", "irr_guess_engine", "irr_guess_flows", "irr_guess_first_year", "irr_guess_last_year",
           "irr_floor", *IRR_ATTEMPTS, "irr", "payback_months",
           "discounted_cash_flow_usd", "cumulative_discounted_cash_flow_usd", "discounted_payback_year_fraction",
           "discounted_payback_months",
           *FINANCING_ROWS)
CF_POOL_ROWS = POOL_YEAR_KEYS
CF_YEAR_ROW = 1
CF_BANNER_ROW = 2        # the master check, above every block
CF_FIRST_BLOCK_ROW = 3
MIN_CASHFLOW_YEARS = 10  # the CashFlow sheet covers at least this many years, so `years` can be raised in the file


WHOLE = "$A:$AMJ"            # every column LibreOffice has (1,024) and more than any plan count (sheets.MAX_PLANS)
SEARCH_MARGIN = 1_000        # rows past the exported rows a row-finding formula still looks (a row added below)


def quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


class Live(str):
    """A value a row-finding formula compares with that is itself a formula (a plan's name as its Plans header
    cell: a plan renamed on Plans, and in its Pools rows, keeps its rows), not a text to quote."""


def _operand(value: str) -> str:
    return str(value) if isinstance(value, Live) else quoted(value)


def plan_name_cell(index: int) -> Live:
    """The plan's name, live: its Plans header cell (a deleted plan's reads #REF!)."""
    return Live(f"{S.PLANS}!${get_column_letter(S.FIRST_PLAN_COLUMN + index)}$1")


def key_col(sheet: str, key: str) -> str:
    """The column of `key` in a table sheet's row 1, by value (survives moved and inserted columns)."""
    return f"MATCH({quoted(key)},{sheet}!$1:$1,0)"


def table_column(sheet: str, key: str, last: int) -> str:
    """The entry cells (row 3 to `last`) of a table sheet's column `key`, as one column for SUMPRODUCT."""
    return f"INDEX({sheet}!$A${S.FIRST_ENTRY_ROW}:$AMJ${last},0,{key_col(sheet, key)})"


def count_where(sheet: str, pairs, last: int) -> str:
    """How many entry rows hold every (column key, value) pair (exact text, no wildcards)."""
    return "SUMPRODUCT(" + "*".join(f"({table_column(sheet, key, last)}={_operand(value)})" for key, value in pairs) + ")"


def row_where(sheet: str, pairs, last: int) -> str:
    """The row holding every (column key, value) pair; 0 where none does (with several, their sum: the count check
    of the Checks sheet fails then)."""
    terms = "*".join(f"({table_column(sheet, key, last)}={_operand(value)})" for key, value in pairs)
    return f"SUMPRODUCT({terms}*ROW({sheet}!$A${S.FIRST_ENTRY_ROW}:$A${last}))"


def served_key(key: str) -> str:
    """The Results row of a Plans key of the requests served (engine/plan/request_classes.EQUIVALENT_KEYS), written
    in a workbook with request classes: `served_input_tokens`."""
    return f"served_{key}"


def base_key(key: str) -> str:
    """ "pool2.capex_usd" -> "capex_usd"; plan keys unchanged."""
    return key.split(".", 1)[1] if key.startswith("pool") and "." in key else key


def cf_keys(pools: int) -> list[str]:
    """The keys of a CashFlow block of `pools` pools, in row order."""
    return list(CF_ROWS) + [f"pool{k}.{base}" for k in range(1, pools + 1) for base in CF_POOL_ROWS]


def field_column(fields, key: str) -> str:
    """The column letter of `key` on a table sheet written from `fields` (row 1 the keys, in order)."""
    return get_column_letter([f.name for f in fields].index(key) + 1)


def cashflow_years(plan_years) -> int:
    """Years the CashFlow sheet covers: the longest horizon, and at least MIN_CASHFLOW_YEARS."""
    return max([MIN_CASHFLOW_YEARS, *plan_years])


def cf_block_height(pools: int) -> int:
    """Title row + plan rows + the pools' rows + a blank row."""
    return 1 + len(CF_ROWS) + pools * len(CF_POOL_ROWS) + 1


@functools.lru_cache(maxsize=None)
def _cf_offset(key: str) -> int:
    """A CashFlow key's row below its block's title row."""
    if key.startswith("pool") and "." in key:
        k, base = int(key[4:key.index(".")]), key.split(".", 1)[1]
        return 1 + len(CF_ROWS) + (k - 1) * len(CF_POOL_ROWS) + CF_POOL_ROWS.index(base)
    return 1 + CF_ROWS.index(key)


@dataclass(frozen=True)
class Layout:
    plan_rows: dict[str, int]       # Plans sheet row of each plan key
    result_rows: dict[str, int]     # Results sheet row of each result key
    max_years: int
    pool_counts: tuple[int, ...] = ()                              # pools of each plan, in plan order
    pool_rows: dict[tuple[str, str], int] = field(default_factory=dict)  # Pools sheet row of (plan, pool)
    device_rows: dict[str, int] = field(default_factory=dict)            # Devices sheet row of each device
    tier_rows: int = 0                                                   # rows of the PriceTiers sheet
    plan_names: tuple[str, ...] = ()                                     # the plans, in column order
    class_rows: dict[tuple[str, str], int] = field(default_factory=dict)  # Workloads sheet row of (plan, class)

    @property
    def max_pools(self) -> int:
        return max(max(self.pool_counts, default=1), 1)

    def pools_cell(self, row: int, key: str) -> str:
        """An input cell of the Pools sheet: the row naming this (plan, pool), found by value (sorting the Pools
        table keeps it; the plan by its live name: renamed on Plans and Pools, it keeps its rows), the column by
        its key; #N/A where no row names the pool."""
        plan, pool = next(names for names, r in self.pool_rows.items() if r == row)
        last = max(self.pool_rows.values()) + SEARCH_MARGIN
        name = plan_name_cell(self.plan_names.index(plan)) if plan in self.plan_names else plan
        found = row_where(S.POOLS, (("plan", name), ("pool", pool)), last)
        return f"INDEX({S.POOLS}!{WHOLE},IF({found}>0,{found},NA()),{key_col(S.POOLS, key)})"

    @staticmethod
    def plan_col(index: int) -> str:
        return get_column_letter(S.FIRST_PLAN_COLUMN + index)

    @staticmethod
    def year_col(year: int) -> str:
        return get_column_letter(S.FIRST_PLAN_COLUMN + year)

    def cf_pools(self, index: int) -> int:
        return max(self.pool_counts[index], 1) if self.pool_counts else 1

    @functools.cached_property
    def _block_rows(self) -> list[int]:
        rows, row = [], CF_FIRST_BLOCK_ROW
        for i in range(max(len(self.pool_counts), 1) + 1):
            rows.append(row)
            row += cf_block_height(self.cf_pools(i) if i < len(self.pool_counts) else 1)
        return rows

    def cf_block_row(self, index: int) -> int:
        if index < len(self._block_rows):  # (a list, not recomputed: cf_row is called for each of ~70,000 cells)
            return self._block_rows[index]
        return CF_FIRST_BLOCK_ROW + sum(cf_block_height(self.cf_pools(i)) for i in range(index))

    @functools.cached_property
    def _row_keys(self) -> dict[str, dict[int, str]]:
        cash_flow = {}
        for index in range(max(len(self.pool_counts), 1)):
            pools = self.cf_pools(index)
            for key in cf_keys(pools):
                cash_flow[self.cf_row(index, key)] = key
        return {S.RESULTS: {row: key for key, row in self.result_rows.items()}, S.CASH_FLOW: cash_flow}

    def row_key(self, sheet: str, row: int) -> str | None:
        """The key of a Results or CashFlow row (None: a title, header or blank row, or another sheet)."""
        return self._row_keys.get(sheet, {}).get(row)

    def cf_row(self, index: int, key: str) -> int:
        return self.cf_block_row(index) + _cf_offset(key)

    def cf_range(self, index: int, key: str, first_year: int = 0, sheet: str | None = None) -> str:
        row = self.cf_row(index, key)
        prefix = f"{sheet}!" if sheet else ""
        return f"{prefix}${self.year_col(first_year)}${row}:${self.year_col(self.max_years)}${row}"


@dataclass(frozen=True)
class PlanRefs:
    """Cell references for plan `index`, as seen from the Results sheet."""

    layout: Layout
    index: int

    @property
    def col(self) -> str:
        return self.layout.plan_col(self.index)

    def p(self, key: str) -> str:
        """The plan's input cell on Plans; for a key of the requests served, in a workbook with request classes,
        its Results row (served_key)."""
        served = self.layout.result_rows.get(served_key(key))
        if served is not None:
            return f"{self.col}{served}"
        return f"{S.PLANS}!{self.col}{self.layout.plan_rows[key]}"

    def r(self, key: str) -> str:
        """A Results cell of this plan (same sheet)."""
        return f"{self.col}{self.layout.result_rows[key]}"

    def pools(self, key: str) -> str:
        """This plan's cells of a pool quantity, one per pool, comma-separated (for SUM, COUNT, MIN)."""
        count = self.layout.pool_counts[self.index] if self.layout.pool_counts else 1
        return ",".join(self.r(f"pool{k}.{key}") for k in range(1, count + 1))

    def pool_products(self, key_a: str, key_b: str) -> str:
        """sum over this plan's pools of key_a x key_b, e.g. pool1.x*pool1.y+pool2.x*pool2.y."""
        count = self.layout.pool_counts[self.index] if self.layout.pool_counts else 1
        return "+".join(f"{self.r(f'pool{k}.{key_a}')}*{self.r(f'pool{k}.{key_b}')}" for k in range(1, count + 1))

    def cf(self, key: str) -> str:
        """A CashFlow summary cell (column C) of this plan's block."""
        return f"{S.CASH_FLOW}!$C${self.layout.cf_row(self.index, key)}"

    def cf_range(self, key: str, first_year: int = 0) -> str:
        return self.layout.cf_range(self.index, key, first_year, S.CASH_FLOW)

    def cf_year_range(self, first_year: int = 0) -> str:
        """The CashFlow year header (year numbers) from `first_year` to the last column."""
        layout = self.layout
        return (f"{S.CASH_FLOW}!${layout.year_col(first_year)}${CF_YEAR_ROW}:"
                f"${layout.year_col(layout.max_years)}${CF_YEAR_ROW}")
