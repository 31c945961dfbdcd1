"""Numbers out of a file's rows: one error per bad cell (file, row, column), units normalized.

Every row becomes a `Row` with its point in project units (batch, tokens/s per device, tokens/s
per user, ttft_s, power_w; NaN = not in the file) and the raw text of its configuration columns.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from operator import itemgetter
from types import MappingProxyType
from typing import Mapping, NamedTuple, Sequence

import numpy as np

from ...engine.quantities.curve_arrays import CURVE_ARRAYS

from ...engine.core.errors import Problem
from ...engine.core.physical_bounds import BOUNDS, past_bound
from .formats import Format
from .table import ColumnRows, Table
from .text_columns import TextColumns
from .unit_headers import POWER_SCALE, UNIT_FIELDS, label as unit_label, stated_unit, unit_column
from .latency_headers import latency_column, unread_notes
from .units import SCALE_TO_S, tpot_unit, ttft_plausibility

POINT_FIELDS = CURVE_ARRAYS  # a measured point's values (the curve-point table)
_READ_AS_POINT = {"batch", "tokens_per_s_per_device", "tokens_per_s_per_user", "tpot", "ttft", "power_w"}


class Row(NamedTuple):
    """One data row, made where rows are looked at one by one (several at one batch, pool curves)."""

    row: int                           # the file's line number
    point: dict[str, float]            # POINT_FIELDS -> value in project units (NaN: not in the file)
    config: tuple[str, ...]            # the text of the format's configuration columns, in order
    knobs: tuple[str, ...]             # the text of the format's knob columns (date, ctx_tokens, ...)
    extra: Mapping[str, float] = MappingProxyType({})  # the format's other numbers (pool rates), as read


def locate(spec: Format, table: Table, problems: list[Problem]) -> dict[str, tuple[int, str]]:
    """field -> (column index, stated unit) for the columns present; a missing required one is a problem."""
    index = table.index()
    where = {}
    for field, column in spec.columns.items():
        hit = column.find(index)
        if hit is not None and field in UNIT_FIELDS:
            unit = stated_unit(field, table.headers[hit[0]], hit[1], table, problems)
            hit = None if unit is None else (hit[0], unit)
            if hit is None:
                continue
        elif hit is None and field in UNIT_FIELDS:
            found = (latency_column if field in ("ttft", "tpot") else unit_column)(field, table, problems)
            hit = None if found is None else (found[0], unit_label(field, found[1]))
        if hit is not None:
            where[field] = hit
        elif column.required:
            problems.append(Problem(table.where(table.header_row), column.label,
                                    f"required column missing (the {field} of each point; {spec.name} format)"))
    return where


MAX_POINT_VALUE = 1e9   # no measured rate, batch, latency (in ms) or power reaches it; past it a cell is a slip


def _number(text: str, allow_zero: bool) -> tuple[float | None, str | None]:
    """A cell as a number; its text is in plain form already (numbers.localized: "1.234,5" in a German
    save, "1,234.5" in a US one and "1 234,5" in a French one are "1234.5" by now)."""
    plain = text
    try:
        value = float(plain)
    except ValueError:
        return None, f"= {text!r}: not a number"
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero) or value > MAX_POINT_VALUE:
        return None, f"= {text}: must be a number {'>= 0' if allow_zero else '> 0'} and at most 1e9"
    return value, None


def _physical(field: str, value: float, unit: str) -> str | None:
    """Why a point value is past its physical bound (engine/core/physical_bounds.py), or None."""
    bound = _bound(field, unit)
    if bound is None:
        return None
    value *= bound[0]
    problem = past_bound(field, value)
    return None if problem is None else f"= {value:.6g}: {problem}"


@dataclass(frozen=True)
class RawNumbers:
    """The data rows' numbers as read, column by column (before units are normalized)."""

    rows: list[int]                        # the file's line number of each row
    cells: list[tuple[str, ...]] | None    # each row's cells; None: those of every row of `table`
    columns: dict[str, np.ndarray]         # field -> its value in each row (NaN: an empty cell)
    table: Table                           # the table read

    def column(self, field: str) -> np.ndarray:
        """A copy of the field's values (all NaN where the file lacks the column)."""
        found = self.columns.get(field)
        return np.full(len(self.rows), np.nan) if found is None else found.copy()

    def texts(self, i: int) -> Sequence[str]:
        """Each row's stripped text in column i ("" where the row is shorter)."""
        if self.cells is None:   # no row left out: the table's column
            rows = self.table.rows
            coded = rows.coded(i) if isinstance(rows, ColumnRows) else None
            if coded is not None:   # each distinct text stripped once
                return coded.mapped(str.strip)
            return list(map(str.strip, self.table.column(i)))
        return _column_texts(self.cells, i)


