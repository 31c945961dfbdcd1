"""Prediction intervals (docs/model.md, "How sure it is"): an 80 % band per plan and pool on a
generated curve, from the cross-validated residuals of the point's regime x class x vendor cell (pooled
where small); null on a measured curve; calibrated on families that did not build the band."""
from __future__ import annotations

import functools
import json

import numpy as np
import pytest

from tcoapp.engine.pipeline.compute import compute_plan
from tcoapp.engine.performance import prediction_interval as pi
from tcoapp.engine.performance.measured import make_measured_curve
from tcoapp.engine.quantities.records import make_plan
from tcoapp.engine.plan.scenario import Scenario, check_scenario
from tcoapp.io.catalog import load_catalog

CATALOG = load_catalog()


def _scenario(*plans, curves=None):
    return check_scenario(Scenario(tuple(plans), curves=curves or {}, catalog_devices=CATALOG.devices,
                                   catalog_models=CATALOG.models))


@pytest.mark.parametrize("keys, regime", [
    ({"device": "H200-SXM", "model": "Llama-3.3-70B", "batch": 4}, "interactive"),
    ({"device": "MI355X", "model": "DeepSeek-R1", "batch": 100000, "tensor_parallel": 8}, "offline"),
    ({"device": "B200", "model": "DeepSeek-R1", "tensor_parallel": 8, "min_tokens_per_s_per_user": 20.0,
      "max_ttft_s": 30}, "server"),
])
def test_a_generated_plan_and_its_pool_carry_an_80_percent_band_of_their_regime(keys, regime):
    p = make_plan("p", {"input_tokens": 1000, "output_tokens": 500, **keys})
    result = compute_plan(_scenario(p), p)
    band = result.prediction_interval
    assert band is not None and band["level"] == 0.8
    point = result.point
    assert pi.point_regime(point.tokens_per_s_per_user, point.batch, point.max_batch_by_memory) == regime
    assert regime in band["basis"] and "leave-one-family-out" in band["basis"]
    vendor = CATALOG.devices[keys["device"]].vendor
    key, (n, lo, hi) = pi.band_for(pi.RESIDUAL_QUANTILES, regime, "dense" if "Llama" in keys["model"] else "MoE", vendor)
    assert key.startswith(regime) and n >= pi.MIN_ROWS and 0 < lo < 1 < hi
    assert f"cell {key}, n={n}" in band["basis"]
    assert band["tokens_per_s_per_device"] == pytest.approx([point.tokens_per_s_per_device * lo,
                                                             point.tokens_per_s_per_device * hi])
    low, high = band["tokens_per_s_per_user"]
    assert 0 < low < high
    data = result.as_json()
    assert data["prediction_interval"] == band
    assert data["pools"][0]["prediction_interval"]["tokens_per_s_per_device"] == pytest.approx(
        band["tokens_per_s_per_device"])
    json.dumps(data)


def test_a_measured_curve_has_no_band():
    curve = make_measured_curve("c", "H100-SXM", "Llama-3.1-8B", [1, 8, 64], [100, 700, 3000], [100, 87.5, 46.9],
                                [300, 400, 600], [0.05, 0.06, 0.1])
    p = make_plan("P", {"device": "H100-SXM", "model": "Llama-3.1-8B", "curve": "c", "batch": 8})
    result = compute_plan(_scenario(p, curves={"c": curve}), p)
    assert result.prediction_interval is None
    assert result.as_json()["pools"][0]["prediction_interval"] is None


def _stored():
    from tcoapp.io.catalog import load_catalog
    from tcoapp.io.cross_validated import stored_cross_validation
    from tcoapp.io.measurements import read_measurements
    return stored_cross_validation(read_measurements(), load_catalog())


def test_the_stored_cross_validation_is_current_and_the_shipped_tables_are_its_cells():
    """resources/measurements/cross_validated.csv and cross_validated_era.csv match the model, factors
    and measurements of now (else run `python tools/refit_factors.py --intervals`), and the shipped
    tables are the cells of both splits' residuals together."""
    from tcoapp.engine.performance import interval_cells
    acc, era = _stored(), _stored_era()
    assert acc is not None and era is not None, "stale: run python tools/refit_factors.py --intervals"
    pooled = acc.results + era.results
    device = interval_cells.build_cells(pooled)
    user = interval_cells.build_cells(pooled, per_user=True)
    assert set(device) == set(pi.RESIDUAL_QUANTILES) and set(user) == set(pi.PER_USER_QUANTILES)
    for table, shipped in ((device, pi.RESIDUAL_QUANTILES), (user, pi.PER_USER_QUANTILES)):
        for key, (n, families, lo, hi) in shipped.items():
            assert table[key][:2] == (n, families)
            assert table[key][2:] == pytest.approx((lo, hi), abs=2e-3)


