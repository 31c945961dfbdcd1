"""Which file column holds which quantity: header spellings per field, with the unit the header
states. Headers are compared as `header_key`s (lower-case letters and digits)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Column:
    """Accepted spellings of one quantity's header, each with the unit it states ("" = the field's
    own unit; "ms" / "s" for latencies). A header matches a spelling exactly, or else starts with a
    spelling of 6+ characters ("Output Throughput/GPU (tok/s)" -> "outputthroughputgpu")."""

    spellings: tuple[tuple[str, str], ...]
    required: bool = False
    allow_zero: bool = False      # 0 is a value (read as "unknown" for power), not an error
    label: str = ""               # the header as the tool writes it, for messages

    def find(self, index: dict[str, int]) -> tuple[int, str] | None:
        """(column index, stated unit) of the first spelling present, or None."""
        for spelling, unit in self.spellings:
            if spelling in index:
                return index[spelling], unit
        for spelling, unit in self.spellings:
            if len(spelling) < 6:  # "tp" must not match "tpot..."
                continue
            hit = next((i for key, i in index.items() if key.startswith(spelling)), None)
            if hit is not None:
                return hit, unit
        return None


def col(*spellings, required: bool = False, allow_zero: bool = False, label: str = "") -> Column:
    """Column from spellings given as "key" (no unit) or ("key", "unit")."""
    spellings = tuple((s, "") if isinstance(s, str) else s for s in spellings)
    return Column(spellings, required, allow_zero, label or spellings[0][0])
