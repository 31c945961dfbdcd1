"""Calibration recovers known factors from synthetic measurements and reports the fit's error."""
from __future__ import annotations

import numpy as np
import pytest

from tcoapp.engine.performance.calibration import MeasuredPoint, calibrate, predict_point
from tcoapp.engine.performance.factors import DEFAULT_FACTORS
from tcoapp.engine.quantities.records import ServingConfig, Workload

from tests.engine.catalog_data import DEVICES, MODELS

TRUE = DEFAULT_FACTORS.with_(eta_mem=0.7, eta_compute=0.35, step_overhead_s=0.003, power_gamma=1.6)
CHAT = Workload(input_tokens=64, output_tokens=1000)
CASES = [("H200-SXM", "Llama-3.3-70B", ServingConfig(tensor_parallel=2), b) for b in (1, 8, 64, 256, 1024)] + [
    ("B200", "Llama-3.1-8B", ServingConfig(weight_precision="nvfp4"), b) for b in (1, 32, 512)] + [
    ("MI300X", "gpt-oss-120b", ServingConfig(), b) for b in (4, 128)]


def synthetic_points(factors, with_power=False):
    points = []
    for dev, model, serving, batch in CASES:
        p = MeasuredPoint(dev, model, CHAT, 1.0, serving, batch=batch)
        tps, watts = predict_point(p, DEVICES, MODELS, factors)
        points.append(MeasuredPoint(dev, model, CHAT, tps, serving, batch=batch, power_w=watts if with_power else None))
    return points


def test_calibration_recovers_the_factors_that_made_the_points():
    result = calibrate(synthetic_points(TRUE), DEVICES, MODELS, fit=("eta_mem", "eta_compute", "step_overhead_s"))
    assert result.initial_median_abs_pct_error > 10
    assert result.median_abs_pct_error < 0.1 and result.rmse_pct < 0.1
    for name in ("eta_mem", "eta_compute", "step_overhead_s"):
        assert getattr(result.factors, name) == pytest.approx(getattr(TRUE, name), rel=0.02)
    assert result.factors.eta_prefill == DEFAULT_FACTORS.eta_prefill  # not fitted: untouched
    assert result.residuals.shape == (len(CASES),)


def test_power_points_pin_the_power_curve():
    result = calibrate(synthetic_points(TRUE, with_power=True), DEVICES, MODELS,
                       fit=("eta_mem", "eta_compute", "step_overhead_s", "power_gamma"))
    assert result.factors.power_gamma == pytest.approx(1.6, rel=0.03)


def test_offline_points_use_the_best_feasible_batch_and_config():
    configs = [ServingConfig(tensor_parallel=tp) for tp in (1, 2, 4)]
    offline = MeasuredPoint("H200-SXM", "Llama-3.3-70B", CHAT, 1.0, configs)
    tps, _ = predict_point(offline, DEVICES, MODELS)
    single = [predict_point(MeasuredPoint("H200-SXM", "Llama-3.3-70B", CHAT, 1.0, c), DEVICES, MODELS)[0] for c in configs]
    assert tps == pytest.approx(np.nanmax(single))
    assert tps > predict_point(MeasuredPoint("H200-SXM", "Llama-3.3-70B", CHAT, 1.0, configs[1], batch=8),
                               DEVICES, MODELS)[0]


def test_bad_requests_are_refused():
    with pytest.raises(ValueError):
        calibrate([], DEVICES, MODELS)
    with pytest.raises(ValueError, match="cannot fit"):
        calibrate(synthetic_points(TRUE)[:1], DEVICES, MODELS, fit=("not_a_factor",))


def test_a_measured_curve_calibrates_directly():
    from tcoapp.engine.performance.calibration import points_from_curve
    from tcoapp.engine.performance.measured import make_measured_curve

    serving = ServingConfig(tensor_parallel=2)
    truth = synthetic_points(TRUE, with_power=True)[:5]  # the H200 / Llama-3.3-70B TP2 points
    curve = make_measured_curve("lab", "H200-SXM", "Llama-3.3-70B", [p.batch for p in truth],
                                [p.tokens_per_s_per_device for p in truth], power_w=[p.power_w for p in truth])
    points = points_from_curve(curve, serving, CHAT)
    assert [p.batch for p in points] == [1, 8, 64, 256, 1024] and points[0].power_w == truth[0].power_w
    # the factors that made the curve's tokens/s (its power also carries power_gamma, not fitted here:
    # with eta_mem and eta_compute alone the power residuals pull the tokens/s ones up)
    result = calibrate(points, DEVICES, MODELS, fit=("eta_mem", "eta_compute", "step_overhead_s"))
    assert result.median_abs_pct_error < result.initial_median_abs_pct_error
