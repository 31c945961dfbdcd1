"""The public measurements CSV of the accuracy set (docs/model.md, "How sure it is"): read its rows
and run the accuracy of the generated model on them (`engine/performance/accuracy.py`) and its
leave-one-family-out validation (`engine/performance/cross_validation.py`).

The shipped copy is package data, resources/measurements/measurements_public.csv (`DEFAULT_CSV`,
built by tools/build_measurements.py; every row keeps its source and its `source_family`). A CSV
without a `source_family` column gets it by the same rule (`measurement_rows.assign_families`).

A row that cannot be read (a short line, text, inf or nan in a number column) is not dropped
silently: it keeps its line with an `invalid` reason naming the column, and the accuracy skips it
with that reason. Number cells are read in the file's own convention (a German re-save reads as the
original: `tcoapp/io/measurement_numbers.py`); a file that mixes conventions is refused in one line.
"""
from __future__ import annotations

import csv
import io
import importlib.resources
import pathlib

from ..engine.core.errors import TcoError, ValidationError
from ..engine.performance.accuracy import Accuracy, run
from ..engine.performance.factors import DEFAULT_FACTORS, EfficiencyFactors
from ..engine.performance.measurement_rows import assign_families
from .measurement_numbers import NUMBER_COLUMNS, convert_numbers

DEFAULT_CSV = pathlib.Path(str(importlib.resources.files("tcoapp.resources") / "measurements" / "measurements_public.csv"))
REQUIRED_COLUMNS = ("model", "device", "tokens_per_s_per_gpu")


def read_measurements(path=DEFAULT_CSV) -> list[tuple[int, dict]]:
    """(CSV line, row) of a measurements CSV, with `source_group` and `source_family` (computed
    where absent) and, on a row that cannot be read, `invalid` (the reason, naming line and column)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise TcoError(f"measurements CSV {str(path)!r}: cannot be read ({exc.strerror or exc})") from None
    rows, header, delimiter = _dict_rows(path, data)
    if not header:
        raise TcoError(f"measurements CSV {str(path)!r}: the file is empty: no measurement rows (a header line "
                       f"with {', '.join(REQUIRED_COLUMNS)} and one row per measurement expected)")
    if not rows:
        raise TcoError(f"measurements CSV {str(path)!r}: no measurement rows under the header")
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise TcoError(f"measurements CSV {str(path)!r}: no column {', '.join(missing)} in the header line")
    for line, row in rows:
        reason = line_problem(row, header)
        if reason:
            row["invalid"] = f"line {line}: {reason}"
    convert_numbers(str(path), header, rows, delimiter)   # the file's convention; a damaged cell marks its row invalid
    if not all(r.get("source_family") for _, r in rows):
        assign_families([r for _, r in rows])
    return rows


def _dict_rows(path, data: bytes) -> tuple[list[tuple[int, dict]], list[str], str]:
    """(CSV line, row) pairs, the header and the cell separator of a measurements file's bytes, in any
    encoding and separator a spreadsheet saves (UTF-8, UTF-16, Windows-1252; ',', ';' or tab: the
    curve files' reader, tcoapp/io/curve_files/table.py)."""
    from .curve_files.table import decode_text, delimiter_of
    try:
        text, _ = decode_text(data, pathlib.Path(path).name)
    except ValidationError as exc:
        raise TcoError(f"measurements CSV {str(path)!r}: {exc.problems[0].message}") from None
    delimiter = delimiter_of(text)
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""), restkey="_extra", delimiter=delimiter)
        rows = [(reader.line_num, row) for row in reader]
        header = [h.strip() for h in (reader.fieldnames or [])]
    except csv.Error as exc:
        raise TcoError(f"measurements CSV {str(path)!r}: cannot be read ({exc})") from None
    if reader.fieldnames and header != list(reader.fieldnames):   # ' tokens_per_s_per_gpu ' is the column
        rows = [(line, {(k.strip() if isinstance(k, str) else k): v for k, v in row.items()}) for line, row in rows]
    return rows, header, delimiter


def line_problem(row: dict, header) -> str | None:
    """Why a read line cannot be used as a row (fewer or more cells than the header), or None."""
    if any(row.get(c) is None for c in header):
        return f"short line: {sum(row.get(c) is not None for c in header)} of {len(header)} columns"
    if row.get("_extra"):
        return f"long line: {len(header) + len(row['_extra'])} columns, the header has {len(header)}"
    return None


def accuracy_of_file(path=DEFAULT_CSV, catalog=None, factors: EfficiencyFactors = DEFAULT_FACTORS,
                     lines=None) -> Accuracy:
    """The accuracy of the generated model on the rows of `path` (only `lines`, CSV line numbers,
    where given), with the shipped catalog unless `catalog` is given (in-sample: the shipped factors
    were fitted on these rows; `cross_validation.leave_one_family_out` gives the unseen figures)."""
    if catalog is None:
        from .catalog import load_catalog
        catalog = load_catalog()
    return run(read_measurements(path), catalog, factors, lines)
