"""How much of a plan's tokens/s per device comes from configuration gains (docs/model.md,
"Configuration gains"): the plan's number as a validated base times one gain per configuration term,

    tokens/s per device = validated base x speculative decoding gain x FP4 KV gain x disaggregation gain

each evaluated at the plan's own target (the largest batch meeting it, as for any configuration)
through the plan's operating-point path, the terms added one at a time:
- validated base: without speculative decoding, with a KV cache that is not FP4, aggregated (prefill and
  decode in one replica): the configuration kind the accuracy tables validate most. For a searched plan
  it is the configuration the search would have chosen without those terms (the same sweep, its space
  held to no draft tokens and no FP4 KV: e.g. TP8 where the plan's TP2 meets the target only with draft
  tokens); for a typed plan, its own configuration (device, TP, EP, attention-DP, weight precision)
  without them;
- speculative decoding gain: draft tokens allowed (searched) or the plan's (typed), at its acceptance,
  over the base, the KV cache still not FP4;
- FP4 KV gain: the plan's FP4 KV cache over that;
- disaggregation gain: a prefill/decode plan's tokens/s per device (over both pools) over its decode
  configuration served aggregated.
A term the plan does not use has gain 1. Where a step has no operating point (the target is met only
with the term: e.g. no batch reaches it without speculation), that gain and the base are null: the
plan's number then rests on the term alone. A plan of request classes takes each step at the mix's
operating point (every class at its targets; serving/class_mix.py); a searched one's base is the best
configuration its mix search evaluated within the restricted space (an agentic class at the prefix hit
rate the plan's sessions achieve). None for a plan on a measured curve (the measurement holds its
configuration) or of several serve pools.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..serving.class_mix import mix_operating_point
from ..serving.operating import operating_point
from ..serving.gain_spaces import FP4_KV, GAIN_SPACES
from ..serving.search import best_points_within_each
BASE_KV = "fp8"


def configuration_gains(scenario, plan, pools, fleet, searched=(), loads=()) -> dict | None:
    """The plan's configuration gains (module docstring) as a JSON-ready dict, or None. `searched`: per pool,
    (the pool as typed, its search outcome or None); `loads`: the plan's request classes (`plan` then the mix's
    equivalent request, as pool_capacities takes them)."""
    users = [i for i, p in enumerate(pools) if p.role in ("serve", "decode")]
    if fleet is None or len(users) != 1 or any(p.curve for p in pools):
        return None
    pool = pools[users[0]]
    final = _finite(fleet.point.tokens_per_s_per_device)
    if final is None:
        return None
    s = pool.serving
    paired = any(p.role == "prefill" for p in pools)
    serve = replace(pool, role="serve", device_count=pool.device_count)
    typed, outcome = searched[users[0]] if len(searched) > users[0] else (None, None)
    steps, base_serving, kv = _steps(scenario, plan, serve, typed, outcome, final, paired, loads)
    base = steps[0]
    ratios = [_ratio(steps[1], steps[0]), _ratio(steps[2], steps[1]), _ratio(final, steps[2]) if paired else 1.0]
    gains = _gain_rows(s, ratios, paired)
    return {"tokens_per_s_per_device": final, "validated_base_tokens_per_s_per_device": base,
            "base_configuration": _base_text(base_serving, kv), "base_searched": outcome is not None and not paired,
            "gains": gains}


def _gain_rows(s, ratios, paired: bool) -> list[dict]:
    """The three terms' rows (term, used, setting, gain); an unused term gains 1."""
    k, acceptance = s.spec_decode_draft_tokens, s.spec_decode_acceptance
    return [
        {"term": "speculative decoding", "used": k > 0,
         "setting": (f"{k} draft token{'s' if k > 1 else ''} at acceptance {acceptance:g}"
                     if k > 0 and acceptance is not None else "off"),
         "gain": ratios[0] if k > 0 else 1.0},
        {"term": "FP4 KV cache", "used": s.kv_precision in FP4_KV,
         "setting": f"{s.kv_precision} KV" if s.kv_precision in FP4_KV else f"{s.kv_precision} KV (not FP4)",
         "gain": ratios[1] if s.kv_precision in FP4_KV else 1.0},
        {"term": "disaggregation", "used": paired,
         "setting": "prefill and decode pools" if paired else "aggregated", "gain": ratios[2]},
    ]


