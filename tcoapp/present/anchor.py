"""A plan's published anchor in words (pipeline/anchor.py gives it): the nearest shipped measurement
and the plan's ratio to it, the same sentence on the command line and on the GUI's frontier chart."""
from __future__ import annotations

import math


def anchor_sentence(anchor: dict) -> str:
    """"3,630 tokens/s per device at 42 tokens/s per user, the plan is 0.72x it (B200, DeepSeek-R1,
    FP8; source)"."""
    user = anchor.get("tokens_per_s_per_user")
    ratio = anchor.get("ratio")
    known = user is not None and math.isfinite(user) and user > 0
    return (f"{anchor['value']:,.0f} tokens/s per device" + (f" at {user:,.0f} tokens/s per user" if known else "")
            + (f", the plan is {ratio:.2f}x it" if ratio else "") + f" ({anchor['device']}, {anchor['model']}, "
            f"{anchor['precision'] or 'precision not stated'}; {anchor['source']})")


def anchor_points(results, indices) -> list[tuple[int, float, float]]:
    """(plan index, tokens/s per user, tokens/s per device) of the anchors of the plans `indices` that
    state both (an anchor without a per-user rate has no place on a frontier chart)."""
    out = []
    for i in indices:
        anchor = getattr(results[i], "published_anchor", None) or {}
        user, value = anchor.get("tokens_per_s_per_user"), anchor.get("value")
        if user and value and math.isfinite(user) and math.isfinite(value):
            out.append((i, float(user), float(value)))
    return out
