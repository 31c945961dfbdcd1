"""The space a serving search sweeps for one pool (docs/model.md, "Serving search").

Per pool of a plan with `serving_search = auto`:
- tensor_parallel and expert_parallel: powers of two up to L = min(scale_up_domain, the pool's
  devices), and L itself (a 72-GPU NVL72 domain tries 72); pairs with TP x EP <= L. A dense model
  keeps EP = 1.
- expert parallelism beyond the scale-up domain D (MoE only): EP = 2D and 4D where the pool has the
  devices (SCALE_OUT_DOMAINS), tensor parallelism within one domain; its all-to-all (under
  attention-DP) or all-reduce (without) crosses the scale-out network (the catalog's scale_out_gb_s
  and the scale_out_latency_s factor).
- attention_dp: off and on for an MoE model; off for a dense one.
- weight and KV precisions: every pair of `search_precisions` (empty: the plan's own pair) that the
  device runs (`performance/precision.supported_weight_precisions` / `supported_kv_precisions`:
  NVFP4 only on FP4 math that runs it, NVIDIA Blackwell; MXFP4 on AMD CDNA4 and as weight-only on
  Hopper and CDNA3; no FP4 KV cache without FP4 math). A listed precision the device does not run is
  dropped (`SearchSpace.dropped_precisions`); where nothing listed is left, the device's own best:
  fp8 where it has FP8 math, else bf16. An FP4 KV cache only where a named stack supports it on the
  device (the catalog's `fp4_kv_formats`).
- speculative draft tokens 0..`search_max_draft_tokens` at the plan's acceptance, only for a model
  with a published draft model or MTP head (the catalog's `spec_decode_draft`), else 0 (said in
  `dropped_precisions`).
- the batch: every batch up to the memory limit when the plan has an interactivity target (the
  largest meeting it is taken, as for a typed configuration); the plan's batch otherwise (served
  at the memory limit with the rest queued where it does not fit, as typed).
Only (TP, EP) pairs the pool and the device can form are swept (`SearchSpace.pairs`); a
configuration whose weights do not fit stays in the sweep as an infeasible point.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..performance.generated import config_problems
from ..performance.precision import supported_kv_precisions, supported_weight_precisions
from ..quantities.records import Device, ModelSpec, Plan, ServingConfig, search_precision_list


@dataclass(frozen=True)
class SearchSpace:
    tensor_parallel: tuple[int, ...]
    expert_parallel: tuple[int, ...]
    attention_dp: tuple[bool, ...]
    weight_precisions: tuple[str, ...]
    kv_precisions: tuple[str, ...]
    spec_decode_draft_tokens: tuple[int, ...]
    dropped_precisions: tuple[str, ...] = ()   # e.g. "nvfp4 weights": listed (or the plan's own), not run here;
                                               # "speculative decoding (...)" where the model has no draft
    max_devices: int = 0                       # largest replica (TP x EP) the pool can form; 0: no cap
    parallel_pairs: tuple[tuple[int, int], ...] = ()   # the (TP, EP) pairs swept; empty: every pair of the axes

    @property
    def pairs(self) -> tuple[tuple[int, int], ...]:
        """The (TP, EP) pairs of the space: those that fit the pool and the device, or every pair."""
        return self.parallel_pairs or tuple((tp, ep) for tp in self.tensor_parallel for ep in self.expert_parallel)

    def fits(self, tensor_parallel, expert_parallel):
        """True (broadcast) where a TP x EP replica fits in the pool (`max_devices`)."""
        n = np.asarray(tensor_parallel) * np.asarray(expert_parallel)
        return n <= self.max_devices if self.max_devices else np.ones_like(n, bool)

    @property
    def size(self) -> int:
        """Configurations (without the batch) the space holds: its (TP, EP) pairs x the other axes."""
        n = len(self.pairs)
        for axis in (self.attention_dp, self.weight_precisions, self.kv_precisions, self.spec_decode_draft_tokens):
            n *= len(axis)
        return n


def parallel_sizes(limit: int) -> tuple[int, ...]:
    """Powers of two up to `limit`, and `limit` itself (1 -> (1,); 72 -> (1, 2, ..., 64, 72))."""
    limit = max(1, int(limit))
    sizes = {1 << i for i in range(limit.bit_length()) if 1 << i <= limit}
    return tuple(sorted(sizes | {limit}))


def replica_limit(device: Device, pool_devices: float) -> int:
    """Largest replica a pool can form: its scale-up domain, and no more devices than the pool has
    (a pool's count under a sizing mode other than `devices` is a share: the domain alone limits)."""
    limit = int(device.scale_up_domain) if device.interconnect_gb_s > 0 else 1
    if pool_devices and pool_devices >= 1:
        limit = min(limit, int(pool_devices))
    return max(1, limit)


SCALE_OUT_DOMAINS = 4  # expert parallelism may span up to 4 scale-up domains (2-4 nodes, as wide-EP deployments run)


def scale_out_sizes(device: Device, model: ModelSpec, pool_devices: float | None) -> tuple[int, ...]:
    """Expert-parallel widths beyond one scale-up domain D: 2D, 4D (up to SCALE_OUT_DOMAINS x D, the
    pool's devices and the model's experts); none for a dense model or without a scale-out network."""
    domain = max(int(device.scale_up_domain), 1)
    if model.n_experts == 0 or device.interconnect_gb_s <= 0 or device.scale_out_gb_s <= 0:
        return ()
    cap = min(SCALE_OUT_DOMAINS * domain, model.n_experts)
    if pool_devices and pool_devices >= 1:
        cap = min(cap, int(pool_devices))
    return tuple(domain * m for m in (2, 4) if domain * m <= cap)


def search_space(plan: Plan, device: Device, model: ModelSpec, pool_devices: float | None,
                 weight_precision: str, kv_precision: str) -> SearchSpace:
    """The pool's search space (see module docstring); `pool_devices` None: only the domain limits."""
    sizes = parallel_sizes(replica_limit(device, pool_devices or 0))
    moe = model.n_experts > 0
    listed = search_precision_list(plan.search_precisions)
    ep_sizes = (tuple(s for s in sizes if s <= model.n_experts) + scale_out_sizes(device, model, pool_devices)
                if moe else (1,))
    cap = max((max(sizes),) + scale_out_sizes(device, model, pool_devices))
    pairs = tuple((tp, ep) for tp in sizes for ep in ep_sizes
                  if tp * ep <= cap and not config_problems(device, model, ServingConfig(tensor_parallel=tp,
                                                                                          expert_parallel=ep)))
    weights, w_dropped = device_precisions(listed or (weight_precision,), supported_weight_precisions(device))
    kvs, kv_dropped = device_precisions(listed or (kv_precision,), supported_kv_precisions(device))
    return SearchSpace(
        tensor_parallel=sizes,
        expert_parallel=ep_sizes,
        attention_dp=(False, True) if moe else (False,),
        weight_precisions=weights,
        kv_precisions=kvs,
        spec_decode_draft_tokens=draft_tokens(plan, model),
        dropped_precisions=(tuple(f"{p} weights" for p in w_dropped) + tuple(f"{p} KV" for p in kv_dropped)
                            + _draft_dropped(plan, model)),
        max_devices=cap,
        parallel_pairs=pairs or ((1, 1),),
    )


def draft_tokens(plan: Plan, model: ModelSpec) -> tuple[int, ...]:
    """Draft tokens the search tries: 0..search_max_draft_tokens for a model with a published draft
    model or MTP head (`spec_decode_draft`), else 0 only."""
    most = int(plan.search_max_draft_tokens) if getattr(model, "spec_decode_draft", "") else 0
    return tuple(range(most + 1))


def _draft_dropped(plan: Plan, model: ModelSpec) -> tuple[str, ...]:
    if int(plan.search_max_draft_tokens) > 0 and not getattr(model, "spec_decode_draft", ""):
        return (f"speculative decoding ({model.name} has no published draft model or MTP head)",)
    return ()


def device_precisions(wanted: tuple[str, ...], supported: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the wanted precisions the device runs, the ones it does not); where none is left, the
    device's own best (fp8 where it runs it, else bf16)."""
    kept = tuple(p for p in wanted if p in supported)
    dropped = tuple(p for p in wanted if p not in supported)
    return kept or (("fp8",) if "fp8" in supported else ("bf16",)), dropped
