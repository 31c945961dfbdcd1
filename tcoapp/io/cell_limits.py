"""Excel's limits on one cell, checked on input and on output so that a round trip never changes text.

A cell holds at most 32,767 characters (Excel's limit; openpyxl cuts longer text silently when it
writes). A longer text read from a workbook is a problem naming its cell, not a value to keep: the
next save could not write it back.
"""
from __future__ import annotations

from typing import Any, Iterable

from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

from ..engine.core.errors import Problem, shown

MAX_CELL_TEXT = 32_767


def text_too_long(value: Any) -> bool:
    return isinstance(value, str) and len(value) > MAX_CELL_TEXT


def too_long_message(value: str) -> str:
    return (f"holds {len(value):,} characters of text: a workbook cell holds at most {MAX_CELL_TEXT:,} "
            "(Excel's limit)")


def long_text_problems(cells: Iterable[tuple[str, Any]]) -> list[Problem]:
    """A problem for each (where, value) whose text is over the limit."""
    return [Problem(where, "", too_long_message(value)) for where, value in cells if text_too_long(value)]


def unwritable_text(text: str) -> str | None:
    """Why `text` cannot be written to a cell as it is, or None."""
    if text_too_long(text):
        return f"{shown(text)} {too_long_message(text)}"
    if ILLEGAL_CHARACTERS_RE.search(text):
        return f"text {shown(text)} holds characters a workbook cannot store (control characters)"
    return None
