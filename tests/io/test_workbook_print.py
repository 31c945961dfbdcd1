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
from tcoapp.io.xlsx_print import A4, BODY_FONT_PT, LETTER, MIN_PRINTED_PT, paper_size, printed_pt

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
    assert set(wb.sheetnames) == set(S.KNOWN_SHEETS) - {S.WORKLOADS}   # Workloads: only a plan with request classes
    for ws in wb.worksheets:
        setup = ws.page_setup
        assert ws.print_area, ws.title
        assert setup.orientation in ("landscape", "portrait"), ws.title
        # fit to the pages across its columns take at READABLE_SCALE (>= 8 pt), as many down as its rows take
        assert ws.sheet_properties.pageSetUpPr.fitToPage and setup.fitToWidth >= 1 and setup.fitToHeight == 0, ws.title
        assert printed_pt(setup.scale) >= MIN_PRINTED_PT, (ws.title, setup.scale)
        assert setup.paperSize in (LETTER, A4), ws.title
        assert ws.oddFooter.center.text, ws.title


def test_wide_tables_split_plans_across_pages_with_titles_repeated(exported):
    wb = openpyxl.load_workbook(exported["hopper_to_blackwell_power_limited"])
    for name in WIDE:
        ws = wb[name]
        assert ws.page_setup.orientation == "landscape", name
        assert ws.print_title_cols in ("$A:$B", "$B:$B"), (name, ws.print_title_cols)
        assert ws.print_title_rows in ("$1:$1", "$1:$2"), (name, ws.print_title_rows)
        last = re.search(r"\$([A-Z]+)\$\d+$", ws.print_area.split(",")[0]).group(1)  # every plan column is printed
        if name == S.CASH_FLOW:   # the years of the longest horizon
            years = max(p.years for p in read_scenario(exported["hopper_to_blackwell_power_limited"]).plans)
            assert openpyxl.utils.column_index_from_string(last) == S.FIRST_PLAN_COLUMN + years, ws.print_area
            continue
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


@pytest.mark.parametrize("environ, paper", [({"LANG": "de_DE.UTF-8"}, A4), ({"LANG": "en_US.UTF-8"}, LETTER),
                                            ({"LANG": "en_GB.UTF-8"}, A4), ({"LC_PAPER": "fr_CA.UTF-8", "LANG": "de_DE"}, LETTER),
                                            ({"LC_ALL": "de_DE.UTF-8", "LC_PAPER": "en_US.UTF-8"}, A4)])
def test_paper_follows_the_locale(environ, paper):
    assert paper_size(environ) == paper


