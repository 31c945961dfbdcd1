"""The number cells of a measurements CSV (docs/model.md, "How sure it is"), read once, in the
file's convention (tcoapp/engine/number_text.py), before any row is modelled.

A damaged cell (a number column holding text, `inf`, `nan` or a negative value) marks its row
`invalid` with the line and the column: `tcoapp accuracy` skips the row with that reason. A file that
mixes conventions is refused in one line. The cells come back as plain text
(`1.234,5` in a German save -> `1234.5`) so every later `float()` reads what the file meant.
"""
from __future__ import annotations

import math

from ..engine.core.errors import TcoError
from ..engine.core.number_text import (COMMA, POINT, AmbiguousNumbers, MixedConventions, detect, looks_numeric,
                                        plain_text)
from ..engine.core.physical_bounds import past_bound

NUMBER_COLUMNS = ("count", "batch_or_concurrency", "input_len", "output_len", "tokens_per_s_total",
                  "tokens_per_s_per_user", "tokens_per_s_per_gpu", "measured_power_w", "ttft_s", "ttft_limit_s",
                  "tpot_limit_s")
_ALLOWED = "a finite number >= 0, or empty where not stated"
_POSITIVE = frozenset(("input_len", "output_len"))   # a length of 0 tokens is no request
_WHOLE = frozenset(("batch_or_concurrency", "input_len"))   # output_len may be a dataset's mean
# columns with a physical bound per device (engine/core/physical_bounds.py); the totals are per system
_PHYSICAL = {"tokens_per_s_per_gpu": "tokens_per_s_per_device", "tokens_per_s_per_user": "tokens_per_s_per_user",
             "ttft_s": "ttft_s"}
# a column that may say in words what it is (`max (uncapped; ...)`: a run without a concurrency cap)
WORDS_ALLOWED = frozenset(("batch_or_concurrency",))


def convert_numbers(name: str, header: list[str], rows: list[tuple[int, dict]], delimiter: str = ",") -> None:
    """Read the number cells of `rows` ((CSV line, csv.DictReader dict) pairs) in the file's convention,
    in place: each becomes plain text (`1.234,5` in a German save -> `1234.5`). A damaged cell marks
    its row `invalid` with the line, the column and the allowed values (the row is skipped with that
    reason); a file that mixes conventions raises TcoError (one line). `delimiter`: the file's cell
    separator. Where no number decides, a ','-separated file has a decimal point (a decimal comma would
    need every number quoted); a ';'-separated one (a decimal-comma locale's save) a decimal comma
    where no number reads two ways differently, else the physically possible reading, else a refusal
    showing both readings."""
    usable = [(line, row) for line, row in rows if not row.get("invalid")]
    columns = [c for c in NUMBER_COLUMNS if c in header]
    cells = [(line, row, c, row[c].strip()) for line, row in usable for c in columns if (row[c] or "").strip()]
    numeric = [(f"line {line} {c}", text) for line, _, c, text in cells if looks_numeric(text)]
    try:
        convention = detect(numeric, COMMA if delimiter == ";" else POINT, default_decides=delimiter == ",",
                            plausible=lambda d: all(_problem(t, c, d) is None for _, _, c, t in cells))
    except (MixedConventions, AmbiguousNumbers) as exc:
        raise TcoError(f"measurements CSV {name!r}: {exc.line()}") from None
    for _, row in usable:
        for column in columns:
            if not (row[column] or "").strip():
                row[column] = ""          # a cell of spaces is an empty one
    _read_cells(cells, convention.decimal)
    if "measured_power_w" in columns:
        _power_per_device(usable)


def _power_per_device(rows) -> None:
    """A row whose measured power per device (the system's power over `count`) is past the physical
    bound is marked `invalid` (a power in mW, or a separator slip), never modelled."""
    for line, row in rows:
        try:
            power_w, count = float(row["measured_power_w"] or "nan"), float(row.get("count") or 1)
        except ValueError:
            continue          # already marked invalid, with its own reason
        problem = past_bound("power_w", power_w / max(count, 1))
        if problem and not row.get("invalid"):
            row["invalid"] = f"line {line}: column 'measured_power_w': {problem}"


def _read_cells(cells, decimal: str) -> None:
    """Each (line, row, column, text) cell as plain text in place, or its row marked `invalid` (the first
    damaged cell of a row names it)."""
    for line, row, column, text in cells:
        problem = _problem(text, column, decimal)
        if problem and not row.get("invalid"):
            row["invalid"] = f"line {line}: column {column!r}: {text!r} is {problem}"
        elif not problem and looks_numeric(text):
            row[column] = plain_text(text, decimal)


def _problem(text: str, column: str, decimal: str) -> str | None:
    if column in WORDS_ALLOWED and not looks_numeric(text) and not _float_word(text):
        return None
    plain = plain_text(text, decimal) if looks_numeric(text) else None
    if plain is None:
        return f"not a number ({_ALLOWED})"
    value = float(plain)
    if not math.isfinite(value) or value < 0:
        return f"out of range (must be {_ALLOWED})"
    if column == "count" and (value < 1 or not value.is_integer()):
        return "not a whole number of devices >= 1 (or empty: 1)"
    if column in _POSITIVE and value == 0:
        return "not a number of tokens > 0 (or empty where not stated)"
    if column in _WHOLE and not value.is_integer():
        return "not a whole number"
    bounded = _PHYSICAL.get(column)
    return past_bound(bounded, value) if bounded else None


def _float_word(text: str) -> bool:
    """`inf`, `nan`, `Infinity`: words Python's float() takes as numbers."""
    try:
        float(text)
    except ValueError:
        return False
    return True
