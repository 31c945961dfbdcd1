"""One global least-squares fit of the FIT efficiency factors to measurement rows (docs/model.md,
"How sure it is"). `tools/refit_factors.py` fits the shipped factors with it on every row;
leave-one-family-out validation (`cross_validation.py`) refits them without each source family.

The residual of a row is log(predicted / measured) tokens/s per device, the row modelled exactly as
`tcoapp accuracy` models it (`accuracy.run`), with a soft-L1 loss (scale LOSS_SCALE) so a few rows
the model cannot describe do not pull the factors. One fit for every device, model and vendor stack
together, never per row. The physical factors (eta_mem, eta_comm, the step overhead, comm
latency and per-peer overhead, scale-out latency, memory and power factors) stay at their
rule-of-thumb defaults. A serving stack's step factor is fitted only where some fitted row runs
that stack (`identified`); without one it is held at NEUTRAL (1: the stack as fast as
TensorRT-LLM), never at a value fitted on rows the fit must not see. An architecture's compute
ratio (arch_compute_<architecture>) is likewise fitted only where some fitted row runs on that
architecture, else held at 1 (the reference's eta_compute). A configuration term
(CONFIGURATION_FACTORS: `spec_acceptance_realised`, the share of the stated draft acceptance that
measured speculative runs realise; `spec_serial_seq_overhead_s`, the host time per sequence a stack
drafting without its overlap scheduler leaves exposed) is its own fitted cell, fitted jointly with the
kernel factors only where at least MIN_CONFIGURATION_ROWS fitted rows run that configuration; else it
is held at NEUTRAL (the stated acceptance; no exposed host time) and those rows set no factor at all (`configured_lines`): a configuration's gain is never learned as
kernel efficiency, nor set by a few rows.

Pure computation: rows come in as (CSV line, dict) pairs, the catalog as an object with `.devices`
and `.models`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import accuracy
from ..quantities.factors import STACK_OVERHEAD_FACTORS, fit_bounds, global_fit, prior_anchors, stack_factors
from .factors import (
    ARCHITECTURE_COMPUTE, ARCHITECTURE_LAYER, DEFAULT_FACTORS, EfficiencyFactors, architecture_ratio_name,
    layer_ratio_name,
)

# The factors of fit scope GLOBAL (quantities/factor_rows.py, where each row says why it is fitted or
# held: sched_overhead_s, for one, has the regressor of seq_overhead_s), and the log-space bounds of every
# factor with fit bounds (a maturity rate, held at 0, may be named by hand).
FIT = global_fit()
FIT_BOUNDS = fit_bounds()
STACK_FACTORS = stack_factors()  # stack -> its step factor (ROCm: every AMD row)
# a stack or architecture factor no fitted row identifies: as TensorRT-LLM, as the reference architecture
# configuration terms (CONFIGURATION_FACTORS): none realised otherwise than stated
CONFIGURATION_FACTORS = {"spec_acceptance_realised": "speculative decoding",
                         "spec_serial_seq_overhead_s": "speculative decoding without overlap (SGLang)"}
# a configuration term no fitted rows identify: the configuration as the physics states it (the stated
# acceptance realised, no host time left exposed)
NEUTRAL = {factor: 1.0 for factor in (*STACK_FACTORS.values(), *STACK_OVERHEAD_FACTORS.values(),
                                      *ARCHITECTURE_COMPUTE.values(), *ARCHITECTURE_LAYER.values(),
                                      *CONFIGURATION_FACTORS)}
NEUTRAL["spec_serial_seq_overhead_s"] = 0.0
MISSING_RESIDUAL = 1.0  # a fitted row that becomes infeasible counts as a factor-e error
FLOOR_RATIO = float(np.exp(-3.0))  # a row whose target no configuration reaches (predicted 0) counts as e^-3
LOSS_SCALE = 0.1
# a configuration term is fitted only where at least this many fitted rows run that configuration
# (never set by a few rows; the leave-one-out fits without them hold it at 1)
MIN_CONFIGURATION_ROWS = 20
DIFF_STEP = 1e-2  # forward-difference step of the Jacobian in log(factor)
# The prior of the shipped fit: each fitted log-factor also pays (log factor - log anchor) / PRIOR_SD in the
# rows' loss scale, the anchors the factor rows' `prior` (the fit of 2026-12-06 on the rows alone). The rows
# hardly tell some directions apart (moe_compute_efficiency x expert_load_skew x moe_gemm_half_tokens; a
# stack's step factor x its architecture's compute ratio): without it, fits from two starts ended 3x apart
# in such directions with costs 0.5 % apart, and the held-out scores depended on the start (docs/model.md,
# "One optimum: the crossing and the prior").
PRIOR_SD = 0.3
SHIPPED_PRIOR = (prior_anchors(), PRIOR_SD)


@dataclass(frozen=True)
class FactorFit:
    factors: EfficiencyFactors
    names: tuple[str, ...]       # the factors fitted
    held: dict[str, str]         # factor -> why it was not fitted
    rows: int                    # rows fitted
    evaluations: int
    message: str


def identified(names, results) -> tuple[tuple[str, ...], dict[str, str]]:
    """(the factors the rows of `results` can identify, {held factor: why}): a stack's step factor is
    fitted only where some row runs that stack. With none, no residual depends on it, so the solver
    could move it anywhere without changing the fit (a refit once moved stack_step_sglang from 1 to
    9.8 that way)."""
    stacks = {r.stack for r in results}
    ratios = {architecture_ratio_name(r.architecture) for r in results}   # read as the roofline reads them
    held = {factor: f"no fitted row runs {stack}"
            for stack, factor in (*STACK_FACTORS.items(), *STACK_OVERHEAD_FACTORS.items())
            if factor in names and stack not in stacks}
    held.update({factor: f"no fitted row is on {arch}" for arch, factor in ARCHITECTURE_COMPUTE.items()
                 if factor in names and factor not in ratios})
    layers = {layer_ratio_name(r.architecture) for r in results}
    held.update({factor: f"no fitted row is on {arch}" for arch, factor in ARCHITECTURE_LAYER.items()
                 if factor in names and factor not in layers})
    for factor, counted in (("spec_acceptance_realised", speculative), ("spec_serial_seq_overhead_s", serial_speculative)):
        drafting = sum(counted(r) for r in results)
        if factor in names and drafting < MIN_CONFIGURATION_ROWS:
            held[factor] = (f"{drafting} fitted rows run {CONFIGURATION_FACTORS[factor]} "
                            f"(fewer than {MIN_CONFIGURATION_ROWS}: they set no factor)")
    return tuple(n for n in names if n not in held), held


def speculative(result) -> bool:
    """True where a row's modelled configuration runs draft tokens."""
    return int(result.config.get("spec_decode_draft_tokens", 0) or 0) > 0


