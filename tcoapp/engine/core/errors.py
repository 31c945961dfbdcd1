"""Domain errors: every problem names its place (sheet and cell, or field), the value and the rule."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

VALUE_SHOWN_CHARS = 60     # an error line quotes at most this much of a bad value
LINE_CHARS = 400           # and is at most this long (a 32,767-character cell is never echoed in full)


def shown(value: Any, limit: int = VALUE_SHOWN_CHARS) -> str:
    """repr() of a bad value for an error message, cut to `limit` characters with its length stated."""
    text = repr(value)
    if len(text) <= limit:
        return text
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{text[:limit]}... ({len(str(abs(value))):,} digits)"
    size = len(value) if isinstance(value, str) else len(text)
    return f"{text[:limit]}... ({size:,} characters)"


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
