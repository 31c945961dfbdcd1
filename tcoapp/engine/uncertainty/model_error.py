"""The model's own error in the Monte Carlo draws (docs/model.md, "How the model's errors correlate").

Each generated pool's tokens/s per device is drawn as its figure times exp(e), with

    e = sigma x (sqrt(s_arch) z_arch + sqrt(s_config) z_config + sqrt(s_device) z_device + sqrt(s_own) z_own)

- sigma: the sd of log(measured / predicted) whose central 80 % is the pool's prediction interval
  (performance/prediction_interval.py; the plan's where the pool has none), so the draws are centred
  on the figure shown (median exp(e) = 1) and spread as the cross-validated residuals do;
- s_*: the shares of that variance shared per architecture and serving stack, per architecture, stack,
  model and configuration, per device in that configuration, and the pool's own
  (performance/error_components.ERROR_SHARES, estimated from both splits' residuals);
- z_*: standard normal draws, one stream per group (the quantile of a numpy Generator seeded by the
  run's seed and the group's name, as every Uncertainty stream): every plan and pool in that group
  takes the same z in a draw. So two plans on one device and configuration move together, two on one
  architecture and stack share s_arch of their variance, and plans on different architectures
  are independent.

A pool on an architecture no measured row runs (an announced device) has a wider band
(performance/prediction_interval.py) and a larger architecture-level share, `unmeasured_shares`: the
error of an architecture held out of the fit is shared by every plan on it (docs/model.md,
"Architectures without measurements").

A prefill/decode pair's pools all take the draw of the side that limits its rate. A measured curve has
no model error. A plan with its own `factor.model_error` row on the Uncertainty sheet keeps that row
instead (said in its notes).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..performance.error_components import ERROR_SHARES, is_measured, unmeasured_shares
from ..performance.prediction_interval import LEVEL
from ..plan.calibration_scope import stack_name
from .distributions import TAIL

PREFIX = "model error"
OWN_ROW_KEY = "factor.model_error"
_STACKS = {"sglang": "SGLang", "vllm": "vLLM"}


@dataclass(frozen=True)
class PoolError:
    index: int                                   # the pool's index in the plan
    sigma: float                                 # sd of its log error
    streams: tuple[tuple[str, float], ...]       # (stream name, share of the variance)


def _z_level() -> float:
    from statistics import NormalDist
    return NormalDist().inv_cdf(0.5 + LEVEL / 2.0)


ACCEPTANCE_KEY = "spec_decode_acceptance"
_STATED = "tokens_per_s_per_device_at_stated_acceptance"


def log_sigma(interval: dict | None, point: float, draws_acceptance: bool = False) -> float | None:
    """The sd of the log error whose central LEVEL share is the interval; None without one. Where the
    Uncertainty rows draw the acceptance themselves (`draws_acceptance`), the band without the published
    acceptance's spread, so that spread is not counted twice."""
    if not interval or not point > 0:
        return None
    low, high = interval[_STATED] if draws_acceptance and _STATED in interval else interval["tokens_per_s_per_device"]
    if not (low > 0 and high > low):
        return None
    return (math.log(high) - math.log(low)) / (2.0 * _z_level())


def stack_of(device, plan) -> str:
    """The serving stack the residuals group by: ROCm on AMD; else SGLang or vLLM as the plan names it,
    else TensorRT-LLM (the stack the NVIDIA factors are fitted on)."""
    if getattr(device, "vendor", "") == "AMD":
        return "ROCm"
    return _STACKS.get(stack_name(getattr(plan, "serving_stack", "")), "TensorRT-LLM")


def group_names(scenario, plan, pool, pools: int) -> dict[str, str]:
    """{level: stream name} of one pool of a plan with `pools` pools (module docstring)."""
    device = scenario.device(pool.device)
    s = pool.serving
    arch = f"{getattr(device, 'architecture', '') or pool.device} / {stack_of(device, plan)}"
    config = (f"{plan.model} {s.weight_precision} TP{s.tensor_parallel} EP{s.expert_parallel}"
              f"{' attention-DP' if s.attention_dp else ''} PP{getattr(s, 'pipeline_parallel', 1) or 1}"
              f" draft {s.spec_decode_draft_tokens}{' disaggregated' if pool.role != 'serve' else ''}")
    own = f"plan {plan.name}" + (f", pool {pool.name}" if pools > 1 else "")
    return {"architecture_stack": f"{PREFIX}: {arch}", "configuration": f"{PREFIX}: {config} on {arch}",
            "device": f"{PREFIX}: {config} on {pool.device}", "own": f"{PREFIX}: {own}"}