def raw_numbers(spec: Format, table: Table, where, problems: list[Problem]) -> RawNumbers:
    """Every located column's numbers; bad cells become problems (and their rows are left out)."""
    columns = _good_columns(spec, table, where)
    if columns is not None:
        return RawNumbers(table.lines(), None, columns, table)
    rows, cells_kept, kept = [], [], []
    for row, cells in table.rows:   # some cell is bad: each one named, cell by cell
        values = _row_numbers(spec, table, where, row, cells, problems)
        if values is not None:
            rows.append(row)
            cells_kept.append(cells)
            kept.append(values)
    return RawNumbers(rows, cells_kept, {f: np.array([v[f] for v in kept], float) for f in where}, table)


def _good_columns(spec: Format, table: Table, where) -> dict[str, np.ndarray] | None:
    """field -> its values, column by column, when no cell is bad (the usual file); None when one is
    (then `_row_numbers` names each)."""
    out = {}
    for field, (i, unit) in where.items():
        column = spec.columns[field]
        found = _table_floats(table, i)
        if found is None or column.required and found[1] is not None:
            return None
        values, filled = found
        read = values if filled is None else values[filled]
        with np.errstate(invalid="ignore"):
            good = np.isfinite(read) & (read >= 0) & (read <= MAX_POINT_VALUE)
            if not column.allow_zero:
                good &= read != 0
            bound = _bound(field, unit)
            if bound is not None:
                good &= ~(read * bound[0] > bound[1])
        if not good.all():
            return None
        out[field] = values
    return out


def _table_floats(table: Table, i: int) -> tuple[np.ndarray, np.ndarray | None] | None:
    """`_column_floats` of column i (of a coded column: of its distinct texts, then taken for each row)."""
    coded = table.rows.coded(i) if isinstance(table.rows, ColumnRows) else None
    if coded is None:
        return _column_floats(table.column(i))
    found = _column_floats(coded.uniques)
    if found is None:
        return None
    values, filled = found
    return values[coded.codes], None if filled is None else filled[coded.codes]


def _column_floats(cells: list[str]) -> tuple[np.ndarray, np.ndarray | None] | None:
    """(each cell's number, NaN where it is blank; which cells are not blank, None: all), or None when a
    cell is not a number. Each distinct text is read once (a column of batches holds few), as float()
    reads it (as numpy's reading of a text does)."""
    distinct = list(dict.fromkeys(cells))
    texts = list(map(str.strip, distinct))
    try:
        numbers = [float(t) if t else math.nan for t in texts]
    except ValueError:
        return None
    if len(distinct) < len(cells):
        numbers = list(map(dict(zip(distinct, numbers)).__getitem__, cells))
    if all(texts):   # no blank cell (the usual column): no mask of the filled ones
        return np.array(numbers, float), None
    blank = {cell for cell, text in zip(distinct, texts) if not text}
    return np.array(numbers, float), np.array([cell not in blank for cell in cells], bool)


def _bound(field: str, unit: str) -> tuple[float, float] | None:
    """(scale, bound): a value of `field` in `unit` is past its physical bound when value x scale > bound."""
    if field == "power_w":
        return POWER_SCALE.get(unit, 1.0), BOUNDS["power_w"][0]
    if field in ("tokens_per_s_per_device", "tokens_per_s_per_user"):
        return 1.0, BOUNDS[field][0]
    return None


def _row_numbers(spec: Format, table: Table, where, row: int, cells, problems: list[Problem]) -> dict | None:
    """One row's {field: number or NaN}, or None when a cell of it is bad (each a problem)."""
    values, ok = {}, True
    for field, (i, _unit) in where.items():
        column = spec.columns[field]
        text = cells[i].strip() if i < len(cells) else ""
        if not text:
            if column.required:
                problems.append(Problem(table.where(row), table.headers[i], "is empty: a number is needed"))
                ok = False
            values[field] = float("nan")
            continue
        value, error = _number(text, column.allow_zero)
        if not error:
            error = _physical(field, value, _unit)
        if error:
            problems.append(Problem(table.where(row), table.headers[i], error))
            ok = False
            continue
        values[field] = value
    return values if ok else None


