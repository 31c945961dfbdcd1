"""The parts of a plan's result that its request classes add (docs/model.md, "Request classes"): the
classes' prices (a price tier reached at each class's own per-user rate), the mix's blended prices the
finance reads, each class's figures and the notes on the batch the mix's memory allows."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..performance.length_mix import KV_FIT_QUANTILE
from ..plan.pools import sells_output
from ..plan.request_classes import class_prices, mix_plan
from .class_results import class_results


def _served(caps):
    return [c for c in caps if c.mix is not None]


def class_rates(caps, k: int) -> np.ndarray:
    """Each class's tokens/s per user at its percentile: the worst over the serve pools (NaN: none serves)."""
    mixes = [c.mix.tokens_per_s_per_user for c in _served(caps)]
    return np.min(mixes, axis=0) if mixes else np.full(k, np.nan)


def mix_prices(scenario, plan, loads, caps, output_price):
    """(the plan's equivalent request with the classes' blended prices, each class's `ClassPrices`, each
    pool's output price, notes). A class without its own output price pays the plan's, or with price tiers
    the tier its own per-user rate reaches (`output_price(scenario, plan, point)`: compute.output_price)."""
    rates = class_rates(caps, len(loads))
    prices, notes = [], []
    for rc, rate in zip(plan.workloads, rates):
        tier = None
        if plan.price_tiers and rc.price_usd_per_million_output_tokens is None:
            tier, said = output_price(scenario, plan, SimpleNamespace(tokens_per_s_per_user=float(rate)))
            notes += [f"class {rc.class_!r}: {n}" for n in said]
        prices.append(class_prices(plan, rc, tier))
    blended = mix_plan(plan, loads, prices)
    pool_prices = [blended.price_usd_per_million_output_tokens if sells_output(c.pool) else 0.0 for c in caps]
    return blended, prices, pool_prices, notes


def mix_results(plan, loads, prices, caps, counts, fleet, metrics, out):
    """Each class's `ClassResult` (pipeline/class_results.py)."""
    serve = [i for i, c in enumerate(caps) if c.pool.role == "serve"]
    rate = float(np.nansum([fleet.requests_per_s[i] for i in serve])) if serve else float("nan")
    revenue = float(np.asarray(out["revenue_usd_per_year"], float)) if plan.revenue_mode == "tokens" else None
    return class_results(loads, prices, [caps[i].mix for i in serve], [float(np.nan_to_num(counts[i])) for i in serve],
                         rate, float(metrics.cost_per_million_output_tokens_usd), revenue)


def mix_notes(results, caps) -> list[str]:
    """What the mix's memory allows (the batch at the 99th percentile of its contexts against the batch at
    their mean), and each class's figures in words."""
    notes = []
    for c in _served(caps):
        where = f"pool {c.pool.name!r}: " if len(caps) > 1 else ""
        notes.append(f"{where}request classes: the batch's KV cache fits at the {KV_FIT_QUANTILE:.0%} quantile of its "
                     f"contexts up to {c.mix.max_batch_by_memory:g} sequences per replica "
                     f"({c.mix.fixed_length_batch_limit:g} were every context the batch's mean)")
    return notes


def blended_json(plan, caps, fleet) -> dict:
    """The mix's equivalent request (request-weighted mean lengths, token-weighted hit rate and prices), its
    requests/s and each serve pool's batch limits (`workloads_blended` of the JSON)."""
    serve = [i for i, c in enumerate(caps) if c.pool.role == "serve"]
    rate = float(np.nansum([fleet.requests_per_s[i] for i in serve])) if serve else float("nan")
    return {"input_tokens": float(plan.input_tokens), "output_tokens": float(plan.output_tokens),
            "achieved_prefix_hit_rate": float(plan.prefix_cache_hit_rate),
            "price_usd_per_million_output_tokens": float(plan.price_usd_per_million_output_tokens),
            "price_usd_per_million_input_tokens": float(plan.price_usd_per_million_input_tokens),
            "price_usd_per_million_cached_input_tokens": float(plan.price_usd_per_million_cached_input_tokens),
            "requests_per_s": rate if np.isfinite(rate) else None, "kv_fit_quantile": KV_FIT_QUANTILE,
            "pools": [{"pool": c.pool.name, "max_batch_by_memory": c.mix.max_batch_by_memory,
                       "max_batch_by_memory_at_mean_context": c.mix.fixed_length_batch_limit} for c in _served(caps)]}


def own_target_notes(plan) -> list[str]:
    """The plan's own targets, where it serves request classes: not used (each class has its own)."""
    keys = [f"{k} = {getattr(plan, k):g}" for k in ("min_tokens_per_s_per_user", "max_ttft_s") if getattr(plan, k) is not None]
    if not keys:
        return []
    return [f"the plan's own target ({', '.join(keys)}) is not used: its request classes carry their own targets "
            "(an empty class target is no target)"]
