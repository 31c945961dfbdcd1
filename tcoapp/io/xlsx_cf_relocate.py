"""A plan's CashFlow block and Results formulas moved to another plan's: compiled once per pool count, not once per plan.

Two plans with the same number of pools have blocks of the same rows in the same order; their formulas differ only
in the plan's column on Plans and Results (`Plans!$C$5` -> `Plans!$D$5`) and in the block's rows on CashFlow
(`C12` -> `C80`, `$C$12:$M$12` -> `$C$80:$M$80`); the n/a guards name the same operands, as they go by the row's
key (xlsx_na.NaGuard). `relocated` rewrites the references so, outside quoted texts; anything it cannot place
with certainty -- a CashFlow row outside both the block and the header rows, another plan's column on Plans or
Results -- makes it return None, and the caller compiles the block itself (tests/io/test_cashflow_template.py
pins every block of the samples equal to its own compile).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from . import sheets as S
from .xlsx_layout import CF_FIRST_BLOCK_ROW

_STRING = re.compile(r'("[^"]*")')
_CELL = r"(\$?)([A-Z]{1,3}|[\x00\x01])(\$?)(\d+)"
# a cell or a range, optionally sheet-qualified; not part of a name, a call or a longer reference
_REF = re.compile(r"(?<![\w.$!:\x00\x01])(?:([A-Za-z_]\w*)!)?" + _CELL + r"(?::" + _CELL + r")?")
_AFTER = re.compile(r"[\w(!:\x00\x01]")   # what may not follow a reference matched whole
_PLAN_SHEETS = (S.PLANS, S.RESULTS)   # a column per plan, its rows the same for every plan
_SHARED_SHEETS = (S.CONSTANTS, S.DEVICES, S.MODELS, S.PRICE_TIERS, S.CURVES)   # nothing per plan


class _Unplaced(Exception):
    """A reference the move cannot place with certainty."""


@dataclass(frozen=True)
class Block:
    """Where a plan's block is: its column on Plans and Results, its first and last row on CashFlow."""

    col: str
    first_row: int
    last_row: int


class Movable:
    """Formula texts of the block at `source`, parsed once into a format string per text and the references it
    holds: moving them to another block rewrites each distinct reference once and formats each text (no regex
    pass per block)."""

    def __init__(self, texts: dict, source: Block, home: str = S.CASH_FLOW):
        """texts: formulas by key, on the sheet `home` (CashFlow or Results: its references without a sheet)."""
        self.source, self.home = source, home
        self._refs: dict[str, int] = {}      # reference text -> its index in the format arguments
        self._parsed: list[tuple] = []       # (sheet, cell groups, range-end groups or None) by index
        self.placeable = True
        formats: dict[str, str] = {}         # by text: the same text parsed once
        self.formats = {}
        for key, text in texts.items():
            fmt = formats.get(text)
            if fmt is None:
                fmt = formats[text] = self._format(text)
            self.formats[key] = fmt

    def _format(self, text: str) -> str:
        if '"' not in text:
            return self._format_part(text)
        parts = _STRING.split(text)   # odd indices: quoted texts, kept
        return "".join(_braced(part) if i % 2 else self._format_part(part) for i, part in enumerate(parts))

    def _format_part(self, text: str) -> str:
        out, at = [], 0
        for match in _REF.finditer(text):
            end = match.end()
            if end < len(text) and _AFTER.match(text, end):
                if match.group(1) or match.group(6) or not (text[end] == "(" or text[end].isalnum() or text[end] == "_"):
                    self.placeable = False   # a longer reference than matched: not placed
                continue                     # a call (LOG10) or a name (A1B): not a reference
            ref = match.group(0)
            index = self._refs.get(ref)
            if index is None:
                index = self._refs[ref] = len(self._parsed)
                self._parsed.append((match.group(1), match.group(2, 3, 4, 5),
                                     match.group(6, 7, 8, 9) if match.group(6) is not None else None))
            out.append(_braced(text[at:match.start()]) + "{%d}" % index)
            at = end
        out.append(_braced(text[at:]))
        return "".join(out)

    def moved(self, target: Block) -> dict[str, str] | None:
        """The texts as the block at `target` has them; None where a reference cannot be placed with certainty
        (the caller compiles them instead)."""
        source = self.source
        if not self.placeable or target.last_row - target.first_row != source.last_row - source.first_row:
            return None
        shift = target.first_row - source.first_row
        try:
            refs = [_moved_ref(sheet, sheet or self.home, cell, end, source, target.col, shift)
                    for sheet, cell, end in self._parsed]
        except _Unplaced:
            return None
        return {key: fmt.format(*refs) for key, fmt in self.formats.items()}


def relocated(texts: dict[str, str], source: Block, target: Block, home: str = S.CASH_FLOW) -> dict[str, str] | None:
    """`texts` (formulas on `home` of the plan at `source`) as the plan at `target` has them; None where a reference
    cannot be placed with certainty."""
    return Movable(texts, source, home).moved(target)


def _braced(text: str) -> str:
    """A literal part of a format string."""
    return text.replace("{", "{{").replace("}", "}}") if "{" in text or "}" in text else text


def _moved_ref(sheet: str | None, on: str, cell, end, source: Block, col: str, shift: int) -> str:
    """A reference written `sheet`!... (None: none), on the sheet `on`, moved."""
    out = (f"{sheet}!" if sheet else "") + _cell(cell, on, source, col, shift)
    return out if end is None else out + ":" + _cell(end, on, source, col, shift)


def _cell(groups, sheet: str, source: Block, col: str, shift: int) -> str:
    col_abs, letter, row_abs, row = groups
    if sheet in _PLAN_SHEETS:
        if letter != source.col:
            raise _Unplaced(f"{sheet}!{letter}{row}")
        return f"{col_abs}{col}{row_abs}{row}"
    if sheet in _SHARED_SHEETS:
        return f"{col_abs}{letter}{row_abs}{row}"   # a table every plan reads alike
    if sheet != S.CASH_FLOW:
        raise _Unplaced(f"{sheet}!{letter}{row}")   # a sheet with a row or column per plan (Checks, Pools)
    number = int(row)
    if source.first_row <= number <= source.last_row:
        return f"{col_abs}{letter}{row_abs}{number + shift}"
    if number < CF_FIRST_BLOCK_ROW:
        return f"{col_abs}{letter}{row_abs}{row}"   # the year header and the banner
    raise _Unplaced(f"{letter}{row}")


def block_of(layout, index: int) -> Block:
    """Plan `index`'s block (xlsx_layout.Layout)."""
    first = layout.cf_block_row(index)
    return Block(layout.plan_col(index), first, layout.cf_block_row(index + 1) - 1)

