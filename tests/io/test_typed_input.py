"""Input as analysts type it into a workbook: `8%` and `-30%` as text in every `fraction/yr` field (the
13 rates), a date in `software_date` (a real date cell or text `2025-03-15`) read as its month, and no
refusal that shows a serial number or a Python repr."""
from __future__ import annotations

import datetime

import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.quantities.inputs import PLAN_FIELDS
from tcoapp.engine.quantities.validate import coerce
from tcoapp.gui.labels import parse_input
from tcoapp.io.workbook_read import read_scenario

from .broken.corpus import hand_made

RATES = [f for f in PLAN_FIELDS if f.unit.startswith("fraction/")]


def _plans_cell(key, value):
    def mutate(wb):
        ws = wb["Plans"]
        row = next((c.row for c in ws["A"] if c.value == key), None)
        if row is None:
            ws.append([key, "", value])
        else:
            ws.cell(row, 3, value)
    return mutate


def test_there_are_thirteen_rates():
    assert len(RATES) == 13


@pytest.mark.parametrize("field", RATES, ids=lambda f: f.name)
def test_a_percentage_typed_as_text_is_read_in_every_rate(field):
    assert coerce(field, "8%") == (pytest.approx(0.08), None)
    assert coerce(field, " 8 % ") == (pytest.approx(0.08), None)
    value, error = coerce(field, "-30%")
    if field.min is not None and field.min > -0.3:
        assert value is None and "must be a number between" in error and "not a fraction" not in error
    else:
        assert (value, error) == (pytest.approx(-0.3), None)
    assert parse_input(field, "8%") == pytest.approx(0.08)      # the desktop app's editor


@pytest.mark.parametrize("key, text, value", [("discount_rate", "8%", 0.08),
                                              ("hardware_price_change_per_year", "-30%", -0.3)])
def test_a_percentage_text_cell_in_a_workbook(tmp_path, key, text, value):
    scenario = read_scenario(hand_made(tmp_path / "pct.xlsx", mutate=_plans_cell(key, text)))
    assert getattr(scenario.plans[0], key) == pytest.approx(value)


@pytest.mark.parametrize("cell", [datetime.datetime(2025, 3, 15), "2025-03-15", "2025-03", "2025-03-15 00:00:00"])
def test_a_date_in_software_date_is_read_as_its_month(tmp_path, cell):
    def mutate(wb):
        _plans_cell("software_date", cell)(wb)
        if isinstance(cell, datetime.datetime):
            ws = wb["Plans"]
            row = next(c.row for c in ws["A"] if c.value == "software_date")
            ws.cell(row, 3).number_format = "yyyy-mm-dd"
    scenario = read_scenario(hand_made(tmp_path / "date.xlsx", mutate=mutate))
    assert scenario.plans[0].software_date == "2025-03"


@pytest.mark.parametrize("cell, said", [(45731, "would be 2025-03-15"), (datetime.datetime(9999, 12, 31), "'9999-12-31'"),
                                        (True, "'TRUE'")])
def test_a_software_date_that_is_no_month_is_refused_without_a_serial_or_a_repr(tmp_path, cell, said):
    with pytest.raises(ValidationError) as err:
        read_scenario(hand_made(tmp_path / "bad.xlsx", mutate=_plans_cell("software_date", cell)))
    message = str(err.value)
    assert said in message and "software_date" in message
    assert "45731" not in message and "datetime" not in message and "True" not in message
