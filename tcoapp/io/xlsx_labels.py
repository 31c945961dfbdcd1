"""Readable labels beside the keys of the output sheets (column B: "label (unit)").

A key of the quantity table is named by the table (tcoapp/engine/quantities/names.py: one label per
key on every surface). Only the rows a sheet has that are no quantity are named here: the Results
sheet's check, notes and search rows, and the CashFlow sheet's helper cells (discounted flows, the
IRR's starting points and sign tests). A workbook is read by its keys (column A), never by these
labels, so a file written with an earlier label reads as before.
"""
from __future__ import annotations

import functools

from ..engine.quantities.names import label
from .xlsx_layout import EQUITY_IRR_ATTEMPTS, IRR_ATTEMPTS, IRR_GUESSES, base_key

# Results rows that are no quantity of the table
RESULT_SHEET_LABELS = {
    "plan_check": "Is this plan current?",
    "costs_not_entered": "Costs not entered",
    "warnings": "Notes from the engine",
    "serving": "Configuration chosen by the search",
    "prediction_interval": "Prediction interval (80 %)",
    "frontier_share": "Share of its frontier (tokens/s per device)",
}
# CashFlow rows that are no quantity of the table: the sheet's own helper cells
CASHFLOW_SHEET_LABELS = {
    "discounted_cash_flow_usd": "Discounted cash flow", "cumulative_discounted_cash_flow_usd": "Cumulative discounted cash flow",
    "discounted_payback_year_fraction": "Helper: discounted payback crossing (year)",
    "payback_year_fraction": "Helper: payback crossing (year)", "flow_last_sign": "Helper: last sign of the flow",
    "flow_sign_change": "Helper: flow changes sign", "cumulative_last_sign": "Helper: last sign of the cumulative flow",
    "cumulative_sign_change": "Helper: cumulative flow changes sign",
    "irr_guess_engine": "Helper: IRR start, the engine's", "irr_guess_flows": "Helper: IRR start from the flows",
    "irr_guess_first_year": "Helper: IRR start from year 1", "irr_guess_last_year": "Helper: IRR start from the last year",
    "irr_floor": "Helper: lowest unique IRR",
    "active": "Serving this year",
    "equity_irr_guess_engine": "Helper: equity IRR start, the engine's",
    **{key: f"Helper: equity IRR() from start {i}" for i, key in enumerate(EQUITY_IRR_ATTEMPTS, start=1)},
    "equity_flow_last_sign": "Helper: last sign of the equity flow", "equity_flow_sign_change": "Helper: equity flow changes sign",
    "equity_cumulative_last_sign": "Helper: last sign of the cumulative equity flow",
    "equity_cumulative_sign_change": "Helper: cumulative equity flow changes sign",
    "equity_irr_floor": "Helper: lowest unique equity IRR",
    **{key: f"Helper: IRR() from start {i}" for i, key in enumerate(IRR_ATTEMPTS, start=1)},
}
assert len(IRR_ATTEMPTS) == len(IRR_GUESSES)


def _split(key: str) -> tuple[str, str]:
    """ "pool2.capex_usd" -> ("Pool 2: ", "capex_usd")."""
    base = base_key(key)
    return (f"Pool {key[4:key.index('.')]}: ", base) if base != key else ("", key)


def result_label(key: str) -> str:
    """A Results row's label: the key's (the table's), else the sheet's own row's."""
    prefix, base = _split(key)
    return prefix + (label(base) or RESULT_SHEET_LABELS.get(base) or base.replace("_", " ").capitalize())


@functools.lru_cache(maxsize=None)   # ~800 CashFlow rows a sample, of a few dozen keys
def cashflow_label(key: str) -> str:
    """A CashFlow row's label: the key's (the table's), else the sheet's own helper row's."""
    prefix, base = _split(key)
    return prefix + (label(base) or CASHFLOW_SHEET_LABELS.get(base) or base.replace("_", " ").capitalize())


