"""Print setup: every sheet has one; wide tables are never shrunk to fit (they print at >= 8 pt and split their
plan columns across pages with titles repeated); Checks prints its per-plan summary on a few pages; bulk data
(MonteCarloDraws, the Checks detail rows) is left out of the print area. Read back with openpyxl; one
LibreOffice PDF export counts the pages."""
from __future__ import annotations

import pathlib
import re
import subprocess

import openpyxl
import pytest

from tcoapp.io import sheets as S
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario
from tcoapp.io.xlsx_print import BODY_FONT_PT, MIN_PRINTED_PT, printed_pt

from .workbook_recalc import SOFFICE

SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "samples"
WIDE = (S.SUMMARY, S.PLANS, S.RESULTS, S.CASH_FLOW)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("print")
    paths = {}
    for name in ("hopper_to_blackwell_power_limited", "uncertainty_llama70b"):
        paths[name] = folder / f"{name}.xlsx"
        write_scenario(read_scenario(SAMPLES / f"{name}.xlsx"), paths[name])
    return paths


def test_every_sheet_has_a_deliberate_print_setup(exported):
    wb = openpyxl.load_workbook(exported["uncertainty_llama70b"])
    assert set(wb.sheetnames) == set(S.KNOWN_SHEETS)
    for ws in wb.worksheets:
        setup = ws.page_setup
        assert ws.print_area, ws.title
        assert setup.orientation in ("landscape", "portrait"), ws.title
        assert not ws.sheet_properties.pageSetUpPr.fitToPage, ws.title  # never shrunk to fit
        assert printed_pt(setup.scale) >= MIN_PRINTED_PT, (ws.title, setup.scale)
        assert ws.oddFooter.center.text, ws.title


def test_wide_tables_split_plans_across_pages_with_titles_repeated(exported):
    wb = openpyxl.load_workbook(exported["hopper_to_blackwell_power_limited"])
    for name in WIDE:
        ws = wb[name]
        assert ws.page_setup.orientation == "landscape", name
        assert ws.print_title_cols in ("$A:$B", "$B:$B"), (name, ws.print_title_cols)
        assert ws.print_title_rows in ("$1:$1", "$1:$2"), (name, ws.print_title_rows)
        last = re.search(r"\$([A-Z]+)\$\d+$", ws.print_area).group(1)  # every plan column is printed
        assert openpyxl.utils.column_index_from_string(last) >= S.FIRST_PLAN_COLUMN + 8, (name, ws.print_area)
    assert BODY_FONT_PT == 11


def test_bulk_data_is_out_of_the_print_area(exported):
    wb = openpyxl.load_workbook(exported["uncertainty_llama70b"])
    assert wb[S.MONTE_CARLO_DRAWS].print_area.endswith("$2")  # the header rows only
    checks = wb[S.CHECKS]
    last_row = int(re.search(r"(\d+)$", checks.print_area).group(1))
    plans = len(read_scenario(exported["uncertainty_llama70b"]).plans)
    assert last_row == 3 + plans  # master_check, montecarlo_check, the per-plan summary; not the detail rows
    assert [checks.cell(3, c).value for c in (2, 3, 4)] == ["name", "failing checks", "status"]  # status by the name


@pytest.mark.libreoffice
@pytest.mark.slow
@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice is not installed")
def test_libreoffice_prints_checks_and_bulk_sheets_on_a_few_pages(exported, tmp_path):
    """One sheet per file (the others removed), exported to PDF by LibreOffice; pages counted."""
    sheets = {S.CHECKS: 4, S.MONTE_CARLO_DRAWS: 4, S.SUMMARY: 3}
    files = []
    for sheet in sheets:
        wb = openpyxl.load_workbook(exported["uncertainty_llama70b"])
        for other in [n for n in wb.sheetnames if n != sheet]:
            wb.remove(wb[other])
        files.append(tmp_path / f"{sheet}.xlsx")
        wb.save(files[-1])
    profile = tmp_path / "profile"
    subprocess.run([SOFFICE, f"-env:UserInstallation={profile.resolve().as_uri()}", "--headless", "--convert-to", "pdf",
                    "--outdir", str(tmp_path), *map(str, files)], capture_output=True, timeout=600)
    for sheet, most in sheets.items():
        pdf = (tmp_path / f"{sheet}.pdf").read_bytes()
        pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
        assert 1 <= pages <= most, (sheet, pages)
