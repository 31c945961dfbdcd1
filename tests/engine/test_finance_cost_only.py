"""The finance layer's cost-only path (`cost_per_million_output_tokens_usd`, the serving search's objective) gives
`finance_metrics`'s cost per million output tokens bit for bit: on every finance call of every sample and the
default scenario (each plan's own, pools and all, and each search's objective over its candidates), and on each of
those plans with every input moved up and down (the years, the indices, the purchase years, the debt and the tax
included), docs/benchmarks.md "Serving search" and docs/model.md "Serving search"."""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

import tcoapp.engine.pipeline.compute as pipeline_compute
import tcoapp.engine.serving.objective as objective
from tcoapp.engine.finance.metrics import COST, cost_per_million_output_tokens_usd, finance_metrics
from tcoapp.engine.pipeline.compute import compute_plan
from tcoapp.engine.quantities.finance import FinanceInputs, as_inputs
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_read import read_scenario

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.xlsx"))


@functools.lru_cache(maxsize=None)
def _finance_calls(path: Path | None) -> tuple[list, list]:
    """(every plan's own finance inputs, every search objective's), as the scenario's plans compute."""
    scenario = default_scenario() if path is None else read_scenario(path)
    own, searched = [], []
    real_finance, real_cost = pipeline_compute.finance_metrics, objective.cost_per_million_output_tokens_usd
    pipeline_compute.finance_metrics = lambda x, **kw: own.append(x) or real_finance(x, **kw)
    objective.cost_per_million_output_tokens_usd = lambda x: searched.append(x) or real_cost(x)
    try:
        for plan in scenario.plans:
            compute_plan(scenario, plan)
    finally:
        pipeline_compute.finance_metrics, objective.cost_per_million_output_tokens_usd = real_finance, real_cost
    return own, searched, any(plan.serving_search == "auto" for plan in scenario.plans)


def _same(inputs) -> None:
    full = np.asarray(finance_metrics(inputs, with_irr=False)[COST], float)   # (the IRR: a root search it never reads)
    cost = np.asarray(cost_per_million_output_tokens_usd(inputs), float)
    assert cost.shape == full.shape
    assert cost.tobytes() == full.tobytes()   # bit for bit, NaN where the full path has NaN


def _moved(inputs) -> FinanceInputs:
    """Every input at 0.5x and 1.5x itself (and + 1: a zero moves too), one variant each, the others held."""
    a = as_inputs(inputs)
    keys = list(a.keys())
    n = 3 * len(keys)
    batch = {k: np.repeat(np.asarray(a[k], float)[None, ...], n, axis=0) for k in keys}
    for i, key in enumerate(keys):
        base = np.asarray(a[key], float)
        batch[key][3 * i], batch[key][3 * i + 1], batch[key][3 * i + 2] = 0.5 * base, 1.5 * base, base + 1.0
    return FinanceInputs(**batch)


# (the agentic sample's plans take a minute to compute and search nothing: in the slow test command)
CASES = [pytest.param(p, id=p.stem, marks=[pytest.mark.slow] if p.stem == "agentic_coding" else [])
         for p in SAMPLES] + [pytest.param(None, id="default")]


@pytest.mark.parametrize("path", CASES)
def test_the_cost_only_path_is_the_finance_layers_cost_on_every_call(path):
    own, searched, searches = _finance_calls(path)
    assert own and (searched or not searches)
    for inputs in own + searched:
        _same(inputs)
    for inputs in own:
        _same(_moved(inputs))


def test_the_samples_cover_costs_that_change_by_year_and_plans_of_several_pools():
    """The calls above hold what the cost-only path computes by year: a plan whose costs change by year (a later
    purchase) and one of several pools."""
    pools, later = set(), set()
    for path in SAMPLES:
        if path.stem != "agentic_coding":
            for inputs in _finance_calls(path)[0]:
                a = as_inputs(inputs)
                pools.add(np.shape(a.purchase_year)[-1])
                later.add(bool(np.any(np.asarray(a.purchase_year) > 0)))
    assert max(pools) > 1 and True in later
