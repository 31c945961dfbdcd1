"""Three token prices (docs/model.md, "Three token prices"): input tokens read from the prefix cache pay
price_usd_per_million_cached_input_tokens, the rest the input price; empty means the input price, so a plan
without it computes exactly as before. The equation by hand on the real pipeline, breakevens included."""
import math
from dataclasses import replace

import numpy as np
import pytest

from tcoapp.engine.finance.metrics import finance_metrics
from tcoapp.engine.finance.sensitivity import breakeven_output_price
from tcoapp.engine.pipeline.compute import compute_plan
from tcoapp.engine.quantities.finance import PLAN_INPUT_KEYS
from tcoapp.io.default_scenario import default_scenario

IN_PRICE, HIT = 0.88, 0.9


@pytest.fixture(scope="module")
def scenario():
    return default_scenario()


def _plan(scenario, **keys):
    base = scenario.plans[2].with_(serving_search="off", min_tokens_per_s_per_user=None, batch=64,
                                   sizing_mode="devices", device_count=64, price_usd_per_million_input_tokens=IN_PRICE)
    return base.with_(**keys)


def test_cached_input_at_a_tenth_moves_revenue_as_the_three_price_equation_says(scenario):
    """revenue = out x P_out + in x ((1 - h) x P_in + h x P_cached), per million; h = 0.9, P_cached = P_in / 10."""
    full = compute_plan(scenario, _plan(scenario, prefix_cache_hit_rate=HIT))
    cached = compute_plan(scenario, _plan(scenario, prefix_cache_hit_rate=HIT,
                                          price_usd_per_million_cached_input_tokens=IN_PRICE / 10))
    f, c = full.finance, cached.finance
    out_tok, in_tok = float(f["output_tokens_per_year"]), float(f["input_tokens_per_year"])
    assert float(c["output_tokens_per_year"]) == out_tok and float(c["input_tokens_per_year"]) == in_tok  # same fleet
    p_out = float(scenario.plans[2].price_usd_per_million_output_tokens)
    by_hand = out_tok * p_out / 1e6 + in_tok * ((1 - HIT) * IN_PRICE + HIT * IN_PRICE / 10) / 1e6
    assert math.isclose(float(c["revenue_usd_per_year"]), by_hand, rel_tol=1e-12)
    # the cached tokens' discount is the whole change: in x h x (P_in - P_in / 10)
    assert math.isclose(float(f["revenue_usd_per_year"]) - float(c["revenue_usd_per_year"]),
                        in_tok * HIT * (IN_PRICE - IN_PRICE / 10) / 1e6, rel_tol=1e-9)
    m = cached.metrics
    assert math.isclose(m.revenue_per_million_uncached_input_tokens_usd, IN_PRICE, rel_tol=1e-12)
    assert math.isclose(m.revenue_per_million_cached_input_tokens_usd, IN_PRICE / 10, rel_tol=1e-12)
    assert math.isclose(m.revenue_per_million_output_tokens_usd, p_out, rel_tol=1e-12)
    assert math.isclose(m.revenue_per_million_total_tokens_usd, by_hand / (out_tok + in_tok) * 1e6, rel_tol=1e-12)
    assert math.isclose(float(c["cached_input_tokens_per_year"]), in_tok * HIT, rel_tol=1e-15)
    # cost by token type: the prefill's cost falls on the uncached tokens alone; a cached token takes no prefill time
    assert math.isclose(m.cost_per_million_uncached_input_tokens_usd * (1 - HIT), m.cost_per_million_input_tokens_usd,
                        rel_tol=1e-12)
    assert m.cost_per_million_cached_input_tokens_usd == 0.0
    # the cost side does not see prices
    assert m.cost_per_million_output_tokens_usd == full.metrics.cost_per_million_output_tokens_usd
    assert m.npv_usd < full.metrics.npv_usd


def test_price_change_per_year_moves_every_token_type_alike(scenario):
    """With prices falling 30 % a year, each token type's levelized revenue per million is its price x the same
    levelized price index, and the split adds up to the revenue."""
    r = compute_plan(scenario, _plan(scenario, prefix_cache_hit_rate=HIT, price_change_per_year=-0.3,
                                     price_usd_per_million_cached_input_tokens=IN_PRICE / 10))
    m, y = r.metrics, r.finance.years
    assert math.isclose(m.revenue_per_million_cached_input_tokens_usd / m.revenue_per_million_uncached_input_tokens_usd,
                        0.1, rel_tol=1e-12)
    assert m.revenue_per_million_uncached_input_tokens_usd < IN_PRICE
    out_rev = y.revenue_usd - y.uncached_input_revenue_usd - y.cached_input_revenue_usd
    assert np.allclose(out_rev[1:], y.output_tokens[1:] * scenario.plans[2].price_usd_per_million_output_tokens
                       * y.price_index[1:] / 1e6, rtol=1e-12)


