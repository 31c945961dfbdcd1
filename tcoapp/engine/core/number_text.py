"""The one reader of numbers written as text (curve files, measurement files, text typed in a
workbook cell or the API), in every spreadsheet locale's convention. Pure text: it lives beside the
validator, which reads typed text with it; the file readers (tcoapp/io) decide a file's convention
with `detect`.

A file's numbers follow one convention: a decimal point (US/UK `1,234.5`, Swiss `1'234.5`) or a
decimal comma (German `1.234,5`, French `1 234,5` with a space, no-break space or U+202F). The
convention is decided per FILE from the cells that can only be read one way (`0,42`, `1.234,5`,
`1,234.5`, `0.42`, `8.192,000000`); a cell that reads two ways (`4.000`: 4 or 4000) is read by the
file's convention, never guessed per cell. With no such cell the file's separator decides (a
';'-separated file is a decimal-comma locale's save). Grouping must be exact (groups of three
digits, one separator per number); anything else, or a file holding both conventions, is refused
in one line that names the convention and the fix.

Text that does not look like a number at all (`abc`, `inf`, `2026-02-09`) is left as it is: the
caller says what it expected.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable

POINT, COMMA = ".", ","
_SPACES = " \u00a0\u202f\u2009"
_APOSTROPHES = "'\u2019"
_SEPARATORS = POINT + COMMA + _SPACES + _APOSTROPHES
_LOOKS_NUMERIC = re.compile(r"^[+\-\u2212]?[0-9" + re.escape(_SEPARATORS) + r"]*[0-9][0-9" + re.escape(_SEPARATORS)
                            + r"]*([eE][+\-]?[0-9]+)?$")
FIX = ("save it again with one number format (Excel: File > Options > Advanced > 'Use system separators'), "
       "or as 'CSV UTF-8 (comma delimited)' from an English-locale spreadsheet")


def looks_numeric(text: str) -> bool:
    """Whether `text` is digits with signs and separators only (a number in some locale)."""
    return bool(_LOOKS_NUMERIC.match(text.strip()))


def _split(text: str) -> tuple[str, str, str]:
    """(sign, mantissa, exponent) of a numeric-looking text."""
    text = text.strip()
    sign = ""
    if text[0] in "+-\u2212":
        sign, text = ("-" if text[0] != "+" else ""), text[1:]
    match = re.search(r"[eE][+\-]?[0-9]+$", text)
    if match:
        return sign, text[:match.start()], match.group(0)
    return sign, text, ""


def _integer_part(part: str) -> str | None:
    """Digits of an integer part with optional exact thousands grouping (one separator), or None."""
    if part.isdigit():
        return part
    separators = {c for c in part if not c.isdigit()}
    if len(separators) != 1 and not (separators and separators <= set(_SPACES)):
        return None
    groups = re.split("[" + re.escape("".join(separators)) + "]", part)
    if not (1 <= len(groups[0]) <= 3) or any(len(g) != 3 for g in groups[1:]) or not all(g.isdigit() for g in groups):
        return None
    return "".join(groups)


def _read(text: str, decimal: str) -> float:
    """The number `text` is with `decimal` as decimal separator (it is one: `readings` says so)."""
    plain = plain_text(text, decimal)
    assert plain is not None, (text, decimal)
    return float(plain)


# The shapes most cells have, read without the general parse (the same answer, per cell in a
# 100,000-row file): digits with an optional '-' (the same under both conventions), and digits with
# one point between them (a decimal point, or with a decimal comma one thousands group).
_INTEGER = re.compile(r"-?[0-9]+")
_ONE_POINT = re.compile(r"(-?)([0-9]+)\.([0-9]+)")


def plain_text(text: str, decimal: str) -> str | None:
    """`text` as a plain number text ('1234.5') when read with `decimal` as decimal separator, or None
    when it is not a number written that way."""
    if _INTEGER.fullmatch(text):
        return text
    one_point = _ONE_POINT.fullmatch(text)
    if one_point:
        if decimal == POINT:
            return text
        sign, whole, group = one_point.groups()
        return sign + whole + group if len(whole) <= 3 and len(group) == 3 else None
    return _plain_text(text, decimal)


def _plain_text(text: str, decimal: str) -> str | None:
    """plain_text's general parse: any sign, grouping, exponent and surrounding space."""
    if not looks_numeric(text):
        return None
    sign, mantissa, exponent = _split(text)
    whole, _, fraction = mantissa.partition(decimal)
    if fraction and not fraction.isdigit():
        return None
    if exponent and not whole.isdigit():
        return None
    digits = _integer_part(whole) if whole else "0" if fraction else None
    if digits is None:
        return None
    return sign + digits + ("." + fraction if fraction else "") + exponent


def integer_text(plain: str) -> str:
    """A plain number text that is an exact integer written with decimals (`2.00`, `4000.0`, from a
    spreadsheet's "2 decimals" format) as the integer (`2`, `4000`); any other text unchanged."""
    match = re.fullmatch(r"([+\-]?[0-9]+)\.0+", plain.strip())
    return match.group(1) if match else plain


def readings(text: str) -> frozenset[str]:
    """The decimal separators ('.', ',') under which `text` is a number."""
    return frozenset(d for d in (POINT, COMMA) if plain_text(text, d) is not None)


def _differ(text: str) -> bool:
    return len(readings(text)) == 2 and plain_text(text, POINT) != plain_text(text, COMMA)


