"""The public measurements CSV of the accuracy set (docs/model.md, "How sure it is"): read its rows
and run the accuracy of the generated model on them (`engine/performance/accuracy.py`).

The repository's copy is tests/data/measurements_public.csv (`DEFAULT_CSV`, built by
tools/build_measurements.py; every row keeps its source). A CSV without a `split` column is split
by the same rule (`measurement_rows.assign_splits`).
"""
from __future__ import annotations

import csv
import pathlib

from ..engine.errors import TcoError
from ..engine.performance.accuracy import Accuracy, run
from ..engine.performance.factors import DEFAULT_FACTORS, EfficiencyFactors
from ..engine.performance.measurement_rows import assign_splits
from .measurement_numbers import checked_rows

DEFAULT_CSV = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "measurements_public.csv"


def read_measurements(path=DEFAULT_CSV) -> list[tuple[int, dict]]:
    """(CSV line, row) of a measurements CSV, with `source_group` and `split` (computed where absent)."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            rows = list(reader)
            header = reader.fieldnames
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise TcoError(f"measurements CSV {str(path)!r}: cannot be read ({exc})") from None
    rows = checked_rows(str(path), header, rows)   # one line for a damaged cell; numbers as plain text
    if rows and not all(r.get("split") for r in rows):
        assign_splits(rows)
    return list(enumerate(rows, start=2))


def accuracy_of_file(path=DEFAULT_CSV, catalog=None, factors: EfficiencyFactors = DEFAULT_FACTORS,
                     lines=None) -> Accuracy:
    """The accuracy of the generated model on the rows of `path` (only `lines`, CSV line numbers,
    where given), with the shipped catalog unless `catalog` is given."""
    if catalog is None:
        from .catalog import load_catalog
        catalog = load_catalog()
    return run(read_measurements(path), catalog, factors, lines)