@functools.lru_cache(maxsize=1)
def _calibration():
    """{split: coverage}: each family's rows of that split against the band (both splits' residuals)
    the other families build."""
    from tcoapp.engine.performance import interval_cells
    acc, era = _stored(), _stored_era()
    pooled = acc.results + era.results
    return {"family": interval_cells.coverage(acc.results, band_from=pooled),
            "era": interval_cells.coverage(era.results, band_from=pooled)}


CELLS = [f"{g}/{c}" for g in ("offline", "server", "interactive") for c in ("dense", "MoE")]
# (split, cell) outside 70-90 % at the shipped factors of 2026-12-07 (the refit with the 49 InferenceX MTP rows'
# draft tokens read: docs/model.md, "How sure it is"); a strict xfail: each fails the day its cell comes inside
SHORT = {("family", "offline/MoE"): "100 % of 85: the pooled band is wide because the era split's offline MoE "
                                    "errors (36 % median, 70 % p90) enter it",
         ("family", "server/MoE"): "68 % of 73: MLPerf Server DeepSeek-R1 on NVIDIA beyond the pooled spread",
         ("era", "server/MoE"): "55 % of 73: as the family split's",
         ("family", "server/dense"): "100 % of 57: the era split's server dense errors (18 % median) widen the "
                                     "pooled band",
         ("era", "server/dense"): "95 % of 57: as the family split's",
         ("family", "interactive/dense"): "94 % of 34: two families, the spread between families borrowed",
         ("era", "interactive/dense"): "91 % of 34: as the family split's"}


@pytest.mark.parametrize("split", ["family", "era"])
@pytest.mark.parametrize("cell", CELLS + ["overall", "MoE", "dense", "interactive"])
def test_the_band_holds_in_every_cell_of_20_rows_on_both_splits(split, cell, request):
    """70-90 % of each regime x class cell's rows (20 or more), and overall, by class and interactive,
    fall inside the band the other families build, on leave-one-family-out and leave-one-era-out."""
    if (split, cell) in SHORT:
        request.applymarker(pytest.mark.xfail(strict=True, reason=SHORT[split, cell]))
    found = _calibration()[split]
    assert found["overall"]["n"] >= 500 if split == "family" else found["overall"]["n"] >= 400
    c = found.get(cell, {"n": 0, "inside_share": 0.8})
    if c["n"] < 20:
        pytest.skip(f"{cell}: {c['n']} rows")
    assert 0.70 <= c["inside_share"] <= 0.90, (split, cell, c)


def test_a_thin_cell_takes_its_parent_band_and_a_vendor_cell_needs_its_own_spread():
    """Direction of the fallback: a regime x class x vendor cell of 3 rows (or of fewer than MIN_FAMILIES
    families) gives way to its regime x class cell, a regime x class cell of 3 rows to its regime's;
    the band a point gets is then at least as wide as that parent's."""
    table = {"server/dense/NVIDIA": (3, 3, 0.98, 1.01), "server/dense": (3, 2, 0.97, 1.02),
             "server": (40, 4, 0.8, 1.3), "*": (100, 7, 0.7, 1.4)}
    key, (n, lo, hi) = pi.band_for(table, "server", "dense", "NVIDIA")
    assert key == "server" and (lo, hi) == (0.8, 1.3)
    table["server/dense/NVIDIA"] = (50, 2, 0.98, 1.01)       # rows enough, families not
    table["server/dense"] = (60, 2, 0.9, 1.1)
    assert pi.band_for(table, "server", "dense", "NVIDIA") == ("server/dense", (60, 0.9, 1.1))
    table["server/dense/NVIDIA"] = (50, pi.MIN_FAMILIES, 0.95, 1.05)
    assert pi.band_for(table, "server", "dense", "NVIDIA") == ("server/dense/NVIDIA", (50, 0.95, 1.05))
    assert pi.band_for(table, "server", "dense", "AMD")[0] == "server/dense"
    assert pi.band_for(table, "offline", "MoE")[0] == "*"


