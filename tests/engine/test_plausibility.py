"""Results past a physical bound are said on the plan: +1000 %/yr compounded over 50 years makes more
tokens a year than every accelerator in the world could, at prices past 1e6 USD per million tokens."""
from __future__ import annotations

import re

import tcoapp
from tcoapp.engine.core.physical_bounds import TOKENS_PER_YEAR_MAX

SCENARIO = tcoapp.load_scenario()


def _notes(result):
    return [w for w in result.warnings if "past" in w or "outside" in w]


def test_decades_of_compounding_are_named_with_the_rates():
    scenario = SCENARIO.with_plan("H100", throughput_change_per_year=10, price_change_per_year=10, years=50)
    computed = tcoapp.compute(scenario)
    result = computed.results[0]
    tokens, price, cost = _notes(result)
    assert computed.years.query("plan == 'H100'")["output_tokens"].max() > TOKENS_PER_YEAR_MAX
    assert re.match(r"year 11 makes \d(\.\d+)?e\+23 output tokens: past 1e\+23 a year", tokens)   # (the figure follows the model)
    assert "price_change_per_year = +1000%, throughput_change_per_year = +1000% over 50 years" in tokens
    assert price.startswith("year 7 sells output tokens at") and "past 1e+06" in price
    assert re.match(r"cost per million output tokens \d(\.\d+)?e-\d+ USD is outside 1e-06 to 1e\+06", cost)
    assert "past" in computed.plans.loc["H100", "warnings"]


def test_ordinary_plans_get_no_such_note():
    assert not any(_notes(r) for r in tcoapp.compute(SCENARIO).results)
    scenario = SCENARIO.with_plan("H100", throughput_change_per_year=0.3, price_change_per_year=-0.3, years=10)
    assert not _notes(tcoapp.compute(scenario).results[0])
