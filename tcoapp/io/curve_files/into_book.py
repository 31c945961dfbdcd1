"""`tcoapp curves FILE --into BOOK.xlsx`: add imported curves to a workbook's Curves sheet.

The workbook is read and validated, the curves are added, and the whole workbook is written back
through the atomic save (io/atomic.py): a failure mid-save leaves the old file as it was. A book
that does not exist yet is created from the built-in default scenario. A curve whose name the
workbook already has is refused unless `replace` is set.
"""
from __future__ import annotations

import os
from dataclasses import replace as with_fields

from ...engine.core.errors import Problem, ValidationError
from ..default_scenario import default_scenario
from ..workbook_read import read_scenario
from ..workbook_write import write_scenario


def add_curves_to_workbook(curves, book, replace: bool = False) -> tuple[str, ...]:
    """Write `curves` into `book`; returns notes on what was done (created, replaced)."""
    notes = []
    if os.path.exists(book):
        scenario = read_scenario(book)
    else:
        scenario = default_scenario()
        notes.append(f"{os.path.basename(book)} did not exist: created from the built-in default scenario")
    clashes = [c.name for c in curves if c.name in scenario.curves]
    if clashes and not replace:
        raise ValidationError([Problem(f"{os.path.basename(book)} sheet 'Curves'", "curve",
                                       f"= {name!r}: the workbook already has a curve of that name (--replace to "
                                       "overwrite it)") for name in clashes])
    notes += [f"curve {name!r} replaced" for name in clashes]
    merged = dict(scenario.curves)
    merged.update({c.name: c for c in curves})
    write_scenario(with_fields(scenario, curves=merged), book)
    return tuple(notes)
