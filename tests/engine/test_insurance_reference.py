"""Insurance and property tax year by year against the independent reference (tests/reference_finance.py):
each is a fraction of the capex still held (docs/model.md, "Insurance and property tax"), an opex line
that flows into opex, cash flow, NPV, the levelized per-year figures and cost per token."""
from __future__ import annotations

import numpy as np
import pytest

from tcoapp.engine.finance.metrics import finance_metrics
from tcoapp.engine.quantities.finance import finance_inputs
from tests.reference_finance import held_capex_cost_by_year, tranche_capex

from .test_years_reference import PLAN, POOLS

RENTED = dict(POOLS[0], device_count=16, owned=0, rent_usd_per_device_hour=2.5, purchase_year=1)
TRANCHES = POOLS + [RENTED]
INSURANCE, PROPERTY_TAX = 0.008, 0.012


def _engine(**plan):
    pools = TRANCHES
    return finance_metrics(finance_inputs({k: [p[k] for p in pools] for k in pools[0]}, {**PLAN, **plan}))


def _reference_rows(fraction):
    tranches = [(tranche_capex(p["price_usd"], p["devices_per_server"], p["server_price_usd"], p["device_count"],
                               PLAN["other_capex_fraction"]), p["purchase_year"], p["owned"]) for p in TRANCHES]
    return held_capex_cost_by_year(tranches, PLAN["years"], fraction)


@pytest.mark.parametrize("key, fraction", [("insurance", INSURANCE), ("property_tax", PROPERTY_TAX)])
def test_each_year_is_the_fraction_of_the_capex_held(key, fraction):
    out = _engine(**{f"{key}_fraction_per_year": fraction})
    got = out.years[f"{key}_usd"][: PLAN["years"] + 1]
    assert got == pytest.approx(_reference_rows(fraction), rel=1e-12)
    assert got[2] < got[3]  # the second tranche (bought in year 2) is held from year 3


def test_the_lines_move_opex_and_the_flows_and_nothing_else_pre_tax():
    base = _engine(tax_rate=0.0)
    out = _engine(tax_rate=0.0, insurance_fraction_per_year=INSURANCE, property_tax_fraction_per_year=PROPERTY_TAX)
    cost = np.add(_reference_rows(INSURANCE), _reference_rows(PROPERTY_TAX))
    n = PLAN["years"] + 1
    assert out.years.opex_usd[:n] - base.years.opex_usd[:n] == pytest.approx(cost, rel=1e-9, abs=1e-6)
    assert base.years.cash_flow_usd[:n] - out.years.cash_flow_usd[:n] == pytest.approx(cost, rel=1e-9, abs=1e-6)
    discount = [(1 + PLAN["discount_rate"]) ** -t for t in range(n)]
    assert float(base.npv_usd - out.npv_usd) == pytest.approx(sum(c * d for c, d in zip(cost, discount)), rel=1e-9)
    assert out.years.revenue_usd[:n] == pytest.approx(base.years.revenue_usd[:n], rel=1e-15)
    assert float(out.capex_usd) == float(base.capex_usd)


def test_the_cost_per_token_part_is_its_present_value_over_the_tokens():
    out = _engine(insurance_fraction_per_year=INSURANCE)
    n = PLAN["years"] + 1
    discount = np.array([(1 + PLAN["discount_rate"]) ** -t for t in range(n)])
    tokens = np.asarray(out.years.output_tokens[:n], float)
    want = np.sum(np.array(_reference_rows(INSURANCE)) * discount) / np.sum(tokens * discount) * 1e6
    assert float(out.cost_per_million_output_tokens_insurance_usd) == pytest.approx(want, rel=1e-9)
    parts = sum(float(out[f"cost_per_million_output_tokens_{p}_usd"]) for p in
                ("capex", "energy", "colocation", "maintenance", "software", "rent", "staff", "insurance", "property_tax"))
    assert parts == pytest.approx(float(out.cost_per_million_output_tokens_usd), rel=1e-9)


def test_zero_fractions_change_nothing_also_where_the_capex_does_not_exist():
    unbuildable = [dict(p, rack_power_cap_kw=1) for p in TRANCHES]  # no server fits a rack: capex n/a
    out = finance_metrics(finance_inputs({k: [p[k] for p in unbuildable] for k in unbuildable[0]}, PLAN))
    assert np.all(out.years.insurance_usd == 0) and np.all(out.years.property_tax_usd == 0)
