"""One finance metric without the others (`npv_usd`, `metric_values`: the GUI tornado's variants) gives
`finance_metrics`'s numbers bit for bit: NPV on every finance call of every sample and the default scenario, with
every input moved up and down; every tornado metric on those plans' inputs moved; and the tornado itself, each bar
against the plain recomputation of its input's low and high values one at a time (docs/benchmarks.md "Redraw", the
redraw after an edit)."""
from __future__ import annotations

import numpy as np
import pytest

from tcoapp.engine.finance.metrics import EXTRA_RETURNS, finance_metrics, metric_values, npv_usd
from tcoapp.engine.finance.sensitivity import _bounds, tornado
from tcoapp.engine.pipeline.compute import compute_plan
from tcoapp.engine.quantities.finance import FinanceInputs, as_inputs
from tcoapp.engine.quantities.metrics import TORNADO_METRICS
from tcoapp.engine.uncertainty.error_swing import MODEL_ERROR_INPUT, tornado_with_model_error
from tcoapp.engine.uncertainty.model_error import band_factors
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_read import read_scenario

from .test_finance_cost_only import CASES, SAMPLES, _finance_calls, _moved


def _bits(values) -> bytes:
    return np.asarray(values, float).tobytes()


TORNADO_REL = 1e-13   # a tornado's variants run as one batch: numpy (2.4) may round a batch's elementwise math in
                      # its last bits unlike one variant's, and the capital recovery factor r / (1 - (1 + r)^-n)
                      # amplifies that to ~6 units in the last place; a different computation moves far more


def _same_value(a, b) -> bool:
    """a and b equal to TORNADO_REL relative, NaN where the other is NaN."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    if not np.array_equal(np.isnan(a), np.isnan(b)):
        return False
    ok = ~np.isnan(a)
    return bool(np.all(np.abs(a[ok] - b[ok]) <= TORNADO_REL * np.maximum(np.abs(a[ok]), np.abs(b[ok]))))


@pytest.mark.parametrize("path", CASES)
def test_npv_alone_is_the_finance_layers_npv_on_every_call(path):
    own, _, _ = _finance_calls(path)
    assert own
    for inputs in own + [_moved(x) for x in own]:
        full = np.asarray(finance_metrics(inputs, with_irr=False)["npv_usd"], float)
        alone = np.asarray(npv_usd(inputs), float)
        assert alone.shape == full.shape
        assert _bits(alone) == _bits(full)   # bit for bit, NaN where the full path has NaN


@pytest.mark.parametrize("path", [p for p in CASES if p.values[0] is None or p.values[0].stem != "agentic_coding"])
def test_each_tornado_metric_alone_is_the_finance_layers(path):
    own, _, _ = _finance_calls(path)
    for inputs in own:
        moved = _moved(inputs)
        full = finance_metrics(moved)
        for metric in TORNADO_METRICS + EXTRA_RETURNS:
            alone = np.asarray(metric_values(moved, metric), float)
            assert alone.shape == np.shape(full[metric])
            assert _bits(alone) == _bits(full[metric]), metric


def _one_variant(inputs, key: str, value) -> FinanceInputs:
    """The plan's inputs with `key` (every pool's, for a per-pool key) set to `value`, alone: one finance call."""
    a = as_inputs(inputs)
    fields = {k: np.asarray(a[k], float) for k in a.keys()}
    fields[key] = np.broadcast_to(np.asarray(value, float), fields[key].shape).copy()
    return FinanceInputs(**fields)


def _plain(inputs, key: str, value, metric: str) -> float:
    return float(np.asarray(finance_metrics(_one_variant(inputs, key, value))[metric], float))


def _results():
    """The computed plans of the default scenario and of samples with several pools, debt and prices by year."""
    picked = [None] + [p for p in SAMPLES if p.stem in ("heterogeneous_disaggregated", "gpu_cloud_financed",
                                                         "years_price_decline", "buy_now_or_wait")]
    for path in picked:
        scenario = default_scenario() if path is None else read_scenario(path)
        for plan in scenario.plans:
            result = compute_plan(scenario, plan)
            if result.inputs is not None and np.isfinite(result.metrics.tokens_per_s_per_device):
                yield result


def test_the_tornado_is_each_input_recomputed_alone():
    """Each bar's metric at its input's low and high value, as one finance call with only that input moved (to
    TORNADO_REL; per pool for a per-pool input; the model error's bar: every pool's tokens/s at its band's
    factors), and the bars widest first."""
    seen_pools, seen_bars = set(), 0
    for result in _results():
        inputs = as_inputs(result.inputs)
        seen_pools.add(np.size(inputs.device_count))
        for metric in TORNADO_METRICS:
            swings = tornado_with_model_error(result, metric, 0.2)
            for s in swings:
                if s.input == MODEL_ERROR_INPUT:
                    low, high = band_factors(result)
                    base = np.asarray(inputs["tokens_per_s_per_device"], float)
                    key, lo, hi = "tokens_per_s_per_device", base * low, base * high
                else:
                    base = np.asarray(inputs[s.input], float)
                    key = s.input
                    lo, hi = _bounded(key, np.minimum(0.8 * base, 1.2 * base), np.maximum(0.8 * base, 1.2 * base))
                assert _same_value(s.metric_low, _plain(inputs, key, lo, metric)), (result.name, metric, s.input)
                assert _same_value(s.metric_high, _plain(inputs, key, hi, metric)), (result.name, metric, s.input)
                seen_bars += 1
            spans = [np.nan_to_num(s.span, nan=-1.0) for s in swings]
            assert spans == sorted(spans, reverse=True)
    assert seen_bars > 500 and max(seen_pools) > 1


def _bounded(key, low, high):
    lo_bound, hi_bound = _bounds(key)
    return np.maximum(low, lo_bound), np.minimum(high, hi_bound)


def test_a_tornado_without_inputs_to_swing_has_no_bars():
    result = next(_results())
    assert tornado(result.inputs, "npv_usd", 0.2, keys=()) == []
