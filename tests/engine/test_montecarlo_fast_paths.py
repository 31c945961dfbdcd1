"""Issue 47's faster Monte Carlo finance gives the numbers of the plain numpy code it replaced, bit for bit:
on real samples, each simulated with the fast paths and with each of them turned back into the code before
(np.sum for `short_sum`, np.where for `year_where.where`, the present values computed where every row is
flat, each Newton row taken out of the IRR's iteration as soon as it stops, numpy's own memory order for the
year rows instead of the draws innermost: `wide_ops`, each plan's IRRs found by its own finance instead of in
one root search over every plan: `plan_draws.with_irr`)."""
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tcoapp.engine.finance import cashflow, metrics
from tcoapp.engine.quantities import short_sum, wide_ops, year_where
from tcoapp.engine.quantities.metrics import SIMULATED_METRICS
from tcoapp.engine.uncertainty.inputs import UncertainInput
from tcoapp.engine.uncertainty import simulate as simulate_module
from tcoapp.engine.uncertainty.simulate import simulate
from tcoapp.io.load import load_scenario

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
DRAWS = 1500
# rows drawn on a sample without an Uncertainty sheet: the finance and the operating point move in every draw
ROWS = (UncertainInput("*", "utilization", "pert", 0.3, 0.6, 0.9, group="m"),
        UncertainInput("*", "electricity_usd_per_kwh", "lognormal", mean=0.09, sd=0.02),
        UncertainInput("*", "pue", "uniform", 1.1, high=1.5),
        UncertainInput("*", "discount_rate", "triangular", 0.05, 0.1, 0.2),
        UncertainInput("*", "factor.eta_mem", "pert", 0.6, 0.8, 0.9))


def _single_root_before(rows, iterations=200):
    """cashflow._single_root as it was: each row taken out of the iteration as soon as it stops moving."""
    f0 = np.sign(rows[:, 0])

    def g(x):
        value, slope = np.zeros_like(x), np.zeros_like(x)
        for c in rows[:, ::-1].T:
            slope = slope * x + value
            value = value * x + c
        return value, slope

    lo, hi = np.zeros(rows.shape[0]), np.ones(rows.shape[0])
    for _ in range(1100):
        left = np.sign(g(hi)[0]) == f0
        if not np.any(left):
            break
        lo, hi = np.where(left, hi, lo), np.where(left, 2.0 * hi, hi)
    x = 0.5 * (lo + hi)
    out = x.copy()
    active = np.arange(rows.shape[0])
    for _ in range(iterations):
        value, slope = g(x)
        left = np.sign(value) == f0
        lo, hi = np.where(left, x, lo), np.where(left, hi, x)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = x - value / slope
        inside = np.isfinite(step) & (step > lo) & (step < hi)
        new = np.where(value == 0, x, np.where(inside, step, 0.5 * (lo + hi)))
        moving = new != x
        out[active] = new
        if not np.any(moving):
            break
        if not np.all(moving):
            active, rows, f0 = active[moving], rows[moving], f0[moving]
            lo, hi, new = lo[moving], hi[moving], new[moving]
        x = new
    return out


def _where_flat_before(flat, flat_value, otherwise, *shapes):
    return np.where(flat, flat_value, otherwise())


def _plain(monkeypatch):
    """Every fast path turned back into the code before it."""
    monkeypatch.setattr(short_sum, "SHORT", 1)   # 1 <= n < 1 never holds: np.sum
    monkeypatch.setattr(year_where, "where", np.where)
    monkeypatch.setattr(metrics, "_where_flat", _where_flat_before)
    monkeypatch.setattr(cashflow, "_single_root", _single_root_before)
    monkeypatch.setattr(wide_ops, "MIN_SIZE", float("inf"))   # never wide: numpy's own order
    plan_alone = simulate_module.simulate_plan
    monkeypatch.setattr(simulate_module, "simulate_plan",
                        lambda *args, irr_later=None: plan_alone(*args))   # its IRRs in its own finance


