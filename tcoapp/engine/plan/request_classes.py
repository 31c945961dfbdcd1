"""A plan's request classes resolved against its own keys (docs/model.md, "Request classes").

A class's empty hit rate, latency percentile and prices are the plan's (an empty cached-input price: the
input price); its empty targets are no target. The mix's means give the plan one equivalent request
for what reads a single request shape (sizing in output tokens, the finance's input tokens and the three
prices): input and output tokens the request-weighted means, the hit rate and prices weighted by the
tokens they apply to, so that the plan's revenue is the sum of its classes' revenue exactly.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..performance.length_mix import LengthLaw
from ..performance.request_mix import ClassLoad
from ..quantities.records import Plan, RequestClass


@dataclass(frozen=True)
class ClassPrices:
    """USD per million output, uncached input and cached input tokens of one class."""

    output: float
    input: float
    cached_input: float


def agentic_mean_prompt(rc: RequestClass) -> float:
    """An agentic class's mean prompt (tokens), its sessions taken as independent requests: turn t of T
    reads the system prompt, t turns of new input and t - 1 earlier outputs, so over the turns
    S + u (T + 1) / 2 + o (T - 1) / 2. The agentic-session model (session residency of the KV cache)
    refines this; the class's prefix hit rate is the stated one."""
    turns = float(rc.session_turns or 1)
    return (float(rc.system_prompt_tokens or 0) + float(rc.turn_input_tokens or 0) * (turns + 1.0) / 2.0
            + float(rc.output_tokens) * (turns - 1.0) / 2.0)


def class_load(plan: Plan, rc: RequestClass) -> ClassLoad:
    """The physics' view of one class: lengths (a lognormal through mean and p90, fixed where the p90
    is empty; an agentic class its mean prompt, `agentic_mean_prompt`), hit rate, percentile, targets."""
    if rc.session_turns is not None:
        prompt = LengthLaw(agentic_mean_prompt(rc))
    else:
        prompt = LengthLaw.through(float(rc.input_tokens or 0), rc.input_tokens_p90)  # checked: >= 1 here
    return ClassLoad(
        rc.class_, float(rc.share), prompt, LengthLaw.through(rc.output_tokens, rc.output_tokens_p90),
        plan.prefix_cache_hit_rate if rc.prefix_cache_hit_rate is None else float(rc.prefix_cache_hit_rate),
        rc.latency_percentile or plan.latency_percentile or "mean", rc.min_tokens_per_s_per_user, rc.max_ttft_s)


def class_loads(plan: Plan, reloads: dict[str, float] | None = None) -> tuple[ClassLoad, ...]:
    """Every class of the plan (empty: the plan has none and serves its own keys' single request); `reloads`:
    {a class: the reload of its prefix from host memory or NVMe per request, s} (an agentic class's sessions',
    pipeline/agentic_block.py), in its prefill time."""
    loads = tuple(class_load(plan, rc) for rc in plan.workloads)
    if not reloads:
        return loads
    return tuple(replace(c, reload_s=float(reloads[c.name])) if c.name in reloads else c for c in loads)


def class_prices(plan: Plan, rc: RequestClass, output_price: float | None = None) -> ClassPrices:
    """The class's three prices, empty ones the plan's (`output_price`: the plan's output price for this
    class where it has none of its own, e.g. a price tier reached at its per-user rate)."""
    plan_out = plan.price_usd_per_million_output_tokens if output_price is None else output_price
    out = plan_out if rc.price_usd_per_million_output_tokens is None else rc.price_usd_per_million_output_tokens
    uncached = (plan.price_usd_per_million_input_tokens if rc.price_usd_per_million_input_tokens is None
                else rc.price_usd_per_million_input_tokens)
    plan_cached = plan.price_usd_per_million_cached_input_tokens
    cached = rc.price_usd_per_million_cached_input_tokens
    if cached is None:  # the plan's cached price; both empty: the class's input price
        cached = uncached if plan_cached is None else plan_cached
    return ClassPrices(float(out), float(uncached), float(cached))


