"""Display text: every metric has a label and a unit; missing values say so; inputs round-trip."""
import math

import pytest

from tcoapp.engine.pipeline.compute import METRIC_KEYS
from tcoapp.engine.quantities.inputs import PLAN_FIELDS
from tcoapp.engine.quantities.validate import coerce
from tcoapp.gui.labels import METRICS, format_field, format_metric, format_metric_with_unit, label_with_unit


def test_every_metric_key_has_a_label_and_unit():
    assert set(METRICS) == set(METRIC_KEYS)
    for key in METRIC_KEYS:
        assert "[" in label_with_unit(key) or key in ("device_count",)


def test_missing_values_are_words_not_numbers():
    assert format_metric("payback_months", math.nan) == "never"
    assert format_metric("irr", None) == "n/a"
    assert format_metric("npv_usd", math.inf) == "n/a"


def test_fractions_money_and_big_numbers():
    assert format_metric_with_unit("irr", 0.353) == "35.3 %/yr"
    assert format_metric("capex_usd", 26737500.0) == "26,737,500"
    assert format_metric("cost_per_million_output_tokens_usd", 0.1128) == "0.113"   # money to 3 significant digits below $1


@pytest.mark.parametrize("field", [f for f in PLAN_FIELDS if f.default is not None], ids=lambda f: f.name)
def test_input_text_round_trips_through_the_engine(field):
    from tcoapp.gui.labels import parse_input    # what the app does with typed text before the engine reads it
    value, error = coerce(field, parse_input(field, format_field(field, field.default)))
    assert error is None and value == field.default


def test_payback_reads_never_only_for_a_plan_with_cash_flows():
    from tcoapp.engine.quantities.metrics import Metrics
    from tcoapp.gui.labels import format_metric

    losing = Metrics.nan().with_(npv_usd=-5.0)
    assert format_metric("payback_months", float("nan"), losing) == "never"
    assert format_metric("payback_months", float("nan"), Metrics.nan()) == "n/a"
    assert format_metric("irr", float("nan"), losing) == "n/a"


def test_choice_labels_and_percent_are_read_back():
    from tcoapp.engine.quantities.inputs import PLAN_FIELD_BY_NAME as F
    from tcoapp.gui.labels import parse_input
    assert format_field(F["sizing_mode"], "facility_power") == "Facility power (kW)"
    assert parse_input(F["sizing_mode"], "Facility power (kW)") == "facility_power"
    assert parse_input(F["weight_precision"], "NVFP4") == "nvfp4" and parse_input(F["weight_precision"], "fp8") == "fp8"
    assert parse_input(F["utilization"], "70%") == pytest.approx(0.7)
    assert parse_input(F["utilization"], "70 %") == pytest.approx(0.7)
    assert parse_input(F["utilization"], "abc%") == "abc%"           # left for the engine to refuse, named
    assert parse_input(F["batch"], "70%") == "70%"                   # a percent only where the unit is a fraction
