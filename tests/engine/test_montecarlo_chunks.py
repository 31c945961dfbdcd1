"""The Monte Carlo in chunks of draws: the same draws whatever the chunking, exact summaries past the
kept draws (also when percentiles need further passes), cancel and progress between chunks."""
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

from tcoapp.engine.core.errors import Cancelled
from tcoapp.engine.quantities.metrics import SIMULATED_METRICS
from tcoapp.engine.uncertainty import exact_percentiles, simulate as simulate_module
from tcoapp.engine.uncertainty.exact_percentiles import ExactPercentiles, key_values, refine_step, sort_keys
from tcoapp.engine.uncertainty.report import simulation_json
from tcoapp.engine.uncertainty.simulate import simulate
from tcoapp.engine.uncertainty.statistics import PERCENTILES, percentile
from tcoapp.io.load import load_scenario

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "uncertainty_llama70b.xlsx"


@pytest.fixture(scope="module")
def scenario():
    return load_scenario(str(SAMPLE))


def _arrays(sim):
    return [{k: p.metric(k).copy() for k in SIMULATED_METRICS} | {"cumulative": p.cumulative_cash_flow_usd.copy()}
            for p in sim.plans]


def test_the_draws_do_not_depend_on_the_chunk_size(scenario, monkeypatch):
    whole = _arrays(simulate(scenario, 60, 5))
    monkeypatch.setattr(simulate_module, "CHUNK_DRAWS", 7)
    chunked = _arrays(simulate(scenario, 60, 5))
    for a, b in zip(whole, chunked):
        for key in a:
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def _streamed(scenario, monkeypatch, draws, seed, keep=150, chunk=64):
    """The run with only `keep` draws kept (summaries streamed) next to the run that keeps all."""
    kept_all = simulation_json(simulate(scenario, draws, seed))
    monkeypatch.setattr(simulate_module, "KEEP_DRAWS", keep)
    monkeypatch.setattr(simulate_module, "CHUNK_DRAWS", chunk)
    sim = simulate(scenario, draws, seed)
    return kept_all, sim


def _assert_same(kept_all, streamed):
    assert kept_all["pairwise"] == streamed["pairwise"]
    for a, b in zip(kept_all["plans"], streamed["plans"]):
        assert a["prob_npv_positive"] == b["prob_npv_positive"]
        for key, stats in a.items():
            if not isinstance(stats, dict):
                continue
            for name, value in stats.items():
                if name == "mean" and value is not None:
                    assert b[key][name] == pytest.approx(value, rel=1e-12, abs=1e-12), (a["name"], key)
                else:
                    assert b[key][name] == value, (a["name"], key, name)   # percentiles: exact


def test_streamed_summaries_are_the_summaries_of_every_draw(scenario, monkeypatch):
    kept_all, sim = _streamed(scenario, monkeypatch, 1000, 2)
    assert sim.kept == 150 and sim.plans[0].metric("npv_usd").size == 150
    _assert_same(kept_all, simulation_json(sim))


def test_percentiles_stay_exact_when_the_sample_brackets_miss(scenario, monkeypatch):
    """No margin and a tiny cap: every percentile is found by histogram passes over the same draws."""
    monkeypatch.setattr(exact_percentiles, "MARGIN", 0.0)
    monkeypatch.setattr(exact_percentiles, "CAP", 4)
    kept_all = simulation_json(simulate(scenario, 900, 9))
    monkeypatch.setattr(simulate_module, "KEEP_DRAWS", 150)
    monkeypatch.setattr(simulate_module, "CHUNK_DRAWS", 64)
    told = []
    sim = simulate(scenario, 900, 9, progress=lambda done, total: told.append(total))
    assert told[-1] >= 3 * told[0]   # two or more further passes
    _assert_same(kept_all, simulation_json(sim))


def test_cancel_is_asked_between_chunks_and_progress_told(scenario, monkeypatch):
    monkeypatch.setattr(simulate_module, "CHUNK_DRAWS", 10)
    told = []
    asked = []

    def should_cancel():
        asked.append(1)
        return len(asked) > 9   # after two chunks of the four plans and one plan of the third chunk

    with pytest.raises(Cancelled):
        simulate(scenario, 100, 0, progress=lambda done, total: told.append((done, total)), should_cancel=should_cancel)
    plans = len(scenario.plans)
    assert told == [(i, 10 * plans) for i in range(1, 10)]


@given(st.lists(st.one_of(st.floats(-1e6, 1e6), st.sampled_from([0.0, -0.0, 3.0, np.inf])), min_size=1, max_size=300),
       st.integers(1, 40), st.integers(1, 300))
@pytest.mark.parametrize("cap", [exact_percentiles.CAP, 2])
def test_exact_percentiles_equal_the_sorted_array(cap, values, chunk, sample_size):
    exact_percentiles.CAP, saved = cap, exact_percentiles.CAP
    try:
        _check_exact(np.array(values, float), chunk, sample_size)
    finally:
        exact_percentiles.CAP = saved


def _check_exact(x, chunk, sample_size):
    q = ExactPercentiles(PERCENTILES, x[:sample_size])
    for start in range(0, x.size, chunk):
        q.add(x[start:start + chunk])
    found = q.found()
    targets = q.refinement(found)
    while targets:
        for _, interval in targets:
            interval.add(sort_keys(x))
        more, targets = refine_step(targets)
        found.update(more)
    got = q.values(found)
    for p in PERCENTILES:
        assert got[p] == percentile(x, p, never_late=True)


def test_sort_keys_order_as_the_values():
    x = np.array([-np.inf, -1e300, -2.5, -5e-324, 0.0, 5e-324, 1.0, 1e300, np.inf])
    keys = sort_keys(x)
    assert np.all(np.diff(keys.astype(object)) > 0)
    np.testing.assert_array_equal(key_values(keys), x)


def test_a_run_past_the_kept_draws_exports_and_tabulates_the_kept_ones(scenario, monkeypatch, tmp_path):
    import openpyxl

    import tcoapp
    from tcoapp.engine.pipeline.compute import compute_scenario
    from tcoapp.io.workbook_write import write_scenario

    monkeypatch.setattr(simulate_module, "KEEP_DRAWS", 150)
    monkeypatch.setattr(simulate_module, "CHUNK_DRAWS", 64)
    results = compute_scenario(scenario)
    sim = simulate(scenario, 400, 1, results=results)
    write_scenario(scenario, tmp_path / "out.xlsx", results, simulation=sim)
    book = openpyxl.load_workbook(tmp_path / "out.xlsx")
    assert book["MonteCarloDraws"].max_row == 2 + 150
    assert book["MonteCarlo"]["A1"].value.startswith("Monte Carlo: 400 draws")
    first = sim.plans[0].name
    cells = {(r[0].value, r[1].value): r[3].value for r in book["MonteCarlo"].iter_rows(min_row=4, max_col=4)}
    assert cells[(first, "npv_usd")] == pytest.approx(sim.summary(first, "npv_usd")["mean"], rel=1e-12)
    api = tcoapp.simulate(scenario, 400, 1)
    assert len(api.draws) == 150 * len(scenario.plans)
    assert api.summary.loc[(first, "npv_usd"), "p50"] == sim.summary(first, "npv_usd")["p50"]
