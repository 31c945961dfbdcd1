"""Domain errors: every problem names its place (sheet and cell, or field), the value and the rule."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One invalid input. `where` is "Plans!D14" from a workbook, or a field path otherwise."""

    where: str
    field: str
    message: str

    def __str__(self) -> str:
        head = f"{self.where} {self.field}" if self.field else self.where
        sep = " " if self.message.startswith("=") else ": "
        return head + sep + self.message


class TcoError(Exception):
    """Base of every error the app shows to a user (never a traceback)."""


class ValidationError(TcoError):
    """Raised with every problem found at once."""

    def __init__(self, problems: list[Problem] | tuple[Problem, ...]):
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def raise_if(problems: list[Problem]) -> None:
    if problems:
        raise ValidationError(problems)


class Cancelled(TcoError):
    """A long computation (a frontier sweep) was cancelled by its `should_cancel` callable."""