def _searched_steps(scenario, plan, typed, outcome, serve, final: float):
    """([base, with draft tokens, the plan's] tokens/s per device, the base's configuration or None) of a
    searched plan: the search's choice with its space held to no draft tokens and no FP4 KV, then to no FP4
    KV with draft tokens where the plan's choice has them (serving/search.best_points_within_each, over the sweep it
    evaluated; the spaces of serving/gain_spaces.py, whose shortlists the search re-evaluated with its own). A
    term the choice does not use then gains exactly 1: the restricted search finds the choice."""
    draft = serve.serving.spec_decode_draft_tokens > 0
    # each best with the tokens/s per device of its operating point, as the search re-evaluated it exactly
    chosen = best_points_within_each(scenario, plan, typed, outcome, GAIN_SPACES if draft else GAIN_SPACES[:1])
    chosen = chosen if draft else chosen * 2
    return ([None if c is None else _finite(c[1]) for c in chosen] + [final],
            None if chosen[0] is None else chosen[0][0])


def _steps(scenario, plan, serve, typed, outcome, final: float, paired: bool, loads):
    """([base, with draft tokens, the plan's or its decode served aggregated] tokens/s per device, the base's
    configuration, the base's KV precision) by the plan's kind: of request classes, searched, or typed."""
    s = serve.serving
    kv = BASE_KV if s.kv_precision in FP4_KV else s.kv_precision
    if loads:
        steps, base_serving = _mix_steps(scenario, plan, serve, outcome, final, kv, loads)
    elif typed is not None and outcome is not None and not paired:
        steps, base_serving = _searched_steps(scenario, plan, typed, outcome, serve, final)
    else:
        steps = _typed_steps(scenario, plan, serve, [s.with_(spec_decode_draft_tokens=0, kv_precision=kv),
                                                     s.with_(kv_precision=kv)] + ([s] if paired else []))
        return steps + ([] if paired else [final]), s, kv
    searched_base = base_serving is not None and outcome is not None
    return steps, base_serving or s, base_serving.kv_precision if searched_base else kv


def _mix_steps(scenario, plan, serve, outcome, final: float, kv: str, loads):
    """([base, with draft tokens, the plan's] tokens/s per device, the base's configuration or None) of a plan of
    request classes: a searched pool's bests within the gain spaces (its mix search's own, SearchOutcome.
    within_gain_spaces), a typed pool's own configuration without the terms, at the mix's operating point."""
    s = serve.serving
    if outcome is not None:
        within = outcome.within_gain_spaces or (None, None)
        chosen = list(within) if s.spec_decode_draft_tokens > 0 else [within[0]] * 2
        return ([None if c is None else _finite(c[1]) for c in chosen] + [final],
                None if chosen[0] is None else chosen[0][0])
    steps = [_mix_tps(scenario, plan, serve, s.with_(spec_decode_draft_tokens=0, kv_precision=kv), loads),
             _mix_tps(scenario, plan, serve, s.with_(kv_precision=kv), loads)]
    return steps + [final], s


def _typed_steps(scenario, plan, serve, servings) -> list[float | None]:
    """`_tps` of each configuration in `servings`, one equal to a configuration before it not evaluated again (a
    plan without draft tokens: the base and the step with draft tokens are the same configuration)."""
    found: dict = {}
    for serving in servings:
        if serving not in found:
            found[serving] = _tps(scenario, plan, serve, serving)
    return [found[serving] for serving in servings]


def _mix_tps(scenario, plan, pool, serving, loads) -> float | None:
    point, _ = mix_operating_point(scenario, plan, replace(pool, serving=serving), loads)
    return _finite(point.tokens_per_s_per_device) if point.exists else None


def _tps(scenario, plan, pool, serving) -> float | None:
    point, _ = operating_point(scenario, plan, replace(pool, serving=serving))
    return _finite(point.tokens_per_s_per_device) if point.exists else None


def _ratio(over, under) -> float | None:
    return over / under if over is not None and under is not None and under > 0 else None


def _finite(value) -> float | None:
    value = float(np.asarray(value, float))
    return value if np.isfinite(value) and value > 0 else None


def _base_text(serving, kv: str) -> str:
    parts = [f"TP{serving.tensor_parallel}"] + ([f"EP{serving.expert_parallel}"] if serving.expert_parallel > 1 else [])
    parts += ["attention-DP"] if serving.attention_dp else []
    return ", ".join(parts + [f"{serving.weight_precision} weights", f"{kv} KV", "no draft tokens", "aggregated"])
