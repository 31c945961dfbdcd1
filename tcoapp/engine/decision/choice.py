"""The decision: which objective the plans are ranked by, their order, and how sure the first place
is (docs/user_guide.md, "Decision"). One function, `decide`, feeds the `decision` block of
`tcoapp compute --json`, the command line's text, the desktop app's Decision tab and the report.

- The objective fits the constraint the plans share (`default_objective`): any plan financed, equity
  NPV at one common hurdle rate (`hurdle_rate`: the highest equity discount rate of the financed plans,
  so that no plan is ranked on a cheaper cost of equity than another); plans sized by facility power or
  capex budget, NPV (what the site earns; the headline adds NPV per MW of facility power); plans sized
  by demand, cost per million output tokens (their revenue is the same, so it ranks as NPV does);
  otherwise cost per million output tokens where every plan sells tokens, NPV where any sells
  device-hours. `objective` chooses another.
- Where the first plan by cost per token is not the first by NPV, `other_first` names it, so that the
  headline can say both ("MI355X makes the cheapest tokens; GB200 earns the most on this 1 MW site").
- `p_first_beats_second`: the share of paired draws of the model's error (shared per architecture and
  stack and per configuration) and of the Uncertainty sheet's inputs, joined through the engine
  exactly, in which the first plan beats the second (decision/draws.py); None where there is no second
  plan with a value. `too_close` when it is below CONFIDENT.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from . import market, summary as decision
from .draws import DRAWS, SEED, objective_draws, separating, share_better, value

CONFIDENT = 0.8          # P(first beats second) below which the decision is too close to call
TOKEN_OBJECTIVE = "cost_per_million_output_tokens_usd"
EARNINGS_OBJECTIVES = ("npv_usd", "equity_npv_usd")
SITE_MODES = ("facility_power", "capex_budget")    # sizing modes that fix what the site holds, not what it serves


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
    basis: str = ""                         # why this objective, in words ("the plans are sized by the same facility power")
    hurdle_rate: float | None = None        # equity NPV: the one rate every plan's equity flows are discounted at
    site: str = ""                          # what the plans share: "1 MW site", "$10M budget" (empty: nothing)
    other_first: str | None = None          # the first plan by the other view (cost per token vs NPV) where it differs
    other_objective: str | None = None      # that view's objective key
    by_site: bool = False                   # every plan is sized by facility power or capex budget (NPV per MW applies)
    market: str = ""                        # what the returns assume: share of capacity sold, price (market.py)
    market_warning: str = ""                # payback under 12 months or IRR over 100 %: demand and price drive it

    @property
    def first(self):
        """The first plan's summary of the draws, or None where it has no value on the objective."""
        return self.summaries[0] if self.summaries and self.summaries[0].exists else None

    @property
    def second(self):
        """The second plan's summary of the draws, or None where it has no value on the objective."""
        return self.summaries[1] if len(self.summaries) > 1 and self.summaries[1].exists else None