def pool_errors(scenario, plan, base, draws_acceptance: bool = False) -> tuple[PoolError, ...]:
    """The model error of each of the plan's generated pools (none for measured curves, for a plan
    without an operating point, or a plan whose Uncertainty rows draw `factor.model_error` itself);
    `draws_acceptance`: the plan's Uncertainty rows draw `spec_decode_acceptance` (`log_sigma`)."""
    if base.inputs is None or base.fleet is None:
        return ()
    out = []
    for i, sigma in pool_sigmas(base, draws_acceptance).items():
        pool = base.pools[i]
        names = group_names(scenario, plan, pool, len(base.pools))
        architecture = getattr(scenario.device(pool.device), "architecture", "") or ""
        shares = ERROR_SHARES if is_measured(architecture) else unmeasured_shares(sigma)
        out.append(PoolError(i, sigma, tuple((names[k], share) for k, share in shares.items() if share > 0)))
    return _pair_follows_limit(base, tuple(out))


def pool_sigmas(base, draws_acceptance: bool = False) -> dict[int, float]:
    """{pool index: the sd of its log error} of each generated pool with a band (its own, else the plan's)."""
    if base.inputs is None or base.fleet is None:
        return {}
    plan_sigma = log_sigma(base.prediction_interval, float(base.metrics.tokens_per_s_per_device), draws_acceptance)
    out = {}
    for i, pool in enumerate(base.pools):
        interval = base.pool_intervals[i] if i < len(base.pool_intervals) else None
        own = log_sigma(interval, interval_point(interval), draws_acceptance) if interval else None
        sigma = own if own is not None else plan_sigma
        if sigma is not None and not pool.curve:
            out[i] = sigma
    return out


def band_factors(base) -> tuple[np.ndarray, np.ndarray] | None:
    """(low, high) per pool: the 10th and 90th percentiles (the band's level) of the drawn multiplier of each
    generated pool's tokens/s per device, exp(-+1.2816 sd); 1 on a measured curve (a prefill/decode pair at its
    limiting side's sd, as drawn). None where no pool has a model error."""
    errors = _pair_follows_limit(base, tuple(PoolError(i, sd, ()) for i, sd in pool_sigmas(base).items()))
    if not errors:
        return None
    z = _z_level()
    low, high = np.ones(len(base.pools)), np.ones(len(base.pools))
    for e in errors:
        low[e.index], high[e.index] = math.exp(-z * e.sigma), math.exp(z * e.sigma)
    return low, high


def interval_point(interval: dict) -> float:
    """A band's geometric centre (only its width is used: the draws are centred on the figure)."""
    low, high = interval["tokens_per_s_per_device"]
    return math.sqrt(max(low, 0.0) * max(high, 0.0))


def _pair_follows_limit(base, errors: tuple[PoolError, ...]) -> tuple[PoolError, ...]:
    """A prefill/decode pair's pools take the error of the side that limits its rate."""
    roles = {e.index: base.pools[e.index].role for e in errors}
    pair = [e for e in errors if roles[e.index] != "serve"]
    if not pair:
        return errors
    limiting = base.fleet.limited_by if base.fleet is not None else ""
    side = next((e for e in pair if roles[e.index] == limiting), None) or next(
        (e for e in pair if roles[e.index] == "decode"), pair[0])
    return tuple(e if roles[e.index] == "serve" else PoolError(e.index, side.sigma, side.streams) for e in errors)


def stream_names(errors) -> list[str]:
    """Every stream the pools' errors draw from, once."""
    return list(dict.fromkeys(name for e in errors for name, _ in e.streams))


def standard_normal(quantiles: np.ndarray) -> np.ndarray:
    """The standard normal draws of a stream's quantiles (in [TAIL, 1 - TAIL], as every stream's)."""
    from scipy.special import ndtri
    return ndtri(np.clip(quantiles, TAIL, 1.0 - TAIL))


def multipliers(errors, normals: dict[str, np.ndarray]) -> dict[int, np.ndarray]:
    """{pool index: exp(e) per draw} (module docstring); `normals`: each stream's standard normal draws."""
    out = {}
    for e in errors:
        log = sum(math.sqrt(share) * normals[name] for name, share in e.streams)
        out[e.index] = np.exp(e.sigma * log)
    return out
