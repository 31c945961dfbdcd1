"""What every generated record shares (record_types.py, result_types.py, written by tools/gen_records.py):
the methods, once, so that the generated classes hold only their fields."""
from __future__ import annotations

from dataclasses import fields, replace
from typing import Any, Self, cast


class Record:
    """A frozen record of the field table: its fields by name, and a copy with some changed."""

    def as_dict(self) -> dict[str, Any]:
        """The record's fields by name."""
        return {f.name: getattr(self, f.name) for f in fields(cast(Any, self))}

    def with_(self, **changes: Any) -> Self:
        """A copy with some fields changed (not validated: build input records with records.make_*)."""
        return replace(cast(Any, self), **changes)


class ArrayRecord(Record):
    """A record of arrays, one per quantity-table row, that a table-driven loop reads by key."""

    def __getitem__(self, key: str) -> Any:
        """A field by a key another table row names."""
        return getattr(self, key)

    def __contains__(self, key: object) -> bool:
        return key in cast(Any, self).__dataclass_fields__

    def keys(self) -> tuple[str, ...]:
        """The field names, in the table's order."""
        return tuple(f.name for f in fields(cast(Any, self)))
