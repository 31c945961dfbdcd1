"""The Workloads sheet: request classes round-trip, every bad row is named by sheet and cell, a renamed or copied
sheet is handled as Pools is, and LibreOffice recalculates its live formulas to the closed forms."""
from __future__ import annotations

import json
import math
import pathlib
import subprocess

import openpyxl
import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.io import sheets as S
from tcoapp.io.kept_work import kept_notes
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario
from tcoapp.io.xlsx_workloads import COLUMN_LETTER, OUTPUTS, class_figures, mix_figures

from .test_workbook_analyst_work import LO_EDIT, UNO_PYTHON
from .workbook_recalc import SOFFICE, recalc
from .workloads_scenarios import SAMPLE, renamed, with_classes


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
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames.index(S.WORKLOADS) == wb.sheetnames.index(S.POOLS) + 1
    assert wb[S.WORKLOADS].print_area and wb[S.WORKLOADS].print_title_rows == "$1:$2"
    percentile = _c("latency_percentile")
    assert any(f"{percentile}3:{percentile}1048576" in str(dv.sqref) and "p99" in dv.formula1
               for dv in wb[S.WORKLOADS].data_validations.dataValidation)   # the choice as a dropdown


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


SHARE, CLASS = _c("share"), _c("class")
BAD_INPUT = {   # cells edited on the written workbook -> what the reader says (rows 3-5: chat, reasoning, batch)
    "shares summing to 0.9": ({f"{SHARE}5": 0.1}, (
        f"Workloads!{SHARE}3, Workloads!{SHARE}4, Workloads!{SHARE}5 share: plan '8x H200 server': the classes' "
        "shares add to 0.9 (0.5 + 0.3 + 0.1); they must add to 1",)),
    "p90 below the mean": ({f"{_c('output_tokens_p90')}4": 5000}, (
        f"Workloads!{_c('output_tokens_p90')}4 output_tokens_p90 = 5,000: a p90 above the mean (8,000)",)),
    "unknown plan": ({f"{_c('plan')}6": "No such plan"}, (
        f"Workloads!{_c('plan')}6 plan = 'No such plan' (row 6): no plan of that name on Plans",
        "renamed in its Workloads rows too",
        # the plan left with its other class no longer adds to 1: said too, naming its remaining share cell
        f"Workloads!{SHARE}7 share: plan '8x B200 server': the classes' shares add to 0.25")),
    "duplicate class names": ({f"{CLASS}4": "chat"}, (
        f"Workloads!{CLASS}3, Workloads!{CLASS}4, Workloads!{CLASS}5 class: chat: a class name is used twice in plan "
        "'8x H200 server'",)),
    "agentic fields on a non-agentic class": ({f"{_c('turn_gap_s')}3": 5}, (
        f"Workloads!{_c('turn_gap_s')}3 turn_gap_s = 5: only an agentic class reads it; set session_turns",)),
    "text in a number cell": ({f"{_c('input_tokens')}3": "about 1k"}, (
        f"Workloads!{_c('input_tokens')}3 input_tokens = 'about 1k'",)),
    "a share above 1": ({f"{SHARE}3": 1.5}, (f"Workloads!{SHARE}3 share = 1.5",)),
}


@pytest.mark.parametrize("case", BAD_INPUT)
def test_bad_input_is_named_by_sheet_and_cell(written, tmp_path, case):
    edits, expected = BAD_INPUT[case]
    text = _problems(_edited(written[1], tmp_path, edits))
    for line in expected:
        assert line in text, (case, text)


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


def _rows_by_name(ws) -> dict:
    """{(plan, class): {key: value}} of a recalculated Workloads sheet, its columns found by their key in row 1."""
    keys = {c: v for c, v in enumerate(next(ws.iter_rows(min_row=1, max_row=1, values_only=True))) if v}
    out = {}
    for values in ws.iter_rows(min_row=3, values_only=True):
        row = {keys[c]: v for c, v in enumerate(values) if c in keys}
        if row.get("plan") is not None:
            out[(row["plan"], row["class"])] = row
    return out


def _assert_closed_forms(ws, scenario) -> None:
    """Every formula cell of the Workloads sheet `ws` (recalculated) equals its closed form, each class's row found by
    its plan and class (a sorted table too)."""
    rows, checked = _rows_by_name(ws), 0
    for plan in scenario.plans:
        mix = mix_figures(plan) if plan.workloads else {}
        for rc in plan.workloads:
            want = class_figures(plan, rc) | mix
            for output in OUTPUTS:
                got = rows[(plan.name, rc.class_)][output.key]
                assert _close(got, want[output.key]), (plan.name, rc.class_, output.key, got, want[output.key])
                checked += 1
    assert checked == 5 * len(OUTPUTS)


