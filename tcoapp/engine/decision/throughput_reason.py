"""The sentence a Decision reason adds where a plan's software gets faster by year (docs/model.md, "Finance
over time"): how much more its fleet serves by the horizon than in year 1, from the plan's own year rows."""
from __future__ import annotations

import numpy as np


def throughput_sentence(plan, result) -> str:
    """' Software 30 %/yr faster (throughput_change_per_year): year 4 serves 2.20x year 1's output tokens.'
    (with a leading space); '' where the key is 0 or the plan has no year rows."""
    change = float(getattr(plan, "throughput_change_per_year", 0.0) or 0.0)
    finance = result.finance
    if change == 0 or finance is None:
        return ""
    tokens = np.asarray(finance.years.output_tokens, float).reshape(-1)
    years = int(plan.years)
    if years < 2 or tokens.size <= years or not tokens[1] > 0:
        return ""
    ratio = tokens[years] / tokens[1]
    speed = f"{abs(change):.0%}/yr {'faster' if change > 0 else 'slower'}"
    capped = " (capped by its demand)" if ratio < (1.0 + change) ** (years - 1) * (1 - 1e-9) else ""
    return (f" Software {speed} (throughput_change_per_year): year {years} serves {ratio:.2f}x year 1's output "
            f"tokens{capped}.")
