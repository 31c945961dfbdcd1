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


@pytest.mark.parametrize("sample", ["heterogeneous_disaggregated", "gpu_cloud_financed", "moe_rack_scale",
                                    "uncertainty_llama70b"])
def test_a_block_moved_from_the_first_with_as_many_pools_is_its_own_compile(sample):
    scenario = read_scenario(f"samples/{sample}.xlsx")
    plans = list(scenario.plans)
    plans[-1] = dataclasses.replace(plans[-1], years=30)   # columns past Z in the moved blocks
    scenario = dataclasses.replace(scenario, plans=tuple(plans))
    _, _, layout, _ = build_workbook(scenario, usable_results(scenario))
    compiled_by_pools, moved = {}, 0
    for index in range(len(scenario.plans)):
        own = _BlockFormulas(layout, index, layout.cf_pools(index))
        expected, expected_steady = own.year_template(), own._steady
        cells = _BlockFormulas(layout, index, layout.cf_pools(index))
        moved += cells.pools in compiled_by_pools
        assert cells.moved_template(compiled_by_pools) == expected, index
        assert cells._steady == expected_steady, index
        assert cells.year_zero() == own.year_cells(0), index
    assert moved >= 1


def test_references_moved_and_refused():
    from tcoapp.io.xlsx_cf_relocate import Block, relocated

    source, target = Block("C", 10, 20), Block("E", 30, 40)
    texts = {"a": '=IF(Plans!$C$5="C12",C12+$C$12:$M$12,D$1)+LOG10(C12)*Results!$C$7+Constants!$C$4',
             "b": "=SUM(\x00 12,\x0015)+MACRS_5_1+A1B"}
    assert relocated(texts, source, target) == {
        "a": '=IF(Plans!$E$5="C12",C32+$C$32:$M$32,D$1)+LOG10(C32)*Results!$E$7+Constants!$C$4',
        "b": "=SUM(\x00 12,\x0035)+MACRS_5_1+A1B"}
    assert relocated({"a": "=C25"}, source, target) is None            # a CashFlow row outside the block
    assert relocated({"a": "=Plans!$D$5"}, source, target) is None     # another plan's column
    assert relocated({"a": "=C12"}, source, Block("E", 30, 45)) is None  # a block of other rows
    assert relocated({"a": "=C12:"}, source, target) is None           # not a reference it can read whole


@pytest.mark.parametrize("sample", ["heterogeneous_disaggregated", "gpu_cloud_financed", "moe_rack_scale"])
def test_results_formulas_moved_from_the_first_plan_with_as_many_pools_are_their_own_compile(sample):
    from tcoapp.io import sheets as S
    from tcoapp.io.xlsx_na import NaGuard
    from tcoapp.io.xlsx_results import formula_texts

    scenario = read_scenario(f"samples/{sample}.xlsx")
    _, _, layout, _ = build_workbook(scenario, usable_results(scenario))
    guard, by_pools, moved = NaGuard(S.RESULTS, layout.row_key), {}, 0
    for index in range(len(scenario.plans)):
        moved += (layout.pool_counts[index] in by_pools)
        own = formula_texts(layout, index, NaGuard(S.RESULTS, layout.row_key))
        assert formula_texts(layout, index, guard, by_pools) == own, index
    assert moved >= 1


def test_a_reference_to_a_sheet_with_a_row_per_plan_is_not_moved():
    from tcoapp.io import sheets as S
    from tcoapp.io.xlsx_cf_relocate import Block, relocated

    source, target = Block("C", 10, 20), Block("D", 30, 40)
    assert relocated({"a": "=C5+CashFlow!$C$12+Constants!$C$4"}, source, target, S.RESULTS) == \
        {"a": "=D5+CashFlow!$C$32+Constants!$C$4"}
    assert relocated({"a": f"={S.CHECKS}!$C$4"}, source, target, S.RESULTS) is None
    assert relocated({"a": "=E5"}, source, target, S.RESULTS) is None   # another plan's column on its own sheet
