"""A decode pool's capacity for many serving configurations at once (docs/model.md, "Fleet plans"): what
`fleet._decode_capacity` gives each configuration typed into the decode pool of a prefill/decode pair, as
the search scores it, (tokens/s per device, power per device W, batch) at full load, from one kernel call
(every configuration's batches, up to its memory limit read without the kernel: `frontier.row_memory_limits`)
instead of two per configuration.

Per configuration, as `_decode_capacity`: none where the configuration is impossible or the model does not
fit; with an interactivity target, the largest batch of its grid (`search_batches` up to its memory limit)
whose tokens/s per user and TTFT (the lead before the first step + one step) meet it; without, the pool's
batch where it fits. Its power: `pool_pair.busy_power_w` at the step's busy fraction.
"""
from __future__ import annotations

import numpy as np

from ..performance.curve import meets_target
from ..performance.frontier import row_kernel, row_memory_limits, serving_columns
from ..performance.generated import config_problems
from ..performance.pool_pair import busy_power_w, decode_terms
from .operating import search_batches, stacked_batches

Point = tuple[float, float, float]   # (tokens/s per device, power per device W, batch)


def decode_points(scenario, plan, device, servings, lead_s) -> list[Point | None]:
    """Per configuration (all of one acceptance and mixed precision, a search space's), its decode capacity as
    (tokens/s per device, power W, batch), or None where it has none; `lead_s`: per configuration, the TTFT
    before its first decode step [s]."""
    if not servings:
        return []
    columns, acceptance, mixed = serving_columns(servings)
    model, workload, factors = scenario.model(plan.model), plan.workload, scenario.factors_for(device.name)

    def kernel(rows, batches):
        return row_kernel(device, model, workload, {c: v[rows] for c, v in columns.items()}, batches,
                          spec_decode_acceptance=acceptance, attention_weight_precision=mixed, factors=factors)

    n = len(servings)
    limits = np.broadcast_to(row_memory_limits(device, model, workload, columns, attention_weight_precision=mixed,
                                               factors=factors), (n, 1))[:, 0]
    alive = np.array([i for i, s in enumerate(servings) if not _problems(device, model, s) and limits[i] >= 1], int)
    out: list[Point | None] = [None] * n
    if not alive.size:
        return out
    if plan.has_target:
        grids = [search_batches(limits[i]) for i in alive]
        batches = stacked_batches(grids)
    else:
        batches = np.array([[float(servings[i].batch)] for i in alive])
    r = kernel(alive, batches)
    replica = columns["tensor_parallel"][alive][:, None] * columns["expert_parallel"][alive][:, None]
    per_user, requests, busy = (np.broadcast_to(v, batches.shape) for v in decode_terms(r, batches, replica, workload, factors))
    ok = batches <= limits[alive][:, None]
    if plan.has_target:
        ttft = np.asarray(lead_s, float)[alive][:, None] + np.broadcast_to(r.step_s, batches.shape)
        ok &= meets_target(per_user, ttft, plan.min_tokens_per_s_per_user, plan.max_ttft_s)
    last = batches.shape[1] - 1 - np.argmax(ok[:, ::-1], axis=1)
    for j, i in enumerate(alive):
        if not ok[j].any():
            continue
        rate = float(requests[j, last[j]])
        if np.isfinite(rate) and rate > 0:
            power = float(busy_power_w(device, float(busy[j, last[j]]), factors))
            out[i] = (rate * plan.output_tokens, power, float(batches[j, last[j]]))
    return out


def _problems(device, model, serving) -> bool:
    return bool(config_problems(device, model, serving))
