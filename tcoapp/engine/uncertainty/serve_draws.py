"""The operating point of a generated `serve` pool over a draw axis: the roofline kernel batched
over draws of device fields, efficiency factors and plan keys (docs/model.md, "Uncertainty").

The device and the factors are records whose uncertain fields hold arrays of shape (draws,); the
kernel (`performance/roofline.py`) broadcasts them with the batch. At a fixed batch the point is the
batch itself, or the memory limit with the rest queued, exactly as `serving/operating.py`. With an
interactivity target the deterministic search takes the largest batch of the grid `search_batches(B_max)`
meeting the target; tokens/s per user falls and TTFT rises with the batch, so the batches meeting
it are 1..B*: B* is found per draw by a vectorized bracketing search over whole batches, and the point
is the largest grid batch <= B*. Each step tests one batch per draw inside the bracket (the largest
batch known to meet the target, the smallest known to miss it): where the pool's margin to its target
is known, the batch where the margin interpolates to zero (seconds per token and TTFT grow about
linearly with the batch, so about six kernel calls find B*), else, and at every third step, the
bracket's middle (bisection: about log2(B_max) calls at worst). Only the exact test `meets` moves
the bracket, so the answer is the bisection's. The math precision (FP4, FP8 or BF16) is the base
device's.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..serving.operating import MAX_SEARCH_BATCH, TARGET_GRID_POINTS
from ..performance.curve import meets_target
from ..performance.generated import config_problems, run_roofline
from ..quantities.factor_types import EfficiencyFactors
from ..quantities.records import Device, ModelSpec, ServingConfig, Workload

SMALL_BATCHES = 64  # search_batches: every whole batch up to 64, then a log grid


@dataclass(frozen=True)
class ServeDraws:
    """Per draw (arrays of shape (draws,)); NaN where the pool has no operating point in that draw."""

    batch: np.ndarray
    tokens_per_s_per_device: np.ndarray
    tokens_per_s_per_user: np.ndarray
    power_w: np.ndarray
    prefill_share: np.ndarray


@dataclass(frozen=True)
class ServeCase:
    """A pool's configuration, with per-draw values where uncertain."""

    base_device: Device   # the catalog Device (chooses the math precision, checks the configuration)
    device: Device        # the Device with uncertain fields as arrays
    model: ModelSpec
    serving: ServingConfig  # ServingConfig
    workload: Workload    # Workload
    factors: EfficiencyFactors  # EfficiencyFactors with uncertain factors as arrays
    acceptance: object    # spec_decode_acceptance, scalar or (draws,)
    hit_rate: object      # prefix_cache_hit_rate, scalar or (draws,)
    min_tokens_per_s_per_user: object = None
    max_ttft_s: object = None

    @property
    def has_target(self) -> bool:
        """Whether the pool runs at an interactivity target (else at its fixed batch)."""
        return self.min_tokens_per_s_per_user is not None or self.max_ttft_s is not None


def run(case: ServeCase, batch):
    """The roofline kernel at `batch` (shape (draws,) or broadcastable) for the case's draws: the
    deterministic `run_roofline` with the drawn device, factors, acceptance and hit rate."""
    return kernel(case)(batch)


def kernel(case: ServeCase):
    """`run` for one case as a function of the batch: its serving and workload records with their draws made
    once (about a dozen batches are run per case)."""
    serving = case.serving.with_(spec_decode_acceptance=case.acceptance)
    workload = case.workload.with_(prefix_cache_hit_rate=case.hit_rate)
    return lambda batch: run_roofline(case.device, case.model, serving, workload, batch, case.factors,
                                      chooser=case.base_device)


def serve_draws(case: ServeCase, draws: int) -> ServeDraws:
    """The pool's operating point in every draw (see module docstring)."""
    ones = np.ones(draws)
    at = kernel(case)
    at_one = at(ones)
    b_max = np.asarray(at_one.max_batch_by_memory, float) * ones
    possible = (not config_problems(case.base_device, case.model, case.serving)) & (b_max >= 1)
    if case.has_target:
        def tested(b, r=None):
            r = at(b) if r is None else r
            return _meets(case, r, b), _margin(case, r)
        batch = largest_grid_batch(None, b_max, possible, tested, tested(ones, at_one))
    else:
        b = float(case.serving.batch)
        batch = np.where(b <= b_max, b, np.floor(b_max))
    exists = possible & np.isfinite(batch) & (batch >= 1)
    r = at(np.where(exists, batch, 1.0))
    nan = lambda x: np.where(exists, np.asarray(x, float) * ones, np.nan)  # noqa: E731
    return ServeDraws(nan(batch), nan(r.tokens_per_s_per_device), nan(r.tokens_per_s_per_user), nan(r.power_w),
                      nan(r.prefill_share))


def _meets(case: ServeCase, r, batch) -> np.ndarray:
    """Whether the kernel's result `r` at `batch` meets the case's interactivity target."""
    return np.ones(np.shape(batch), bool) & meets_target(r.tokens_per_s_per_user, r.ttft_s,
                                                         case.min_tokens_per_s_per_user, case.max_ttft_s)