def _words(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def objective_key(text: str) -> str:
    """The objective a user names: its key ('npv_usd'), its label in any case ('Equity NPV') or an
    unambiguous start of either ('npv', 'equity', 'cost'). ValueError naming the choices otherwise."""
    wanted = _words(text)
    names = {key: {_words(key), _words(label), _words(re.sub(r"\(.*?\)", "", label))}
             for key, (label, _, _) in decision.OBJECTIVES.items()}
    exact = [key for key, forms in names.items() if wanted in forms]
    found = exact or [key for key, forms in names.items() if wanted and any(f.startswith(wanted) for f in forms)]
    if len(found) == 1:
        return found[0]
    choices = "; ".join(f"{key} ({label})" for key, (label, _, _) in decision.OBJECTIVES.items())
    why = f"names {' and '.join(found)}: give more of it" if found else "names no objective"
    raise ValueError(f"{text!r} {why} (choices: {choices})")


def _sizing(plans) -> str:
    """The sizing mode every plan shares ('' where they differ)."""
    modes = {p.sizing_mode for p in plans}
    return modes.pop() if len(modes) == 1 else ""


def default_objective(plans) -> str:
    """The objective that fits the constraint the plans share (module docstring)."""
    if any(float(p.debt_fraction) > 0 for p in plans):
        return "equity_npv_usd"
    if _sizing(plans) in SITE_MODES:
        return "npv_usd"
    if _sizing(plans) == "demand":
        return TOKEN_OBJECTIVE
    return "npv_usd" if any(p.revenue_mode == "device_hours" for p in plans) else TOKEN_OBJECTIVE


def basis_text(plans, objective: str) -> str:
    """Why the default objective is the one it is, in words (empty where the user chose another)."""
    if objective != default_objective(plans):
        return "chosen with Rank by"
    if objective == "equity_npv_usd":
        return "a plan borrows, so the plans are compared on what their equity earns at one hurdle rate"
    mode = _sizing(plans)
    if mode in SITE_MODES:
        what = "facility power" if mode == "facility_power" else "capex budget"
        return f"the plans are sized by {what}, so the one that earns the most from the site is first"
    if mode == "demand":
        return "the plans serve the same demand, so their revenue is the same and the cheapest tokens earn the most"
    if objective == TOKEN_OBJECTIVE:
        return "every plan sells tokens and no common site or demand sizes them"
    return "a plan sells device-hours, whose cost per token says nothing of what it earns"


def site_text(plans) -> str:
    """What the plans share: '1 MW site', '$10M budget'; empty where it differs or is not a site."""
    from ..core.number_format import money
    mode = _sizing(plans)
    if mode == "facility_power":
        kw = {float(p.facility_power_kw) for p in plans}
        return f"{kw.pop() / 1000:g} MW site" if len(kw) == 1 else ""
    if mode == "capex_budget":
        usd = {float(p.capex_budget_usd) for p in plans}
        return f"{money(usd.pop())} budget" if len(usd) == 1 else ""
    return ""


def equity_rate(plan) -> float:
    """The rate a plan's own equity NPV is discounted at: equity_discount_rate, else discount_rate."""
    own = plan.equity_discount_rate
    return float(plan.discount_rate) if own is None or own != own else float(own)


def hurdle_rate(plans) -> float | None:
    """The one rate every plan's equity NPV is ranked at: the highest equity discount rate of the plans
    that borrow (None where none borrows)."""
    financed = [equity_rate(p) for p in plans if float(p.debt_fraction) > 0]
    return max(financed) if financed else None


def at_hurdle(scenario, results, rate: float):
    """(scenario, results) with every plan's equity NPV discounted at `rate`: the equity flows are the
    plan's own, only the rate changes."""
    from ..finance.cashflow import npv_usd     # with computed results only
    plans = scenario.with_plans(p.with_(equity_discount_rate=rate) for p in scenario.plans)
    out = []
    for r in results:
        if r.inputs is None or r.finance is None:
            out.append(r)
            continue
        inputs = r.inputs.with_(equity_discount_rate=np.full(np.shape(r.inputs.equity_discount_rate), rate))
        npv = float(npv_usd(rate, np.asarray(r.finance.years.equity_cash_flow_usd, float), inputs.discounting))
        finite = np.isfinite(r.metrics.equity_npv_usd)
        out.append(replace(r, inputs=inputs, metrics=r.metrics.with_(equity_npv_usd=npv if finite else math.nan)))
    return plans, tuple(out)


def _other_view(objective: str, summaries, results) -> tuple[str | None, str | None]:
    """(the first plan by the other view, its objective) where it differs from the first by `objective`:
    cost per token beside NPV, NPV beside cost per token; (None, None) otherwise."""
    if objective not in EARNINGS_OBJECTIVES + (TOKEN_OBJECTIVE,) or len(summaries) < 2:
        return None, None
    other = TOKEN_OBJECTIVE if objective in EARNINGS_OBJECTIVES else "npv_usd"
    if other == TOKEN_OBJECTIVE and any(s.sells_hours for s in summaries):
        return None, None
    values = [float(getattr(results[s.index].metrics, other)) for s in summaries]
    ok = [(v, s.index, s.name) for v, s in zip(values, summaries) if np.isfinite(v)]
    if len(ok) < 2 or not summaries[0].exists:
        return None, None
    sign = 1.0 if decision.OBJECTIVES[other][2] == "low" else -1.0
    best = min(ok, key=lambda t: (sign * t[0], t[1]))
    return (best[2], other) if best[1] != summaries[0].index else (None, None)


def _value_of(objective: str, summaries):
    """value_of(k, record): plan k's objective from a metrics record or finance result."""
    if objective == "revenue_usd_per_mw_per_year":
        mw = [s.facility_mw for s in summaries]
        return lambda k, record: np.asarray(value(record, "revenue_usd_per_year"), float) / mw[k]
    return lambda k, record: np.asarray(value(record, objective), float)


def decide(scenario, results, objective: str | None = None, draws: int = DRAWS, seed: int = SEED) -> Decision:
    """The decision over computed results (module docstring)."""
    objective = objective_key(objective) if objective else default_objective(scenario.plans)
    rate = hurdle_rate(scenario.plans) if objective == "equity_npv_usd" else None
    if rate is not None:
        scenario, results = at_hurdle(scenario, results, rate)
    summaries = decision.summarize(scenario.plans, results, objective, scenario.all_device_names())
    order = decision.ranked(summaries, objective)
    names = tuple(s.name for s in order)
    other_first, other_objective = _other_view(objective, order, results)
    context: dict[str, Any] = dict(
                   basis=basis_text(scenario.plans, objective), hurdle_rate=rate, site=site_text(scenario.plans),
                   by_site=_sizing(scenario.plans) in SITE_MODES,
                   other_first=other_first, other_objective=other_objective,
                   market=market.assumptions_text(scenario.plans, results),
                   market_warning=market.warning_text(scenario.plans, results))
    if len(order) < 2 or not (order[0].exists and order[1].exists):
        return Decision(objective, names, None, False, tuple(order), draws=draws, **context)
    better = decision.OBJECTIVES[objective][2]
    drawn = objective_draws(scenario, results, (order[0].index, order[1].index), _value_of(objective, summaries),
                            draws, seed)
    a, b = drawn.values
    p = share_better(a, b, better)
    separators = tuple(separating(drawn.drivers, a, b)) if p < CONFIDENT else ()
    moves = any(np.ptp(v[np.isfinite(v)]) > 0 for v in (a, b) if np.isfinite(v).any())
    return Decision(objective, names, p, p < CONFIDENT, tuple(order), separators, draws, bool(scenario.uncertainty),
                    bool(moves), **context)