def serial_speculative(result) -> bool:
    """True where a row's modelled configuration drafts on a stack without overlap (SGLang)."""
    return speculative(result) and bool(result.config.get("spec_host_serial", False))


def configured_lines(lines, results, held) -> list:
    """`lines` without the rows of a configuration whose term this fit holds (CONFIGURATION_FACTORS):
    a row whose configuration's own term cannot be fitted sets no kernel factor either (its gain would
    be learned as kernel efficiency); it is still predicted."""
    drop = {r.line for r in results if ("spec_acceptance_realised" in held and speculative(r))
            or ("spec_serial_seq_overhead_s" in held and serial_speculative(r))}
    return [line for line in lines if line not in drop]


def neutral(name: str, start: EfficiencyFactors) -> float:
    """The value a factor no fitted row identifies is held at: a stack's step factor 1 (as fast as
    TensorRT-LLM), an architecture's compute ratio 1 (as the reference, eta_compute), any other
    its value in `start`."""
    return NEUTRAL.get(name, getattr(start, name))


def factors_at(x, names, base: EfficiencyFactors = DEFAULT_FACTORS) -> EfficiencyFactors:
    """`base` with the factors `names` set to exp(x)."""
    return base.with_(**{name: float(v) for name, v in zip(names, np.exp(np.asarray(x, dtype=float)))})


def log_residuals(rows, catalog, factors: EfficiencyFactors, lines) -> np.ndarray:
    """log(predicted / measured) of each row of `lines` (in that order), floored at FLOOR_RATIO;
    MISSING_RESIDUAL where the row cannot be modelled with `factors`."""
    acc = accuracy.run(rows, catalog, factors, lines=set(lines))
    found = {r.line: np.log(max(r.predicted / r.measured, FLOOR_RATIO)) for r in acc.results}
    return np.array([found.get(line, MISSING_RESIDUAL) for line in lines])


def jacobian(rows, catalog, factors: EfficiencyFactors, lines, names=FIT, base=None) -> np.ndarray:
    """d log-residual / d log(factor) of each row of `lines` (forward differences, DIFF_STEP), one
    column per name; `base` the residuals at `factors` where already known."""
    r0 = log_residuals(rows, catalog, factors, lines) if base is None else base
    x0 = np.log(np.maximum([getattr(factors, n) for n in names], np.finfo(float).tiny))  # a held 0: column 0
    columns = []
    for i, name in enumerate(names):
        moved = factors_at(x0[i:i + 1] + DIFF_STEP, (name,), factors)
        columns.append((log_residuals(rows, catalog, moved, lines) - r0) / DIFF_STEP)
    return np.column_stack(columns) if columns else np.zeros((len(lines), 0))


