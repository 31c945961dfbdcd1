"""The number cells of a measurements CSV (docs/model.md, "How sure it is"), read once, in the
file's convention (tcoapp/engine/number_text.py), before any row is modelled.

A damaged file is refused in one line naming the row and the column: a row with fewer or more cells
than the header (a copy that ends mid-line), a number column holding text, `inf`, `nan` or a
negative value; an empty file or one with only a header says so. The cells come back as plain text
(`1.234,5` in a German save -> `1234.5`) so every later `float()` reads what the file meant.
"""
from __future__ import annotations

import math

from ..engine.errors import TcoError
from ..engine.number_text import MixedConventions, detect, looks_numeric, plain_text

NUMBER_COLUMNS = ("count", "batch_or_concurrency", "input_len", "output_len", "tokens_per_s_total",
                  "tokens_per_s_per_user", "tokens_per_s_per_gpu", "measured_power_w", "ttft_s", "ttft_limit_s",
                  "tpot_limit_s")
_ALLOWED = "a finite number >= 0, or empty where not stated"
_POSITIVE = frozenset(("input_len", "output_len"))   # a length of 0 tokens is no request
# a column that may say in words what it is (`max (uncapped; ...)`: a run without a concurrency cap)
WORDS_ALLOWED = frozenset(("batch_or_concurrency",))


def checked_rows(name: str, header: list[str] | None, rows: list[dict]) -> list[dict]:
    """`rows` (csv.DictReader dicts; row k is the file's line k + 2) with their number cells as plain
    text; raises TcoError (one line) on the first damaged cell."""
    if not header:
        raise TcoError(f"measurements CSV {name!r}: the file is empty (a header row and one measurement per row "
                       "are needed)")
    if not rows:
        raise TcoError(f"measurements CSV {name!r}: no measurement rows under the header")
    for line, row in enumerate(rows, start=2):
        if None in row or any(v is None for v in row.values()):
            cells = len(header) + len(row.get(None, [])) - sum(v is None for v in row.values())
            raise TcoError(f"measurements CSV {name!r}: row {line} has {cells} cells, the header {len(header)} "
                           "(a copy that ends mid-line, or a stray comma): repair or delete the row")
    columns = [c for c in NUMBER_COLUMNS if c in header]
    cells = [(line, c, row[c].strip()) for line, row in enumerate(rows, start=2) for c in columns if row[c].strip()]
    try:
        convention = detect((f"row {line} {c}", text) for line, c, text in cells)
    except MixedConventions as exc:
        raise TcoError(f"measurements CSV {name!r}: {exc.line()}") from None
    bad = [(line, c, text) for line, c, text in cells if _problem(text, c, convention.decimal)]
    if bad:
        line, column, text = bad[0]
        more = f" (and {len(bad) - 1} more cell(s))" if len(bad) > 1 else ""
        raise TcoError(f"measurements CSV {name!r}: row {line} {column} = {text!r}: "
                       f"{_problem(text, column, convention.decimal)}{more}")
    for line, row in enumerate(rows, start=2):
        for column in columns:
            if not row[column].strip():
                row[column] = ""          # a cell of spaces is an empty one
    for line, column, text in cells:
        if looks_numeric(text):
            rows[line - 2][column] = plain_text(text, convention.decimal)
    return rows


def _problem(text: str, column: str, decimal: str) -> str | None:
    if column in WORDS_ALLOWED and not looks_numeric(text) and not _float_word(text):
        return None
    plain = plain_text(text, decimal) if looks_numeric(text) else None
    if plain is None:
        return f"not a number ({_ALLOWED})"
    value = float(plain)
    if not math.isfinite(value) or value < 0:
        return f"must be {_ALLOWED}"
    if column == "count" and (value < 1 or not value.is_integer()):
        return "must be a whole number of devices >= 1, or empty (1)"
    if column in _POSITIVE and value == 0:
        return "must be a number of tokens > 0, or empty where not stated"
    return None


def _float_word(text: str) -> bool:
    """`inf`, `nan`, `Infinity`: words Python's float() takes as numbers."""
    try:
        float(text)
    except ValueError:
        return False
    return True
