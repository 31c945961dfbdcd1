"""The plan palette (which plan wears which colour: plan_colors.py), legend entries and money text:
the chart vocabulary that needs no pyqtgraph, so views that only write text (the Decision ranking)
can use it without loading the chart library."""
from __future__ import annotations

import math

PLAN_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
               "#7f7f7f", "#bcbd22")
COMPONENT_COLORS = {"capex": "#4e79a7", "energy": "#f28e2b", "colocation": "#76b7b2",
                    "maintenance": "#e15759", "other": "#b07aa1"}


def legend_entry(color: str, name: str, symbol: str = "&#9632;") -> str:
    """One rich-text legend entry that never breaks inside the name (non-breaking spaces and hyphens);
    entries joined by plain spaces wrap between entries only."""
    safe = name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    safe = safe.replace(" ", "&nbsp;").replace("-", "&#8209;").replace("/", "/&#8288;")
    return f'<span style="color:{color}; font-size:13pt">{symbol}</span>&nbsp;{safe}&nbsp;&nbsp;'


def money_text(value: float) -> str:
    """$1.2M style text for axis ticks and labels (no SI prefix on the unit)."""
    if not math.isfinite(value):
        return "n/a"
    sign = "-" if value < 0 else ""
    v = abs(value)
    for limit, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if v >= limit:
            return f"{sign}${v / limit:.3g}{suffix}"
    return f"{sign}${v:.3g}"