@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice is needed to recalculate formulas")
def test_libreoffice_recalculates_the_workloads_formulas_to_the_closed_forms(written, tmp_path):
    scenario, path = written
    stale = _edited(path, tmp_path, {f"{_c('share')}3": 0.4, f"{_c('share')}4": 0.4}, "stale.xlsx")
    added = _edited(path, tmp_path, {f"{_c('share')}3": 0.4, f"{_c('plan')}8": scenario.plans[0].name,
                                     f"{_c('class')}8": "extra", f"{_c('share')}8": 0.1,
                                     f"{_c('input_tokens')}8": 500, f"{_c('output_tokens')}8": 100}, "added.xlsx")
    wild = renamed(scenario, 0, "8x ?200 server")   # unescaped, its pattern would match "8x B200 server" too
    write_scenario(wild, tmp_path / "wild.xlsx")
    fresh, edited, by_hand, wild_path = recalc([path, stale, added, tmp_path / "wild.xlsx"], tmp_path / "lo")
    assert read_scenario(fresh) == scenario   # LibreOffice's save reads back the same
    for book, expected in ((fresh, scenario), (wild_path, wild)):
        _assert_closed_forms(openpyxl.load_workbook(book, data_only=True)[S.WORKLOADS], expected)
    wb = openpyxl.load_workbook(fresh, data_only=True)
    ws = wb[S.WORKLOADS]
    batch = ws[f"{_c('effective_input_price_usd_per_million')}5"].value   # 0.9 x 0.055 + 0.1 x 0.55, by hand
    assert math.isclose(batch, 0.9 * 0.055 + 0.1 * 0.55, rel_tol=1e-12)
    assert wb[S.CHECKS]["B1"].value == 0          # the class checks pass as written ...
    after = openpyxl.load_workbook(edited, data_only=True)
    assert after[S.CHECKS]["B1"].value == 2       # ... and a share edited outside tcoapp fails its check
    mix = f"{_c('mix_revenue_usd_per_request')}3"
    assert after[S.WORKLOADS][mix].value != ws[mix].value   # shares 0.4 + 0.4 + 0.2: the mix follows the edit live
    hand = openpyxl.load_workbook(by_hand, data_only=True)[S.WORKLOADS]
    assert hand[mix].value == "#N/A"   # a class typed below without formulas: the mix does not ignore it silently
    assert hand[f"{_c('revenue_usd_per_request')}3"].value == ws[f"{_c('revenue_usd_per_request')}3"].value


def test_every_class_input_has_a_checks_row(written):
    """Each class's every input (the engine reads them all) is compared by a Checks row, found by plan and class."""
    from tcoapp.engine.quantities.inputs import REQUEST_CLASS_FIELDS

    scenario, path = written
    checks = {str(row[1]) for row in openpyxl.load_workbook(path, read_only=True)[S.CHECKS].iter_rows(values_only=True)
              if row and len(row) > 1 and row[1]}
    keys = [f.name for f in REQUEST_CLASS_FIELDS if f.name not in ("plan", "class")]
    for plan in scenario.plans:
        for rc in plan.workloads:
            assert f"Workloads {rc.class_}: one row" in checks
            assert not [k for k in keys if f"Workloads {rc.class_} {k}" not in checks], rc.class_
    assert any(text.startswith("Workloads: 3 row(s) name the plan") for text in checks)


def test_changing_a_plan_key_keeps_its_classes(written):
    scenario, _ = written
    name = scenario.plans[0].name
    assert scenario.with_plan(name, utilization=0.5).plan(name).workloads == scenario.plans[0].workloads


@pytest.mark.slow
@pytest.mark.skipif(SOFFICE is None or not pathlib.Path(UNO_PYTHON).exists(),
                    reason="LibreOffice Calc with its Python UNO bridge is not installed")