def normalize(spec: Format, table: Table, where, raw) -> tuple[dict[str, np.ndarray], list[str]]:
    """The points in project units, column by column (POINT_FIELDS -> values), and what was noticed on the
    way (units, power 0)."""
    warnings: list[str] = []
    tpot_scale = ttft_scale = float("nan")
    tpot = np.full(len(raw.rows), np.nan)
    if "tpot" in where:
        i, label = where["tpot"]
        unit, notes = tpot_unit(label, raw.column("tpot"), raw.column("tokens_per_s_per_user"),
                                table.headers[i], table.name)
        warnings += notes
        tpot_scale = SCALE_TO_S[unit]
        tpot = raw.column("tpot") * tpot_scale
    ttft = np.full(len(raw.rows), np.nan)
    if "ttft" in where:
        i, label = where["ttft"]
        same_family = "tpot" in where and where["tpot"][1] == label
        ttft_scale = tpot_scale if same_family else SCALE_TO_S[label]
        ttft = raw.column("ttft") * ttft_scale
        warnings += ttft_plausibility(ttft, tpot, table.name)
    per_user = raw.column("tokens_per_s_per_user")
    derived = ~np.isfinite(per_user) & np.isfinite(tpot)
    per_user = np.where(derived, 1.0 / np.where(derived, tpot, 1.0), per_user)
    if derived.any() and "tokens_per_s_per_user" in where:
        warnings.append(f"{table.name}: {int(derived.sum())} row(s) without interactivity: tokens/s per user = 1 / TPOT")
    power = raw.column("power_w") * POWER_SCALE[where.get("power_w", (0, ""))[1]]
    zero = power == 0
    if zero.any():
        i = where["power_w"][0]
        warnings.append(f"{table.name}: {table.headers[i]!r} is 0 in {int(zero.sum())} of {len(raw.rows)} row(s): read as "
                        "unknown (the tool writes 0 when it has no power data); plans on these curves use the "
                        "device's TDP")
    power = np.where(zero, np.nan, power)
    points = {"batch": raw.columns["batch"], "tokens_per_s_per_device": raw.columns["tokens_per_s_per_device"],
              "tokens_per_s_per_user": per_user, "ttft_s": ttft, "power_w": power}
    return {f: np.asarray(points[f], float) for f in POINT_FIELDS}, warnings


_UNKNOWN_WHEN_EMPTY = {"ttft": "TTFT", "tpot": "TPOT", "power_w": "power", "tokens_per_s_per_user": "tokens/s per user"}


def _empty_notes(spec: Format, table: Table, where, raw) -> list[str]:
    """A warning per optional point column with empty cells: those points' value is unknown (NaN)."""
    notes = []
    for field, what in _UNKNOWN_WHEN_EMPTY.items():
        if field not in where or (field == "tokens_per_s_per_user" and "tpot" in where):
            continue  # without interactivity, 1 / TPOT stands in (said by normalize)
        empty = [raw.rows[k] for k in np.flatnonzero(~np.isfinite(raw.columns[field]))]
        if empty:
            header = table.headers[where[field][0]]
            rows = ", ".join(map(str, empty[:5])) + (", ..." if len(empty) > 5 else "")
            notes.append(f"{table.name}: {header!r} is empty in {len(empty)} of {len(raw.rows)} row(s) (row {rows}): "
                         f"{what} is unknown at those points")
    return notes


@dataclass(frozen=True)
class Rows:
    """The data rows column by column (a 100,000-row file is a few arrays and lists, not 100,000 objects)."""

    lines: np.ndarray                      # each row's line number in the file
    points: dict[str, np.ndarray]          # POINT_FIELDS -> each row's value in project units (NaN: not in the file)
    configs: Sequence[tuple[str, ...]]     # each row's text of the format's configuration columns, in order
    knobs: Sequence[tuple[str, ...]]       # each row's text of the format's knob columns (date, ctx_tokens, ...)
    extra: dict[str, np.ndarray]           # the format's other numbers (pool rates), as read

    def __len__(self) -> int:
        return len(self.configs)

    def rows(self, indices) -> list[Row]:
        """The rows at `indices` as `Row`s (for the rows looked at one by one)."""
        out = []
        for k in np.asarray(indices, np.intp).tolist():
            point = {f: float(self.points[f][k]) for f in POINT_FIELDS}
            extra = {f: float(v[k]) for f, v in self.extra.items()} if self.extra else Row._field_defaults["extra"]
            out.append(Row(int(self.lines[k]), point, self.configs[k], self.knobs[k], extra))
        return out


def read_rows(spec: Format, table: Table, problems: list[Problem]) -> tuple[Rows | None, list[str]]:
    """The file's rows (None with problems when any cell is bad), and the warnings."""
    where = locate(spec, table, problems)
    if problems:
        return None, []
    raw = raw_numbers(spec, table, where, problems)
    if problems:
        return None, []
    points, warnings = normalize(spec, table, where, raw)
    warnings = _empty_notes(spec, table, where, raw) + warnings + unread_notes(table, {i for i, _ in where.values()})
    index = table.index()
    configs = _texts(raw, [index.get(k) for k in spec.config])
    knobs = _texts(raw, [index.get(k) for k in spec.knobs])
    extra = {f: raw.columns[f] for f in where if f not in _READ_AS_POINT}
    return Rows(np.array(raw.rows, np.intp), points, configs, knobs, extra), warnings


def _texts(raw: RawNumbers, indices: list[int | None]) -> TextColumns:
    """Each row's stripped text in the columns `indices` ("" where the row has no such cell)."""
    size = len(raw.rows)
    return TextColumns([[""] * size if i is None else raw.texts(i) for i in indices], size)


def _column_texts(cells: list[tuple[str, ...]], i: int) -> list[str]:
    """Each row's stripped text in column i ("" where the row is shorter)."""
    try:   # every row long enough (the usual file): no test row by row
        return list(map(str.strip, map(itemgetter(i), cells)))
    except IndexError:
        return [c[i].strip() if i < len(c) else "" for c in cells]
