"""How the model's errors correlate between plans: shares of a plan's log error that it shares with
other plans, estimated from the cross-validated residuals (docs/model.md, "How the model's errors
correlate").

A plan's throughput error is log(measured / predicted tokens/s per device) at its operating point. Its
size is the plan's prediction interval (prediction_interval.py); how much of it another plan shares is
estimated here from the residuals of both cross-validation splits (each published row predicted by
factors that never saw its source family, or its software era), rows of known configuration only.
The rows are grouped in nested levels:

1. `architecture_stack`: the chip architecture and serving stack (Blackwell on TensorRT-LLM, CDNA 4 on
   ROCm): what a factor fitted for that architecture or stack gets wrong everywhere;
2. `configuration`: the same, running one model in one configuration (weight precision, tensor,
   expert and pipeline parallelism, attention data parallelism, draft tokens, disaggregated or not),
   on any device of the architecture;
3. `device`: the same configuration on one device;
4. `own`: what is left, a point's own error (its batch, its target, the measurement's own scatter).

The share of a level is the intraclass correlation of the rows grouped by it (one-way random-effects
ANOVA, method of moments: (MSB - MSW) / n0 over that plus MSW) minus the level above, at least 0. Both
splits are estimated and the smaller cumulative share of each level is used: a larger shared share
makes two plans on one architecture look more surely different than the data says, so the decision
takes the smaller, as model changes are chosen by the worse of the two splits.

An architecture without measurements (announced devices, any device whose architecture no measured row
runs) has no compute ratio of its own: it computes at eta_compute, fitted on Blackwell. How far off that
is, is measured by leaving each architecture with its own ratio out of the fit
(`cross_validation.leave_one_architecture_out`): its rows' median log(measured / predicted) is the
architecture-level error of an architecture the fit never saw. Their root mean square (around 0: the
direction is not known in advance) is UNMEASURED_ARCHITECTURE_SD; such a pool's architecture-level
variance is that squared (never less than the measured share), the rest of its error as measured
(`unmeasured_sigma`). It assumes a new architecture departs from Blackwell as the four measured ones do.
"""
from __future__ import annotations

import numpy as np

LEVELS = ("architecture_stack", "configuration", "device", "own")
CONFIGURATION_FIELDS = ("weight_precision", "tensor_parallel", "expert_parallel", "attention_dp",
                        "spec_decode_draft_tokens", "disaggregated", "pipeline_parallel")

# level -> share of a plan's log-error variance; per split (cumulative intraclass correlations of levels
# 1..3, rows, groups of each level). Written by tools/refit_factors.py --intervals from the stored
# cross-validated predictions (resources/measurements/cross_validated*.csv).
ERROR_SHARES: dict[str, float] = {
    'architecture_stack': 0.124,
    'configuration': 0.252,
    'device': 0.007,
    'own': 0.617,
}
SPLIT_ESTIMATES: dict[str, dict] = {
    'family': {'rows': 657, 'icc': (0.15, 0.376, 0.383), 'groups': (10, 90, 110)},
    'era': {'rows': 604, 'icc': (0.124, 0.396, 0.403), 'groups': (10, 84, 101)},
}

# the architectures some measured row runs (the stored cross-validated rows'; any other is unmeasured)
MEASURED_ARCHITECTURES: tuple[str, ...] = ("Blackwell", "Blackwell Ultra", "CDNA 3", "CDNA 4", "Hopper")
# leave one architecture out: architecture -> (known-configuration rows, median log(measured / predicted))
# with factors refitted without any of its rows (its compute ratio held at 1). Written by
# tools/refit_factors.py --architectures.
ARCHITECTURE_HELD_OUT: dict[str, tuple[int, float]] = {
    'Blackwell Ultra': (111, 0.0),
    'CDNA 3': (42, -0.322),
    'CDNA 4': (151, 0.192),
    'Hopper': (94, 0.139),
}


def held_out_architectures(results) -> dict[str, tuple[int, float]]:
    """ARCHITECTURE_HELD_OUT from leave_one_architecture_out's results (rows of known configuration)."""
    by: dict[str, list[float]] = {}
    for r in results:
        if getattr(r, "configuration", "known") == "known" and r.predicted > 0 and r.measured > 0:
            by.setdefault(r.architecture, []).append(float(np.log(r.measured / r.predicted)))
    return {a: (len(v), round(float(np.median(v)), 3)) for a, v in sorted(by.items())}


