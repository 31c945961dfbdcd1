"""Fitting the generated model to one measured curve: known factors recovered, a real
aiconfigurator curve matched, and refusals that say why."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tcoapp.engine.performance.curve_fit import CalibrationRefused, fit_curve
from tcoapp.engine.performance.factors import DEFAULT_FACTORS
from tcoapp.engine.performance.generated import generate_curve
from tcoapp.engine.performance.measured import make_measured_curve
from tcoapp.engine.quantities.records import ServingConfig, Workload
from tcoapp.io.catalog import load_catalog
from tcoapp.io.curve_files import read_curve_file

CATALOG = load_catalog()
DEVICES, MODELS = CATALOG.devices, CATALOG.models
# Hopper's compute ratio at 1: the H200 curves of these tests run at eta_compute itself (the fit's machinery
# is under test here, not the architecture's ratio)
TRUE = DEFAULT_FACTORS.with_(eta_mem=0.7, eta_kv=0.42, eta_compute=0.35, arch_compute_hopper=1.0)
# the same memory-side truth with the default eta_compute: what a fit that holds eta_compute (not
# identifiable on this memory-bound curve from the defaults) can recover exactly
TRUE_MEMORY = DEFAULT_FACTORS.with_(eta_mem=0.7, eta_kv=0.42)
CONFIG = (("input_tokens", "1000"), ("output_tokens", "1000"), ("tensor_parallel", "2"), ("weight_precision", "fp8"))
REAL = Path(__file__).resolve().parent.parent / "data" / "curves" / "aiconfigurator_llama70b_fp8_h200_agg_pareto.csv"


def synthetic_curve(factors=TRUE, batches=(1, 4, 16, 64, 128, 256, 512), config=CONFIG, name="synthetic"):
    """A curve the generated model makes with `factors` (H200, Llama-3.1-70B, TP 2, 1000 / 1000 tokens)."""
    b = np.array(batches, float)
    g = generate_curve(DEVICES["H200-SXM"], MODELS["Llama-3.1-70B"], ServingConfig(tensor_parallel=2),
                       Workload(input_tokens=1000, output_tokens=1000), b, factors)
    assert g.feasible.all()
    return make_measured_curve(name, "H200-SXM", "Llama-3.1-70B", b, g.tokens_per_s_per_device, config=config)


def test_recovers_the_factors_that_made_the_curve_within_2_percent():
    # identifiability is judged at the starting factors: from the issue-21 defaults (eta_compute 0.67)
    # this memory-bound curve cannot tell eta_compute from eta_kv, so the fit starts nearer the truth
    # (eta_kv pinned away from the truth's 0.42: the shipped default, 0.417 since the refit on rows of known
    # configuration, sits on it, which leaves this curve nothing to tell eta_compute from eta_kv by)
    start = DEFAULT_FACTORS.with_(eta_compute=0.49, eta_kv=0.4653, arch_compute_hopper=1.0)
    fit = fit_curve(synthetic_curve(), DEVICES, MODELS, start, fit=("eta_mem", "eta_kv", "eta_compute"))
    for name in ("eta_mem", "eta_kv", "eta_compute"):
        assert getattr(fit.result.factors, name) == pytest.approx(getattr(TRUE, name), rel=0.02)
    assert fit.result.initial_median_abs_pct_error > 5 and fit.result.median_abs_pct_error < 0.1
    np.testing.assert_allclose(fit.predicted_after, fit.measured, rtol=1e-3)


def test_default_candidates_hold_what_the_points_cannot_tell_apart():
    fit = fit_curve(synthetic_curve(TRUE_MEMORY), DEVICES, MODELS)
    assert fit.result.fitted[:2] == ("eta_mem", "eta_kv") and fit.held
    assert set(fit.result.fitted) | set(fit.held) == {"eta_mem", "eta_kv", "eta_prefill", "eta_compute",
                                                       "layer_overhead_s", "seq_overhead_s"}
    assert all("cannot be told apart" in why or "no point depends" in why for why in fit.held.values())
    assert fit.result.median_abs_pct_error < 0.5


@pytest.mark.parametrize("tp", [2, 4, 8])
def test_a_real_aiconfigurator_curve_is_matched_within_10_percent_median(tp):
    curve = next(c for c in read_curve_file(REAL).curves if c.tensor_parallel == tp)
    fit = fit_curve(curve, DEVICES, MODELS)
    assert (fit.serving.tensor_parallel, fit.workload.input_tokens, fit.workload.output_tokens) == (tp, 4000, 1000)
    assert fit.result.initial_median_abs_pct_error > 10  # the defaults miss aiconfigurator's numbers by 12-17 %
    assert fit.result.median_abs_pct_error <= 10
    assert fit.result.median_abs_pct_error < fit.result.initial_median_abs_pct_error / 5
    # decode at batch <= 224 is never compute-bound; at Hopper's achieved compute (eta_compute x
    # arch_compute_hopper, 0.88 of peak) the compute time hidden under memory barely shows, so
    # eta_compute is fitted where the points identify it and otherwise held with the reason
    assert "eta_compute" in fit.result.fitted or "eta_compute" in fit.held


def refusal(curve, **kw) -> str:
    with pytest.raises(CalibrationRefused) as err:
        fit_curve(curve, DEVICES, MODELS, **kw)
    return str(err.value)


def test_refusals_say_why():
    assert "needs at least 4" in refusal(synthetic_curve(batches=(1, 64, 256)), fit=("eta_mem", "eta_kv", "eta_compute"))
    assert "has 1 point(s)" in refusal(synthetic_curve(batches=(64,)))
    small = synthetic_curve(batches=(1, 2, 4, 8, 16))
    assert refusal(small, fit=("eta_mem", "moe_compute_efficiency")).startswith(
        "moe_compute_efficiency cannot be identified")  # a dense model: no point depends on it
    assert "the two cannot be told apart" in refusal(small, fit=("eta_mem", "step_overhead_s"))
    assert "cannot fit bogus" in refusal(small, fit=("bogus",))
    no_workload = synthetic_curve(TRUE_MEMORY, config=(("tensor_parallel", "2"),))
    assert "no input_tokens / output_tokens" in refusal(no_workload)
    assert fit_curve(no_workload, DEVICES, MODELS, workload=Workload(input_tokens=1000, output_tokens=1000)
                     ).result.median_abs_pct_error < 1  # a plan's workload stands in
    disagg = synthetic_curve(config=CONFIG + (("disaggregated", "true"),))
    assert "disaggregated deployment" in refusal(disagg)
    pool = synthetic_curve(config=CONFIG + (("role", "decode"),))
    assert "is the decode pool of a disaggregated deployment" in refusal(pool)
    unknown = make_measured_curve("x", "h200_sxm", "Kimi-K9", [1, 2], [10, 20], config=CONFIG)
    lines = refusal(unknown).splitlines()
    assert len(lines) == 2 and "device 'h200_sxm'" in lines[0] and "model 'Kimi-K9'" in lines[1]
