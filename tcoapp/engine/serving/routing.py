"""Which decode pool serves what, by capacity and by purchase year (docs/model.md, "Fleet plans").

A prefill/decode fleet's request rate in a year is that of the pools that exist then (a pool bought
in year k serves from year k + 1). The finance layer counts each pool's output at one rate per pool,
for every year it serves; so each decode pool is given the part of the rate that it adds when it
arrives: the pools of the first stage (the earliest purchase year) share that stage's rate by
capacity, the pools bought at a later stage share the rise of the rate it brings, and a tranche that
raises nothing (the plan is limited elsewhere) serves nothing. Summed over the pools that exist in a
year, this is exactly that year's rate.

Where a later stage adds only prefill pools (no new decode pool can carry the rise), its rise goes to
the decode pools already there, by capacity: exact from that stage on, above the rate in the years
before it; `route_by_year` says so in its note.
"""
from __future__ import annotations

import numpy as np

from ..performance.pool_pair import pair_rate


def route_by_year(prefill, decode, kv_bytes: float, pre_years, dec_years):
    """(each decode pool's request rate, list of notes). `prefill`, `decode`: pair_rate's (requests/s
    per device, devices, link GB/s) per pool; `pre_years`, `dec_years`: each pool's purchase year.
    Numbers or arrays over a draw axis (Monte Carlo)."""
    stages = sorted(set(pre_years) | set(dec_years))
    served = [0.0 * np.asarray(r, float) for r, _, _ in decode]
    notes = []
    before = 0.0
    for stage in stages:
        pre = [p for p, y in zip(prefill, pre_years) if y <= stage]
        dec = [d for d, y in zip(decode, dec_years) if y <= stage]
        rate = pair_rate(pre, dec, kv_bytes)[0] if pre and dec else 0.0
        rise = np.maximum(np.asarray(rate, float) - before, 0.0)
        new = [j for j, y in enumerate(dec_years) if y == stage]
        takers = new or [j for j, y in enumerate(dec_years) if y <= stage]
        if not new and takers and np.any(rise > 0):
            notes.append(f"prefill bought in year {stage} raises the rate of decode pools bought earlier: "
                         f"their output before year {stage + 1} is counted at the higher rate")
        capacity = sum(decode[j][0] * decode[j][1] for j in takers)
        for j in takers:
            share = np.where(capacity > 0, decode[j][0] * decode[j][1] / np.where(capacity > 0, capacity, 1.0), 0.0)
            served[j] = served[j] + rise * share
        before = np.maximum(before, rate)
    return served, notes