def token_weights(loads) -> dict[str, np.ndarray]:
    """Per class, its share of the plan's output, uncached input and cached input tokens (each adds to 1
    over the classes; zeros where the plan has no such token)."""
    s = np.array([c.share for c in loads])
    out = s * np.array([c.output.mean for c in loads])
    inp = s * np.array([c.input.mean for c in loads])
    hit = np.array([c.prefix_cache_hit_rate for c in loads])
    parts = {"output": out, "uncached_input": inp * (1 - hit), "cached_input": inp * hit}
    return {k: v / v.sum() if v.sum() > 0 else np.zeros_like(v) for k, v in parts.items()}


def class_revenue_per_request(loads, prices) -> np.ndarray:
    """USD per request of each class: (O p_out + I (1 - h) p_in + I h p_cached) / 1e6, the three-price
    equation (h the class's hit rate)."""
    return np.array([(c.output.mean * p.output + c.input.mean * ((1 - c.prefix_cache_hit_rate) * p.input
                                                                + c.prefix_cache_hit_rate * p.cached_input)) / 1e6
                     for c, p in zip(loads, prices)])


def mix_plan(plan: Plan, loads, prices) -> Plan:
    """The plan with one equivalent request for the mix (module docstring): what sizing and the finance
    read. Its own targets are cleared (each class carries its own)."""
    w = token_weights(loads)
    s = np.array([c.share for c in loads])
    inputs = float(s @ np.array([c.input.mean for c in loads]))
    outputs = float(s @ np.array([c.output.mean for c in loads]))
    hits = np.array([c.prefix_cache_hit_rate for c in loads])
    in_tokens = s * np.array([c.input.mean for c in loads])
    hit = float(in_tokens @ hits / in_tokens.sum()) if in_tokens.sum() > 0 else 0.0
    uncached = float(w["uncached_input"] @ [p.input for p in prices]) if w["uncached_input"].any() else prices[0].input
    cached = float(w["cached_input"] @ [p.cached_input for p in prices]) if w["cached_input"].any() else uncached
    return replace(plan, input_tokens=inputs, output_tokens=outputs,  # type: ignore[arg-type]  # means, not whole
                   prefix_cache_hit_rate=hit,
                   price_usd_per_million_output_tokens=float(w["output"] @ [p.output for p in prices]),
                   price_usd_per_million_input_tokens=uncached, price_usd_per_million_cached_input_tokens=cached,
                   min_tokens_per_s_per_user=None, max_ttft_s=None)


def class_as_plan(plan: Plan, name: str) -> Plan:
    """The plan serving only its class `name`, as a plan of its own keys (no classes): the class's mean
    lengths, hit rate, percentile, targets and prices. What a class's frontier is drawn from (the
    frontier chart and `serving/frontier_share.frontier_for` of this plan show the class's frontier);
    its length tails are not a single request's, so the frontier is at the class's mean lengths.
    KeyError where the plan has no such class."""
    rc = next((c for c in plan.workloads if c.class_ == name), None)
    if rc is None:
        raise KeyError(f"plan {plan.name!r} has no request class {name!r} "
                       f"(its classes: {', '.join(c.class_ for c in plan.workloads) or 'none'})")
    load, prices = class_load(plan, rc), class_prices(plan, rc)
    return replace(plan, workloads=(), input_tokens=round(load.input.mean), output_tokens=round(load.output.mean),
                   prefix_cache_hit_rate=load.prefix_cache_hit_rate, latency_percentile=load.latency_percentile,
                   min_tokens_per_s_per_user=rc.min_tokens_per_s_per_user, max_ttft_s=rc.max_ttft_s,
                   price_usd_per_million_output_tokens=prices.output, price_usd_per_million_input_tokens=prices.input,
                   price_usd_per_million_cached_input_tokens=prices.cached_input)
