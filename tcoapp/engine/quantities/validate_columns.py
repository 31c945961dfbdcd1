"""`coerce_record` over many rows of one table, column by column (a Curves sheet holds tens of thousands).

`coerce_records(fields, raws, wheres)` gives what `[coerce_record(fields, raw, where, problems) for ...]` gives,
record for record, with each row's problems kept apart (`by_row`, in the order `coerce_record` appends them) so
the caller can put them where a row-by-row read would have. The cells `coerce_record` takes without its steps (a
finite float in range for a number field, a text that is not blank for a text field, an empty optional cell) are
checked a column at a time, numbers with numpy; every other cell goes through `coerce` as before.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ..core.errors import Problem
from .inputs import Field
from .validate import Locator, _named, coerce, coerce_record


def coerce_records(fields: tuple[Field, ...], raws: Sequence[Mapping[str, Any]],
                   wheres: Sequence[Locator]) -> tuple[list[dict[str, Any]], dict[int, list[Problem]]]:
    """(typed records, {row index: its problems}) of `raws` (module docstring)."""
    named = _named(fields)
    if any(not raw.keys() <= named.keys() for raw in raws):   # an unknown key: row by row, as coerce_record
        return _row_by_row(fields, raws, wheres)
    return coerce_columns(fields, {name: [raw.get(name) for raw in raws] for name in named}, wheres)


def coerce_columns(fields: tuple[Field, ...], columns: Mapping[str, Sequence[Any]],
                   wheres: Sequence[Locator]) -> tuple[list[dict[str, Any]], dict[int, list[Problem]]]:
    """coerce_records of the rows given column by column: {key: its cells, one per row of `wheres`}, every key one
    of `fields` (a key not given: every row's cell empty)."""
    named = _named(fields)
    count = len(wheres)
    typed: list[list] = []
    slow: list[tuple[int, int]] = []
    for position, (name, field, kind) in enumerate(named.values()):
        column, taken = _fast_column(field, kind, list(columns.get(name) or [None] * count))
        typed.append(column)
        slow.extend((i, position) for i in np.flatnonzero(~taken).tolist())
    names = list(named)
    records = [dict(zip(names, values)) for values in zip(*typed)] if typed else [{} for _ in range(count)]
    by_row: dict[int, list[Problem]] = {}
    entries = list(named.values())
    for i, position in sorted(slow):
        name, field, _ = entries[position]
        value, error = coerce(field, columns[name][i] if name in columns else None)
        if error:
            by_row.setdefault(i, []).append(Problem(wheres[i](name), name, error))
        records[i][name] = value
    return records, by_row


def _fast_column(field: Field, kind: str, column: list) -> tuple[list, np.ndarray]:
    """(the column's values where taken without coerce's steps, which cells were)."""
    n = len(column)
    empty = np.fromiter((v is None for v in column), bool, n) if not field.required else np.zeros(n, bool)
    if kind == "float":
        numbers = np.fromiter((v if type(v) is float else np.nan for v in column), float, n)
        taken = np.isfinite(numbers) & _in_range(field, numbers)
    elif kind == "str":
        stripped = [v.strip() if type(v) is str else "" for v in column]
        taken = np.fromiter(map(bool, stripped), bool, n)
        column = stripped
    else:
        taken = np.zeros(n, bool)
    values = [field.default if e else v for v, e in zip(column, empty.tolist())] if empty.any() else list(column)
    return values, taken | empty


def _in_range(field: Field, numbers: np.ndarray) -> np.ndarray:
    """validate._in_range over an array of finite numbers."""
    ok = np.ones(numbers.shape, bool)
    if field.min is not None:
        ok &= (numbers > field.min) if field.min_exclusive else (numbers >= field.min)
    if field.max is not None:
        ok &= numbers <= field.max
    return ok


def _row_by_row(fields, raws, wheres) -> tuple[list[dict[str, Any]], dict[int, list[Problem]]]:
    records, by_row = [], {}
    for i, (raw, where) in enumerate(zip(raws, wheres)):
        problems: list[Problem] = []
        records.append(coerce_record(fields, raw, where, problems))
        if problems:
            by_row[i] = problems
    return records, by_row
