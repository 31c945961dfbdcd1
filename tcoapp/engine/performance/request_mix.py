"""A replica serving a mix of request classes at once (docs/model.md, "Request classes").

Each class i has a share s_i of the requests, lengths I_i, O_i (`length_mix.LengthLaw`: mean and lognormal
spread), its prefix hit rate and its own targets. At batch B of one serving configuration:

- the running batch holds class i in proportion w_i = s_i O_i / sum s_j O_j (a request stays while it decodes);
- one decode step of the mix lasts step = sum_i w_i step_i(B), step_i the roofline kernel's step of a
  batch of B sequences of class i's mean context in the batch, I_i + m_O e^{sigma_O^2} / 2 (a sequence's
  output length-biased, its position uniform over it; the step's KV reads and attention are sums over the
  batch's sequences; weights, GEMMs and overheads are the same for every class);
- a request is prefilled in pf_i (the kernel's busy prefill of class i's mean prompt, plus the reload of its
  prefix from host memory or NVMe an agentic class's sessions need, `reload_s`: the replica waits for it),
  pf = sum_i s_i pf_i;
- one cycle of the replica (B requests complete): cycle = O_bar / tokens_per_step x step + B x pf,
  O_bar = sum s_i O_i; tokens/s per device = B O_bar / cycle / N, requests/s per device = B / cycle / N,
  prefill share rho = B pf / cycle (a single fixed-length class: the kernel's own figures);
- class i's time per output token at its percentile: latency_tail.seconds_per_token with its mean output
  O_i and the prefills it sits through, B O_i / O_bar on average (Poisson, its quantile as the kernel's);
- class i's TTFT at its percentile: the admission wait (M/G/1: the mean wait rho S / (2 (1 - rho)) with
  S = E[pf^2] / E[pf] over the requests, a prompt's prefill proportional to its length, so
  E[pf_i^2] = pf_i^2 e^{sigma_I^2}; its tail as the kernel's) + the isolated prefill of the class's prompt
  at the percentile (p99: the 99th-percentile prompt) and its reload + one step;
- memory: the batch fits where its summed reserved contexts (I + O of each sequence, as the
  fixed-length limit reserves) fit at their 99th percentile (`length_mix.tail_batch_limit`), the
  contexts drawn as the batch holds them (`length_mix.batch_context_moments`);
- power: the prefill share busy, the decode steps at the batch-weighted busy fraction of the classes.

Approximations (stated in docs/model.md): the step reads each class's mean context in the batch (a
sliding window or sparse layer's capped read at the mean context, not the mean of the capped reads); a
prompt's prefill time is taken at the mean prompt except for TTFT, which takes the percentile's prompt.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, fields

import numpy as np

from ..quantities.records import Device, ModelSpec, ServingConfig, Workload
from .device_power import busy_power_w
from .factors import DEFAULT_FACTORS, EfficiencyFactors
from .generated import config_problems, run_roofline, shared_weight_args
from .latency_tail import quantile, seconds_per_token, wait_quantile_s
from .length_mix import LengthLaw, batch_context_moments, batch_weights, tail_batch_limit
from .memory import architecture, capacity_gb, kv_device_bytes, weight_bytes_per_device
from .precision import bytes_per_value
from .roofline import admission_wait_s


_architecture = functools.lru_cache(maxsize=64)(architecture)   # a search asks for one model's again and again


@dataclass(frozen=True)
class ClassLoad:
    """One request class as the physics sees it: share, length laws, prefix hit rate, latency statistic
    and targets (None: no target)."""

    name: str
    share: float
    input: LengthLaw
    output: LengthLaw
    prefix_cache_hit_rate: float = 0.0
    latency_percentile: str = "mean"
    min_tokens_per_s_per_user: float | None = None
    max_ttft_s: float | None = None
    reload_s: float = 0.0   # an agentic class: its prefix's mean reload from host memory and NVMe per request (s)

    @property
    def has_target(self) -> bool:
        """True where the class bounds its per-user rate or its TTFT."""
        return self.min_tokens_per_s_per_user is not None or self.max_ttft_s is not None


@dataclass(frozen=True)
class MixCurve:
    """A configuration's figures over `batch` (arrays; per-class arrays shaped classes x batches)."""

    batch: np.ndarray
    tokens_per_s_per_device: np.ndarray
    requests_per_s_per_device: np.ndarray
    power_w: np.ndarray
    prefill_share: np.ndarray
    feasible: np.ndarray
    max_batch_by_memory: float
    fixed_length_batch_limit: float        # the limit were every context the batch's mean (for the notes)
    tokens_per_s_per_user: np.ndarray       # classes x batches, at each class's percentile
    ttft_s: np.ndarray                      # classes x batches, at each class's percentile
    device_time_share: np.ndarray           # classes x batches: share of device time spent on each class
    notes: tuple[str, ...] = ()

    def meets_targets(self, classes) -> np.ndarray:
        """Per batch: feasible and every class's targets hold."""
        ok = np.asarray(self.feasible, bool).copy()
        for k, c in enumerate(classes):
            if c.min_tokens_per_s_per_user is not None:
                ok &= self.tokens_per_s_per_user[k] >= c.min_tokens_per_s_per_user
            if c.max_ttft_s is not None:
                ok &= np.isfinite(self.ttft_s[k]) & (self.ttft_s[k] <= c.max_ttft_s)
        return ok


def _column(values) -> np.ndarray:
    """Values per class as a column (classes x 1): the kernel broadcasts it against the batch row."""
    return np.asarray(values, float)[:, None]