def fit_factors(rows, catalog, lines, start: EfficiencyFactors = DEFAULT_FACTORS, names=FIT, max_nfev: int = 40,
                fixed_jacobian=None, start_results=None, tolerance: float = 1e-8,
                prior: tuple[dict[str, float], float] | None = SHIPPED_PRIOR) -> FactorFit:
    """The FIT factors fitted on the rows of `lines` (CSV lines), from `start` (module docstring).

    scipy's trust-region least squares, `max_nfev` evaluations of the model. Its Jacobian: forward
    differences at every step (len(names) model runs each), or `fixed_jacobian` ({line: d residual /
    d log(factor) over `names`}, measured once at `start`), reused at every step (a chord method:
    one model run per step; a step is still accepted only where the model's own residuals fall).
    `start_results`, the rows' results at `start` where known, save the first run. The fit stops when a
    step changes the cost by less than `tolerance` of it or the log-factors by less than `tolerance`
    of their norm (scipy's ftol and xtol), or after `max_nfev` evaluations, whichever comes first.
    `prior` ({factor: anchor}, sd): each fitted log-factor with an anchor also pays (x - log anchor) / sd, in
    the rows' loss scale, a pull toward the anchor that gives directions the rows hardly tell apart one
    optimum (SHIPPED_PRIOR by default, as the shipped factors are fitted; None: the rows alone)."""
    lines = list(lines)
    if start_results is None:
        start_results = accuracy.run(rows, catalog, start, lines=set(lines)).results
    fitted_names, held = identified(names, start_results)
    start = start.with_(**{n: neutral(n, start) for n in held})
    lines = configured_lines(lines, start_results, held)
    lo = np.log([FIT_BOUNDS[n][0] for n in fitted_names])
    hi = np.log([FIT_BOUNDS[n][1] for n in fitted_names])
    x0 = np.clip(np.log([max(getattr(start, n), 1e-12) for n in fitted_names]), lo + 1e-6, hi - 1e-6)
    if not lines or not fitted_names:
        return FactorFit(start, fitted_names, held, len(lines), 0, "nothing to fit")

    pull = _prior_pull(prior, fitted_names)

    def residuals(x):
        return pull(x, log_residuals(rows, catalog, factors_at(x, fitted_names, start), lines))

    from scipy.optimize import least_squares  # lazy: keeps scipy out of the command's start-up
    jac: str | Callable[[np.ndarray], np.ndarray] = "2-point"
    if fixed_jacobian is not None:
        matrix = np.array([fixed_jacobian[line] for line in lines])[:, [names.index(n) for n in fitted_names]]
        found = {r.line: np.log(max(r.predicted / r.measured, FLOOR_RATIO)) for r in start_results}
        known = (x0.copy(), pull(x0, np.array([found.get(line, MISSING_RESIDUAL) for line in lines])))
        plain = residuals

        def residuals(x):  # noqa: F811 (the start's residuals are known: no model run)
            return known[1] if np.array_equal(x, known[0]) else plain(x)

        if prior is not None:
            matrix = np.vstack([matrix, _prior_jacobian(prior, fitted_names)])
        jac = lambda x: matrix  # noqa: E731
    sol = least_squares(residuals, x0, jac=jac, bounds=(lo, hi), loss="soft_l1", f_scale=LOSS_SCALE,
                        diff_step=DIFF_STEP, max_nfev=max_nfev,
                        ftol=tolerance, xtol=tolerance)
    return FactorFit(factors_at(sol.x, fitted_names, start), fitted_names, held, len(lines), int(sol.nfev), sol.message)


def _prior_pull(prior, names):
    """residuals(x, rows' residuals) with the prior's rows appended (fit_factors' `prior`: one per fitted
    factor with an anchor), or as they are."""
    if prior is None:
        return lambda x, r: r
    anchor, sd = prior
    pulled = _pulled(prior, names)
    centre = np.log([max(anchor[names[i]], 1e-12) for i in pulled])
    return lambda x, r: np.concatenate([r, (np.asarray(x, float)[pulled] - centre) * (LOSS_SCALE / sd)])


def _prior_jacobian(prior, names) -> np.ndarray:
    """The prior's rows of the Jacobian (d prior residual / d log factor) over `names`."""
    return np.eye(len(names))[_pulled(prior, names)] * (LOSS_SCALE / prior[1])


def _pulled(prior, names) -> list[int]:
    """The indices in `names` of the factors the prior pulls (those with an anchor)."""
    return [i for i, n in enumerate(names) if n in prior[0]]
