"""Measured curves (monotone interpolation in log batch, flagged extrapolation), the operating
point from a batch or an interactivity target, queueing past the memory limit, price tiers, sizing."""
import math

import numpy as np
import pytest

from tcoapp.engine.pipeline.compute import compute_plan
from tcoapp.engine.finance import sizing
from tcoapp.engine.serving.operating import operating_point
from tcoapp.engine.performance.measured import evaluate_measured, make_measured_curve
from tcoapp.engine.quantities.records import make_plan
from tcoapp.engine.plan.scenario import PriceTiers, Scenario, check_scenario
from tcoapp.io.catalog import load_catalog

CURVE = make_measured_curve("c", "H100-SXM", "Llama-3.1-8B", [1, 8, 64, 256], [100, 700, 3000, 5000],
                            [100, 87.5, 46.875, 19.53125], [300, 400, 600, 690], [0.05, 0.06, 0.1, 0.3])


def scenario(**plan_keys):
    catalog = load_catalog()
    plan = make_plan("P", {"device": "H100-SXM", "model": "Llama-3.1-8B", "curve": "c", **plan_keys})
    tiers = {"t": PriceTiers("t", (0.0, 40.0, 80.0), (0.2, 0.5, 1.5))}
    return check_scenario(Scenario((plan,), curves={"c": CURVE}, price_tiers=tiers,
                                   catalog_devices=catalog.devices, catalog_models=catalog.models))


def test_measured_points_are_reproduced_exactly():
    arrays = evaluate_measured(CURVE, CURVE.batch, 1, 70, 700)
    np.testing.assert_allclose(arrays.tokens_per_s_per_device, CURVE.tokens_per_s_per_device)
    np.testing.assert_allclose(arrays.power_w, CURVE.power_w)
    assert arrays.feasible.all()


def test_interpolation_is_monotone_between_points():
    b = np.geomspace(1, 256, 500)
    arrays = evaluate_measured(CURVE, b, 1, 70, 700)
    assert np.all(np.diff(arrays.tokens_per_s_per_device) >= -1e-9)
    assert np.all(np.diff(arrays.tokens_per_s_per_user) <= 1e-9)


def test_outside_the_measured_range_is_flagged():
    s = scenario(batch=512)
    point, _ = operating_point(s, s.plans[0])
    assert point.extrapolated
    assert any("outside the measured range 1..256" in w for w in point.warnings)
    inside, _ = operating_point(scenario(batch=100), s.plans[0].with_(batch=100))
    assert not inside.extrapolated and not inside.warnings


def test_target_picks_the_largest_batch_that_meets_it():
    s = scenario(min_tokens_per_s_per_user=50)
    point, _ = operating_point(s, s.plans[0])
    assert point.tokens_per_s_per_user >= 50
    assert 8 < point.batch < 64
    slightly_more = evaluate_measured(CURVE, [point.batch * 1.02], 1, 70, 700)
    assert slightly_more.tokens_per_s_per_user[0] < 50


def test_ttft_target_and_unreachable_target():
    s = scenario(max_ttft_s=0.1)
    point, _ = operating_point(s, s.plans[0])
    assert point.ttft_s <= 0.1 and point.batch == pytest.approx(64, rel=0.02)
    s = scenario(min_tokens_per_s_per_user=500)
    result = compute_plan(s, s.plans[0])
    assert math.isnan(result.metrics.tokens_per_s_per_device)
    assert result.as_json()["payback_months"] is None
    assert any("not met at any feasible batch" in w for w in result.warnings)


def test_price_tiers_follow_interactivity():
    fast = scenario(price_tiers="t", batch=8)      # 87.5 tok/s/user -> 1.5 $/M
    slow = scenario(price_tiers="t", batch=256)    # 19.5 tok/s/user -> 0.2 $/M
    assert compute_plan(fast, fast.plans[0]).inputs.price_usd_per_million_output_tokens[0] == 1.5
    assert compute_plan(slow, slow.plans[0]).inputs.price_usd_per_million_output_tokens[0] == 0.2
    assert PriceTiers("t", (10.0,), (1.0,)).price_at(5.0) == 0.0  # below the slowest tier: no output revenue


def test_generated_plan_past_memory_is_queued():
    catalog = load_catalog()
    plan = make_plan("Q", {"device": "H100-SXM", "model": "Llama-3.3-70B", "tensor_parallel": 2, "batch": 100000})
    s = Scenario((plan,), catalog_devices=catalog.devices, catalog_models=catalog.models)
    point, _ = operating_point(s, plan)
    assert point.queued and point.batch == point.max_batch_by_memory
    assert any("queued" in w for w in point.warnings)
    at_limit = operating_point(s, plan.with_(batch=int(point.max_batch_by_memory)))[0]
    assert point.tokens_per_s_per_device == pytest.approx(at_limit.tokens_per_s_per_device)
    assert point.ttft_s > at_limit.ttft_s


