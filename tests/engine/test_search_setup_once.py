"""The serving search's set-up done once where it was done per call (docs/benchmarks.md "Serving search", issue
47), each the same values as the code it replaces: the sweep's per-precision columns without np.unique, the (TP,
EP) pairs read as Python numbers, the year rows' order of evaluation kept per state (finance/year_rows.py), and the
objective's plan inputs kept per plan and laid out as one block (serving/objective.py)."""
from __future__ import annotations

import numpy as np
import pytest

from tcoapp.engine.finance import year_rows
from tcoapp.engine.finance.metrics import _pool_quantities, cost_per_million_output_tokens_usd, finance_metrics
from tcoapp.engine.performance import frontier
from tcoapp.engine.plan.pools import resolve_pools
from tcoapp.engine.quantities.finance import PLAN_INPUT_KEYS, POOL_INPUT_KEYS, as_inputs, finance_inputs
from tcoapp.engine.serving import objective
from tcoapp.engine.serving.search import pool_search_space
from tcoapp.io.default_scenario import default_scenario

SEARCH = {"serving_search": "auto", "search_max_draft_tokens": 2, "search_precisions": "bf16;fp8;mxfp4;nvfp4",
          "min_tokens_per_s_per_user": 36.0}


def _unique_per_precision(value, precisions) -> np.ndarray:
    """What `frontier._per_precision` computed before: once per distinct precision by np.unique."""
    distinct, which = np.unique(precisions, return_inverse=True)
    return np.array([value(str(p)) for p in distinct])[which.ravel()]


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("precisions", [["fp8"], ["nvfp4", "fp8", "nvfp4", "bf16"], ["mxfp4"] * 5 + ["fp8"], []])
def test_per_precision_values_as_np_unique_gave_them(precisions):
    column = np.array(precisions, dtype=str)
    for value in (lambda p: {"bf16": 2, "fp8": 1, "mxfp4": 0.53125, "nvfp4": 0.5625}[p],   # ints and floats
                  lambda p: p.startswith("nv"), lambda p: float(len(p))):
        assert _same(frontier._per_precision(value, column), _unique_per_precision(value, column))


def test_precision_columns_and_possible_pairs_of_every_default_plans_space():
    scenario = default_scenario()
    for plan in scenario.plans:
        plan = plan.with_(**SEARCH)
        pool = resolve_pools(plan)[0]
        space = pool_search_space(scenario, plan, pool)
        combos = list(frontier._combos(space.tensor_parallel, space.expert_parallel, space.attention_dp,
                                       space.weight_precisions, space.kv_precisions, space.spec_decode_draft_tokens,
                                       space.pairs))
        cols = {name: np.array([c[i] for c in combos]) for i, name in enumerate(frontier.CONFIG_COLUMNS)}
        device, model = scenario.device(pool.device), scenario.model(plan.model)
        factors = scenario.factors_for(pool.device)
        columns = frontier._precision_columns(device, factors, cols)
        assert _same(columns["_peak"], _unique_per_precision(
            lambda p: frontier.peak_flops(device, p, factors.fp4_math_efficiency), cols["weight_precision"]))
        assert _same(columns["_kv_bytes"], _unique_per_precision(frontier.bytes_per_value, cols["kv_precision"]))
        as_lists = frontier._possible(device, model, [c[0] for c in combos], [c[1] for c in combos], "")
        assert _same(frontier._possible(device, model, cols["tensor_parallel"], cols["expert_parallel"], ""), as_lists)


def _rounds(pending: tuple, plan_keys, pool_keys) -> tuple[list, tuple]:
    """The readiness loop `YearRows.give` ran on every call before its order was kept (`_schedule`'s reference)."""
    plan, pools = set(plan_keys), set(pool_keys)
    waiting = {row[:2] for row in pending}
    order = []
    while True:
        ready = [row for row in pending if not any(
            key not in (pools if scope == "pool" else plan) or (scope, key) in waiting for scope, key in row[3])]
        if not ready:
            return order, pending
        for scope, key, expr, _ in ready:
            order.append((scope, key, expr))
            (pools if scope == "pool" else plan).add(key)
            if scope == "pool" and key in year_rows._SUMMED:
                plan.add(key)
            waiting.discard((scope, key))
        pending = tuple(row for row in pending if row[:2] in waiting)


def _default_inputs():
    """Each default plan's finance inputs as its compute passes them, and each search objective's."""
    import tcoapp.engine.pipeline.compute as pipeline_compute
    scenario = default_scenario()
    calls = []
    real_finance, real_cost = pipeline_compute.finance_metrics, objective.cost_per_million_output_tokens_usd
    pipeline_compute.finance_metrics = lambda x, **kw: calls.append(("full", x)) or real_finance(x, **kw)
    objective.cost_per_million_output_tokens_usd = lambda x: calls.append(("cost", x)) or real_cost(x)
    try:
        for plan in scenario.plans:
            pipeline_compute.compute_plan(scenario, plan.with_(**SEARCH))
    finally:
        pipeline_compute.finance_metrics, objective.cost_per_million_output_tokens_usd = real_finance, real_cost
    return calls


def test_year_rows_kept_order_is_the_readiness_loops_and_the_numbers_do_not_depend_on_it(monkeypatch):
    calls = _default_inputs()
    assert {kind for kind, _ in calls} == {"full", "cost"}
    kept = [(kind, finance_metrics(x) if kind == "full" else cost_per_million_output_tokens_usd(x)) for kind, x in calls]
    assert year_rows._SCHEDULES
    for (_, plan_keys, pool_keys), (order, left, pending) in year_rows._SCHEDULES.items():
        assert (list(order), left) == _rounds(pending, plan_keys, pool_keys)
    monkeypatch.setattr(year_rows, "_SCHEDULES", {})   # every order found again, on every call
    monkeypatch.setattr(year_rows, "MAX_SCHEDULES", 1)
    for (kind, x), (_, before) in zip(calls, kept):
        again = finance_metrics(x) if kind == "full" else cost_per_million_output_tokens_usd(x)
        if kind == "full":
            assert all(_same(getattr(again, k), getattr(before, k)) for k in ("cost_per_million_output_tokens_usd",
                                                                              "npv_usd", "irr", "cash_flows_usd"))
        else:
            assert _same(again, before)