def _margin(case: ServeCase, r) -> np.ndarray:
    """The pool's margin to its targets at a kernel result `r`, >= 0 about where they hold and about linear
    in the batch: the smaller of 1 - target / tokens/s per user (seconds per token grow linearly) and
    1 - TTFT / its maximum. It only steers `largest_grid_batch`'s steps; `meets_target` decides."""
    margin = np.asarray(np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        if case.min_tokens_per_s_per_user is not None:
            rate = np.asarray(r.tokens_per_s_per_user, float)
            margin = np.minimum(margin, 1.0 - case.min_tokens_per_s_per_user / rate)
        if case.max_ttft_s is not None:
            margin = np.minimum(margin, 1.0 - np.asarray(r.ttft_s, float) / case.max_ttft_s)
    return margin


def largest_grid_batch(meets, b_max, possible, tested=None, at_one=None) -> np.ndarray:
    """The largest batch of `search_batches(B_max)` for which `meets(batch)` holds, per draw (NaN: none
    does); `meets` must hold for 1..B* and fail above (a target on a monotone curve). `tested(batch)`, where
    given, replaces `meets` with (meets, a margin about linear in the batch that steers the steps: module
    docstring); the answer is the same. `at_one`: `tested` at batch 1 where already known."""
    upper = np.where(np.isfinite(b_max), b_max, MAX_SEARCH_BATCH)
    upper = np.maximum(1.0, np.minimum(upper, MAX_SEARCH_BATCH))
    top = np.floor(upper)
    if tested is None:
        tested = lambda b: (meets(b), np.full(np.shape(b), np.nan))  # noqa: E731 (bisection only)
    met_one, margin_lo = tested(np.ones_like(top)) if at_one is None else at_one
    met_one = met_one & possible
    met_top, margin_top = tested(top)
    lo, hi = np.where(met_top, top, 1.0), np.where(met_top, top, top - 1.0)
    bracket = _Bracket(lo, hi, np.where(met_top, margin_top, margin_lo), top, margin_top)
    step = 0
    while np.any(bracket.lo < bracket.hi):
        batch = bracket.next_batch(bisect=step % 3 == 2)
        bracket.update(batch, *tested(batch))
        step += 1
    return np.where(met_one, grid_floor(bracket.lo, upper), np.nan)


class _Bracket:
    """Per draw: `lo` the largest batch known to meet the target (or 1, untested), `hi` the largest that may
    (every batch above it misses), `missed` the smallest batch known to miss; the margins at `lo` and
    `missed` (NaN where unknown)."""

    def __init__(self, lo, hi, margin_lo, missed, margin_missed):
        self.lo, self.hi, self.margin_lo, self.missed, self.margin_missed = lo, hi, margin_lo, missed, margin_missed

    def next_batch(self, bisect: bool) -> np.ndarray:
        """The batch to test next, in lo + 1..hi: the margin's zero, or the middle where that is unknown."""
        middle = np.floor((self.lo + self.hi + 1.0) / 2.0)
        if bisect:
            return middle
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            zero = np.floor(self.lo + (self.missed - self.lo) * self.margin_lo / (self.margin_lo - self.margin_missed))
        batch = np.where(np.isfinite(zero), np.clip(zero, self.lo + 1.0, self.hi), middle)
        return np.where(self.lo < self.hi, batch, self.lo)

    def update(self, batch, ok, margin) -> None:
        """Move the bracket by the exact test `ok` at `batch` (decided draws stay)."""
        open_ = self.lo < self.hi
        up, down = open_ & ok, open_ & ~ok
        self.lo, self.margin_lo = np.where(up, batch, self.lo), np.where(up, margin, self.margin_lo)
        self.hi = np.where(down, batch - 1.0, self.hi)
        self.missed, self.margin_missed = np.where(down, batch, self.missed), np.where(down, margin, self.margin_missed)


def grid_floor(best, upper) -> np.ndarray:
    """The largest batch of `search_batches(upper)` that is <= best (best <= floor(upper)).

    The log grid is floor(g_j), g_j = np.geomspace(64, upper, 512)[j] = 10^(j x step + log10(64)) with
    step = (log10(upper) - log10(64)) / 511 and exact end points (numpy's own arithmetic, element by
    element). g_j <= best < g_j + 1 fixes j up to rounding, so five neighbours of
    j ~ (log10(best + 1) - log10(64)) / step decide it, for any number of draws.
    """
    best, upper = np.asarray(best, float), np.asarray(upper, float)
    out = np.minimum(best, SMALL_BATCHES)
    large = (upper > SMALL_BATCHES) & (best > SMALL_BATCHES)
    if not np.any(large):
        return out
    b, top = best[large], upper[large]
    log_start = np.log10(float(SMALL_BATCHES))
    step = (np.log10(top) - log_start) / (TARGET_GRID_POINTS - 1)
    centre = np.floor((np.log10(b + 1.0) - log_start) / step)
    below = np.full(b.shape, float(SMALL_BATCHES))
    for offset in (-2.0, -1.0, 0.0, 1.0, 2.0):
        j = np.clip(centre + offset, 0.0, TARGET_GRID_POINTS - 1.0)
        g = np.floor(_grid_value(j, log_start, step, top))
        below = np.where(g <= b, np.maximum(below, g), below)
    at_top = np.where(b >= np.floor(top), np.floor(top), 0.0)
    out[large] = np.maximum(below, at_top)
    return out


def _grid_value(j, log_start, step, top):
    """np.geomspace(64, top, 512)[j], computed as numpy computes it."""
    value = np.power(10.0, j * step + log_start)
    return np.where(j == 0, float(SMALL_BATCHES), np.where(j == TARGET_GRID_POINTS - 1, top, value))