def test_sizing_modes_buy_whole_servers():
    one = lambda **kw: {k: np.array([v]) if k in ("pue", "other_capex_fraction", "utilization", *sizing.ITEMIZED)  # noqa: E731
                        else np.array([[v]]) for k, v in kw.items()}
    n = sizing.pool_servers("facility_power", 1000.0, one(pue=1.25, devices_per_server=8, tdp_w=700.0,
                                                            server_overhead_w=4600.0), [1.0]) * 8  # 10.2 kW x 1.25 per server
    assert n[0, 0] == 78 * 8
    budget = one(other_capex_fraction=0.15, devices_per_server=8, price_usd=30000.0, server_price_usd=70000.0, owned=1.0,
                 network_usd_per_device=0.0, storage_usd_per_device=0.0, installation_usd_per_server=0.0)
    assert sizing.pool_servers("capex_budget", 1e6, budget, [1.0])[0, 0] * 8 == 2 * 8  # 356,500 per server
    demand = one(utilization=0.5, devices_per_server=8)
    n = sizing.pool_servers("demand", 1e9, demand, [1.0], np.array([1000.0])) * 8  # 43,200,000 tokens/day per device
    assert n[0, 0] == 24                                                          # -> 23.1 devices
    assert np.isnan(sizing.pool_servers("demand", 1e9, demand, [1.0], np.array([0.0]))[0, 0])


def test_iso_power_plans_draw_the_same_facility_power():
    catalog = load_catalog()
    plans = [make_plan(name, {"device": dev, "model": "Llama-3.1-8B", "sizing_mode": "facility_power",
                              "facility_power_kw": 2000, "rack_power_cap_kw": 140, "pue": 1.2})
             for name, dev in (("a", "H100-SXM"), ("b", "B200"), ("c", "GB200-NVL72"))]
    s = Scenario(tuple(plans), catalog_devices=catalog.devices, catalog_models=catalog.models)
    for plan in plans:
        m = compute_plan(s, plan).metrics
        assert m.it_provisioned_kw * 1.2 <= 2000 + 1e-9
        server_kw = m.it_provisioned_kw / m.servers
        assert m.it_provisioned_kw * 1.2 > 2000 - server_kw * 1.2


def test_a_measured_value_of_zero_is_refused_not_extrapolated_below_zero():
    """A TTFT of 0 once extrapolated linearly to ttft_s = -33,333 s: zero is no measurement."""
    with pytest.raises(ValueError, match="ttft_s = 0 at batch 1: a measured value must be > 0"):
        make_measured_curve("z", "H100-SXM", "Llama-3.1-8B", [1, 8], [100, 700], ttft_s=[0.0, 2.0])
    with pytest.raises(ValueError, match="power_w = 0"):
        make_measured_curve("z", "H100-SXM", "Llama-3.1-8B", [1, 8], [100, 700], power_w=[0.0, 400])


def test_extrapolated_times_and_powers_stay_positive_far_outside_the_range():
    steep = make_measured_curve("s", "H100-SXM", "Llama-3.1-8B", [4, 8], [100, 700], [25, 87.5], [300, 600],
                                [1e-4, 2.0])
    arrays = evaluate_measured(steep, np.array([1e-3, 1.0, 1e4]), 1, 70, 700)
    for column in (arrays.ttft_s, arrays.power_w, arrays.tokens_per_s_per_device, arrays.tokens_per_s_per_user):
        assert np.all(column[np.isfinite(column)] > 0)
    assert not arrays.feasible.any()


def test_a_curve_checked_as_one_table_equals_the_curve_checked_column_by_column():
    """make_measured_curve checks the columns of a curve as the rows of one array: the same curve, or the
    same refusal, as checking them column by column (in any order, with gaps, repeats and bad values)."""
    import random

    from tcoapp.engine.performance import measured

    rng = random.Random(23)
    choices = [1.0, 2.0, 3.0, 8.0, 0.5, 0.0, -1.0, np.nan, np.inf, 1e9]

    def outcome(make):
        try:
            return make()
        except ValueError as exc:
            return str(exc)

    for _ in range(3000):
        n = rng.randint(0, 6)
        columns = [[rng.choice(choices) for _ in range(n)] if rng.random() < 0.8 else None for _ in range(4)]
        batch = [rng.choice([1.0, 2.0, 4.0, 8.0, 16.0, np.nan, 0.0, -2.0]) for _ in range(n)]
        if rng.random() < 0.5:
            batch = sorted({abs(b) + 1 for b in batch if b == b})[:n]
            n = len(batch)
            columns = [None if c is None else c[:n] for c in columns]
        given = [np.full(len(batch), np.nan) if c is None else np.asarray(c, float) for c in columns]
        one = outcome(lambda: measured.make_measured_curve("c", "d", "m", batch, *columns, source="s"))
        by_column = outcome(lambda: measured._by_columns("c", "d", "m", np.asarray(batch, float), given,
                                                         {"source": "s"}))
        assert one == by_column, (batch, columns)
        if not isinstance(one, str):
            assert all(getattr(one, f).flags.writeable for f in ("batch", "power_w"))