def test_the_written_paper_follows_lc_paper(tmp_path, monkeypatch):
    from tcoapp.io.default_scenario import default_scenario
    monkeypatch.setenv("LC_PAPER", "de_DE.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    write_scenario(default_scenario(), tmp_path / "de.xlsx")
    wb = openpyxl.load_workbook(tmp_path / "de.xlsx")
    assert {ws.page_setup.paperSize for ws in wb.worksheets} == {A4}


def _pdf_pages(pdf: pathlib.Path) -> dict[str, int]:
    """Pages of each sheet, by the footer every page carries ("Sheet: page P of N")."""
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    pages: dict[str, int] = {}
    for sheet in re.findall(r"^([A-Za-z]+): page \d+ of \d+", text, re.M):
        pages[sheet] = pages.get(sheet, 0) + 1
    return pages


def _smallest_text_pt(pdf: pathlib.Path) -> dict[str, float]:
    """Per sheet, the smallest median word height on its pages, in points of type (DejaVu's ascent + descent is
    1.164 em: LibreOffice's stand-in for Calibri here)."""
    xml = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    out: dict[str, float] = {}
    for page in xml.split("<page ")[1:]:
        words = re.findall(r'yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)<', page)
        footer = [w for w in words if re.fullmatch(r"[A-Za-z]+:", w[2])]
        heights = sorted(float(b) - float(a) for a, b, _ in words)
        if footer and heights:
            sheet = footer[-1][2].rstrip(":")
            out[sheet] = min(out.get(sheet, 99.0), heights[len(heights) // 2] / 1.164)
    return out


def _nine_plan_pdf(exported, tmp_path) -> tuple[pathlib.Path, int]:
    """The 9-plan sample as LibreOffice prints it, and its number of plans."""
    path = exported["hopper_to_blackwell_power_limited"]
    plans = len(read_scenario(path).plans)
    assert plans >= 9
    profile = tmp_path / "profile"
    subprocess.run([SOFFICE, f"-env:UserInstallation={profile.resolve().as_uri()}", "--headless", "--convert-to", "pdf",
                    "--outdir", str(tmp_path), str(path)], capture_output=True, timeout=600)
    return tmp_path / (path.stem + ".pdf"), plans


@pytest.mark.libreoffice
@pytest.mark.slow
@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice is not installed")
def test_a_nine_plan_workbook_prints_as_a_report(exported, tmp_path):
    """<= 40 pages at >= 8 pt; one CashFlow page per plan (its helper and detail rows collapsed); empty tables not printed; each Summary chart whole."""
    pdf, plans = _nine_plan_pdf(exported, tmp_path)
    pages = _pdf_pages(pdf)
    assert sum(pages.values()) <= 40, pages
    assert pages[S.CASH_FLOW] == plans, pages   # a plan block a page
    for empty in (S.POOLS, S.CURVES, S.UNCERTAINTY):   # this workbook's empty tables
        assert empty not in pages, pages
    sizes = _smallest_text_pt(pdf)
    small = {sheet: pt for sheet, pt in sizes.items() if sheet != S.SUMMARY and pt < MIN_PRINTED_PT - 0.05}
    assert not small, sizes   # (Summary's chart pages carry the charts' own smaller type)
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True).stdout
    chart_pages = [p for p in text.split("\f") if "Cumulative cash flow per plan" in p or "output tokens by" in p]
    assert len(chart_pages) == 2, len(chart_pages)   # each chart on one page, once (not cut at a page edge)


@pytest.mark.libreoffice
@pytest.mark.slow
@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice is not installed")
def test_the_nine_plan_results_sheet_prints_at_8_pt(exported, tmp_path):
    """LibreOffice lays columns out ~3 % wider than 6.25 pt a width unit (xlsx_print.PT_PER_WIDTH_UNIT): planned at
    6.25, the 9-plan Results sheet printed at 7.8 pt. Its labels longer than their column wrap, the whole label shown."""
    pdf, _ = _nine_plan_pdf(exported, tmp_path)
    assert _smallest_text_pt(pdf)[S.RESULTS] >= MIN_PRINTED_PT - 0.05
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True).stdout
    lines = [line.strip() for page in text.split("\f") if "Results: page" in page for line in page.splitlines()]
    label = lines.index("Cost per million output tokens: property tax")   # wrapped: its unit on the next line
    assert lines[label + 1].startswith("(USD/Mtok)"), lines[label:label + 2]


@pytest.mark.libreoffice
@pytest.mark.slow
@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice is not installed")
def test_a_small_devices_table_and_the_models_table_print_on_one_page_each(exported, tmp_path):
    """The 9-plan sample's Devices (3 rows x 27 columns) and Models (1 x 20) tables: on their side on the PrintedTables
    sheet, each whole on one page at >= 8 pt; the tables' own sheets print nothing."""
    pdf, _ = _nine_plan_pdf(exported, tmp_path)
    pages = _pdf_pages(pdf)
    assert pages.get(S.PRINTED_TABLES) == 2 and S.DEVICES not in pages and S.MODELS not in pages, pages
    assert _smallest_text_pt(pdf)[S.PRINTED_TABLES] >= MIN_PRINTED_PT - 0.05
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True).stdout
    specs = [page for page in text.split("\f") if "PrintedTables: page" in page]
    book = openpyxl.load_workbook(exported["hopper_to_blackwell_power_limited"])
    for page, table, last_label in zip(specs, (S.DEVICES, S.MODELS), ("Scale-out bandwidth", "Max context")):
        names = [row[0].value for row in book[table].iter_rows(min_row=S.FIRST_ENTRY_ROW, max_col=1) if row[0].value]
        assert names and all(name in page for name in names), (table, names)   # every entry, every field: one page
        assert last_label in page and "Notes" in page, table
