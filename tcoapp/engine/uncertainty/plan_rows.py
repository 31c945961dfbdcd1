"""The Uncertainty rows follow their plans: renamed with a plan, copied with a duplicated plan,
dropped with a deleted plan (the GUI's plan edits keep the scenario valid)."""
from __future__ import annotations

from dataclasses import replace


def rows_renamed(rows, old: str, new: str) -> tuple:
    """The rows with plan `old` renamed to `new`."""
    return tuple(replace(r, plan=new) if r.plan == old else r for r in rows)


def rows_copied(rows, source: str, copy: str) -> tuple:
    """The rows plus a copy of plan `source`'s rows for plan `copy`."""
    return tuple(rows) + tuple(replace(r, plan=copy) for r in rows if r.plan == source)


def rows_without(rows, plan: str) -> tuple:
    """The rows of every plan but `plan`."""
    return tuple(r for r in rows if r.plan != plan)
