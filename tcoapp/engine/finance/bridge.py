"""Why plan A's cost per million output tokens differs from plan B's (docs/model.md, "Cost bridge").

Plan A's and B's levelized cost per million output tokens are each a sum of parts (quantities.py,
COST_COMPONENTS): capex per token (capital recovery over the output tokens) and each opex line over
the output tokens. The bridge from A to B is the difference of each part, B's less A's, plus `other`:
the difference of the totals less the listed parts' differences (0 up to rounding while every cost is
one of the listed parts), so the steps add up to B - A exactly: A's cost + the steps = B's cost.
"""
from __future__ import annotations

import math
from typing import Any, Mapping

from ..quantities.finance import BRIDGE_PARTS, COMPONENT_KEYS

TOTAL = "cost_per_million_output_tokens_usd"


def part_key(part: str) -> str:
    """The metric key of one cost part's cost per million output tokens (USD per million)."""
    return COMPONENT_KEYS[part]


def cost_bridge(name_a: str, a: Mapping[str, Any], name_b: str, b: Mapping[str, Any]) -> dict[str, Any] | None:
    """{"a", "b", "unit", "a_usd_per_million", "b_usd_per_million", "difference_usd_per_million",
    "parts": [{"part", "a", "b", "difference"}]}: `a` and `b` map each part key (part_key) and TOTAL to its
    value (a FinanceResult or a metrics mapping). Values that do not exist (a plan without output tokens)
    make the bridge None."""
    total_a, total_b = float(a[TOTAL]), float(b[TOTAL])
    listed = [p for p in BRIDGE_PARTS if p != "other"]
    values_a = [float(a[part_key(p)]) for p in listed]
    values_b = [float(b[part_key(p)]) for p in listed]
    if not all(math.isfinite(v) for v in [total_a, total_b, *values_a, *values_b]):
        return None
    other_a, other_b = total_a - math.fsum(values_a), total_b - math.fsum(values_b)
    parts: list[dict[str, Any]] = [{"part": p, "a": va, "b": vb, "difference": vb - va}
             for p, va, vb in zip(listed, values_a, values_b)]
    difference = total_b - total_a
    # other: the rest of the difference, so that the steps sum (math.fsum) to B - A
    parts.append({"part": "other", "a": other_a, "b": other_b,
                  "difference": difference - math.fsum(p["difference"] for p in parts)})
    return {"a": name_a, "b": name_b, "unit": "USD/Mtok", "a_usd_per_million": total_a,
            "b_usd_per_million": total_b, "difference_usd_per_million": difference, "parts": parts}
