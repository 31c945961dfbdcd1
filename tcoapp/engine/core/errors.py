"""Domain errors: every problem names its place (sheet and cell, or field), the value and the rule."""
from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

VALUE_SHOWN_CHARS = 60     # an error line quotes at most this much of a bad value
LINE_CHARS = 400           # and is at most this long (a 32,767-character cell is never echoed in full)


def shown(value: Any, limit: int = VALUE_SHOWN_CHARS) -> str:
    """A bad value as an error message quotes it, as the user wrote or sees it (never a Python repr:
    TRUE not True, a date as 2025-03-15, a list or an object by its kind), text quoted, cut to `limit`
    characters with its length stated."""
    text = _as_seen(value)
    if len(text) <= limit:
        return text
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{text[:limit]}... ({len(str(abs(value))):,} digits)"
    size = len(value) if isinstance(value, str) else len(text)
    return f"{text[:limit]}... ({size:,} characters)"


def as_text(value: Any) -> str:
    """A cell value as the text a spreadsheet shows (TRUE, 2025-03-15, 1.5); text as it is."""
    return value if isinstance(value, str) else _as_seen(value)


def _as_seen(value: Any) -> str:
    """The text a spreadsheet or a person would show for `value` (text quoted)."""
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        value = value.item()          # np.float64(1.5) is 1.5, np.True_ is TRUE
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        return repr(value)            # text, quoted (its control characters visible)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=" ", timespec="seconds").removesuffix(" 00:00:00")
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return f"a duration of {value}"
    if isinstance(value, (list, tuple, set, frozenset, dict)):
        return f"a {type(value).__name__} of {len(value)} item(s)"
    return f"a value of type {type(value).__name__}"


def shorten(line: str, limit: int = LINE_CHARS) -> str:
    """A line cut in the middle to `limit` characters, keeping its start (where) and end (the rule)."""
    if len(line) <= limit:
        return line
    tail = limit // 4
    return f"{line[:limit - tail - 5]} ... {line[-tail:]}"


@dataclass(frozen=True)
class Problem:
    """One invalid input. `where` is "Plans!D14" from a workbook, or a field path otherwise."""

    where: str
    field: str
    message: str

    def __str__(self) -> str:
        field = shorten(self.field, VALUE_SHOWN_CHARS)   # a key is the user's text: it may be huge
        where = shorten(self.where, LINE_CHARS // 2)     # a file name may be long, and is kept
        head = f"{where} {field}" if field else where
        sep = " " if self.message.startswith("=") else ": "
        return shorten(head + sep + self.message)


class TcoError(Exception):
    """Base of every error the app shows to a user (never a traceback)."""


class ValidationError(TcoError):
    """Raised with every problem found at once."""

    def __init__(self, problems: list[Problem] | tuple[Problem, ...]):
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def raise_if(problems: list[Problem]) -> None:
    """Raise ValidationError with every problem, if there is any."""
    if problems:
        raise ValidationError(problems)


class Cancelled(TcoError):
    """A long computation (a frontier sweep) was cancelled by its `should_cancel` callable."""
