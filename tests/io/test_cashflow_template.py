"""The CashFlow year template (xlsx_cashflow._BlockFormulas.year_template): every year from 1 on, filled from the
block's template, is the formula written for that year on its own, character for character."""
import dataclasses
from xml.sax.saxutils import escape

import pytest

from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import build_workbook, usable_results
from tcoapp.io.xlsx_cashflow import _BlockFormulas
from tcoapp.io.xlsx_na import THIS_YEAR, YEAR_BEFORE


@pytest.mark.parametrize("sample", ["heterogeneous_disaggregated", "gpu_cloud_financed"])
def test_each_year_from_the_template_is_the_years_own_formula(sample):
    scenario = read_scenario(f"samples/{sample}.xlsx")
    plans = list(scenario.plans)
    plans[0] = dataclasses.replace(plans[0], years=40)  # columns past Z (two letters), and the first plan's block
    scenario = dataclasses.replace(scenario, plans=tuple(plans))
    _, _, layout, _ = build_workbook(scenario, usable_results(scenario))
    assert layout.max_years == 40
    for index in range(len(scenario.plans)):
        cells = _BlockFormulas(layout, index, layout.cf_pools(index))
        template = cells.year_template()
        assert all(THIS_YEAR not in text and YEAR_BEFORE not in text
                   for year in (0, 1) for text in cells.year_cells(year).values())
        escaped = {key: escape(text[1:]) for key, text in template.items()}   # as the export fills it: XML text
        for year in range(1, layout.max_years + 1):   # year 1 too (written from the template)
            own = cells.year_cells(year)
            assert cells.from_template(template, year) == own, (index, year)
            assert cells.from_template(escaped, year, escape) == {k: escape(t[1:]) for k, t in own.items()}, (index, year)
