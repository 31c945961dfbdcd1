"""The model's own error in the Monte Carlo draws: shares estimated from the stored cross-validated
residuals, plans that share an architecture and configuration moving together, plans on different
architectures not, centred on the figures shown, the same seed the same numbers, and the decision's P
recomputed exactly from simulate's draws."""
from __future__ import annotations

import math

import numpy as np
import pytest

from tcoapp.engine.decision.choice import decide
from tcoapp.engine.performance import error_components as ec
from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.engine.uncertainty import model_error
from tcoapp.engine.uncertainty.inputs import UncertainInput
from tcoapp.engine.uncertainty.simulate import simulate
from tcoapp.io.default_scenario import default_scenario

DRAWS = 4000


def _log_revenue(sim, name):
    return np.log(sim.plan(name).metric("revenue_usd_per_year"))


def test_the_shipped_shares_are_the_estimate_of_the_stored_residuals():
    """ERROR_SHARES and SPLIT_ESTIMATES equal the estimate from the stored leave-one-family-out and
    leave-one-era-out predictions (else run python tools/refit_factors.py --intervals)."""
    from tcoapp.io.catalog import load_catalog
    from tcoapp.io.cross_validated import stored_cross_validation, stored_path
    from tcoapp.io.measurements import read_measurements
    rows, catalog = read_measurements(), load_catalog()
    estimates = {}
    for split in ("family", "era"):
        stored = stored_cross_validation(rows, catalog, stored_path(split))
        assert stored is not None, "stale: run python tools/refit_factors.py --intervals"
        estimates[split] = ec.split_estimate(stored.results)
    assert estimates == ec.SPLIT_ESTIMATES
    assert ec.shares(estimates) == ec.ERROR_SHARES
    assert sum(ec.ERROR_SHARES.values()) == pytest.approx(1.0, abs=1e-9)


def test_intraclass_correlation_recovers_a_known_between_group_share():
    """Independent check of the estimator: groups with sd 0.3 between and 0.4 within: share 0.09 / 0.25."""
    rng = np.random.default_rng(1)
    groups = np.repeat(np.arange(400), 10)
    values = 0.3 * rng.standard_normal(400)[groups] + 0.4 * rng.standard_normal(groups.size)
    share, k = ec.intraclass_correlation(values, [(g,) for g in groups])
    assert k == 400 and share == pytest.approx(0.09 / 0.25, abs=0.04)
    assert ec.intraclass_correlation([1.0, 2.0], [("a",), ("a",)]) == (0.0, 1)


def test_plans_sharing_a_configuration_move_together_and_other_architectures_do_not():
    """B200 and GB200 run Llama-3.3-70B NVFP4 TP1 (one Blackwell configuration): their throughput errors
    correlate by the shared share; H100 TP2 and H200 TP1 share the Hopper/TensorRT-LLM share only;
    Blackwell and CDNA 4 are independent."""
    sim = simulate(default_scenario(), DRAWS, seed=4)
    corr = lambda a, b: float(np.corrcoef(_log_revenue(sim, a), _log_revenue(sim, b))[0, 1])  # noqa: E731
    shared = ec.ERROR_SHARES["architecture_stack"] + ec.ERROR_SHARES["configuration"] + ec.ERROR_SHARES["device"]
    assert corr("B200", "GB200 NVL72") == pytest.approx(shared, abs=0.05)
    assert corr("H100", "H200") == pytest.approx(ec.ERROR_SHARES["architecture_stack"], abs=0.05)
    assert abs(corr("B200", "MI355X")) < 0.05
    # the gap is the configuration and device shares, the part only B200 and GB200 share
    gap = ec.ERROR_SHARES["configuration"] + ec.ERROR_SHARES["device"]
    assert gap > 0.2 and corr("B200", "GB200 NVL72") - corr("H100", "H200") == pytest.approx(gap, abs=0.07)


def test_two_plans_on_one_device_and_configuration_share_all_but_their_own_error():
    base = default_scenario()
    b200 = next(p for p in base.plans if p.name == "B200")
    s = base.with_plans(base.plans + (b200.with_(name="B200 again", utilization=0.6),))
    results = compute_scenario(s)
    errors = {p.name: model_error.pool_errors(s.for_plan(p), p, r) for p, r in zip(s.plans, results)}
    first, again = errors["B200"][0], errors["B200 again"][0]
    assert first.streams[:-1] == again.streams[:-1] and first.streams[-1] != again.streams[-1]
    sim = simulate(s, DRAWS, seed=0, results=results)
    share = 1.0 - ec.ERROR_SHARES["own"]
    assert np.corrcoef(_log_revenue(sim, "B200"), _log_revenue(sim, "B200 again"))[0, 1] == pytest.approx(share, abs=0.05)


