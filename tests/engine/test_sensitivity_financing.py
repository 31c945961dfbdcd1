"""The tornado and the breakevens with tax, financing and device-hour revenue (docs/model.md, "Sensitivity"):
reproducers of what went wrong.
- Breakevens were the root of a straight line through NPV at two points; income tax with losses carried
  forward bends NPV (max(0, ...)), so the "breakeven" left NPV far from 0. Now NPV at the breakeven is 0.
- A device-hour plan's revenue does not follow the output price: its breakeven is a price per device-hour.
- The tornado did not swing the device-hour prices, tax or financing, could not show the equity figures
  (equity IRR read NaN: the IRR root was skipped), and swung an input left empty (NaN)."""
import numpy as np
import pytest

from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.engine.finance.metrics import finance_metrics
from tcoapp.engine.finance.sensitivity import (
    _affine_root, breakeven_device_hour_price, breakeven_output_price, breakeven_utilization, tornado,
)
from tcoapp.io.default_scenario import default_scenario


def _inputs(**keys):
    keys = {"sizing_mode": "devices", "device_count": 64, **keys}
    plan = default_scenario().plans[2].with_(serving_search="off", min_tokens_per_s_per_user=None, batch=64, **keys)
    return compute_scenario(default_scenario().with_plans([plan]))[0].inputs


def _npv_with(inputs, **changes):
    return float(np.asarray(finance_metrics(inputs.with_(**{k: np.asarray(v, float) * np.ones_like(np.asarray(
        inputs[k], float)) for k, v in changes.items()}), with_irr=False).npv_usd, float))


TAXED = dict(tax_rate=0.25, years=5, depreciation_method="macrs_5", first_year_utilization=0.1, ramp_years=2)


def test_the_breakeven_output_price_with_tax_makes_npv_0():
    inputs = _inputs(**TAXED, price_usd_per_million_input_tokens=0.0)
    price = breakeven_output_price(inputs)
    scale = abs(_npv_with(inputs, price_usd_per_million_output_tokens=1.0))
    assert abs(_npv_with(inputs, price_usd_per_million_output_tokens=price)) < 1e-6 * scale
    straight = _affine_root(inputs, "price_usd_per_million_output_tokens")   # what it was
    assert abs(_npv_with(inputs, price_usd_per_million_output_tokens=straight)) > 1e-3 * scale


def test_the_breakeven_utilization_with_tax_makes_npv_0():
    inputs = _inputs(**TAXED, price_usd_per_million_output_tokens=0.4, price_usd_per_million_input_tokens=0.0)
    utilization = breakeven_utilization(inputs)
    assert 0 < utilization < 1
    scale = abs(_npv_with(inputs, utilization=1.0))
    assert abs(_npv_with(inputs, utilization=utilization)) < 1e-6 * scale


def test_without_tax_the_breakevens_are_the_exact_affine_roots():
    inputs = _inputs()
    assert breakeven_output_price(inputs) == _affine_root(inputs, "price_usd_per_million_output_tokens")
    root = _affine_root(inputs, "utilization")
    assert breakeven_utilization(inputs) == (root if 0 <= root <= 1 else pytest.approx(np.nan, nan_ok=True))


def test_a_device_hour_plan_breaks_even_at_a_price_per_device_hour():
    hours = dict(revenue_mode="device_hours", reserved_fraction=0.6, reserved_price_usd_per_device_hour=1.5,
                 price_usd_per_device_hour=2.0, tax_rate=0.21, years=4)
    inputs = _inputs(**hours)
    assert np.isnan(breakeven_output_price(inputs))   # the output price moves nothing
    price = breakeven_device_hour_price(inputs)
    assert 0 < price
    at = _npv_with(inputs, price_usd_per_device_hour=price, reserved_price_usd_per_device_hour=price * 0.75)
    assert abs(at) < 1e-6 * abs(_npv_with(inputs, price_usd_per_device_hour=0.0, reserved_price_usd_per_device_hour=0.0))
    assert np.isnan(breakeven_device_hour_price(_inputs()))   # a plan that sells tokens