@dataclass(frozen=True)
class Convention:
    """How one file writes its numbers: the decimal separator, and why it was chosen."""

    decimal: str
    because: str = ""          # "row 3 ttft = '1.220,241'" or "its ';' between cells"

    @property
    def name(self) -> str:
        """The convention in words, with examples of the countries' spreadsheets that write it."""
        return ("decimal comma (1.234,5 or 1 234,5: German, French, ... spreadsheets)" if self.decimal == COMMA
                else "decimal point (1,234.5 or 1'234.5: US, UK, Swiss spreadsheets)")

    def stated(self) -> str:
        """The sentence a warning states the file's convention with (and what showed it)."""
        return f"numbers read with a {self.name}" + (f", as {self.because} shows" if self.because else "")

    def read(self, text: str) -> float | None:
        """The number `text` holds in this convention, or None (not a number written this way)."""
        plain = plain_text(text, self.decimal)
        return None if plain is None else float(plain)

    def refusal(self, text: str) -> str:
        """The one line for a number-like cell this convention cannot read."""
        return (f"= {text!r} is not a number written with this file's {self.name}"
                + (f" (see {self.because})" if self.because else "") + f": {FIX}")


class MixedConventions(ValueError):
    """A file holding numbers of both conventions: (cell, text) of one of each."""

    def __init__(self, point: tuple[str, str], comma: tuple[str, str]):
        super().__init__("mixed number conventions")
        self.point, self.comma = point, comma

    def line(self) -> str:
        """The one refusal line: a cell of each convention and the fix."""
        return (f"numbers are written two ways: {self.point[0]} = {self.point[1]!r} has a decimal point, "
                f"{self.comma[0]} = {self.comma[1]!r} a decimal comma; {FIX}")


class AmbiguousNumbers(ValueError):
    """A file whose every number that differs between the two conventions reads both ways (`45.125`:
    45.125 or 45125), with no cell that decides: (cell, text) of the first such number."""

    def __init__(self, where: str, text: str):
        super().__init__("ambiguous numbers")
        self.where, self.text = where, text

    def line(self) -> str:
        """The one refusal line: both readings of the first ambiguous cell and the fix."""
        point, comma = (_read(self.text, d) for d in (POINT, COMMA))
        return (f"every number reads two ways and none decides: {self.where} = {self.text} is {point:.15g} with a "
                f"decimal point and {comma:.15g} with a decimal comma, and both readings are plausible; {FIX}")


def detect(cells: Iterable[tuple[str, str]], default_decimal: str = POINT, default_because: str = "",
           plausible: Callable[[str], bool] | None = None, default_decides: bool = False) -> Convention:
    """The convention of a file's number cells ((where, text) pairs): the cells that read only one way
    decide. With none, and no cell that reads two ways differently, `default_decimal`. With none and
    such cells (`45.125`: 45.125 or 45125), `default_decimal` where `default_decides` (a ','-separated
    file: a decimal comma there would need every number quoted), else `plausible(decimal)` (whether
    every number is physically possible read that way) when it holds for one reading only; else
    AmbiguousNumbers. Raises MixedConventions when cells of both kinds exist."""
    seen: dict[str, tuple[str, str]] = {}
    ambiguous: tuple[str, str] | None = None
    for where, text in cells:
        point, comma = plain_text(text, POINT), plain_text(text, COMMA)
        if point is not None and comma is not None and not any(a in text for a in _APOSTROPHES):
            if ambiguous is None and point != comma:   # reads both ways, differently (`4.000`)
                ambiguous = (where, text.strip())
        elif point is not None or comma is not None:
            # one reading only; apostrophe grouping (1'234) is Swiss/Liechtenstein: a decimal point
            seen.setdefault(POINT if point is not None else COMMA, (where, text.strip()))
            if len(seen) == 2:
                raise MixedConventions(seen[POINT], seen[COMMA])
    if seen:
        decimal, (where, text) = next(iter(seen.items()))
        return Convention(decimal, f"{where} = {text!r}")
    if ambiguous is None or default_decides:
        return Convention(default_decimal, default_because)
    fits = [d for d in (POINT, COMMA) if plausible is not None and plausible(d)]
    if len(fits) == 1:
        return Convention(fits[0], f"every number reads two ways ({ambiguous[0]} = {ambiguous[1]}); only this "
                                   "reading keeps every number within its physical bounds")
    raise AmbiguousNumbers(*ambiguous)


def read_typed(text: str, fraction: bool = False) -> tuple[float | None, str | None]:
    """A number typed as text in a workbook cell: (value, None) or (None, the reason). One cell has no
    file around it: a text that reads two ways differently (`4.000`, `1,200`) is refused, not guessed;
    `8%` is 0.08 where the field is a fraction (0..1)."""
    body = text.strip()
    percent = body.endswith("%")
    if percent:
        body = body[:-1].strip()
        if not fraction:
            return None, f"= {text!r}: a percentage where the field is not a fraction: type the number"
    if not looks_numeric(body):
        return None, None  # not numeric-looking: the caller says "not a number"
    if _differ(body):
        return None, (f"= {text!r} reads as {_read(body, POINT):.15g} with a decimal point and as "
                      f"{_read(body, COMMA):.15g} with a decimal comma: type it without grouping "
                      "(or as a number cell, not text)")
    kinds = readings(body)
    if not kinds:
        return None, f"= {text!r} is not a number in any spreadsheet convention: type it without grouping"
    value = _read(body, next(iter(sorted(kinds))))
    return (value / 100 if percent else value), None
