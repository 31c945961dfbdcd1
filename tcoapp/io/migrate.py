"""Schema versions of the scenario workbook and the migration path from older ones.

The About sheet holds `schema_version` (key in column A, value in column B). A workbook without
it (hand-made) is read as the current version. An older version is upgraded one step at a time by
the functions in MIGRATIONS before validation: MIGRATIONS[v] takes the parsed sheets of a version-v
workbook and returns them in the layout of version v + 1 (rename keys or sheets, fill a new row
with its old implicit value, ...). A newer version than this app knows is refused, since its keys
may mean something this app would misread.

Sheets are the reader's parsed sheets: objects with `.name`, `.values`, `.formulas` (lists of row
tuples), `.cell(row, col)` and `.where(row, col)`.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from .versions import SCHEMA_VERSION
from ..engine.core.errors import Problem, ValidationError, shown
from . import sheets as S

Sheets = dict[str, Any]



def _schema_1_to_2(sheets: Sheets) -> Sheets:
    """Schema 2 adds the optional Pools sheet, the device column scale_out_gb_s (default 50 GB/s), the
    Curves column `config` and per-device columns on the Calibration sheet; the years keys on Plans
    default to "no change". A schema-1 workbook has none of them, and means the same in schema 2: a plan without pool rows is one
    pool, a plan with prefill_devices:decode_devices is its prefill and decode pools (now each packed
    and priced on its own). Nothing to rewrite."""
    return dict(sheets)


# version -> function upgrading a workbook of that version to version + 1; register a step here when
# bumping versions.SCHEMA_VERSION (and test it with a workbook of the old layout).
MIGRATIONS: dict[int, Callable[[Sheets], Sheets]] = {1: _schema_1_to_2}
OLDEST_READABLE = 1


def schema_version(about) -> tuple[int, str]:
    """(the workbook's schema version, the cell that says so); the current version if About does not say."""
    if about is not None:
        # the rows holding something (a value in About!XFD1048576 must not make a dense 1e6 x 16e3 grid)
        rows = about.rows_from(1) if hasattr(about, "rows_from") else range(1, len(about.values) + 1)
        for row in rows:
            key = about.cell(row, 1)
            if isinstance(key, str) and key.strip() == S.ABOUT_SCHEMA_KEY:
                return _version_value(about, row), about.where(row, 2)
    return SCHEMA_VERSION, f"{S.ABOUT}!B (no {S.ABOUT_SCHEMA_KEY} row)"


def _version_value(about, row: int) -> int:
    value = about.cell(row, 2)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValidationError([Problem(about.where(row, 2), S.ABOUT_SCHEMA_KEY,
                                       f"= {shown(value)}: must be a whole number >= 1 (the workbook schema version)")])
    return value


def migrate_sheets(sheets: Mapping[str, Any], version_where: tuple[int, str], migrations=None) -> Sheets:
    """Upgrade the parsed sheets of a workbook of schema `version` to SCHEMA_VERSION, or explain why not."""
    migrations = MIGRATIONS if migrations is None else migrations
    version, where = version_where
    if version > SCHEMA_VERSION:
        raise ValidationError([Problem(where, S.ABOUT_SCHEMA_KEY, f"= {version}: this workbook was written by a newer tcoapp "
                                                  f"(this version reads schema {OLDEST_READABLE} to {SCHEMA_VERSION}); "
                                                  "update tcoapp to open it")])
    upgraded = dict(sheets)
    for step in range(version, SCHEMA_VERSION):
        if step not in migrations:
            raise ValidationError([Problem(where, S.ABOUT_SCHEMA_KEY, f"= {version}: no migration from schema {step} to {step + 1}; "
                                                      f"this version reads schema {OLDEST_READABLE} to {SCHEMA_VERSION}")])
        upgraded = migrations[step](upgraded)
    return upgraded
