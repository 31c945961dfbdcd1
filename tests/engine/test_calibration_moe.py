"""Calibration of mixture-of-experts curves: the fit is scoped to the MoE factors the points identify
(the dense factors alone all end on their bounds), so a good MoE fit passes and can be written; a fit is
refused only by its held-out rule, with the reason; bounds and the all-points error are notes."""
from __future__ import annotations

from pathlib import Path

import pytest

from tcoapp.engine.performance.curve_fit import MOE_CANDIDATES, checkable_factors, fit_curve
from tcoapp.engine.performance.factors import DEFAULT_FACTORS
from tcoapp.engine.performance.fit_check import HELDOUT_MEDIAN_MAX_PCT, check_fit
from tcoapp.io.catalog import load_catalog
from tcoapp.io.curve_files import read_curve_file

QWEN = Path(__file__).resolve().parent.parent / "data" / "curves" / "aiconfigurator_qwen3_235b_b200_trtllm_agg_pareto.csv"


@pytest.fixture(scope="module")
def setup():
    catalog = load_catalog()
    curves = {c.config_dict.get("parallel"): c for c in read_curve_file(QWEN).curves}
    return catalog, curves


def _fit(setup, parallel):
    catalog, curves = setup
    curve = curves[parallel]
    fit = fit_curve(curve, catalog.devices, catalog.models, DEFAULT_FACTORS)
    return fit, check_fit(fit, curve, catalog.devices, catalog.models, DEFAULT_FACTORS)


def test_a_good_moe_fit_is_scoped_to_moe_factors_and_passes(setup):
    fit, check = _fit(setup, "tp8pp1dp1etp2ep4")
    assert "moe_compute_efficiency" in fit.result.fitted and set(fit.result.fitted) <= set(MOE_CANDIDATES)
    assert len(fit.result.fitted) <= checkable_factors(fit.batch.size)
    assert fit.result.median_abs_pct_error < 5 < fit.result.initial_median_abs_pct_error
    assert check.ok and check.median_abs_pct_error <= HELDOUT_MEDIAN_MAX_PCT, check.reasons
    assert not any("bound" in r for r in check.reasons)   # a factor on its bound is said (a note), not refused


def test_a_poor_moe_fit_is_refused_only_by_its_held_out_rule(setup):
    fit, check = _fit(setup, "tp8pp1dp1etp4ep2")
    assert not check.ok and check.reasons and all(r.startswith("held-out point") for r in check.reasons)
    assert check.notes   # its bounds and all-points error are stated beside the reason
