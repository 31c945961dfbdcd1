"""Excel's 32,767-character cell limit: refused on input (corpus) and on output, never cut silently."""
from dataclasses import replace

import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.io.cell_limits import MAX_CELL_TEXT
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario


def test_a_plan_name_over_the_limit_is_not_saved_cut_short(tmp_path):
    scenario = default_scenario()
    long_name = "N" * 100_000
    scenario = scenario.replace_plan(0, replace(scenario.plans[0], name=long_name))
    path = tmp_path / "long.xlsx"
    with pytest.raises(ValidationError) as info:
        write_scenario(scenario, path)
    text = str(info.value)
    assert "100,000 characters" in text and "32,767" in text and len(text) < 400
    assert not path.exists()


def test_a_name_at_the_limit_round_trips_exactly(tmp_path):
    scenario = default_scenario()
    name = "N" * MAX_CELL_TEXT
    scenario = scenario.replace_plan(0, replace(scenario.plans[0], name=name))
    write_scenario(scenario, tmp_path / "at_limit.xlsx")
    assert read_scenario(tmp_path / "at_limit.xlsx").plans[0].name == name
