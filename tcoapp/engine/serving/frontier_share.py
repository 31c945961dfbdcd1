"""`frontier_share`: how close a plan runs to the best its device reaches at its target
(docs/model.md, "Serving search").

The frontier of a one-pool plan is the fastest configuration (tokens/s per device) of the widest
serving search (`search_defaults.widest_search`) on the plan's device, model and workload that meets
the plan's interactivity target (a plan without a target: the tokens/s per user it reaches). The
share is the plan's tokens/s per device over that best. It does not exist (None) for a plan of
several pools or prefill/decode, a plan on a measured curve (the search runs the generated model),
or where no configuration meets the target. Below `LOW_SHARE` the plan carries a warning naming the
frontier.

Frontiers are cached by what decides them (device, model, workload, targets, acceptance, factors),
so an edit of a finance input does not search again.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..plan.pools import ResolvedPool
from ..plan.scenario import Scenario
from .defaults import LOW_SHARE, widest_search
from .search import EvaluatedSweep, search_serve_pool

_CACHE: dict = {}
_CACHE_LIMIT = 512


@dataclass(frozen=True)
class Frontier:
    tokens_per_s_per_device: float      # the best the device reaches at the target
    text: str                           # the configuration that reaches it


def frontier_for(scenario: Scenario, plan, pools: tuple[ResolvedPool, ...], per_user: float,
                 swept: EvaluatedSweep | None = None) -> Frontier | None:
    """The frontier of a one-pool generated plan at its target (see module docstring). `swept`: the
    plan's own search sweep, reused where the frontier's search sweeps the same points (a plan that
    searches the widest space with an interactivity target)."""
    if len(pools) != 1 or pools[0].role != "serve" or pools[0].curve:
        return None
    pool = pools[0]
    target = plan.min_tokens_per_s_per_user
    if target is None and plan.max_ttft_s is None:
        if not np.isfinite(per_user) or per_user <= 0:
            return None
        target = per_user * (1 - 1e-9)
    device, model = scenario.device(pool.device), scenario.model(plan.model)
    count = pool.device_count if plan.sizing_mode == "devices" else None
    key = (device, model, plan.workload, target, plan.max_ttft_s, pool.serving.spec_decode_acceptance,
           pool.serving.attention_weight_precision, plan.search_max_draft_tokens, count,
           scenario.factors_for(pool.device))
    if key in _CACHE:
        return _CACHE[key]
    values = {"spec_decode_acceptance": pool.serving.spec_decode_acceptance,
              "search_max_draft_tokens": plan.search_max_draft_tokens}
    probe = plan.with_(**widest_search(values), search_objective="tokens_per_s_per_device",
                       min_tokens_per_s_per_user=target)
    _, outcome = search_serve_pool(scenario, probe, pool, swept)
    found = None
    if outcome is not None and np.isfinite(outcome.objective_value) and outcome.objective_value > 0:
        found = Frontier(float(outcome.objective_value), outcome.text().split(": best")[0])
    if len(_CACHE) >= _CACHE_LIMIT:
        _CACHE.clear()
    _CACHE[key] = found
    return found


def share_of(tokens_per_s_per_device: float, frontier: Frontier | None) -> float:
    """The plan's tokens/s per device over its frontier's; NaN where either does not exist."""
    if frontier is None or not np.isfinite(tokens_per_s_per_device):
        return float("nan")
    return float(tokens_per_s_per_device / frontier.tokens_per_s_per_device)


def low_share_note(device: str, share: float, frontier: Frontier | None) -> str | None:
    """The warning of a plan far below its frontier; None at or above LOW_SHARE."""
    if frontier is None or not np.isfinite(share) or share >= LOW_SHARE:
        return None
    return (f"far below its frontier: {share:.0%} of the {frontier.tokens_per_s_per_device:,.0f} tokens/s per "
            f"device {device} reaches at this target ({frontier.text}); set Serving search to Auto to search it")
