"""The desktop app shows the notes of how a workbook was read (the `note:` lines of `tcoapp compute`) on its problem
bar: a renamed input sheet read as its table, a sheet of the analyst's kept but not read."""
from __future__ import annotations

import pathlib

import openpyxl

SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "samples"


def _renamed(tmp_path):
    book = openpyxl.load_workbook(SAMPLES / "moe_rack_scale.xlsx")
    book["Pools"].title = "Fleet"
    book.create_sheet("My notes")["A1"] = "mine"
    path = tmp_path / "renamed.xlsx"
    book.save(path)
    return str(path)


def test_a_workbook_opened_at_start_shows_its_read_notes(open_window, tmp_path):
    window = open_window(_renamed(tmp_path))
    shown = window.problems.text()
    assert "sheet 'Fleet': read as the Pools table" in shown and "'My notes'" in shown, shown


def test_a_workbook_opened_from_the_menu_shows_its_read_notes(qtbot, open_window, tmp_path):
    window = open_window()
    path = _renamed(tmp_path)
    window.open_path(path, confirmed=True)
    qtbot.waitUntil(lambda: "read as the Pools table" in window.problems.text(), timeout=20000)