def test_the_tornado_swings_financing_and_shows_the_equity_figures():
    inputs = _inputs(debt_fraction=0.6, debt_rate=0.08, tax_rate=0.21, years=5)
    for metric in ("equity_npv_usd", "equity_irr", "min_dscr"):
        swings = {s.input: s for s in tornado(inputs, metric)}
        for key in ("debt_fraction", "debt_rate", "tax_rate"):
            assert key in swings, (metric, key)
            assert np.isfinite(swings[key].metric_low) and np.isfinite(swings[key].metric_high), (metric, key)
        assert "equity_discount_rate" not in swings   # empty (= discount_rate): nothing to swing
    assert swings["debt_rate"].metric_low > swings["debt_rate"].metric_high   # cheaper debt, better cover


def test_the_tornado_swings_device_hour_prices_and_a_negative_input_the_right_way():
    inputs = _inputs(revenue_mode="device_hours", reserved_fraction=0.6, reserved_price_usd_per_device_hour=1.5,
                     price_usd_per_device_hour=2.0, hardware_price_change_per_year=-0.2)
    swings = {s.input: s for s in tornado(inputs, "npv_usd")}
    assert {"price_usd_per_device_hour", "reserved_price_usd_per_device_hour", "reserved_fraction"} <= set(swings)
    assert "price_usd_per_million_output_tokens" not in swings or swings["price_usd_per_million_output_tokens"].span == 0
    change = swings["hardware_price_change_per_year"]
    assert change.low_input < change.base_input < change.high_input   # -0.24 < -0.2 < -0.16


def test_the_tornado_has_the_model_error_bar_at_the_bands_percentiles():
    """The model error's bar: every generated pool's tokens/s per device at exp(-+1.2816 sd) of its band, the
    count held; a one-pool plan's revenue is then the base revenue times those factors (independent of the
    finance code), and the bar sits among the others by its span."""
    import math
    from statistics import NormalDist
    from tcoapp.engine.uncertainty.error_swing import MODEL_ERROR_INPUT, model_error_swing, tornado_with_model_error
    s = default_scenario()
    for r in compute_scenario(s):
        low, high = r.prediction_interval["tokens_per_s_per_device"]
        sd = math.log(high / low) / (2 * NormalDist().inv_cdf(0.9))
        bar = model_error_swing(r, "revenue_usd_per_year")
        assert (bar.low_input, bar.high_input) == pytest.approx((math.exp(-1.2815516 * sd), math.exp(1.2815516 * sd)),
                                                               rel=1e-6)
        base = r.metrics.revenue_usd_per_year
        assert (bar.metric_low, bar.metric_high) == pytest.approx((base * bar.low_input, base * bar.high_input), rel=1e-9)
        swings = tornado_with_model_error(r, "npv_usd")
        assert [w.span for w in swings] == sorted((w.span for w in swings), reverse=True)
        assert sum(w.input == MODEL_ERROR_INPUT for w in swings) == 1
        npv = next(w for w in swings if w.input == MODEL_ERROR_INPUT)
        assert npv.metric_low < r.metrics.npv_usd < npv.metric_high


def test_a_plan_on_a_measured_curve_has_no_model_error_bar(tmp_path):
    from tcoapp.engine.uncertainty.error_swing import MODEL_ERROR_INPUT, tornado_with_model_error
    from tcoapp.io.load import load_scenario
    from tests.cli.workbook_factory import write_workbook
    s = load_scenario(write_workbook(str(tmp_path / "curves.xlsx")))
    for r in compute_scenario(s):
        assert r.inputs is not None and r.prediction_interval is None
        assert MODEL_ERROR_INPUT not in {w.input for w in tornado_with_model_error(r)}
