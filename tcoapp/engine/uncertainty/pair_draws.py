"""Prefill/decode pools over a draw axis: `serving/fleet.py`'s pair physics (formulas in
performance/pool_pair.py) with the roofline batched over draws of factors, device fields and plan keys.

Per draw: each prefill pool's request rate per device 1 / (t_prefill x n) and isolated TTFT part; each
decode pool's batch (its fixed batch where it fits in memory, else no operating point; or the largest
grid batch meeting the target with TTFT = the slowest prefill + its KV transfer + one decode step,
found by the same vectorized bracketing search as serve pools, by bisection here) and its request rate;
then the plan's rate is the smallest of prefill capacity, decode capacity and the KV link, each pool's tokens/s
per device and power follow what it serves, at each draw's device counts. A draw where any
pool of the pair has no operating point has none for the plan (NaN).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..performance.generated import config_problems
from ..performance.pool_pair import (
    KV_FABRIC_FIELD, busy_power_w, decode_terms, kv_bytes_per_request, kv_fabric, pair_rate,
)
from ..serving.routing import route_by_year
from .serve_draws import ServeCase, largest_grid_batch, run


@dataclass(frozen=True)
class PairDraws:
    """Per pool of the plan (index -> (draws,) arrays) for its prefill and decode pools."""

    tokens_per_s_per_device: dict
    power_w: dict
    tokens_per_s_per_user: dict   # decode pools


def _link(case_pre: ServeCase, case_dec: ServeCase):
    """pool_pair.kv_link_gb_s with per-draw bandwidths (the fabric is the base devices' choice): (the
    prefill side's own per-device rate [GB/s], the decode side's own)."""
    field = KV_FABRIC_FIELD[kv_fabric(case_pre.base_device, case_dec.base_device)]
    return np.asarray(getattr(case_pre.device, field), float), np.asarray(getattr(case_dec.device, field), float)


def _power(case: ServeCase, busy):
    return busy_power_w(case.device, busy, case.factors)


def _prefill(case: ServeCase, draws: int):
    r = run(case, np.ones(draws))
    n = case.serving.tensor_parallel * case.serving.expert_parallel
    kv_bytes = kv_bytes_per_request(case.model, case.serving, case.workload)
    rate = 1.0 / (np.asarray(r.prefill_s, float) * n)
    ok = np.isfinite(rate) & (rate > 0) & np.isfinite(r.ttft_s) & (not config_problems(case.base_device, case.model, case.serving))
    return rate, np.asarray(r.ttft_s - r.step_s - r.queue_s, float), kv_bytes, n, ok


def _decode(case: ServeCase, lead_s, draws: int):
    """(requests/s per device, per-user rate, step busy fraction, exists) of a decode pool per draw."""
    b_max = np.asarray(run(case, np.ones(draws)).max_batch_by_memory, float) * np.ones(draws)
    possible = (not config_problems(case.base_device, case.model, case.serving)) & (b_max >= 1)
    if case.has_target:
        def meets(batch):
            r = run(case, batch)
            ok = np.ones(np.shape(batch), bool)
            if case.min_tokens_per_s_per_user is not None:
                ok &= decode_terms(r, batch, _replica_devices(case), case.workload, case.factors)[0] >= case.min_tokens_per_s_per_user
            if case.max_ttft_s is not None:
                ok &= lead_s + r.step_s <= case.max_ttft_s
            return ok
        batch = largest_grid_batch(meets, b_max, possible)
    else:
        batch = np.where(float(case.serving.batch) <= b_max, float(case.serving.batch), np.nan)
    exists = possible & np.isfinite(batch)
    b = np.where(exists, batch, 1.0)
    per_user, requests, busy = decode_terms(run(case, b), b, _replica_devices(case), case.workload, case.factors)
    rate = np.where(exists, requests, np.nan)
    return rate, per_user, busy, exists & np.isfinite(rate) & (rate > 0)


def _replica_devices(case: ServeCase):
    return case.serving.tensor_parallel * case.serving.expert_parallel


def pair_draws(cases: dict, roles: dict, counts, draws: int, years: dict | None = None) -> PairDraws:
    """The pair's pools per draw; `cases` and `roles` by pool index, `counts[i]` pool i's device count
    (a number, or one per draw where sizing moved it), `years[i]` its purchase year (0 when absent):
    decode pools are routed by capacity and purchase year (`serving/routing.py`)."""
    pre = [i for i in cases if roles[i] == "prefill"]
    dec = [j for j in cases if roles[j] == "decode"]
    p = {i: _prefill(cases[i], draws) for i in pre}
    d, ok = _decode_pools(cases, p, pre, dec, draws)
    for i in pre:
        ok &= p[i][4]
    kv_bytes = max(p[i][2] for i in pre)
    years = years or {}
    with np.errstate(divide="ignore", invalid="ignore"):
        prefill_side, decode_side = _sides(cases, p, d, counts, pre, dec)
        rate, pre_cap, _, _ = pair_rate(prefill_side, decode_side, kv_bytes)
        tokens, power, per_user = {}, {}, {}
        for i in pre:
            tokens[i] = np.where(ok, 0.0, np.nan)
            power[i] = np.where(ok, _power(cases[i], np.where(pre_cap > 0, rate / pre_cap, 0.0)), np.nan)
        served, _ = route_by_year(prefill_side, decode_side, kv_bytes,
                                  [years.get(i, 0) for i in pre], [years.get(j, 0) for j in dec])
        for k, j in enumerate(dec):
            tokens[j], power[j], per_user[j] = _decode_outputs(cases[j], d[j], counts[j], served[k], ok)
    return PairDraws(tokens, power, per_user)


def _decode_pools(cases: dict, p: dict, pre: list, dec: list, draws: int) -> tuple[dict, np.ndarray]:
    """Each decode pool's draws (after the slowest prefill and KV transfer that feed it) and where every
    one of them has a point."""
    ok = np.ones(draws, bool)
    d = {}
    for j in dec:
        lead = np.zeros(draws)
        n_d = cases[j].serving.tensor_parallel * cases[j].serving.expert_parallel
        for i in pre:
            send, receive = _link(cases[i], cases[j])
            lead = np.maximum(lead, p[i][1] + p[i][2] / (np.minimum(p[i][3] * send, n_d * receive) * 1e9))
        d[j] = _decode(cases[j], lead, draws)
        ok &= d[j][3]
    return d, ok


def _sides(cases: dict, p: dict, d: dict, counts, pre: list, dec: list) -> tuple[list, list]:
    """(requests/s per device, devices, link GB/s) of each prefill pool and each decode pool, as
    pair_rate and route_by_year take them (a pool's link: its slowest to any pool on the other side)."""
    prefill_side = [(p[i][0], counts[i], np.min([_link(cases[i], cases[j])[0] for j in dec], axis=0)) for i in pre]
    decode_side = [(d[j][0], counts[j], np.min([_link(cases[i], cases[j])[1] for i in pre], axis=0)) for j in dec]
    return prefill_side, decode_side


def _decode_outputs(case, drawn, count, served, ok) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(tokens/s per device, power per device, tokens/s per user) of a decode pool serving `served` requests/s."""
    rate, per_user, busy = drawn[0], drawn[1], drawn[2]
    capacity = rate * count
    used = np.where(capacity > 0, served / np.where(capacity > 0, capacity, 1.0), 0.0)
    n = np.asarray(count, float)
    per_device = np.where(n > 0, served * case.workload.output_tokens / n, 0.0)
    return (np.where(ok, per_device, np.nan), np.where(ok, _power(case, busy * used), np.nan),
            np.where(ok, per_user, np.nan))