def test_draws_are_centred_on_the_figure_with_the_bands_spread():
    """Median revenue at the plan's figure (facility-power sizing: the count does not move, revenue is
    throughput x price x utilization), the 10th-90th percentile ratio the prediction band's width."""
    s = default_scenario()
    results = compute_scenario(s)
    sim = simulate(s, 20_000, seed=2, results=results)
    for plan, r in zip(s.plans, results):
        revenue = sim.plan(plan.name).metric("revenue_usd_per_year")
        assert np.all(sim.plan(plan.name).metric("device_count") == r.metrics.device_count)
        ratio = revenue / r.metrics.revenue_usd_per_year
        assert np.median(ratio) == pytest.approx(1.0, abs=0.02), plan.name
        low, high = r.prediction_interval["tokens_per_s_per_device"]
        assert np.percentile(ratio, 90) / np.percentile(ratio, 10) == pytest.approx(high / low, rel=0.05), plan.name


def test_the_same_seed_gives_the_same_draws_and_another_seed_others():
    s = default_scenario()
    results = compute_scenario(s)
    one, two, other = (simulate(s, 500, seed=k, results=results) for k in (9, 9, 10))
    for a, b, c in zip(one.plans, two.plans, other.plans):
        assert np.array_equal(a.metric("npv_usd"), b.metric("npv_usd"))
        assert not np.array_equal(a.metric("npv_usd"), c.metric("npv_usd"))


def test_a_demand_sized_plan_buys_for_the_drawn_throughput():
    s = default_scenario()
    s = s.with_plans(tuple(p.with_(sizing_mode="demand", demand_tokens_per_day=2e10) for p in s.plans[:2]))
    sim = simulate(s, 300, seed=0)
    counts = sim.plans[0].metric("device_count")
    revenue = sim.plans[0].metric("revenue_usd_per_year")
    # fewer devices where faster, for the same demand (revenue moves only by the whole servers bought: at most
    # one 8-GPU server's worth of the fewest bought)
    assert np.ptp(counts) / np.mean(counts) > 0.5 and np.ptp(revenue) / np.mean(revenue) < 8 / counts.min()
    assert np.corrcoef(counts, sim.plans[0].metric("capex_usd"))[0, 1] > 0.99


def test_an_own_model_error_row_replaces_the_default_one():
    s = default_scenario()
    from dataclasses import replace
    s = replace(s, uncertainty=(UncertainInput("B200", "factor.model_error", "uniform", 0.9, high=1.1),))
    sim = simulate(s, 200, seed=0)
    b200 = sim.plan("B200")
    assert b200.model_error == () and any("factor.model_error row" in n for n in b200.notes)
    assert sim.plan("H100").model_error


def test_the_decision_p_is_recomputed_exactly_from_simulates_draws():
    """The decision simulates its two plans alone; the whole scenario's simulate with the same seed gives the
    same draws for them, so P recomputed from them is the decision's P."""
    s = default_scenario()
    results = compute_scenario(s)
    d = decide(s, results)
    assert d.draws == 10_000
    sim = simulate(s, d.draws, 0, results=results)
    first, second = (sim.plan(name).metric(d.objective) for name in d.ranked[:2])
    assert d.objective == "npv_usd"
    assert d.p_first_beats_second == float(np.mean(first > second))
    assert math.sqrt(0.25 / d.draws) * 2 <= 0.01


def test_the_measured_architectures_are_those_of_the_stored_rows():
    from tcoapp.io.catalog import load_catalog
    from tcoapp.io.cross_validated import stored_cross_validation, stored_path
    from tcoapp.io.measurements import read_measurements
    stored = stored_cross_validation(read_measurements(), load_catalog(), stored_path("family"))
    assert {r.architecture for r in stored.results} == set(ec.MEASURED_ARCHITECTURES)
    assert not ec.is_measured("Rubin") and not ec.is_measured("CDNA 5") and ec.is_measured("blackwell ultra")


# How far the leave-one-architecture-out refit's end point moves between machines: the refit takes
# REFIT_STEPS trust-region steps on a cost that is piecewise in the factors (a row's feasible
# configurations switch), so last-bit differences (numpy's and OpenBLAS's kernels per CPU) move its
# medians. Measured on three machines of CI's kind with the same code (d370366): Hopper 0.098 / 0.139 /
# 0.141, Blackwell Ultra 0.037 / 0.015 / 0.008, CDNA 3 and CDNA 4 equal to the last digit; the sd they
# give 0.124 / 0.133 / 0.133. A change to the model moves them further than this and fails the check.
HELD_OUT_MACHINE_SPREAD = 0.06   # [ln] per architecture's median (largest seen: 0.043)
SD_MACHINE_SPREAD = 0.015        # [ln] the sd they give (largest seen: 0.009)


