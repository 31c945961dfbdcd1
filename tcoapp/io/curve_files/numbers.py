"""The numbers of a curve file in the file's own convention (tcoapp/engine/number_text.py).

The convention (decimal point or comma, thousands grouping) is decided once per file from the
columns the format reads as numbers; every such cell is then rewritten as plain text (`4.000` in a
German save -> `4000`), so the count check, the point parser and the configuration (ISL, OSL, TP,
workers) all read one text. A file holding both conventions, or a number its convention cannot
read (`12,34,567`), is refused in one line naming the convention and the fix.
"""
from __future__ import annotations

import dataclasses
import re
from math import inf

from ...engine.core.errors import Problem, ValidationError
from ...engine.core.physical_bounds import BOUNDS
from ...engine.core.number_text import (COMMA, POINT, AmbiguousNumbers, Convention, MixedConventions, detect, integer_text,
                                        looks_numeric, plain_text)
from .formats import Format
from .table import ColumnRows, Table, header_key

# configuration / knob columns that hold numbers (the others hold names and labels)
_NUMBER_KEYS = frozenset(("prefix", "ctxtokens"))


def number_columns(spec: Format, table: Table, count_keys: frozenset[str]) -> list[int]:
    """Indices of the columns the format reads as numbers (points, pool rates, counts)."""
    index = table.index()
    out = {hit[0] for column in spec.columns.values() if (hit := column.find(index)) is not None}
    out |= {index[k] for k in (*spec.config, *spec.knobs) if k in index and (k in count_keys or k in _NUMBER_KEYS)}
    return sorted(out)


def _cells(table: Table, columns: list[int], numeric_only: bool = True):
    """(row, column, text) of the number columns' cells (with numeric_only, those that look numeric)."""
    if not columns:
        return
    for row, cells in table.rows:
        for i in columns:
            if i < len(cells) and (not numeric_only or looks_numeric(cells[i])):
                yield row, i, cells[i]


_BOUNDED = ("tokens_per_s_per_device", "tokens_per_s_per_user")


def _plausible(spec: Format, table: Table, count_keys: frozenset[str], columns: list[int]):
    """decimal -> whether every number cell read with it is physically possible: counts (batch, TP,
    workers, ...) whole numbers, rates within their physical bounds (engine/core/physical_bounds.py)."""
    index = table.index()
    counts = {i for i, h in enumerate(table.headers) if header_key(h) in count_keys}
    if (hit := spec.columns["batch"].find(index)) is not None:
        counts.add(hit[0])
    bounds = {hit[0]: BOUNDS[f][0] for f in _BOUNDED if f in spec.columns
              and (hit := spec.columns[f].find(index)) is not None}

    def plausible(decimal: str) -> bool:
        for _, i, text in _cells(table, columns):
            plain = plain_text(text, decimal)
            if plain is None or (i in counts and not float(plain).is_integer()) or float(plain) > bounds.get(i, inf):
                return False
        return True
    return plausible


def convention(spec: Format, table: Table, count_keys: frozenset[str]) -> tuple[Convention, list[int]]:
    """The file's number convention and the number columns that may need rewriting (not those of whole
    numbers only). Raises ValidationError with one line when the file holds two conventions, or when
    every number of a ';'- or tab-separated file reads two ways and physics does not tell: in a
    ','-separated file a decimal comma would need every number quoted, so its numbers have a point."""
    columns = number_columns(spec, table, count_keys)
    varied = [i for i in columns if not _whole_digits(table, i)]
    default = (COMMA, "its ';' between cells (no number that reads only one way)") if table.decimal_comma else (POINT, "")
    try:
        found = detect(((f"row {row} {table.headers[i]}", text) for row, i, text in _cells(table, varied, False)), *default,
                       plausible=_plausible(spec, table, count_keys, columns), default_decides=table.delimiter == ",")
    except (MixedConventions, AmbiguousNumbers) as exc:
        raise ValidationError([Problem(table.name, "", exc.line())]) from None
    return found, varied


# cells of digits with an optional '-' in front ('4000', '-12', '', '-'), one per line: each reads the
# same in both conventions and is plain already (or is no number at all)
_DIGITS_ONLY = re.compile(r"[0-9\n]*")
_WHOLE_DIGITS = re.compile(r"(?:-?[0-9]*\n)*-?[0-9]*")


def _whole_digits(table: Table, i: int) -> bool:
    """Whether every cell of column i is digits with an optional '-' (or empty): then the column neither
    decides the convention nor changes (checked in one pass over the column: most columns of a large
    file are counts; a coded column's distinct texts only)."""
    coded = table.rows.coded(i) if isinstance(table.rows, ColumnRows) else None
    texts = table.column(i) if coded is None else coded.uniques
    joined = "\n".join(texts)
    if joined.count("\n") != max(len(texts) - 1, 0):
        return False   # a cell holds a line break
    return _DIGITS_ONLY.fullmatch(joined) is not None or _WHOLE_DIGITS.fullmatch(joined) is not None


def localized(spec: Format, table: Table, count_keys: frozenset[str]) -> Table:
    """`table` with every number cell of the format's number columns as plain text ('1234.5'); a cell its
    convention cannot read is refused (one line: the first such cell and how many there are)."""
    found, columns = convention(spec, table, count_keys)
    counts = {i for i, h in enumerate(table.headers) if header_key(h) in count_keys | _NUMBER_KEYS}
    rows, changed, bad = _rewritten(table, columns, found.decimal, counts) if columns else (table.rows, False, [])
    if bad:
        row, i, text = bad[0]
        more = f" (and {len(bad) - 1} more cell(s) like it)" if len(bad) > 1 else ""
        raise ValidationError([Problem(table.where(row), table.headers[i], found.refusal(text) + more)])
    notes = table.notes
    if found.decimal == COMMA or changed and found.because:
        notes = (*notes, f"{table.name}: {found.stated()}")
    return dataclasses.replace(table, rows=tuple(rows) if changed else table.rows, decimal_comma=False, notes=notes)


def _rewritten(table: Table, columns: list[int], decimal: str, counts: set[int]):
    """(rows with the cells of `columns` as plain text, whether any changed, the (row, column, text) of
    the number-like cells `decimal` cannot read)."""
    bad: list[tuple[int, int, str]] = []
    rows, changed = [], False
    for row, cells in table.rows:
        edited = None
        for i in columns:
            if i >= len(cells):
                continue
            plain = plain_text(cells[i], decimal)   # None: not a number, or not one written this way
            if plain is None:
                if looks_numeric(cells[i]):
                    bad.append((row, i, cells[i].strip()))
                continue
            if i in counts:
                plain = integer_text(plain)   # `2.00` workers (a "2 decimals" re-save) is 2
            if plain != cells[i]:
                edited = edited or list(cells)
                edited[i], changed = plain, True
        rows.append((row, cells if edited is None else tuple(edited)))
    return rows, changed, bad