def test_a_year_row_that_reads_a_row_nothing_computes_is_still_named():
    x = next(x for kind, x in _default_inputs() if kind == "full")
    a = as_inputs(x)
    pool = _pool_quantities(a, {k: np.asarray(a[k], float)[..., None] for k in PLAN_INPUT_KEYS})
    ghost = ("plan", "ghost_usd", year_rows._ROWS[0][2], (("plan", "no_such_row"),))
    rows = year_rows.YearRows(a, pool, np.arange(4, dtype=float), year_rows._ROWS[:1] + (ghost,))
    assert "active" in rows.pools
    with pytest.raises(KeyError, match="ghost_usd"):
        rows.finish()


def test_objective_plan_inputs_are_np_full_of_the_plans_values_and_kept_read_only():
    scenario = default_scenario()
    plan = scenario.plans[0].with_(**SEARCH)
    pool = resolve_pools(plan)[0]
    device = scenario.device(pool.device)
    values = objective.plan_finance_inputs(plan)
    assert values is objective.plan_finance_inputs(plan.with_())   # an equal plan: the values kept
    with pytest.raises(TypeError):
        values["years"] = 1.0   # type: ignore[index]
    assert set(values) == set(PLAN_INPUT_KEYS)
    for tps in (np.array([1500.0]), np.linspace(10.0, 5000.0, 37), np.array([[1.0, 2.0], [3.0, np.nan]])):
        power = np.full(tps.shape, 700.0)
        made = objective.pool_cost_inputs(plan, pool, device, tps, power)
        by_full = finance_inputs({k: made[k] for k in POOL_INPUT_KEYS}, {k: np.full(tps.shape, v) for k, v in values.items()})
        assert all(_same(made[k], by_full[k]) for k in PLAN_INPUT_KEYS + POOL_INPUT_KEYS)


@pytest.mark.parametrize("points_per_chunk", [1, 700, 16_384, None])   # None: the default
def test_a_feasible_only_sweep_in_chunks_of_every_width_equals_the_whole_sweep_there(monkeypatch, points_per_chunk):
    """`_feasible_points` writes each chunk's rows whole (NaN past a row's feasible batches, the block's value there)."""
    from tcoapp.io.catalog import load_catalog
    from tcoapp.engine.quantities.records import Workload
    catalog = load_catalog()

    def swept(**kw):
        return frontier.sweep(catalog.devices["H200-SXM"], catalog.models["DeepSeek-R1"],
                              Workload(input_tokens=1000, output_tokens=1000), batches=np.unique(np.geomspace(1, 4096, 60).round()),
                              tensor_parallel=(1, 2, 4, 8), expert_parallel=(1, 8), attention_dp=(False, True),
                              weight_precisions=("fp8", "nvfp4"), kv_precisions=("fp8",), spec_decode_draft_tokens=(0, 2), **kw)
    whole = swept()
    if points_per_chunk is not None:
        monkeypatch.setattr(frontier, "POINTS_PER_CHUNK", points_per_chunk)
    feasible = swept(feasible_only=True)
    f = whole.feasible
    assert f.any() and not f.all() and np.array_equal(feasible.feasible, f)
    for name in ("tokens_per_s_per_user", "tokens_per_s_per_device", "ttft_s", "power_w"):
        values = getattr(feasible, name)
        assert values[f].tobytes() == getattr(whole, name)[f].tobytes(), name
        assert values[~f].tobytes() == np.full((~f).sum(), np.nan).tobytes(), name


def test_configuration_gains_of_a_typed_plan_evaluate_each_configuration_once(monkeypatch):
    """A typed plan without draft tokens: its base and its step with draft tokens are one configuration, evaluated
    once (pipeline/config_gains._typed_steps), the gains as before (each step's own operating point)."""
    import tcoapp.engine.pipeline.config_gains as config_gains
    from tcoapp.engine.pipeline.compute import compute_plan
    scenario = default_scenario()
    asked = []
    real = config_gains._tps
    monkeypatch.setattr(config_gains, "_tps", lambda sc, plan, pool, serving: asked.append(serving) or real(sc, plan, pool, serving))
    checked = 0
    for plan in scenario.plans:
        typed = plan.with_(serving_search="off", spec_decode_draft_tokens=0)
        asked.clear()
        gains = compute_plan(scenario, typed).configuration_gains
        if gains is None or not asked:
            continue
        assert len(asked) == len(set(asked)) == 1
        assert gains["validated_base_tokens_per_s_per_device"] == real(scenario, typed, resolve_pools(typed)[0], asked[0])
        assert gains["gains"][0]["gain"] == 1.0
        checked += 1
    assert checked


def test_objective_plan_inputs_of_a_plan_that_cannot_be_hashed_are_computed_each_time():
    plan = default_scenario().plans[0].with_(**SEARCH)
    odd = plan.with_()
    object.__setattr__(odd, "name", ["not", "hashable"])   # (no workbook or editor makes one; a caller might)
    with pytest.raises(TypeError):
        hash(odd)
    values, kept = objective.plan_finance_inputs(odd), objective.plan_finance_inputs(plan)
    assert list(values) == list(kept) and _same(np.array(list(values.values())), np.array(list(kept.values())))
