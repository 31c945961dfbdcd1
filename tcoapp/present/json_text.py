"""JSON text as `json.dumps(value, indent=2, allow_nan=False)` writes it, byte for byte, in a fraction
of its time on tables: the CLI's `--json` of a 100,000-point curve file is a list of records that all
have the same keys, which the standard library's indenting encoder (pure Python) walks value by value.

A list whose items are flat records (dicts of strings, numbers, booleans and nulls) with the same keys
is written from one template per list; everything else as the standard encoder would. A value the
standard encoder refuses (NaN, infinity, an object it cannot encode) is refused the same way.
"""
from __future__ import annotations

import json
import math
from json.encoder import encode_basestring_ascii as _string

_INDENT = 2


def dumps(value) -> str:
    """`json.dumps(value, indent=2, allow_nan=False)`."""
    return "".join(dump_parts(value))


def dump_parts(value) -> list[str]:
    """The pieces of `dumps(value)`, in order (to write without joining them: a large text in one copy)."""
    out: list[str] = []
    _write(value, 0, out)
    return out


def _scalar(value) -> str | None:
    """The JSON of a string, number, boolean or null; None for anything else."""
    if isinstance(value, str):
        return _string(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"Out of range float values are not JSON compliant: {value!r}")
        return float.__repr__(value)
    return None


class Written:
    """A value whose JSON text its owner writes itself: `write(depth)` is the text `dumps` would give the
    value at that depth (a table written from its columns, without a dict per row)."""

    def __init__(self, write):
        self.write = write


def _write(value, depth: int, out: list[str]) -> None:
    if isinstance(value, Written):
        out.append(value.write(depth))
        return
    text = _scalar(value)
    if text is not None:
        out.append(text)
    elif isinstance(value, dict) and all(isinstance(k, str) for k in value):
        _write_dict(value, depth, out)
    elif isinstance(value, (list, tuple)):
        _write_list(value, depth, out)
    else:   # what only the standard encoder knows (non-string keys, ...): its text, indented to depth
        out.append(json.dumps(value, indent=_INDENT, allow_nan=False).replace("\n", "\n" + " " * (_INDENT * depth)))


def _write_dict(value: dict, depth: int, out: list[str]) -> None:
    if not value:
        out.append("{}")
        return
    inner = "\n" + " " * (_INDENT * (depth + 1))
    separator = "{" + inner
    for key, item in value.items():
        out.append(separator + _string(key) + ": ")
        _write(item, depth + 1, out)
        separator = "," + inner
    out.append("\n" + " " * (_INDENT * depth) + "}")


def _write_list(value, depth: int, out: list[str]) -> None:
    if not value:
        out.append("[]")
        return
    inner = "\n" + " " * (_INDENT * (depth + 1))
    records = _records(value, depth + 1)
    if records is not None:
        out.append(list_text(records, depth))
        return
    separator = "[" + inner
    for item in value:
        out.append(separator)
        _write(item, depth + 1, out)
        separator = "," + inner
    out.append("\n" + " " * (_INDENT * depth) + "]")


def _records(items, depth: int) -> list[str] | None:
    """Each item's JSON when every item is a non-empty dict of scalars under the same string keys, from
    one template filled column by column; else None."""
    first = items[0]
    if not isinstance(first, dict) or not first or not all(isinstance(k, str) for k in first):
        return None
    keys = tuple(first)
    if not all(isinstance(item, dict) and tuple(item) == keys for item in items):
        return None
    columns = [_column(values) for values in zip(*(item.values() for item in items))]
    if any(column is None for column in columns):
        return None
    return records_text(keys, columns, depth)


def records_text(keys, columns: list[list[str]], depth: int) -> list[str]:
    """Each record's JSON at `depth`, its keys' values given column by column as JSON texts (one
    template for all of them)."""
    inner = "\n" + " " * (_INDENT * (depth + 1))
    template = ("{" + inner + ("," + inner).join(_string(k).replace("%", "%%") + ": %s" for k in keys)
                + "\n" + " " * (_INDENT * depth) + "}")
    return [template % texts for texts in zip(*columns)]


