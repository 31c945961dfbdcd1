"""Checks of a file's header and configuration cells before its rows become curves.

- A header the format reads that appears twice (`TP` in two columns, as a spreadsheet paste can
  leave) is an error naming both columns: which one holds the value is not for the reader to guess.
- A configuration cell the engine reads as a count (TP, EP, DP, workers, ISL, OSL, GPUs, ...) must
  be a whole number >= 0 (`TP = inf`, `TP = 2.5` are errors naming row and column); a true/false
  cell (Disaggregated, DP Attention, ...) must be a boolean in a spreadsheet's locale (TRUE, WAHR,
  VRAI, 1, ...).
"""
from __future__ import annotations

from ...engine.core.errors import Problem
from .config import boolean_problem
from .formats import Format
from .table import Table, header_key

_POOL_COUNTS = ("workers", "tp", "pp", "dp", "moetp", "moeep", "cp", "bs")
COUNT_KEYS = frozenset(("isl", "osl", "tp", "pp", "dp", "ep", "moetp", "moeep", "cp", "numtotalgpus",
                        "numprefillchips", "numprefillgpus", "numdecodechips", "numdecodegpus", "physicalchips",
                        "tensorparallel", *(f"{side}{k}" for side in "pde" for k in _POOL_COUNTS)))
BOOLEAN_KEYS = frozenset(("disaggregated", "dpattention", "ismultinode"))
# the largest count a file may state: no deployment has more GPUs, workers or parallel ranks, and no
# request more tokens (a 1e30 decode workers would size fleets past any float's meaning)
MAX_COUNT = 1_000_000
MAX_TOKENS = 100_000_000
_TOKEN_KEYS = frozenset(("isl", "osl"))


def _read_keys(spec: Format, table: Table) -> set[str]:
    """Header keys of the columns the format reads (points, configuration, knobs)."""
    index = table.index()
    keys = set(spec.config) | set(spec.knobs)
    for column in spec.columns.values():
        hit = column.find(index)
        if hit is not None:
            keys.add(header_key(table.headers[hit[0]]))
    return keys


def header_problems(spec: Format, table: Table) -> list[Problem]:
    """One problem per header the format reads that appears in more than one column."""
    seen: dict[str, list[int]] = {}
    for i, header in enumerate(table.headers):
        if header.strip():
            seen.setdefault(header_key(header), []).append(i)
    used = _read_keys(spec, table)
    problems = []
    for key, cols in seen.items():
        if len(cols) > 1 and key in used:
            from openpyxl.utils import get_column_letter   # only here: a file read without it starts faster
            where = ", ".join(f"{get_column_letter(c + 1)}" for c in cols)
            problems.append(Problem(table.where(table.header_row), table.headers[cols[0]],
                                    f"appears in {len(cols)} columns ({where}): keep one (which holds the value "
                                    "cannot be guessed)"))
    return problems


def config_problems(spec: Format, table: Table) -> list[Problem]:
    """One problem per configuration cell that is not a whole number >= 0 (counts) or a boolean."""
    index = table.index()
    problems = []
    for key in sorted(set(spec.config) & (COUNT_KEYS | BOOLEAN_KEYS), key=lambda k: index.get(k, 0)):
        i = index.get(key)
        if i is None:
            continue
        for row, cells in table.rows:
            text = cells[i].strip() if i < len(cells) else ""
            if not text:
                continue
            largest = MAX_TOKENS if key in _TOKEN_KEYS else MAX_COUNT
            error = boolean_problem(text) if key in BOOLEAN_KEYS else _count_problem(text, largest)
            if error:
                problems.append(Problem(table.where(row), table.headers[i], error))
    return problems


def _count_problem(text: str, largest: int) -> str | None:
    """The problem of a count cell's text, already in plain form (numbers.localized), as rows.py reads it."""
    try:
        value = float(text)
    except ValueError:
        return f"= {text!r}: not a number (a whole number >= 0)"
    if value != value or value in (float("inf"), float("-inf")) or value < 0 or not value.is_integer():
        return f"= {text}: must be a whole number >= 0"
    if value > largest:
        return f"= {text}: must be a whole number from 0 to {largest:,}"
    return None