def test_an_empty_cached_price_computes_exactly_as_before(scenario):
    """Empty (None) is the input price: every finance number is the same float as a plan priced by the input
    price alone, whatever the hit rate; and at hit rate 0 a cached price changes nothing either."""
    plain = compute_plan(scenario, _plan(scenario, prefix_cache_hit_rate=HIT))
    inputs = plain.inputs
    assert math.isnan(float(np.asarray(inputs.price_usd_per_million_cached_input_tokens)))
    # the same operating point and fleet at hit rate 0: the revenue by the input price alone
    old = finance_metrics(replace(inputs, prefix_cache_hit_rate=np.zeros_like(np.asarray(inputs.prefix_cache_hit_rate))))
    for key in ("revenue_usd_per_year", "npv_usd", "irr", "payback_months", "cost_per_million_output_tokens_usd"):
        a, b = float(plain.finance[key]), float(old[key])
        assert a == b or (math.isnan(a) and math.isnan(b)), key
    at_zero = compute_plan(scenario, _plan(scenario, prefix_cache_hit_rate=0.0,
                                           price_usd_per_million_cached_input_tokens=0.01))
    no_key = compute_plan(scenario, _plan(scenario, prefix_cache_hit_rate=0.0))
    assert float(at_zero.finance["npv_usd"]) == float(no_key.finance["npv_usd"])
    assert math.isnan(at_zero.metrics.revenue_per_million_cached_input_tokens_usd)  # no cached token: n/a


def test_the_breakeven_output_price_pays_for_the_cached_discount(scenario):
    """NPV is affine in the output price: the breakeven rises by the lost input revenue over the output tokens
    (same PV weights), i.e. by (in / out) x h x (P_in - P_cached)."""
    full = compute_plan(scenario, _plan(scenario, prefix_cache_hit_rate=HIT))
    cached = compute_plan(scenario, _plan(scenario, prefix_cache_hit_rate=HIT,
                                          price_usd_per_million_cached_input_tokens=IN_PRICE / 10))
    plan = _plan(scenario)
    rise = plan.input_tokens / plan.output_tokens * HIT * (IN_PRICE - IN_PRICE / 10)
    assert math.isclose(breakeven_output_price(cached.inputs) - breakeven_output_price(full.inputs), rise, rel_tol=1e-6)


def test_the_finance_inputs_carry_the_cached_price_and_hit_rate():
    assert {"price_usd_per_million_cached_input_tokens", "prefix_cache_hit_rate"} <= set(PLAN_INPUT_KEYS)


def test_the_tornado_swings_the_cached_price_only_where_it_is_set(scenario):
    from tcoapp.engine.finance.sensitivity import tornado
    key = "price_usd_per_million_cached_input_tokens"
    empty = compute_plan(scenario, _plan(scenario, prefix_cache_hit_rate=HIT))
    assert key not in {s.input for s in tornado(empty.inputs)}
    cached = compute_plan(scenario, _plan(scenario, prefix_cache_hit_rate=HIT, **{key: IN_PRICE / 10}))
    swing = {s.input: s for s in tornado(cached.inputs, fraction=0.2)}[key]
    # NPV is affine in the cached price: +-20 % of it moves NPV by the PV of in x h x 0.2 x P_cached a year
    assert swing.metric_high > cached.metrics.npv_usd > swing.metric_low
    assert math.isclose(swing.metric_high - cached.metrics.npv_usd, cached.metrics.npv_usd - swing.metric_low,
                        rel_tol=1e-6)


def test_a_drawn_hit_rate_prices_each_draw_as_the_engine(scenario):
    """Monte Carlo: an Uncertainty row on prefix_cache_hit_rate moves the operating point and the cached/uncached
    split together; each draw's revenue and NPV are the engine's at that hit rate."""
    import dataclasses

    from tcoapp.engine.pipeline.compute import compute_scenario
    from tcoapp.engine.uncertainty.inputs import UncertainInput
    from tcoapp.engine.uncertainty.simulate import simulate
    plan = _plan(scenario, prefix_cache_hit_rate=HIT, price_usd_per_million_cached_input_tokens=IN_PRICE / 10)
    rows = (UncertainInput("*", "prefix_cache_hit_rate", "uniform", low=0.5, high=0.95),)
    uncertain = dataclasses.replace(scenario.with_plans([plan]), uncertainty=rows)
    sim = simulate(uncertain, draws=20, seed=3, model_error=False).plans[0]
    hits = sim.inputs[0].values
    for k in (0, 7, 19):
        one = compute_scenario(scenario.with_plans([plan.with_(prefix_cache_hit_rate=float(hits[k]))]))[0].metrics
        for key in ("revenue_usd_per_year", "npv_usd"):
            assert getattr(sim.metrics, key)[k] == pytest.approx(getattr(one, key), rel=1e-9), (k, key)
