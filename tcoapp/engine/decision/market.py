"""What a plan's returns assume of its market, in words, and the warning where returns are so high
that demand and price, not hardware, drive them (docs/user_guide.md, "Decision").

A plan earns what it sells: the share of its capacity sold (utilization) at the price typed. Neither
is a property of the hardware, and a token-selling plan at list prices and 70 % utilization pays back
in months; the headline says so instead of leaving the reader to find it in the inputs.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.number_format import money, percent

FAST_PAYBACK_MONTHS = 12.0   # a payback below this ...
HIGH_IRR = 1.0               # ... or an IRR above this (100 % a year) carries the market warning


def _price_change(plan) -> str:
    change = float(plan.price_change_per_year)
    return f", prices {'+' if change > 0 else ''}{percent(change, 3)} a year" if change else ""


def assumption(plan, result) -> str:
    """What the plan's revenue assumes: '70 % of capacity sold at $0.88 per Mtok output and $0.88 per Mtok
    input'; for device-hours the reserved share and the on-demand hours with their prices."""
    used = percent(float(plan.utilization), 3)
    if plan.revenue_mode == "device_hours":
        reserved = float(plan.reserved_fraction)
        parts = []
        if reserved > 0:
            parts.append(f"{percent(reserved, 3)} of devices reserved at "
                         f"{money(float(plan.reserved_price_usd_per_device_hour))} per device-hour")
        if reserved < 1:
            rest = "the rest" if reserved > 0 else "devices"
            parts.append(f"{rest} sold on demand {used} of hours at {money(float(plan.price_usd_per_device_hour))} "
                         "per device-hour")
        return " and ".join(parts) + _price_change(plan)
    output = result.output_price_usd_per_million() if result.inputs is not None else math.nan
    if not np.isfinite(output):
        output = float(plan.price_usd_per_million_output_tokens)
    text = f"{used} of capacity sold at {money(output)} per Mtok output"
    tokens_in = float(plan.price_usd_per_million_input_tokens or 0.0)
    cached = plan.price_usd_per_million_cached_input_tokens
    if tokens_in > 0:
        text += f" and {money(tokens_in)} per Mtok input"
        if cached is not None and float(cached) != tokens_in:
            text += f" ({money(float(cached))} cached)"
    return text + _price_change(plan)


def assumptions_text(plans, results) -> str:
    """'Returns assume 70 % of capacity sold at $0.88 per Mtok output ... (every plan).' or one clause per plan."""
    texts = [assumption(p, r) for p, r in zip(plans, results)]
    if not texts:
        return ""
    if len(set(texts)) == 1:
        return f"Returns assume {texts[0]}" + (" (every plan)." if len(texts) > 1 else ".")
    return "Returns assume: " + "; ".join(f"{p.name}: {t}" for p, t in zip(plans, texts)) + "."


def too_good(result) -> bool:
    """Whether a plan pays back in under FAST_PAYBACK_MONTHS (having capex to pay back) or returns over HIGH_IRR."""
    m = result.metrics
    fast = np.isfinite(m.payback_months) and m.payback_months < FAST_PAYBACK_MONTHS and m.capex_usd > 0
    return bool(fast or (np.isfinite(m.irr) and m.irr > HIGH_IRR))


def _figures(result) -> str:
    m = result.metrics
    parts = []
    if np.isfinite(m.payback_months):
        parts.append(f"payback {m.payback_months:.1f} months")
    if np.isfinite(m.irr):
        parts.append(f"IRR {percent(m.irr, 3)}")
    return ", ".join(parts)


def warning_text(plans, results) -> str:
    """The market warning where any plan pays back in under 12 months or returns over 100 % a year; empty
    otherwise."""
    hot = [(p, r) for p, r in zip(plans, results) if too_good(r)]
    if not hot:
        return ""
    named = "; ".join(f"{p.name}: {_figures(r)}" for p, r in hot)
    return (f"Warning: payback under {FAST_PAYBACK_MONTHS:g} months or IRR over {percent(HIGH_IRR, 3)} ({named}): "
            "demand and price, not hardware, drive these returns; they hold only if that share of capacity "
            "sells at that price.")