def record_lists_text(keys, columns: list, sizes: list[int], depth: int) -> list[str]:
    """The JSON at `depth` of consecutive lists of records: list k holds the next sizes[k] records, whose
    keys' values are given column by column as JSON texts, or as one text for every record (a `Same`), or
    as strings to quote (a `Quoted`). Each list's text is `list_text(records_text(keys, its columns,
    depth + 1), depth)`, joined from the columns' texts and the template's pieces interleaved (no text per
    record; a `Same` column's text and a `Quoted` one's quotes are in the template's pieces)."""
    rows = sum(sizes)
    if not keys or len(columns) != len(keys) or any(len(c) != rows for c in columns if not isinstance(c, Same)):
        raise ValueError("record_lists_text: one value per record in each column, one key per column")
    outer = "\n" + " " * (_INDENT * (depth + 1))
    inner = "\n" + " " * (_INDENT * (depth + 2))
    close = "\n" + " " * (_INDENT * (depth + 1)) + "}"
    names = [_string(k) + ": " for k in keys]
    pieces = ["," + inner + name for name in names]
    if all(isinstance(c, Same) for c in columns):   # one column written out: the template needs one
        columns = [*columns[:-1], [columns[-1].text] * rows]
    # the template: its pieces between the columns that vary, each Same column's text in its piece
    template, varying = [""], []
    for piece, column in zip(pieces, columns):
        template[-1] += piece
        if isinstance(column, Same):
            template[-1] += column.text
        else:
            quote = '"' if isinstance(column, Quoted) else ""
            template[-1] += quote
            varying.append(column)
            template.append(quote)
    last = template.pop()   # after the last column that varies: closes each record
    head = "{" + template[0][1:]   # the first piece, its comma left out
    template[0] = last + close + "," + outer + head
    first, end = "[" + outer + head, last + close + "\n" + " " * (_INDENT * depth) + "]"
    width = 2 * len(varying)
    flat: list[str] = [""] * (width * rows)
    for j, (piece, column) in enumerate(zip(template, varying)):
        flat[2 * j::width] = [piece] * rows
        flat[2 * j + 1::width] = column
    out, start = [], 0
    for size in sizes:
        if not size:
            out.append("[]")
            continue
        flat[start * width] = first
        last = (start + size) * width - 1   # the list's end joined with its last text (no copy of the list's text)
        flat[last] += end
        out.append("".join(flat[start * width:last + 1]))
        start += size
    return out


class Same:
    """One JSON text for every record of a column (record_lists_text): `null` for a column the file lacks."""

    def __init__(self, text: str):
        self.text = text


class Quoted(list):
    """A column of strings with no character JSON escapes (record_lists_text): each one's JSON is itself
    between quotes, which the template writes."""


def list_text(items: list[str], depth: int) -> str:
    """A list's JSON at `depth` from its items' JSON texts (each written at depth + 1)."""
    if not items:
        return "[]"
    inner = "\n" + " " * (_INDENT * (depth + 1))
    return "[" + inner + ("," + inner).join(items) + "\n" + " " * (_INDENT * depth) + "]"


def column_text(values) -> list[str] | None:
    """The JSON of one key's values across records (None: one of them is not a scalar)."""
    return _column(tuple(values))


def _column(values: tuple) -> list[str] | None:
    """The JSON of one key's values across the records (None: one of them is not a scalar)."""
    kinds = set(map(type, values))
    if kinds <= {float, type(None)}:
        if not all(math.isfinite(v) for v in values if v is not None):
            _scalar(next(v for v in values if v is not None and not math.isfinite(v)))   # raises
        return ["null" if v is None else float.__repr__(v) for v in values]
    if kinds == {str}:
        return list(map(_string, values))
    texts = list(map(_scalar, values))
    return None if None in texts else texts