def test_an_interval_table_without_its_overall_cell_is_refused():
    with pytest.raises(KeyError, match="no overall cell"):
        pi.band_for({"server/dense": (3, 1, 0.9, 1.1)}, "server", "dense", "NVIDIA")


def test_dent_share_counts_frontier_points_off_the_log_log_hull():
    from tcoapp.engine.performance.frontier import dent_share
    x = np.array([1.0, 2.0, 4.0, 8.0])
    assert dent_share(x, 100.0 / x) == 0.0                        # a straight line in log-log: no dent
    assert dent_share(x, np.array([100.0, 20.0, 18.0, 1.0])) == pytest.approx(0.25)  # 20 sits under the hull
    assert dent_share(x[:2], x[:2]) is None


def test_factor_model_error_carries_the_model_error_into_monte_carlo():
    from tests.engine.montecarlo_cases import fixed_batch_plan, row, scenario_with
    from tcoapp.engine.uncertainty.simulate import simulate
    from tcoapp.engine.uncertainty.statistics import summary

    plan = fixed_batch_plan()
    base = compute_plan(scenario_with(plans=(plan,)), plan)
    from dataclasses import replace
    s0 = scenario_with(plans=(plan,))
    faster = compute_plan(replace(s0, factors=s0.factors.with_(model_error=1.5)), plan)
    # a 1.5x faster model: 1.5x the tokens/s per device and per user at the same batch
    assert faster.metrics.tokens_per_s_per_device == pytest.approx(1.5 * base.metrics.tokens_per_s_per_device)
    assert faster.metrics.tokens_per_s_per_user == pytest.approx(1.5 * base.metrics.tokens_per_s_per_user)
    _, (_, lo, hi) = pi.band_for(pi.RESIDUAL_QUANTILES, "server", "dense", "NVIDIA")
    s = scenario_with(row("*", "factor.model_error", "uniform", low=lo, high=hi), plans=(plan,))
    cost = summary(simulate(s, 2000, seed=5).plans[0].metric("cost_per_million_output_tokens_usd"),
                   "cost_per_million_output_tokens_usd")
    # same batch, same power: the cost per token is the deterministic one over the drawn speed
    point = base.metrics.cost_per_million_output_tokens_usd
    assert faster.metrics.cost_per_million_output_tokens_usd == pytest.approx(point / 1.5)
    assert faster.metrics.power_w == pytest.approx(base.metrics.power_w)
    assert cost["p95"] == pytest.approx(point / (lo + 0.05 * (hi - lo)), rel=0.03)
    assert cost["p5"] == pytest.approx(point / (lo + 0.95 * (hi - lo)), rel=0.03)


def _stored_era():
    from tcoapp.io.catalog import load_catalog
    from tcoapp.io.cross_validated import stored_cross_validation, stored_path
    from tcoapp.io.measurements import read_measurements
    return stored_cross_validation(read_measurements(), load_catalog(), stored_path("era"))


def test_the_stored_era_split_is_current_and_the_shipped_era_table_is_its_cells():
    from tcoapp.engine.performance import interval_cells
    acc = _stored_era()
    assert acc is not None, "stale: run python tools/refit_factors.py --intervals"
    table = interval_cells.build_cells(acc.results)
    assert set(table) == set(pi.ERA_RESIDUAL_QUANTILES)
    for key, (n, families, lo, hi) in pi.ERA_RESIDUAL_QUANTILES.items():
        assert table[key][:2] == (n, families) and table[key][2:] == pytest.approx((lo, hi), abs=2e-3)


