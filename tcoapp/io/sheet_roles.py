"""Which input table a sheet holds, told by its header row, not only by its name (docs/workbook_format.md,
"Your own sheets and rows").

A sheet renamed by the analyst ("Fleet"), or copied by Excel's Move or Copy ("Pools (2)") while the original is
gone, still holds its table: its row 1 is that table's keys. Such a sheet is read as the table, with a note;
two sheets whose header rows claim one table are refused in one line naming both. Plans is recognised by name
only: its header row (key, label, plan names) is any key-value sheet's, and a copy such as "Plans (2)" is the
analyst's backup.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..engine.core.errors import Problem
from ..engine.quantities.inputs import (
    CURVE_POINT_FIELDS, DEVICE_FIELDS, MODEL_FIELDS, POOL_FIELDS, PRICE_TIER_FIELDS,
    REQUEST_CLASS_FIELDS,
)
from ..engine.uncertainty.fields import UNCERTAINTY_FIELDS
from . import sheets as S

# table sheet -> (its keys, the keys that name a row: a header without them is not the table's)
TABLE_KEYS = {
    S.POOLS: (frozenset(f.name for f in POOL_FIELDS), ("plan", "pool")),
    S.WORKLOADS: (frozenset(f.name for f in REQUEST_CLASS_FIELDS), ("plan", "class")),
    S.DEVICES: (frozenset(f.name for f in DEVICE_FIELDS), ("name",)),
    S.MODELS: (frozenset(f.name for f in MODEL_FIELDS), ("name",)),
    S.CURVES: (frozenset(f.name for f in CURVE_POINT_FIELDS), ("curve",)),
    S.PRICE_TIERS: (frozenset(f.name for f in PRICE_TIER_FIELDS), ("price_tiers",)),
    S.UNCERTAINTY: (frozenset(f.name for f in UNCERTAINTY_FIELDS), ("plan", "key")),
}
CALIBRATION_HEADER = ("key", "unit", "value")   # A1:C1 of Calibration
MIN_KEYS = 3   # a header row is a table's when it holds at least this many of its keys, and mostly its keys


@dataclass(frozen=True)
class Roles:
    read_as: dict[str, str]        # sheet name -> the input table it is read as (renamed sheets only)
    problems: list[Problem]        # two sheets claiming one table
    notes: tuple[str, ...]         # one line per renamed sheet read as its table


def header_table(header: list) -> str | None:
    """The input table whose header row `header` (row 1's values, in column order) is, or None."""
    texts = [str(v).strip() for v in header if v is not None and str(v).strip()]
    if tuple(t.lower() for t in texts[:3]) == CALIBRATION_HEADER:
        return S.CALIBRATION
    best, best_count = None, 0
    for table, (keys, names) in TABLE_KEYS.items():
        matched = sum(1 for t in texts if t in keys)
        if all(n in texts for n in names) and matched >= MIN_KEYS and 2 * matched > len(texts) and matched > best_count:
            best, best_count = table, matched
    return best


def sheet_roles(headers: dict[str, list], present: set[str]) -> Roles:
    """Roles of the sheets whose name is not the app's: `headers` maps each to its row 1, `present` holds the
    input sheets found under their own name."""
    claims: dict[str, list[str]] = {}
    for name, header in headers.items():
        table = header_table(header)
        if table is not None:
            claims.setdefault(table, []).append(name)
    read_as, problems, notes = {}, [], []
    for table, names in claims.items():
        holders = ([table] if table in present else []) + names
        if len(holders) > 1:
            listed = " and ".join(repr(n) for n in holders[:2]) + (f" (and {len(holders) - 2} more)" if len(holders) > 2 else "")
            problems.append(Problem(f"sheets {listed}", "", (
                f"both hold the {table} table (row 1 is its keys), so which one to read is unclear: delete the copy "
                f"you do not want read, or change its row 1 to keep it as your own sheet")))
            continue
        read_as[names[0]] = table
        notes.append(f"sheet {names[0]!r}: read as the {table} table (its row 1 is the {table} keys); "
                     f"a save writes it as {table!r}")
    return Roles(read_as, problems, tuple(notes))