def unmeasured_architecture_sd(held_out: dict[str, tuple[int, float]] | None = None) -> float:
    """The root mean square of the held-out architectures' median log errors (module docstring)."""
    medians = [m for _, m in (ARCHITECTURE_HELD_OUT if held_out is None else held_out).values()]
    return float(np.sqrt(np.mean(np.square(medians)))) if medians else 0.0


UNMEASURED_ARCHITECTURE_SD = round(unmeasured_architecture_sd(), 3)


def is_measured(architecture: str) -> bool:
    """Whether some measured row runs this architecture (MEASURED_ARCHITECTURES, case and spaces aside)."""
    key = "".join(str(architecture or "").split()).casefold()
    return any(key == "".join(a.split()).casefold() for a in MEASURED_ARCHITECTURES)


def unmeasured_sigma(sigma: float) -> float:
    """The sd of the log error of a pool on an unmeasured architecture whose measured-architecture sd is
    `sigma`: its architecture-level variance UNMEASURED_ARCHITECTURE_SD^2 (at least the measured share of
    sigma^2), the rest as measured."""
    s_arch = ERROR_SHARES["architecture_stack"]
    shared = max(UNMEASURED_ARCHITECTURE_SD ** 2, s_arch * sigma ** 2)
    return float(np.sqrt(sigma ** 2 * (1.0 - s_arch) + shared))


def unmeasured_shares(sigma_u: float) -> dict[str, float]:
    """ERROR_SHARES of a pool on an unmeasured architecture whose (widened) sd is `sigma_u`: the
    architecture-level share UNMEASURED_ARCHITECTURE_SD^2 / sigma_u^2 (at least the measured one), the
    other levels scaled to the rest."""
    s_arch = ERROR_SHARES["architecture_stack"]
    arch = min(1.0, max(s_arch, UNMEASURED_ARCHITECTURE_SD ** 2 / sigma_u ** 2)) if sigma_u > 0 else s_arch
    scale = (1.0 - arch) / (1.0 - s_arch)
    return {k: (arch if k == "architecture_stack" else v * scale) for k, v in ERROR_SHARES.items()}


def intraclass_correlation(values, groups) -> tuple[float, int]:
    """(the share of the variance of `values` between `groups`, the number of groups): one-way
    random-effects ANOVA by the method of moments, at least 0; 0 with fewer than two groups."""
    v = np.asarray(values, float)
    _, index = np.unique(np.asarray(["\x1f".join(map(str, g)) for g in groups]), return_inverse=True)
    k, n_rows = int(index.max()) + 1, v.size
    if k < 2 or n_rows <= k:
        return 0.0, k
    n = np.bincount(index).astype(float)
    means = np.bincount(index, v) / n
    msb = float((n * (means - v.mean()) ** 2).sum()) / (k - 1)
    msw = float(((v - means[index]) ** 2).sum()) / (n_rows - k)
    n0 = (n_rows - float((n ** 2).sum()) / n_rows) / (k - 1)
    between = max(0.0, (msb - msw) / n0)
    return (between / (between + msw) if between + msw > 0 else 0.0), k


def row_keys(r) -> tuple[tuple, tuple, tuple]:
    """The groups of a cross-validated row at levels 1-3: (architecture, stack), + model and
    configuration, + device."""
    arch = (r.architecture or r.device, r.stack)
    config = arch + (r.model,) + tuple(str(r.config.get(f)) for f in CONFIGURATION_FIELDS)
    return arch, config, config + (r.device,)


def split_estimate(results) -> dict:
    """{'rows', 'icc': cumulative intraclass correlations of levels 1-3, 'groups'} of one split's
    results (rows of known configuration with a prediction)."""
    rows = [r for r in results if getattr(r, "configuration", "known") == "known" and r.predicted > 0 and r.measured > 0]
    log_ratio = np.log([r.measured / r.predicted for r in rows])
    keys = [row_keys(r) for r in rows]
    found = [intraclass_correlation(log_ratio, [k[level] for k in keys]) for level in range(3)]
    return {"rows": len(rows), "icc": tuple(round(f[0], 3) for f in found), "groups": tuple(f[1] for f in found)}


def shares(estimates: dict[str, dict]) -> dict[str, float]:
    """ERROR_SHARES from the splits' estimates: the smaller cumulative share of each level over the
    splits, made non-decreasing down the levels, as differences (module docstring)."""
    cumulative, last = [], 0.0
    for level in range(3):
        last = max(last, min(e["icc"][level] for e in estimates.values()))
        cumulative.append(last)
    parts = np.diff([0.0] + cumulative + [1.0])
    return {name: round(float(p), 3) for name, p in zip(LEVELS, parts)}
