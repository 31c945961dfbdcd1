"""The field table, validation messages and the frozen records built from it."""
import dataclasses

import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.quantities.inputs import FIELD_TABLES, PLAN_FIELDS, Field
from tcoapp.engine.quantities.records import Plan, make_device, make_model, make_plan
from tcoapp.engine.quantities.inputs import PLAN_FIELD_BY_NAME
from tcoapp.engine.quantities.validate import coerce


def test_every_field_is_documented_with_unit_default_range_group_label_help():
    for table in FIELD_TABLES.values():
        names = [f.name for f in table]
        assert len(names) == len(set(names))
        for f in table:
            assert f.label and f.help and f.group, f.name
            assert f.type in {"float", "int", "str", "bool", "choice"}
            if f.type in {"float", "int"} and f.default is not None:
                value, error = coerce(f, f.default)
                assert error is None, (f.name, error)
            if f.type == "choice":
                assert f.default in f.choices or (f.default is None and not f.required)  # None: "the plan's value"


def test_fractions_are_zero_to_one():
    for f in PLAN_FIELDS:
        if f.unit == "fraction" and f.name not in ("other_capex_fraction", "utilization"):
            assert (f.min, f.max) == (0, 1), f.name
    # utilization divides the year's cost: below 0.1 % the cost per token is absurd (1e-300 gave 1.2e299 USD)
    assert (PLAN_FIELD_BY_NAME["utilization"].min, PLAN_FIELD_BY_NAME["utilization"].max) == (0.001, 1)


def test_plan_defaults_come_from_the_table():
    plan = make_plan("P", {"device": "H100-SXM", "model": "Llama-3.1-8B"})
    for f in PLAN_FIELDS:
        if not f.required:
            assert getattr(plan, f.name) == f.default, f.name
    assert dataclasses.is_dataclass(plan) and isinstance(plan, Plan)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.utilization = 0.5


def test_every_problem_reported_at_once_with_range():
    with pytest.raises(ValidationError) as info:
        make_plan("P", {"device": "H100-SXM", "utilization": 1.4, "years": 2.5, "weight_precision": "int3",
                        "batch": "lots", "pue": float("nan"), "colour": "red"})
    text = str(info.value)
    assert "model: is required" in text
    assert "utilization = 1.4: must be a number between 0.001 and 1" in text
    assert "years = 2.5: must be a whole number between 1 and 50" in text
    assert "weight_precision = 'int3': must be one of bf16, fp8, mxfp4, nvfp4" in text
    assert "batch = 'lots' is not a number" in text
    assert "pue = nan is not a finite number" in text
    assert "colour: unknown key" in text
    assert len(info.value.problems) == 7


def test_no_silent_clamping_of_exclusive_bounds():
    f = Field(key="x", type="float", unit="kW", default=1.0, min=0, max=10, group="g", label="X", help="help",
              min_exclusive=True)
    assert coerce(f, 0)[1] == "= 0: must be a number > 0 and <= 10"
    assert coerce(f, 1e-9) == (1e-9, None)


def test_text_numbers_and_booleans_are_parsed():
    plan = make_plan("P", {"device": "d", "model": "m", "batch": "128", "attention_dp": "TRUE", "pue": "1.25"})
    assert (plan.batch, plan.attention_dp, plan.pue) == (128, True, 1.25)


def test_cross_field_checks():
    with pytest.raises(ValidationError, match="idle_w = 900: must be at most tdp_w"):
        make_device({"name": "X", "memory_gb": 80, "mem_bw_gb_s": 3000, "peak_tflops_bf16": 900, "tdp_w": 700,
                     "idle_w": 900, "price_usd": 1})
    with pytest.raises(ValidationError, match="active_params_b = 20: must be at most total_params_b"):
        make_model({"name": "M", "total_params_b": 10, "active_params_b": 20, "n_layers": 2, "hidden_size": 8,
                    "n_kv_heads": 1, "head_dim": 8})
    with pytest.raises(ValidationError, match="disaggregation needs both"):
        make_plan("P", {"device": "d", "model": "m", "prefill_devices": 2})


