"""No refusal shows a Python repr: a workbook whose every Plans, Devices and Curves cell holds TRUE, a
far date or a duration is refused with every problem in the words a spreadsheet shows (TRUE, 9999-12-31),
never `= True` or `datetime.datetime(9999, ...)`; and every field's check says so for any Python value."""
from __future__ import annotations

import datetime
import re

import numpy as np
import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.quantities.factors import FACTOR_FIELDS
from tcoapp.engine.quantities.inputs import (CURVE_POINT_FIELDS, DEVICE_FIELDS, MODEL_FIELDS, PLAN_FIELDS,
                                             POOL_FIELDS, PRICE_TIER_FIELDS)
from tcoapp.engine.quantities.validate import coerce
from tcoapp.io.workbook_read import read_scenario

from .broken.corpus import hand_made

REPR = re.compile(r"datetime\.|timedelta\(|np\.|numpy|<object|\bTrue\b|\bFalse\b|\bNone\b|\(1\+2j\)|b'x'|"
                  r"\[1, 2\]|\{'a'")
ODD = [True, False, datetime.datetime(9999, 12, 31, 23, 59, 59), datetime.date(2025, 3, 15), datetime.time(1, 2),
       datetime.timedelta(days=1), np.float64("nan"), np.int64(-5), np.bool_(True), [1, 2], {"a": 1}, object(),
       complex(1, 2), b"x", 10 ** 400]
ALL_FIELDS = (PLAN_FIELDS + POOL_FIELDS + DEVICE_FIELDS + MODEL_FIELDS + CURVE_POINT_FIELDS + PRICE_TIER_FIELDS
              + FACTOR_FIELDS)


def test_no_field_check_shows_a_repr():
    shown = []
    for field in ALL_FIELDS:
        for value in ODD:
            _, error = coerce(field, value)
            if error and REPR.search(error):
                shown.append(f"{field.name} <- {type(value).__name__}: {error}")
    assert not shown, "\n".join(shown[:20])


def _every_cell(sheet, value):
    def mutate(wb):
        if sheet in ("Pools", "PriceTiers"):      # a table of the sheet's keys, one row of `value`
            fields = POOL_FIELDS if sheet == "Pools" else PRICE_TIER_FIELDS
            ws = wb.create_sheet(sheet)
            ws.append([f.name for f in fields])
            ws.append([""] * len(fields))
            ws.append(["Plan A" if f.name == "plan" else "p" if f.name in ("pool", "price_tiers") else value
                       for f in fields])
            return
        ws = wb[sheet]
        if sheet == "Plans":
            for row in range(2, ws.max_row + 1):
                if ws.cell(row, 1).value:
                    ws.cell(row, 3, value)
        else:
            for col in range(2, ws.max_column + 1):
                ws.cell(3, col, value)
    return mutate


@pytest.mark.parametrize("sheet", ["Plans", "Devices", "Curves", "Pools", "PriceTiers"])
@pytest.mark.parametrize("value", [True, datetime.datetime(9999, 12, 31), datetime.datetime(2025, 3, 15, 10, 30)],
                         ids=["TRUE", "9999-12-31", "a date and time"])
def test_a_workbook_of_odd_cells_is_refused_in_a_spreadsheets_words(tmp_path, sheet, value):
    with pytest.raises(ValidationError) as err:
        read_scenario(hand_made(tmp_path / "odd.xlsx", mutate=_every_cell(sheet, value)))
    lines = [str(p) for p in err.value.problems]
    assert len(lines) >= 2
    shown = [line for line in lines if REPR.search(line)]
    assert not shown, f"{len(shown)} of {len(lines)} refusals show a repr:\n" + "\n".join(shown[:10])


@pytest.mark.parametrize("draws, seed, said", [(True, 0, "draws = TRUE"), (10, np.float64(1.5), "seed = 1.5"),
                                               (10, [1], "seed = a list of 1 item(s)")])
def test_the_simulation_run_refusal_shows_no_repr(draws, seed, said):
    from tcoapp.engine.uncertainty.simulate import check_run
    with pytest.raises(ValidationError) as err:
        check_run(draws, seed)
    assert said in str(err.value) and not REPR.search(str(err.value))
