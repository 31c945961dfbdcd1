"""The sentence a Decision reason adds where a plan's software gets faster by year (docs/model.md, "Finance
over time"): the throughput index alone, (1 + change)^(years - 1), in words. What the fleet serves by year
also moves with the utilization ramp, later tranches and demand caps, which the years table shows; the
sentence credits software with its own part only."""
from __future__ import annotations


def throughput_sentence(plan, result) -> str:
    """' Software 30 %/yr faster: by year 4 each device serves 2.20x its year-1 tokens per hour.' (with a
    leading space); '' where the change is 0, the horizon is one year or the plan has no finance."""
    change = float(getattr(plan, "throughput_change_per_year", 0.0) or 0.0)
    years = int(plan.years)
    if change == 0 or result is None or result.finance is None or years < 2:
        return ""
    index = (1.0 + change) ** (years - 1)
    speed = f"{abs(change):.0%}/yr {'faster' if change > 0 else 'slower'}"
    return (f" Software {speed}: by year {years} each device serves {index:.2f}x its year-1 tokens per hour "
            f"(software alone; the years table adds the utilization ramp, later tranches and demand).")