def test_metric_table_covers_every_metric_key_once():
    from tcoapp.engine.pipeline.compute import METRIC_KEYS
    from tcoapp.engine.quantities.metrics import METRICS

    # the metric keys of the contract, plus cost per million input tokens (the years issue) and the
    # financing figures (docs/model.md "Financing"), the cost per device-hour (docs/model.md section 3) and the
    # returns a CFO checks (discounted payback, MIRR, unused tax losses, NPV at the WACC)
    contract = (
        "batch tokens_per_s_per_device tokens_per_s_per_user ttft_s power_w tokens_per_joule max_batch_by_memory "
        "device_count servers racks servers_per_rack it_avg_kw it_provisioned_kw capex_usd capex_usd_per_year "
        "opex_usd_per_year energy_usd_per_year output_tokens_per_year cost_per_million_output_tokens_usd "
        "cost_per_million_total_tokens_usd cost_per_million_input_tokens_usd cost_per_device_hour_usd "
        "cost_per_million_uncached_input_tokens_usd cost_per_million_cached_input_tokens_usd revenue_usd_per_year "
        "revenue_usd_per_rack_per_year revenue_per_million_output_tokens_usd "
        "revenue_per_million_uncached_input_tokens_usd revenue_per_million_cached_input_tokens_usd "
        "revenue_per_million_total_tokens_usd npv_usd irr payback_months discounted_payback_months mirr unused_tax_loss_usd "
        "roi equity_npv_usd equity_irr min_dscr wacc npv_at_wacc_usd").split()
    assert list(METRIC_KEYS) == contract
    assert [m.key for m in METRICS] == contract
    for m in METRICS:
        assert m.label and m.unit and m.help and m.better in ("high", "low", "")


def test_metrics_record_is_generated_from_the_metric_table_and_typed():
    """One row per metric makes one float field, in the table's order (the record is written out from
    the table, so a reader and mypy see it; its label and unit are the row's); the record is not a
    mapping: readers use attributes or the table-driven `metric_values`."""
    import dataclasses
    import typing

    from tcoapp.engine.quantities.metrics import METRICS, Metrics, metric_values

    fields = dataclasses.fields(Metrics)
    assert [f.name for f in fields] == [m.key for m in METRICS]
    assert all(t is float for t in typing.get_type_hints(Metrics).values())
    record = Metrics.nan().with_(npv_usd=1.5)
    assert record.npv_usd == 1.5 and metric_values(record)[0][0] == METRICS[0].key
    assert not hasattr(record, "__getitem__") and not hasattr(record, "get")
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.npv_usd = 2.0


def test_a_plan_metric_is_declared_once():
    """A plan quantity that is also a metric takes the metric row's unit and help (one declaration)."""
    from tcoapp.engine.quantities.finance import QUANTITY_BY_KEY
    from tcoapp.engine.quantities.metrics import METRICS

    for m in METRICS:
        if m.key in QUANTITY_BY_KEY:
            assert (QUANTITY_BY_KEY[m.key].unit, QUANTITY_BY_KEY[m.key].help) == (m.unit, m.help), m.key
    assert all(m.key in QUANTITY_BY_KEY for m in METRICS if m.source == "finance")


def test_a_record_coerces_each_value_as_coerce_does():
    """coerce_record takes a finite float in range as it is (no steps): the same values and problems as
    coerce gives each one, for floats, ints, texts, booleans, blanks and values out of range."""
    import math
    import random

    from tcoapp.engine.quantities.inputs import CURVE_POINT_FIELDS, PLAN_FIELDS
    from tcoapp.engine.quantities.validate import coerce, coerce_record

    rng = random.Random(9)
    pool = [0.0, -0.0, 1.5, -2.0, 1e12, 1e-9, math.nan, math.inf, -math.inf, 3, 0, True, False, None, "", " 2.5 ",
            "abc", "8%", 0.3, 1.0, 2.0, 100.0, 1e300]
    for fields in (CURVE_POINT_FIELDS, PLAN_FIELDS):
        for _ in range(300):
            raw = {f.name: rng.choice(pool) for f in fields if rng.random() < 0.7}
            problems = []
            values = coerce_record(fields, raw, lambda key: f"S!{key}", problems)
            expected, expected_problems = {}, []
            for f in fields:
                value, error = coerce(f, raw.get(f.name))
                expected[f.name] = value
                if error:
                    expected_problems.append((f.name, error))
            assert [(p.field, p.message) for p in problems] == expected_problems
            assert values.keys() == expected.keys()
            for key, value in values.items():
                assert value == expected[key] or (value != value and expected[key] != expected[key]), key
                assert type(value) is type(expected[key]), key
