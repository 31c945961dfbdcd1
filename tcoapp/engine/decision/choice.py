"""The decision: which objective the plans are ranked by, their order, and how sure the first place
is (docs/user_guide.md, "Decision"). One function, `decide`, feeds the `decision` block of
`tcoapp compute --json`, the command line's text, the desktop app's Decision tab and the report.

- The objective follows the plans' revenue model: cost per million output tokens at the target where
  every plan sells tokens (nothing else is comparable between plans that sell the same tokens);
  NPV where any plan sells device-hours (its cost per token says nothing of what it earns), equity
  NPV where any of those plans borrows. `objective` chooses another.
- `p_first_beats_second`: the share of paired draws of the model's error and of the Uncertainty
  sheet's inputs in which the first plan beats the second (decision/draws.py); None where there is
  no second plan with a value. `too_close` when it is below CONFIDENT.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import summary as decision
from .draws import DRAWS, SEED, objective_draws, separating, share_better, value

CONFIDENT = 0.8          # P(first beats second) below which the decision is too close to call
TOKEN_OBJECTIVE = "cost_per_million_output_tokens_usd"


@dataclass(frozen=True)
class Decision:
    objective: str
    ranked: tuple[str, ...]                 # plan names, best first (plans without a value last)
    p_first_beats_second: float | None
    too_close: bool
    summaries: tuple                        # decision.PlanSummary per plan, best first
    separators: tuple[str, ...] = ()        # drawn quantities that most move which of the two wins
    draws: int = DRAWS
    with_inputs: bool = False               # the Uncertainty sheet's inputs were drawn (else the model's error only)
    drawn_moves: bool = True                # the draws move either plan's objective (else p is 0 or 1 by construction)

    @property
    def first(self):
        """The first plan's summary of the draws, or None where it has no value on the objective."""
        return self.summaries[0] if self.summaries and self.summaries[0].exists else None

    @property
    def second(self):
        """The second plan's summary of the draws, or None where it has no value on the objective."""
        return self.summaries[1] if len(self.summaries) > 1 and self.summaries[1].exists else None


def default_objective(plans) -> str:
    """NPV (equity NPV where any plan borrows) where any plan sells device-hours; else cost per
    million output tokens."""
    hours = [p for p in plans if p.revenue_mode == "device_hours"]
    if not hours:
        return TOKEN_OBJECTIVE
    return "equity_npv_usd" if any(float(p.debt_fraction) > 0 for p in plans) else "npv_usd"


def _value_of(objective: str, summaries):
    """value_of(k, record): plan k's objective from a metrics record or finance result."""
    if objective == "revenue_usd_per_mw_per_year":
        mw = [s.facility_mw for s in summaries]
        return lambda k, record: np.asarray(value(record, "revenue_usd_per_year"), float) / mw[k]
    return lambda k, record: np.asarray(value(record, objective), float)


def decide(scenario, results, objective: str | None = None, draws: int = DRAWS, seed: int = SEED) -> Decision:
    """The decision over computed results (module docstring)."""
    objective = objective or default_objective(scenario.plans)
    if objective not in decision.OBJECTIVES:
        raise ValueError(f"objective {objective!r}: must be one of {', '.join(decision.OBJECTIVES)}")
    summaries = decision.summarize(scenario.plans, results, objective, scenario.all_device_names())
    order = decision.ranked(summaries, objective)
    names = tuple(s.name for s in order)
    if len(order) < 2 or not (order[0].exists and order[1].exists):
        return Decision(objective, names, None, False, tuple(order), draws=draws)
    better = decision.OBJECTIVES[objective][2]
    drawn = objective_draws(scenario, results, objective, better, _value_of(objective, summaries), draws, seed)
    a, b = drawn.values[order[0].index], drawn.values[order[1].index]
    p = share_better(a, b, better)
    separators = tuple(separating(drawn.drivers, a, b)) if p < CONFIDENT else ()
    moves = any(np.ptp(v[np.isfinite(v)]) > 0 for v in (a, b) if np.isfinite(v).any())
    return Decision(objective, names, p, p < CONFIDENT, tuple(order), separators, draws, bool(scenario.uncertainty),
                    bool(moves))