def _workloads(classes, prompts, software_date: str) -> Workload:
    """Every class's requests in one workload over a class axis (tokens as floats: a mean need not be
    whole; the kernel broadcasts them against the batch). The output is the batch's length-biased mean
    output m e^{sigma^2}: the kernel's step reads the context input + output / 2 of a sequence found in
    the batch (its position uniform over its output); nothing else of the kernel's run that the mix reads
    depends on the output length (the mix's cycle uses the classes' own means)."""
    return Workload(input_tokens=_column(prompts),  # type: ignore[arg-type]
                    output_tokens=_column([c.output.second_moment_over_mean for c in classes]),  # type: ignore[arg-type]
                    prefix_cache_hit_rate=_column([c.prefix_cache_hit_rate for c in classes]),  # type: ignore[arg-type]
                    latency_percentile="mean", software_date=software_date)


def mix_memory_limit(device: Device, model: ModelSpec, serving: ServingConfig, classes, factors) -> tuple[float, float]:
    """(the batch limit at the 99th percentile of the summed contexts, the limit at their mean) in
    sequences per replica (`length_mix.tail_batch_limit`)."""
    arch = _architecture(model)
    devices = float(serving.tensor_parallel * serving.expert_parallel)
    adp = np.asarray(bool(serving.attention_dp), bool)
    kv = bytes_per_value(serving.kv_precision)
    shared = shared_weight_args(device, serving.attention_weight_precision, factors).get("shared_weight_bytes")
    free = capacity_gb(device) * 1e9 * factors.usable_memory_fraction - weight_bytes_per_device(
        arch, devices, adp, bytes_per_value(serving.weight_precision), shared)
    mean, sd = batch_context_moments([c.share for c in classes], [c.input for c in classes], [c.output for c in classes])
    at_mean = kv_device_bytes(arch, 1.0, mean, kv, devices, adp)
    at_sd = kv_device_bytes(arch, 1.0, mean + sd, kv, devices, adp)
    return float(tail_batch_limit(free, at_mean, at_sd)), float(tail_batch_limit(free, at_mean, at_mean))


def mix_curve(device: Device, model: ModelSpec, serving: ServingConfig, classes, batch,
              factors: EfficiencyFactors = DEFAULT_FACTORS, software_date: str = "") -> MixCurve:
    """The mix's figures at `batch` (sequences per replica) for one configuration (module docstring): one
    kernel call over classes x batches (and one more for the percentile prompts' isolated prefills)."""
    b = np.atleast_1d(np.asarray(batch, float))
    shape = (len(classes), b.size)
    shares = np.array([c.share for c in classes], float)
    outs = np.array([c.output.mean for c in classes], float)
    r = run_roofline(device, model, serving, _workloads(classes, [c.input.mean for c in classes], software_date), b,
                     factors)
    each = {f.name: np.broadcast_to(np.asarray(getattr(r, f.name), float), shape) for f in fields(r)}  # classes x batches
    w = batch_weights(shares, outs)
    per_step = each["tokens_per_step"][0]
    step = w @ each["step_s"]
    reloads = np.array([c.reload_s for c in classes], float)
    pf_each = each["prefill_s"] + reloads[:, None] if reloads.any() else each["prefill_s"]
    pf = shares @ pf_each
    o_bar = float(shares @ outs)
    cycle = o_bar / per_step * step + b * pf
    n = float(serving.tensor_parallel * serving.expert_parallel)
    share = b * pf / cycle
    decode_busy = w @ ((each["utilization"] - each["prefill_share"]) / np.maximum(1.0 - each["prefill_share"], 1e-12))
    u = share + (1.0 - share) * decode_busy
    power = busy_power_w(device, u, factors)
    second = shares @ (pf_each ** 2 * _column([np.exp(c.input.sigma ** 2) for c in classes]))
    mean_wait = admission_wait_s(share, second / np.maximum(pf, 1e-30))
    alone = _isolated_prefills_s(device, model, serving, classes, factors, software_date, each) + reloads
    per_user = [1.0 / seconds_per_token(step, per_step, pf, b * o / o_bar, o, c.latency_percentile)
                for c, o in zip(classes, outs)]
    ttft = [wait_quantile_s(mean_wait, share, c.latency_percentile) + a + step for c, a in zip(classes, alone)]
    spent = shares[:, None] * (outs[:, None] / per_step * step / b + pf_each)
    limit, at_mean = mix_memory_limit(device, model, serving, classes, factors)
    problems = tuple(config_problems(device, model, serving))
    return MixCurve(b, b * o_bar / cycle / n, b / cycle / n, power, share, (b <= limit) & (not problems) & (limit >= 1),
                    limit, at_mean, np.array(per_user), np.array(ttft), spent / spent.sum(axis=0), problems)


def _isolated_prefills_s(device, model, serving, classes, factors, software_date, at_mean) -> np.ndarray:
    """Each class's prefill of one prompt alone (s) at its percentile length (the mean for "mean" or a fixed
    length): the kernel's TTFT less its first step and its admission wait, read from the classes' run at
    their mean prompts (`at_mean`) where every prompt is the mean, else from one run of the prompts."""
    prompts = [c.input.quantile(quantile(c.latency_percentile)) for c in classes]
    if prompts == [c.input.mean for c in classes]:
        alone = at_mean["ttft_s"][:, 0] - at_mean["step_s"][:, 0] - at_mean["queue_s"][:, 0]
        if np.isfinite(alone).all():   # else a first batch waits without end (its prefill share >= 1)
            return alone
    r = run_roofline(device, model, serving, _workloads(classes, prompts, software_date), np.array([1.0]), factors)
    one = {f.name: np.broadcast_to(np.asarray(getattr(r, f.name), float), (len(classes), 1))[:, 0] for f in fields(r)}
    return one["ttft_s"] - one["step_s"] - one["queue_s"]