def test_a_software_date_outside_the_fit_widens_the_band_to_the_era_split():
    """Direction: the same point with a software_date the fit never saw (after the factors' date, or
    before the oldest row) gets a band at least as wide, holding the leave-one-era-out band."""
    p = make_plan("p", {"input_tokens": 1000, "output_tokens": 500, "device": "B200", "model": "DeepSeek-R1",
                        "tensor_parallel": 8, "batch": 64})
    point = compute_plan(_scenario(p), p).point
    inside = pi.prediction_interval(point, "MoE", "NVIDIA", generated=True, software_date="2026-01")
    assert inside == pi.prediction_interval(point, "MoE", "NVIDIA", generated=True)
    regime = pi.point_regime(point.tokens_per_s_per_user, point.batch, point.max_batch_by_memory)
    _, (_, elo, ehi) = pi.band_for(pi.ERA_RESIDUAL_QUANTILES, regime, "MoE", "NVIDIA")
    for date in ("2027-06", "2023-01"):
        assert pi.outside_fit_dates(date)
        out = pi.prediction_interval(point, "MoE", "NVIDIA", generated=True, software_date=date)
        lo, hi = (x / point.tokens_per_s_per_device for x in out["tokens_per_s_per_device"])
        ilo, ihi = (x / point.tokens_per_s_per_device for x in inside["tokens_per_s_per_device"])
        assert lo <= ilo and hi >= ihi and lo == pytest.approx(min(ilo, elo)) and hi == pytest.approx(max(ihi, ehi))
        assert "outside the dates the fit saw" in out["basis"]
    assert not pi.outside_fit_dates("") and not pi.outside_fit_dates(pi.FACTORS_DATE)


def test_a_plan_drafting_at_the_published_acceptance_carries_its_spread_in_the_band():
    """A pool drafting tokens at the model's published acceptance (the plan's left empty) widens the band
    by the published spread (acceptance_spread.py); a stated acceptance and no drafting leave the band of
    its cell."""
    from tcoapp.engine.performance.acceptance_spread import acceptance_ratios, widened
    from tcoapp.engine.performance.memory import architecture
    base = {"input_tokens": 1000, "output_tokens": 500, "device": "B200", "model": "Llama-3.3-70B", "batch": 32,
            "tensor_parallel": 1}
    p = make_plan("p", {**base, "spec_decode_draft_tokens": 3})
    result = compute_plan(_scenario(p), p)
    point, band = result.point, result.prediction_interval
    plain = pi.prediction_interval(point, "dense", "NVIDIA", generated=True, architecture="Blackwell")
    lo, hi = (x / point.tokens_per_s_per_device for x in band["tokens_per_s_per_device"])
    plo, phi = (x / point.tokens_per_s_per_device for x in plain["tokens_per_s_per_device"])
    assert lo < plo and hi > phi and "published acceptance" in band["basis"]
    published = CATALOG.models.spec_acceptance["Llama-3.3-70B"]
    assert published.low < published.acceptance < published.high
    r_low, r_high = acceptance_ratios(3, published.acceptance, published.low, published.high,
                                      _scenario(p).factors.spec_acceptance_realised,
                                      architecture(CATALOG.models["Llama-3.3-70B"]).draft_later_ratio, point.prefill_share)
    assert r_low < 1.0 < r_high and f"{r_low:.2f}x-{r_high:.2f}x" in band["basis"]
    for keys in ({"spec_decode_draft_tokens": 3, "spec_decode_acceptance": 0.7}, {}):
        q = make_plan("q", {**base, **keys})
        assert "published acceptance" not in compute_plan(_scenario(q), q).prediction_interval["basis"]
    # the widening: about the band's centre, each side's ln half-width and ln r in quadrature
    wlo, whi = widened(0.8, 1.25, (0.9, 1.1))
    assert wlo == pytest.approx(np.exp(-np.hypot(np.log(1.25), np.log(1 / 0.9))))
    assert whi == pytest.approx(np.exp(np.hypot(np.log(1.25), np.log(1.1))))


def test_the_acceptance_ratios_follow_tokens_per_step_and_the_prefill_share():
    from tcoapp.engine.performance.acceptance_spread import acceptance_ratios
    from tcoapp.engine.performance.spec_decode import tokens_per_step
    r_low, r_high = acceptance_ratios(3, 0.7, 0.6, 0.8)
    assert r_low == pytest.approx(tokens_per_step(3, 0.6) / tokens_per_step(3, 0.7))
    assert r_high == pytest.approx(tokens_per_step(3, 0.8) / tokens_per_step(3, 0.7))
    # prefill time does not move with the acceptance: a prefill share damps the ratio
    d_low, d_high = acceptance_ratios(3, 0.7, 0.6, 0.8, prefill_share=0.5)
    assert r_low < d_low < 1.0 < d_high < r_high
    assert acceptance_ratios(0, 0.7, 0.6, 0.8) is None and acceptance_ratios(3, 0.7, 0.7, 0.7) is None
    with pytest.raises(ValueError, match="acceptance spread"):
        acceptance_ratios(3, 0.9, 0.6, 0.8)
