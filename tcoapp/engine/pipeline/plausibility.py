"""Results past the physical bounds (engine/core/physical_bounds.py): said on the plan, never silent.

Every input is in its range, yet rates compounded for decades (+1000 %/yr of throughput over 50 years)
give a fleet more tokens a year than every accelerator in the world could make, or a price of
1e50 USD per million tokens. The plan is computed as entered; its warnings name the result, the year
and the inputs that compound into it.
"""
from __future__ import annotations

import numpy as np

from ..quantities.inputs import PLAN_FIELDS
from ..core.physical_bounds import TOKENS_PER_YEAR_MAX, USD_PER_MTOK_MAX, USD_PER_MTOK_MIN

# the rates that compound year on year (the years keys of unit fraction/yr)
_COMPOUNDING = tuple(f.name for f in PLAN_FIELDS if f.group == "years" and f.unit == "fraction/yr")


def _first_past(values, bound: float, above: bool = True) -> tuple[int, float] | None:
    """(year, value) of the first year whose value is past the bound, or None."""
    values = np.asarray(values, float).reshape(-1)
    past = values > bound if above else (values < bound) & (values > 0)
    if not past.any():
        return None
    year = int(np.argmax(past))
    return year, float(values[year])


def _rates(plan) -> str:
    rates = [f"{key} = {getattr(plan, key):+.0%}" for key in _COMPOUNDING if getattr(plan, key, 0.0)]
    return f" ({', '.join(rates)} over {plan.years} years)" if rates else ""


def plausibility_notes(plan, out, prices_usd_per_mtok) -> list[str]:
    """Warnings for a result past a physical bound: tokens a year, the output price or the cost per
    million output tokens."""
    notes = []
    years = out.years
    tokens = _first_past(years["output_tokens"], TOKENS_PER_YEAR_MAX)
    if tokens:
        notes.append(f"year {tokens[0]} makes {tokens[1]:.3g} output tokens: past {TOKENS_PER_YEAR_MAX:.0e} a year "
                     f"(more than every accelerator in the world could make){_rates(plan)}: check the rates")
    base = max((float(p) for p in prices_usd_per_mtok if np.isfinite(p)), default=0.0)
    price = _first_past(base * np.asarray(years.price_index, float), USD_PER_MTOK_MAX) if base > 0 else None
    if price:
        notes.append(f"year {price[0]} sells output tokens at {price[1]:.3g} USD per million: past "
                     f"{USD_PER_MTOK_MAX:.0e}{_rates(plan)}: check the rates")
    cost = float(out["cost_per_million_output_tokens_usd"])
    if np.isfinite(cost) and (cost > USD_PER_MTOK_MAX or 0 < cost < USD_PER_MTOK_MIN):
        notes.append(f"cost per million output tokens {cost:.3g} USD is outside {USD_PER_MTOK_MIN:.0e} to "
                     f"{USD_PER_MTOK_MAX:.0e}, where any fleet's cost lies{_rates(plan)}: check the inputs")
    return notes
