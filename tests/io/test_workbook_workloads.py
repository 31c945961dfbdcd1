"""The Workloads sheet: request classes round-trip, every bad row is named by sheet and cell, a renamed or copied
sheet is handled as Pools is, and LibreOffice recalculates its live formulas to the closed forms."""
from __future__ import annotations

import math

import openpyxl
import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.io import sheets as S
from tcoapp.io.kept_work import kept_notes
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario
from tcoapp.io.xlsx_workloads import COLUMN_LETTER, OUTPUTS, class_figures, mix_figures

from .workbook_recalc import SOFFICE, recalc
from .workloads_scenarios import SAMPLE, with_classes


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    scenario = with_classes()
    path = tmp_path_factory.mktemp("workloads") / "classes.xlsx"
    write_scenario(scenario, path)
    return scenario, path


def test_classes_round_trip(written):
    scenario, path = written
    back = read_scenario(path)
    assert back == scenario
    assert [rc.class_ for rc in back.plans[0].workloads] == ["chat", "reasoning", "batch"]
    assert back.plans[1].workloads[1].session_turns == 20
    assert kept_notes(back) == ()   # the live formula columns are the app's, not the analyst's formulas


def test_a_workbook_without_classes_has_no_workloads_sheet(tmp_path):
    scenario = read_scenario(SAMPLE)
    write_scenario(scenario, tmp_path / "plain.xlsx")
    assert S.WORKLOADS not in openpyxl.load_workbook(tmp_path / "plain.xlsx", read_only=True).sheetnames


def _edited(path, tmp_path, edits, name="edited.xlsx"):
    wb = openpyxl.load_workbook(path)
    for cell, value in edits.items():
        wb[S.WORKLOADS][cell] = value
    out = tmp_path / name
    wb.save(out)
    return out


def _problems(path) -> str:
    with pytest.raises(ValidationError) as error:
        read_scenario(path)
    return str(error.value)


def _c(key: str) -> str:
    return COLUMN_LETTER[key]


def test_shares_not_adding_to_1_name_the_plan_and_its_share_cells(written, tmp_path):
    _, path = written
    text = _problems(_edited(path, tmp_path, {f"{_c('share')}5": 0.1}))   # 0.5 + 0.3 + 0.1
    share = _c("share")
    assert (f"Workloads!{share}3, Workloads!{share}4, Workloads!{share}5 share: plan '8x H200 server': the classes' "
            "shares add to 0.9 (0.5 + 0.3 + 0.1); they must add to 1") in text


def test_p90_below_the_mean_is_named(written, tmp_path):
    _, path = written
    text = _problems(_edited(path, tmp_path, {f"{_c('output_tokens_p90')}4": 5000}))
    assert f"Workloads!{_c('output_tokens_p90')}4 output_tokens_p90 = 5,000: a p90 above the mean (8,000)" in text


def test_a_class_of_an_unknown_plan_is_refused(written, tmp_path):
    _, path = written
    text = _problems(_edited(path, tmp_path, {f"{_c('plan')}6": "No such plan"}))
    assert f"Workloads!{_c('plan')}6 plan = 'No such plan' (row 6): no plan of that name on Plans" in text
    assert "renamed in its Workloads rows too" in text
    # the plan left with its other class no longer adds to 1: said too, naming the remaining share cell
    assert f"Workloads!{_c('share')}7 share: plan '8x B200 server': the classes' shares add to 0.25" in text


def test_duplicate_class_names_are_named(written, tmp_path):
    _, path = written
    text = _problems(_edited(path, tmp_path, {f"{_c('class')}4": "chat"}))
    cls = _c("class")
    assert (f"Workloads!{cls}3, Workloads!{cls}4, Workloads!{cls}5 class: chat: a class name is used twice in plan "
            "'8x H200 server'") in text


def test_agentic_fields_on_a_class_of_independent_requests_are_named(written, tmp_path):
    _, path = written
    text = _problems(_edited(path, tmp_path, {f"{_c('turn_gap_s')}3": 5}))
    assert f"Workloads!{_c('turn_gap_s')}3 turn_gap_s = 5: only an agentic class reads it; set session_turns" in text


def test_text_in_a_number_cell_is_named(written, tmp_path):
    _, path = written
    text = _problems(_edited(path, tmp_path, {f"{_c('input_tokens')}3": "about 1k"}))
    assert f"Workloads!{_c('input_tokens')}3 input_tokens = 'about 1k'" in text


def test_a_renamed_workloads_sheet_is_read_as_the_table(written, tmp_path):
    scenario, path = written
    wb = openpyxl.load_workbook(path)
    wb[S.WORKLOADS].title = "Traffic mix"
    wb.save(tmp_path / "renamed.xlsx")
    back = read_scenario(tmp_path / "renamed.xlsx")
    assert back.plans[0].workloads == scenario.plans[0].workloads
    assert any("'Traffic mix': read as the Workloads table" in note for note in kept_notes(back))


def test_a_copy_beside_the_original_is_refused_in_one_line(written, tmp_path):
    _, path = written
    wb = openpyxl.load_workbook(path)
    copy = wb.copy_worksheet(wb[S.WORKLOADS])
    copy.title = "Workloads (2)"
    wb.save(tmp_path / "copied.xlsx")
    assert "sheets 'Workloads' and 'Workloads (2)': both hold the Workloads table" in _problems(tmp_path / "copied.xlsx")


def _close(got, want) -> bool:
    if isinstance(want, float) and math.isnan(want):
        return got == "#N/A"
    return isinstance(got, (int, float)) and math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice is needed to recalculate formulas")
def test_libreoffice_recalculates_the_workloads_formulas_to_the_closed_forms(written, tmp_path):
    scenario, path = written
    stale = _edited(path, tmp_path, {f"{_c('share')}3": 0.4, f"{_c('share')}4": 0.4}, "stale.xlsx")
    fresh, edited = recalc([path, stale], tmp_path / "lo")
    wb = openpyxl.load_workbook(fresh, data_only=True)
    ws = wb[S.WORKLOADS]
    row = 3
    checked = 0
    for plan in scenario.plans:
        mix = mix_figures(plan) if plan.workloads else {}
        for rc in plan.workloads:
            want = class_figures(plan, rc) | mix
            for output in OUTPUTS:
                got = ws[f"{_c(output.key)}{row}"].value
                assert _close(got, want[output.key]), (plan.name, rc.class_, output.key, got, want[output.key])
                checked += 1
            row += 1
    assert checked == 5 * len(OUTPUTS)
    batch = ws[f"{_c('effective_input_price_usd_per_million')}5"].value   # 0.9 x 0.055 + 0.1 x 0.55, by hand
    assert math.isclose(batch, 0.9 * 0.055 + 0.1 * 0.55, rel_tol=1e-12)
    assert wb[S.CHECKS]["B1"].value == 0          # the class checks pass as written ...
    after = openpyxl.load_workbook(edited, data_only=True)
    assert after[S.CHECKS]["B1"].value == 2       # ... and a share edited outside tcoapp fails its check
    assert after[S.WORKLOADS][f"{_c('mix_revenue_usd_per_request')}3"].value != ws[
        f"{_c('mix_revenue_usd_per_request')}3"].value   # the mix follows the edit live