@pytest.mark.slow
def test_the_unmeasured_architecture_sd_is_the_leave_one_architecture_out_estimate():
    """ARCHITECTURE_HELD_OUT is what leaving each architecture with its own compute ratio out of the fit gives
    (else run python tools/refit_factors.py --architectures): the same rows exactly, each median within the
    refit's spread between machines (above), the sd they give within its spread; the sd is their root mean
    square."""
    from tcoapp.engine.performance.cross_validation import leave_one_architecture_out
    from tcoapp.io.catalog import load_catalog
    from tcoapp.io.measurements import read_measurements
    cv = leave_one_architecture_out(read_measurements(), load_catalog())
    refit = ec.held_out_architectures(cv.accuracy.results)
    assert {a: n for a, (n, _) in refit.items()} == {a: n for a, (n, _) in ec.ARCHITECTURE_HELD_OUT.items()}
    moved = {a: round(refit[a][1] - m, 3) for a, (_, m) in ec.ARCHITECTURE_HELD_OUT.items()}
    assert all(abs(d) <= HELD_OUT_MACHINE_SPREAD for d in moved.values()), (refit, moved)
    assert ec.unmeasured_architecture_sd(refit) == pytest.approx(ec.UNMEASURED_ARCHITECTURE_SD, abs=SD_MACHINE_SPREAD)
    medians = [m for _, m in ec.ARCHITECTURE_HELD_OUT.values()]
    assert ec.UNMEASURED_ARCHITECTURE_SD == pytest.approx(math.sqrt(sum(m * m for m in medians) / len(medians)), abs=5e-4)


def test_an_unmeasured_architecture_draws_a_wider_error_shared_on_its_architecture():
    """A plan on VR200-NVL72 (Rubin: no measurement) against the same plan on B200: its band's log sd is
    sqrt(sigma^2 (1 - s_arch) + sd_arch^2) of the measured band at the same point, about the same centre;
    its architecture-level share is sd_arch^2 / sigma_u^2; its draws spread as the wider band."""
    from tcoapp.engine.performance.prediction_interval import LEVEL, prediction_interval
    from statistics import NormalDist
    base = default_scenario()
    b200 = next(p for p in base.plans if p.name == "B200")
    s = base.with_plans((b200, b200.with_(name="VR200", device="VR200-NVL72")))
    results = compute_scenario(s)
    vr = results[1]
    point = vr.fleet.point
    z = NormalDist().inv_cdf(0.5 + LEVEL / 2)
    measured = prediction_interval(point, "dense", "NVIDIA", generated=True, architecture="Blackwell")
    wide = vr.prediction_interval
    sd = lambda band: math.log(band[1] / band[0]) / (2 * z)  # noqa: E731
    m, w = measured["tokens_per_s_per_device"], wide["tokens_per_s_per_device"]
    assert sd(w) == pytest.approx(math.sqrt(sd(m) ** 2 * (1 - ec.ERROR_SHARES["architecture_stack"])
                                            + ec.UNMEASURED_ARCHITECTURE_SD ** 2), rel=1e-9)
    assert sd(w) > sd(m) and w[0] * w[1] == pytest.approx(m[0] * m[1], rel=1e-9)
    assert "architecture Rubin has no measurement" in wide["basis"]
    assert "has no measurement" not in results[0].prediction_interval["basis"]
    (error,) = model_error.pool_errors(s.for_plan(s.plans[1]), s.plans[1], vr)
    shares = dict((name.split(":")[1].strip(), share) for name, share in error.streams)
    assert shares["Rubin / TensorRT-LLM"] == pytest.approx(ec.UNMEASURED_ARCHITECTURE_SD ** 2 / sd(w) ** 2, rel=1e-9)
    assert sum(shares.values()) == pytest.approx(1.0, abs=1e-12)
    sim = simulate(s, 20_000, seed=3, results=results)
    ratio = sim.plan("VR200").metric("revenue_usd_per_year") / vr.metrics.revenue_usd_per_year
    assert np.median(ratio) == pytest.approx(1.0, abs=0.02)
    assert np.percentile(ratio, 90) / np.percentile(ratio, 10) == pytest.approx(w[1] / w[0], rel=0.05)


def test_a_drawn_acceptance_is_not_counted_twice_in_the_model_error():
    """A pool drafting at the published acceptance has its band widened by the acceptance's spread; a
    plan whose Uncertainty rows draw spec_decode_acceptance itself draws the model error from the band
    without that spread, and a plan that does not keeps the wider one."""
    from dataclasses import replace
    s = default_scenario()
    results = compute_scenario(s)
    drafting = [(p, r) for p, r in zip(s.plans, results) if r.prediction_interval
                and "tokens_per_s_per_device_at_stated_acceptance" in r.prediction_interval]
    assert drafting, "no default plan drafts at the published acceptance"
    plan, base = drafting[0]
    stated = base.prediction_interval["tokens_per_s_per_device_at_stated_acceptance"]
    wide = base.prediction_interval["tokens_per_s_per_device"]
    assert stated[1] / stated[0] < wide[1] / wide[0]
    plain = {e.index: e.sigma for e in model_error.pool_errors(s.for_plan(plan), plan, base)}
    drawn = {e.index: e.sigma for e in model_error.pool_errors(s.for_plan(plan), plan, base, draws_acceptance=True)}
    assert set(plain) == set(drawn) and all(drawn[i] < plain[i] for i in plain)
    row = UncertainInput(plan.name, "spec_decode_acceptance", "uniform", 0.5, high=0.8)
    sim = simulate(replace(s, uncertainty=(row,)), 200, seed=0, results=results)
    assert {e.sigma for _, e in sim.plan(plan.name).error_pools} == set(drawn.values())
