"""Leave-one-family-out validation (engine/performance/cross_validation.py, factor_fit.py) and the
prediction-interval cells built from its residuals (interval_cells.py, prediction_interval.band_for);
docs/model.md, "How sure it is"."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tcoapp.engine.performance import interval_cells
from tcoapp.engine.performance.accuracy import run
from tcoapp.engine.performance.cross_validation import leave_one_family_out
from tcoapp.engine.performance.factor_fit import NEUTRAL
from tcoapp.engine.performance.prediction_interval import MIN_ROWS, band_for
from tcoapp.io.catalog import load_catalog
from tcoapp.io.measurements import read_measurements

CATALOG = load_catalog()
SMALL = ("MLPerf v4.1 NVIDIA", "MLPerf v5.0 NVIDIA", "MLPerf v4.1 AMD", "MLPerf v5.0 AMD", "MLPerf v5.1 AMD")


def test_each_family_is_predicted_by_factors_fitted_without_it():
    rows = [(line, r) for line, r in read_measurements() if r["source_family"] in SMALL]
    cv = leave_one_family_out(rows, CATALOG, max_nfev=2)
    base = run(rows, CATALOG)
    assert sorted(r.line for r in cv.accuracy.results) == sorted(r.line for r in base.results)
    assert set(cv.fits) == {r.source_family for r in base.results}
    for family, fit in cv.fits.items():
        own = [r for r in base.results if r.source_family == family]
        known_others = [r for r in base.results if r.source_family != family and r.configuration == "known"]
        assert fit.rows == len(known_others)                  # never saw its family (nor an unknown row)
        for r in (r for r in cv.accuracy.results if r.source_family == family):
            again = run(rows, CATALOG, fit.factors, lines={r.line}).results[0]
            assert r.predicted == pytest.approx(again.predicted)
    amd_only = {r.source_family for r in base.results if r.vendor == "AMD"}
    for family in amd_only:  # without any other AMD row the ROCm factor is not identified: held at 1
        others_amd = [r for r in base.results if r.vendor == "AMD" and r.source_family != family]
        if not others_amd:
            assert cv.fits[family].factors.stack_step_rocm == NEUTRAL["stack_step_rocm"]
            assert "stack_step_rocm" in cv.fits[family].held


def _result(ratio, family, scenario="interactive", kind="MoE"):
    return SimpleNamespace(measured=ratio, predicted=1.0, source_family=family, scenario=scenario, kind=kind,
                           config={}, measured_per_user=None, predicted_per_user=None)


def test_a_small_cell_takes_its_parent_band():
    table = {"interactive/MoE": (5, 3, 0.8, 1.9), "interactive": (30, 4, 0.7, 1.2), "*": (100, 7, 0.6, 1.5)}
    assert band_for(table, "interactive", "MoE") == ("interactive", (30, 0.7, 1.2))
    table["interactive/MoE"] = (MIN_ROWS, 3, 0.8, 1.9)
    assert band_for(table, "interactive", "MoE") == ("interactive/MoE", (MIN_ROWS, 0.8, 1.9))
    assert band_for(table, "server", "dense") == ("*", (100, 0.6, 1.5))
    small = {"server/dense": (3, 1, 0.5, 1.1), "server": (10, 2, 0.9, 1.3), "*": (100, 7, 0.6, 1.5)}
    assert band_for(small, "server", "dense") == ("*", (100, 0.6, 1.5))


def test_a_cell_of_one_family_borrows_the_spread_between_families_of_every_cell():
    """Direction: a regime x class cell whose rows come from one family gets, about that family's own
    centre, a band wider than the family's own scatter: the spread between the families of the other
    cells (pooled_spread), widened for a centre known from one family only."""
    results = [_result(1.0 + 0.01 * (i % 5), "only", scenario="server", kind="dense") for i in range(30)]
    for j, offset in enumerate((0.7, 1.0, 1.4)):           # three families erring apart in another cell
        results += [_result(offset * (1.0 + 0.01 * (i % 5)), f"f{j}") for i in range(10)]
    cells = interval_cells.build_cells(results)
    n, families, lo, hi = cells["server/dense"]
    assert (n, families) == (30, 1)
    own_lo, own_hi = interval_cells.band([1.0 + 0.01 * (i % 5) for i in range(30)], ["only"] * 30)
    assert lo < own_lo and hi > own_hi and lo < 1.0 < hi
    # the same cell with no other cell to borrow from keeps its own scatter only
    alone = interval_cells.build_cells(results[:30])
    assert alone["server/dense"][2:] == pytest.approx((own_lo, own_hi))
    deviations, dof = interval_cells.pooled_spread({"interactive/MoE": ([0.7, 1.0, 1.4], ["a", "b", "c"]),
                                                    "server/dense": ([1.0, 1.0], ["only", "only"])})
    assert dof == 2 and deviations == pytest.approx(np.log([0.7, 1.0, 1.4]) * np.sqrt(1.5))
    # a predictive factor for a centre from one family is wider than for one from many
    assert interval_cells.offset_widening(10, centre_families=1) > interval_cells.offset_widening(10)


def test_the_band_counts_the_spread_between_families():
    # one large family measured close to the model, five small ones far from it
    ratios = [1.0 + 0.01 * i for i in range(-50, 50)] + [0.5, 0.55, 1.8, 1.9, 2.0]
    families = ["big"] * 100 + ["a", "b", "c", "d", "e"]
    lo, hi = interval_cells.band(ratios, families, (0.1, 0.9))
    row_lo, row_hi = np.percentile(ratios, [10, 90])
    assert lo <= row_lo and hi > row_hi + 0.5
    assert interval_cells.band([1.0, 2.0, 3.0], ["a", "a", "a"], (0.0, 1.0)) == pytest.approx((1.0, 3.0))


def test_the_band_is_a_family_offset_times_the_scatter_within_families():
    # two families erring in opposite directions, each scattering +-10 % about its own median
    ratios, families = [0.45, 0.5, 0.55, 1.8, 2.0, 2.2], ["a"] * 3 + ["b"] * 3
    assert interval_cells.band(ratios, families, (0.0, 1.0)) == pytest.approx((0.45, 2.2))
    # a large family's many rows weigh as one offset: a lone far family still reaches the band's edge,
    # and past it: two families' offsets spread about their median by the widening of one more family
    lo, hi = interval_cells.band([1.0] * 99 + [2.0], ["big"] * 99 + ["far"], (0.1, 0.9))
    half = interval_cells.offset_widening(2) * np.log(2.0) / 2
    assert lo == pytest.approx(np.sqrt(2.0) * np.exp(-half)) and hi == pytest.approx(np.sqrt(2.0) * np.exp(half))
    assert lo < 1.0 and hi > 2.0


def test_few_families_widen_the_offsets_as_the_next_family_would_fall():
    """The small-sample predictive factor: large for 2 families, towards 1 for many, 1 for one."""
    w = [interval_cells.offset_widening(n) for n in (2, 3, 5, 10, 100)]
    assert w == sorted(w, reverse=True) and w[0] == pytest.approx(2.94, abs=0.01) and 1.0 < w[-1] < 1.02
    assert interval_cells.offset_widening(1) == 1.0 and interval_cells.offset_widening(5, (0.0, 1.0)) == 1.0


def test_cells_and_nested_coverage():
    results = [_result(1.0 + 0.01 * (i % 7), f"f{i % 5}") for i in range(60)]
    results += [_result(5.0, "outlier", scenario="server") for _ in range(5)]
    cells = interval_cells.build_cells(results)
    assert cells["interactive/MoE"][0] == cells["interactive"][0] == 60 and cells["*"][0] == 65
    assert "server/MoE" in cells and cells["server/MoE"][0] == 5
    coverage = interval_cells.coverage(results)
    assert coverage["overall"]["n"] == 65
    # five families alike: each one's rows sit inside the others' 80 % band about 80 % of the time
    assert 0.7 <= coverage["interactive"]["inside_share"] <= 0.9
    # the outlier family is tested against the band the other families build: all outside
    assert coverage["server"] == {"n": 5, "inside_share": 0.0}
    # and per vendor inside each regime x class cell (the results name none here: no vendor cell)
    assert not any(key.count("/") == 2 for key in coverage)
    named = [SimpleNamespace(**{**vars(r), "vendor": "AMD" if i % 2 else "NVIDIA"}) for i, r in enumerate(results)]
    by_vendor = interval_cells.coverage(named)
    assert by_vendor["interactive/MoE/AMD"]["n"] + by_vendor["interactive/MoE/NVIDIA"]["n"] == 60
    assert by_vendor["server/MoE/AMD"]["inside_share"] == 0.0


def test_device_ratio_error_pairs_devices_on_the_same_work():
    from tcoapp.engine.performance.device_ratios import ratio_errors
    row = {"model": "M", "scenario": "MLPerf Offline", "input_len": "", "batch_or_concurrency": "", "precision": ""}
    results = [SimpleNamespace(line=1, device="A", measured=100.0, predicted=110.0, source_family="MLPerf v6.0 NVIDIA"),
               SimpleNamespace(line=2, device="B", measured=50.0, predicted=50.0, source_family="MLPerf v6.0 AMD"),
               SimpleNamespace(line=3, device="B", measured=50.0, predicted=50.0, source_family="MLPerf v5.1 AMD")]
    rows = {1: row, 2: row, 3: row}
    assert ratio_errors(results, rows) == pytest.approx([0.1])   # v5.1 is another round: no pair


def test_a_configuration_term_is_fitted_only_on_enough_rows_running_it():
    """`spec_acceptance_realised` is its own cell: fitted where at least MIN_CONFIGURATION_ROWS fitted
    rows run speculative decoding, else held at 1 (never learned from a few rows)."""
    from tcoapp.engine.performance.factor_fit import MIN_CONFIGURATION_ROWS, identified

    def rows(n_spec, n_plain=30):
        spec = [SimpleNamespace(stack="TensorRT-LLM", architecture="Blackwell", config={"spec_decode_draft_tokens": 3})]
        plain = [SimpleNamespace(stack="TensorRT-LLM", architecture="Blackwell", config={"spec_decode_draft_tokens": 0})]
        return spec * n_spec + plain * n_plain

    names = ("eta_compute", "spec_acceptance_realised")
    fitted, held = identified(names, rows(MIN_CONFIGURATION_ROWS - 1))
    assert fitted == ("eta_compute",) and "speculative decoding" in held["spec_acceptance_realised"]
    assert NEUTRAL["spec_acceptance_realised"] == 1.0
    fitted, held = identified(names, rows(MIN_CONFIGURATION_ROWS))
    assert fitted == names and not held


def test_the_realised_acceptance_scales_every_draft_position():
    """Direction: a lower realised share lowers tokens per step and the speculative gain; at 1 the
    stated acceptance runs as stated; no speculation is untouched."""
    from tcoapp.engine.performance.factors import DEFAULT_FACTORS
    from tcoapp.engine.performance.generated import run_roofline
    from tcoapp.engine.quantities.records import ServingConfig, Workload
    dev, mod = CATALOG.devices["B200"], CATALOG.models["DeepSeek-R1"]
    wl, b = Workload(input_tokens=1024, output_tokens=1024), np.array([8.0, 64.0])
    serving = ServingConfig(tensor_parallel=8, weight_precision="fp8", kv_precision="fp8",
                            spec_decode_draft_tokens=3, spec_decode_acceptance=0.875)
    full = run_roofline(dev, mod, serving, wl, b, DEFAULT_FACTORS.with_(spec_acceptance_realised=1.0))
    less = run_roofline(dev, mod, serving, wl, b, DEFAULT_FACTORS.with_(spec_acceptance_realised=0.8))
    assert np.all(less.tokens_per_step < full.tokens_per_step)
    assert np.all(less.tokens_per_s_per_device < full.tokens_per_s_per_device)
    plain = serving.with_(spec_decode_draft_tokens=0)
    assert np.array_equal(run_roofline(dev, mod, plain, wl, b, DEFAULT_FACTORS.with_(spec_acceptance_realised=0.8)).step_s,
                          run_roofline(dev, mod, plain, wl, b, DEFAULT_FACTORS.with_(spec_acceptance_realised=1.0)).step_s)


def test_rows_of_a_held_configuration_term_set_no_factor():
    """Where `spec_acceptance_realised` is held (too few speculative rows), the speculative rows leave
    the fit: their gain is never learned as kernel efficiency."""
    from tcoapp.engine.performance.factor_fit import configured_lines
    results = [SimpleNamespace(line=1, config={"spec_decode_draft_tokens": 3}),
               SimpleNamespace(line=2, config={"spec_decode_draft_tokens": 0}), SimpleNamespace(line=3, config={})]
    assert configured_lines([1, 2, 3], results, {"spec_acceptance_realised": "too few"}) == [2, 3]
    assert configured_lines([1, 2, 3], results, {}) == [1, 2, 3]


def test_the_serial_speculation_term_is_its_own_cell():
    """`spec_serial_seq_overhead_s` is fitted only where at least MIN_CONFIGURATION_ROWS fitted rows draft
    on a stack without overlap (SGLang), else held at 0 (no exposed host time) and those rows leave the fit."""
    from tcoapp.engine.performance.factor_fit import MIN_CONFIGURATION_ROWS, configured_lines, identified

    def row(line, serial):
        return SimpleNamespace(line=line, stack="SGLang", architecture="Blackwell",
                               config={"spec_decode_draft_tokens": 2, "spec_host_serial": serial})

    names = ("eta_compute", "spec_serial_seq_overhead_s")
    few = [row(i, True) for i in range(MIN_CONFIGURATION_ROWS - 1)] + [row(100 + i, False) for i in range(30)]
    fitted, held = identified(names, few)
    assert fitted == ("eta_compute",) and "without overlap" in held["spec_serial_seq_overhead_s"]
    assert NEUTRAL["spec_serial_seq_overhead_s"] == 0.0
    assert configured_lines([0, 100], few, held) == [100]
    enough = few + [row(99, True)]
    assert identified(names, enough) == (names, {})


def test_converged_era_refits_stop_on_their_tolerance_not_on_a_step_count():
    from tcoapp.engine.performance.cross_validation import ERA_MAX_NFEV, ERA_TOLERANCE, leave_one_era_out
    rows = [(line, r) for line, r in read_measurements() if r["source_family"] in SMALL]
    rows += [(line, r) for line, r in read_measurements() if "perf-overview" in r["source"]][:6]
    cv = leave_one_era_out(rows, CATALOG, boundary="2025-06", converged=True)
    assert ERA_TOLERANCE <= 1e-4 and set(cv.fits)
    for fit in cv.fits.values():
        if fit.message == "nothing to fit":
            continue
        assert fit.evaluations < ERA_MAX_NFEV, fit.message              # stopped by its tolerance...
        assert "termination condition" in fit.message                  # ...ftol or xtol, not max_nfev
    chord = leave_one_era_out(rows, CATALOG, boundary="2025-06", max_nfev=1)
    assert all(f.evaluations <= 1 for f in chord.fits.values())        # the shipped tables' chord steps


def test_a_prior_pulls_the_fitted_factors_toward_its_anchor():
    """fit_factors' `prior` ({factor: anchor}, sd): a tight prior holds the factors at the anchor, none lets the
    rows move them, and the prior's rows are (log factor - log anchor) / sd in the rows' loss scale, one per
    fitted factor with an anchor; the shipped prior anchors every factor the shipped fit moves."""
    from tcoapp.engine.performance.factor_fit import FIT, FIT_BOUNDS, LOSS_SCALE, SHIPPED_PRIOR, _prior_pull, fit_factors
    from tcoapp.engine.performance.factors import DEFAULT_FACTORS
    rows = [(line, r) for line, r in read_measurements() if r["source_family"] in SMALL]
    lines = [r.line for r in run(rows, CATALOG).results]
    names = ("eta_compute", "eta_kv")
    start = DEFAULT_FACTORS.with_(eta_compute=0.3, eta_kv=0.2)   # far from where these rows put them
    anchor = {n: getattr(start, n) for n in names}
    free = fit_factors(rows, CATALOG, lines, start=start, names=names, max_nfev=8, prior=None)
    held = fit_factors(rows, CATALOG, lines, start=start, names=names, max_nfev=8, prior=(anchor, 1e-4))
    for name in names:
        assert getattr(held.factors, name) == pytest.approx(getattr(start, name), rel=1e-3)
        assert abs(np.log(getattr(free.factors, name) / getattr(start, name))) > 0.02
    pull = _prior_pull(({"eta_compute": 0.5, "eta_kv": 0.4}, 0.25), names)
    out = pull(np.log([0.5 * np.e, 0.4]), np.array([7.0]))
    assert out == pytest.approx([7.0, LOSS_SCALE / 0.25, 0.0])
    assert _prior_pull(({"eta_kv": 0.4}, 0.25), names)(np.log([0.5, 0.4 * np.e]), np.array([7.0])) == pytest.approx(
        [7.0, LOSS_SCALE / 0.25])                                      # eta_compute has no anchor: no pull
    anchors, _ = SHIPPED_PRIOR
    assert set(anchors) == set(FIT)
    assert all(FIT_BOUNDS[n][0] <= anchors[n] <= FIT_BOUNDS[n][1] for n in FIT)