def test_analyst_edits_in_libreoffice_keep_the_formulas_and_checks(written, tmp_path):
    """Sorted by class, a blank row and a blank column inserted inside the table, in LibreOffice: the formulas
    still give the closed forms, every check passes, and the file reads back the same classes."""
    scenario, path = written
    last = f"{_c(OUTPUTS[-1].key)}7"
    ops = [["sort", S.WORKLOADS, f"A3:{last}", 1, False], ["insert_rows", S.WORKLOADS, 5, 1],
           ["insert_columns", S.WORKLOADS, 5, 1]]
    jobs = [{"src": str(path), "dst": str(tmp_path / "edited.xlsx"), "ops": ops, "after": []}]
    (tmp_path / "jobs.json").write_text(json.dumps(jobs))
    run = subprocess.run([UNO_PYTHON, str(LO_EDIT), str(tmp_path / "jobs.json")], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr
    book = openpyxl.load_workbook(tmp_path / "edited.xlsx", data_only=True)
    assert [r[1] for r in _rows_by_name(book[S.WORKLOADS])][:3] == ["reasoning", "coding agent", "chat"]   # sorted
    _assert_closed_forms(book[S.WORKLOADS], scenario)
    assert book[S.CHECKS]["B1"].value == 0
    back = read_scenario(tmp_path / "edited.xlsx")
    for plan, was in zip(back.plans, scenario.plans):
        assert sorted(plan.workloads, key=lambda c: c.class_) == sorted(was.workloads, key=lambda c: c.class_)


@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice not installed")
def test_libreoffice_recalculation_of_a_mix_equals_the_engine(written, tmp_path):
    """Results and CashFlow of plans with request classes (three classes; chat and an agentic class) read the
    requests each plan serves from Results' served rows: LibreOffice's recalculation is the engine's, cell for cell;
    a plan without classes reads its Plans keys there, live."""
    from tcoapp.engine.pipeline.compute import compute_scenario
    from tcoapp.io.xlsx_layout import served_key

    from .workbook_recalc import compare

    scenario, path = written
    results = compute_scenario(scenario)
    (out,) = recalc([path], tmp_path / "lo")
    assert compare(out, scenario, results) == []
    book = openpyxl.load_workbook(path)
    results_sheet = book[S.RESULTS]
    row = next(r for r in range(1, results_sheet.max_row + 1)
               if results_sheet.cell(r, 1).value == served_key("input_tokens"))
    mix, plain = results_sheet.cell(row, S.FIRST_PLAN_COLUMN).value, results_sheet.cell(row, S.FIRST_PLAN_COLUMN + 2).value
    assert mix == pytest.approx(results[0].workloads_blended["input_tokens"])
    assert isinstance(plain, str) and plain.startswith(f"={S.PLANS}!")
    assert results[1].agentic is not None   # compare() read its agents per MW and cost per agent-hour, recalculated


def test_the_agentic_answer_has_its_results_rows(written):
    """A plan with an agentic class: concurrent agents per device (an engine value), agents per MW and cost per
    agent-hour (live formulas on its pool's devices and power, the plan's PUE and utilization and its cost per
    device-hour), each cached at the engine's number; plans without one read n/a, never 0."""
    from tcoapp.engine.pipeline.compute import compute_scenario
    from tcoapp.engine.quantities.names import label, unit
    from tcoapp.io.xlsx_agentic import AGENTIC_KEYS, AGENTIC_TITLE

    scenario, path = written
    results = compute_scenario(scenario)
    assert [r.agentic is not None for r in results[:3]] == [False, True, False]
    sheet, cached = openpyxl.load_workbook(path)[S.RESULTS], openpyxl.load_workbook(path, data_only=True)[S.RESULTS]
    rows = {sheet.cell(r, 1).value: r for r in range(1, sheet.max_row + 1)}
    assert sheet.cell(rows[AGENTIC_KEYS[0]] - 1, 1).value == AGENTIC_TITLE
    for key in AGENTIC_KEYS:
        row = rows[key]
        assert sheet.cell(row, 2).value == f"{label(key)} ({unit(key)})"
        assert [sheet.cell(row, S.FIRST_PLAN_COLUMN + i).value for i in (0, 2)] == ["n/a", "n/a"]
        want = results[1].agentic[key]
        assert cached.cell(row, S.FIRST_PLAN_COLUMN + 1).value == pytest.approx(want, rel=1e-12)
    col = openpyxl.utils.get_column_letter(S.FIRST_PLAN_COLUMN + 1)
    per_mw = sheet.cell(rows["agents_per_mw"], S.FIRST_PLAN_COLUMN + 1).value
    assert per_mw.startswith("=") and f"{col}{rows['pool1.it_provisioned_kw']}" in per_mw and "W_PER_KW" in per_mw
    hourly = sheet.cell(rows["cost_per_agent_hour_usd"], S.FIRST_PLAN_COLUMN + 1).value
    assert f"{col}{rows['cost_per_device_hour_usd']}" in hourly and f"{col}{rows[AGENTIC_KEYS[0]]}" in hourly


def test_a_workbook_without_an_agentic_class_has_no_agentic_rows(tmp_path):
    """Request classes but none agentic: Results ends with the requests served, as before agentic rows existed."""
    from tcoapp.io.xlsx_agentic import AGENTIC_KEYS
    from tcoapp.io.xlsx_layout import served_key
    from tcoapp.engine.quantities.inputs import EQUIVALENT_KEYS

    scenario = read_scenario(SAMPLE)
    first = scenario.plans[0]
    from .workloads_scenarios import three_classes
    path = tmp_path / "no_agents.xlsx"
    write_scenario(scenario.replace_plan(0, first.with_(workloads=three_classes(first.name))), path)
    sheet = openpyxl.load_workbook(path)[S.RESULTS]
    keys = [sheet.cell(r, 1).value for r in range(1, sheet.max_row + 1)]
    assert not set(AGENTIC_KEYS) & set(keys)
    assert keys[-1] == served_key(EQUIVALENT_KEYS[-1])