def _bits(sim) -> list:
    """Every per-draw array and summary of a run, as bytes and values (NaN == NaN)."""
    out = [sim.summaries, sim.prob_npv_positive, sim.prob_higher_npv]
    for p in sim.plans:
        arrays = [p.metric(k) for k in SIMULATED_METRICS] + [p.cumulative_cash_flow_usd]
        if p.equity_cash_flow_usd is not None:
            arrays.append(p.equity_cash_flow_usd)
        out.append([np.where(np.isnan(a), np.nan, a).tobytes() for a in arrays])   # one NaN, whatever its sign
    return out


def _scenario(name):
    scenario = load_scenario(str(SAMPLES / name))
    return scenario if scenario.uncertainty else replace(scenario, uncertainty=ROWS)


@pytest.mark.parametrize("name", ["uncertainty_llama70b.xlsx", "years_price_decline.xlsx", "gpu_cloud_financed.xlsx",
                                  "buy_now_or_wait.xlsx", "heterogeneous_disaggregated.xlsx"])
def test_the_fast_paths_give_the_numbers_of_the_code_before(name, monkeypatch):
    scenario = _scenario(name)
    monkeypatch.setattr(short_sum, "MIN_SIZE", 0)   # the fast paths at this run's size (a run of 10,000 takes them)
    monkeypatch.setattr(year_where, "MIN_SIZE", 0)
    monkeypatch.setattr(wide_ops, "MIN_SIZE", 0)
    fast = _bits(simulate(scenario, DRAWS, 4))
    _plain(monkeypatch)
    assert _bits(simulate(scenario, DRAWS, 4)) == fast


def test_the_irr_iteration_gives_the_roots_of_the_code_before():
    """Rows left in the Newton iteration after they stop (at a fixed point) give the same roots, on flows of one
    sign change of every kind: slow tails of rows near machine precision, rates near -100 %, huge rates."""
    rng = np.random.default_rng(7)
    cases = [np.concatenate([-rng.uniform(1, 2, (4000, 1)), rng.uniform(0.2, 1, (4000, 4)) * rng.uniform(1, 2)], 1),
             np.concatenate([-rng.uniform(1, 2, (2000, 1)), rng.uniform(0, 1e-9, (2000, 3))], 1),
             np.concatenate([-rng.uniform(1, 2, (2000, 1)), rng.uniform(1e3, 1e6, (2000, 2))], 1),
             np.concatenate([-rng.uniform(1, 2, (2000, 1)), rng.uniform(0, 1, (2000, 9))], 1),
             np.array([[-1e300, 1e-300, 1e-300, 0.0], [-1.0, 1e-320, 0.0, 0.0], [-1.0, 2.0, 0.0, 0.0]])]
    for rows in cases:
        with np.errstate(all="ignore"):
            assert cashflow._single_root(rows).tobytes() == _single_root_before(rows).tobytes()


def test_the_simulated_metrics_need_no_extra_return():
    """A Monte Carlo run leaves metrics.EXTRA_RETURNS out of its finance: none of them is simulated."""
    assert not set(metrics.EXTRA_RETURNS) & set(SIMULATED_METRICS)


@pytest.mark.parametrize("attention_dp", [False, True, np.array([False, False, False]), np.array([True, False, True])])
@pytest.mark.parametrize("devices", [1.0, 8.0, np.array([1.0, 4.0, 16.0])])
def test_the_attention_dp_terms_are_those_of_np_where(attention_dp, devices):
    """Without attention DP the roofline's two attention-DP terms skip the branch np.where would not take: the
    same values, shapes and type."""
    from tcoapp.engine.performance import roofline
    batch = np.array([[0.5], [3.0], [17.0], [250.0]])
    b = np.maximum(batch, 1e-12)
    n = np.asarray(devices, float)
    imbalance = np.where(np.asarray(attention_dp, bool) & (n > 1), np.ceil(b / n - 1e-9) / (b / n), 1.0)
    overhead = np.where(attention_dp, np.ceil(batch / n - 1e-9), batch) * 2e-5
    for got, expected in ((roofline.attention_dp_imbalance(batch, devices, attention_dp), imbalance),
                          (roofline.scheduler_overhead_s(batch, devices, attention_dp, 2e-5), overhead)):
        assert got.shape == expected.shape and got.dtype == expected.dtype and got.tobytes() == expected.tobytes()
