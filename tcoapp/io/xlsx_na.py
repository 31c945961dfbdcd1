"""Explicit n/a propagation in the exported formulas, instead of a blanket IFERROR (docs/workbook_format.md,
"Values that do not exist and errors").

A value that does not exist is the text "n/a" (payback: "never"). A formula that reads a cell which may
hold n/a says so: IF(OR(C12="n/a",C40="n/a"),"n/a",core). Nothing is caught: an error (#DIV/0!, #VALUE!
from text typed into a number cell, #N/A from a lookup of a renamed device) flows into every formula
that reads it, stays visible, and the error checks on the Checks sheet count it.

Which cells may hold n/a is a property of their row: engine values (NaN where the engine has no
number) and every formula row downstream of one. Rows that never do (inputs copied or looked up,
indices over Plans, text rows) are listed here, so the guards name only the operands that matter.
"""
from __future__ import annotations

import functools
import re
from typing import Callable

from ..engine.quantities.expr import POOL_COUNT, Expr, Gate, PoolsTotal
from . import sheets as S
from .xlsx_layout import EQUITY_IRR_ATTEMPTS, IRR_ATTEMPTS, base_key
from .xlsx_styles import NOT_AVAILABLE

NA = f'"{NOT_AVAILABLE}"'

# Results rows (per pool: the key after "poolK.") that are never n/a
RESULTS_NEVER_NA = frozenset({
    "plan_check", "capital_recovery_factor", "costs_not_entered", "warnings", "serving",
    "pool", "role", "device", "price_usd", "devices_per_server", "server_price_usd", "tdp_w", "idle_w",
    "server_overhead_w", "power_limit_w", "rack_power_cap_kw", "servers_per_rack_max", "owned", "rent_usd_per_device_hour",
    "purchase_year", "server_nameplate_w", "servers_per_rack",
})
# CashFlow rows that are never n/a (they read only Plans and the year), and the helper rows that hold ""
CASHFLOW_NEVER_NA = frozenset({
    "price_index", "electricity_index", "cost_index", "utilization", "discount_factor", "active",
    "payback_year_fraction", "irr_guess_engine", "irr_guess_flows", "irr_guess_first_year", "irr_guess_last_year",
    "irr_floor", "equity_irr_guess_engine", "dscr", "depreciation_rate_by_age",
}) | frozenset(IRR_ATTEMPTS) | frozenset(EQUITY_IRR_ATTEMPTS)

THIS_YEAR, YEAR_BEFORE = "\x00", "\x01"  # placeholder column letters of a CashFlow year template (read as columns)
_STRING = re.compile(r'"[^"]*"')
# a single-cell reference, optionally sheet-qualified; not one end of a range, not part of a name or a call
_REF = re.compile(r"(?<![\w.:$!])((?:([A-Za-z_][\w]*)!)?\$?(?:[A-Z]{1,3}|[\x00\x01])\$?(\d+))(?![\w(:!])")


class NaGuard:
    """Wraps a formula core so that it reads n/a where one of its operands is n/a."""

    def __init__(self, sheet: str, row_key: Callable[[str, int], str | None]):
        """sheet: the sheet the formulas live on; row_key(sheet, row): the key of that row (None: not a
        keyed row, e.g. the year header)."""
        self.sheet, self.row_key = sheet, row_key
        self._maybe: dict[str, bool] = {}  # by reference text: a CashFlow block's formulas read the same cells often

    def operands(self, core: str) -> list[str]:
        """The cells `core` reads that may hold n/a, in order, each once."""
        maybe = self._maybe
        found = {}
        for text, sheet, row in _REF.findall(_STRING.sub('""', core) if '"' in core else core):
            may = maybe.get(text)
            if may is None:
                sheet = sheet or self.sheet
                key = self.row_key(sheet, int(row))
                may = maybe[text] = key is not None and _may_be_na(sheet, key)
            if may:
                found[text] = True
        return list(found)

    def expr(self, core: str) -> str:
        """core, or n/a where an operand is (an expression, to nest)."""
        refs = self.operands(core)
        if not refs:
            return core
        test = refs[0] + f"={NA}" if len(refs) == 1 else "OR(" + ",".join(f"{r}={NA}" for r in refs) + ")"
        return f"IF({test},{NA},{core})"

    def __call__(self, core: str) -> str:
        """The formula (with its "="): core, or n/a where an operand is."""
        return "=" + self.expr(core)

    def when(self, condition: str, core: str, otherwise: str = "0") -> str:
        """IF(condition, core or n/a, otherwise): the condition (over operands never n/a) decides first, so a
        tranche that does not serve in a year costs 0 there even where its numbers are n/a."""
        return f"=IF({condition},{self.expr(core)},{otherwise})"


@functools.lru_cache(maxsize=None)
def _may_be_na(sheet: str, key: str) -> bool:
    if sheet == S.RESULTS:
        return base_key(key) not in RESULTS_NEVER_NA
    if sheet == S.CASH_FLOW:
        return base_key(key) not in CASHFLOW_NEVER_NA
    return False  # inputs: a number, blank, or (typed by hand) text that makes an error


def compiled(expr: Expr, ref: Callable[[str], str], guard: NaGuard, outflow: bool = False) -> str:
    """The formula of a row written as an expression (engine/quantities/expr.py), `ref(name)` the cell of each name
    it reads. A gate at its top (`gated`) decides first and only the value is guarded against n/a (a pool that
    does not serve costs 0); an outflow reads negative: "-" before the value (Excel negates its first operand,
    exactly the value negated; a sum in parentheses)."""
    def signed(value: Expr) -> str:
        text = value.excel(ref, NA)
        if not outflow:
            return text
        return f"-({text})" if value.precedence <= 1 else "-" + text  # a sum negated whole: -(a+b)

    if isinstance(expr, Gate):
        return guard.when(expr.test.excel(ref, NA), signed(expr.then), expr.otherwise.excel(ref, NA))
    if isinstance(expr, PoolsTotal) and isinstance(expr.of, Gate) and not outflow:
        return _gated_pools(expr, ref, guard)
    return guard(signed(expr))


def _gated_pools(expr: PoolsTotal, ref: Callable[[str], str], guard: NaGuard) -> str:
    """The sum over pools of a gated term, IF(test_k, value_k, 0) each: n/a where a pool's test holds and an
    operand of its value is n/a (a pool whose gate is shut adds 0, as the engine's)."""
    gate = expr.of
    assert isinstance(gate, Gate)
    terms, unknown = [], []
    for k in range(1, int(ref(POOL_COUNT)) + 1):
        test, value = expr.pool_term(ref, k, NA, gate.test), expr.pool_term(ref, k, NA, gate.then)
        terms.append(f"IF({test},{value},{expr.pool_term(ref, k, NA, gate.otherwise)})")
        operands = guard.operands(value)
        if operands:
            unknown.append(f"AND({test},{_any_na(operands)})")
    core = "+".join(terms)
    return f"=IF({_any_of(unknown)},{NA},{core})" if unknown else "=" + core


def _any_na(operands: list[str]) -> str:
    return _any_of([f"{r}={NA}" for r in operands])


def _any_of(tests: list[str]) -> str:
    return tests[0] if len(tests) == 1 else "OR(" + ",".join(tests) + ")"


def none_na(rng: str) -> str:
    """True where no cell of the range reads n/a (an error in it is not counted: it flows on)."""
    return f'COUNTIF({rng},{NA})=0'
