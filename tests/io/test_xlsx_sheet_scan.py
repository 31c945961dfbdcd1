"""The worksheet scan (io/xlsx_sheet_scan.py) reads every cell as the expat reader does, and hands a sheet in any
other shape back to that reader: a sheet is never read differently because the scan read it."""
from __future__ import annotations

import datetime
import xml.parsers.expat

import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.io import xlsx_sheet_scan
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario
from tcoapp.io.xlsx_cells_read import RefusedXml, TooManyCells, read_cells

from .test_workbook_read_cells import MAIN, SHEET, _book, _patched

STRINGS = f'<sst xmlns="{MAIN}"><si><t>a</t></si><si><t>b</t></si><si><t>c</t></si></sst>'.encode()

PLAIN = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="{MAIN}" xmlns:x14ac="urn:x14ac"><cols><col min="1" '
         'max="2" width="9"/></cols><sheetData>'
         '<row r="1" spans="1:6" x14ac:dyDescent="0.25"><c r="A1" s="1" t="s"><v>2</v></c><c r="B1" t="inlineStr">'
         '<is><t xml:space="preserve"> R&amp;D &lt;x&gt; &#233;&#x20AC; </t></is></c><c r="C1" t="b"><v>0</v></c>'
         '<c r="D1" t="e"><v>#N/A</v></c><c r="E1" t="str"><f>"a"&amp;"b"</f><v>ab</v></c><c r="F1" s="0" t="n" />'
         '</row><row r="2"><c r="A2"><v>7</v></c><c r="B2" s="1"><v>45293</v></c><c r="C2"><v>1.5E3</v></c>'
         '<c r="D2"><f t="shared" ref="D2:D3" si="0">A2+1</f><v>8</v></c><c r="E2" t="inlineStr"><is><t/></is></c>'
         '<c r="F2"><v>-0.25</v></c><c r="AB2"><v>0012</v></c></row>'
         '<row r="3"><c r="D3"><f t="shared" si="0"/></c></row><row r="5"/><row r="1048576" ht="12.8"></row>'
         '</sheetData><pageMargins left="0.7"/></worksheet>').encode()


def _both(tmp_path, monkeypatch, sheet: bytes, strings: bytes = STRINGS):
    """(cells read with the scan, cells read by expat alone, whether the scan read the sheet)."""
    path = _book(tmp_path, sheet, strings)
    used = []
    scan = xlsx_sheet_scan.scan_sheet
    monkeypatch.setattr(xlsx_sheet_scan, "scan_sheet", lambda data, reader: used.append(scan(data, reader)) or used[-1])
    scanned = read_cells(path, {"Plans"}, 100_000, 1000)[1]["Plans"]
    monkeypatch.setattr(xlsx_sheet_scan, "scan_sheet", lambda data, reader: False)
    parsed = read_cells(path, {"Plans"}, 100_000, 1000)[1]["Plans"]
    return scanned, parsed, used == [True]


def test_a_plain_sheet_is_scanned_and_read_as_expat_reads_it(tmp_path, monkeypatch):
    scanned, parsed, was_scanned = _both(tmp_path, monkeypatch, PLAIN)
    assert was_scanned
    assert scanned.values == parsed.values and scanned.formulas == parsed.formulas
    assert scanned.values[1] == {1: "c", 2: " R&D <x> é€ ", 3: False, 4: "#N/A", 5: "ab"}
    assert scanned.values[2] == {1: 7, 2: datetime.datetime(2024, 1, 2), 3: 1500.0, 4: 8, 5: "", 6: -0.25, 28: 12}
    assert scanned.formulas == {(1, 5): '="a"&"b"', (2, 4): "=A2+1", (3, 4): "=A3+1"}


@pytest.mark.parametrize("change", [
    ("<row r=\"2\">", "\n  <row r=\"2\">"),
    ('<row r="2">', '<row r="2" x15:dy="1">'),                         # a prefix not declared                          # whitespace between elements
    ('<c r="A2">', '<c s="0" r="A2">'),                                # another attribute order
    ('<c r="A2">', '<c r="A2" cm="1">'),                               # an attribute the scan does not know
    ("<v>7</v>", "<v>7</v><extLst/>"),                                 # an element the scan does not know
    ("<v>7</v>", "<!-- seven --><v>7</v>"),                            # a comment
    ("&#233;", "&#1;"),                                                # a character XML does not allow
    ("&#233;", "\uffff"),                                             # another one, as it is
    ("R&amp;D", "R&nbsp;D"),                                           # an entity XML does not define
    ("<t xml:space=\"preserve\"> R", "<r><t>rich</t></r><t xml:space=\"preserve\"> R"),   # rich text
    ('<c r="A2">', '<c r="a2">'),                                      # a reference not in capitals
    ('<c r="A2">', '<c r="A0">'),                                      # a row outside any sheet
    ('<sheetData>', '<sheetData xmlns="urn:other">'),                  # another namespace
    ('</sheetData>', '</sheetData><sheetData></sheetData>'),           # two tables
    ('<pageMargins left="0.7"/>', '<c r="Z9"><v>1</v></c><pageMargins left="0.7"/>'),   # a cell outside sheetData
    ('<c r="B2" s="1"><v>45293</v></c>', '<c r="B2" s="1"><v>45293</v></c>\r'),          # a carriage return
])
def test_any_other_shape_is_read_by_expat(tmp_path, monkeypatch, change):
    old, new = change
    assert old.encode() in PLAIN
    sheet = PLAIN.replace(old.encode(), new.encode(), 1)
    try:
        scanned, parsed, was_scanned = _both(tmp_path, monkeypatch, sheet)
    except (ValueError, ValidationError, xml.parsers.expat.ExpatError) as scanned_error:   # refused: refused the same way without the scan
        monkeypatch.setattr(xlsx_sheet_scan, "scan_sheet", lambda data, reader: False)
        with pytest.raises(type(scanned_error)) as parsed_error:
            read_cells(_book(tmp_path, sheet, STRINGS), {"Plans"}, 1000, 1000)
        assert str(parsed_error.value) == str(scanned_error)
        return
    assert not was_scanned
    assert scanned.values == parsed.values and scanned.formulas == parsed.formulas


def test_the_test_sheet_of_the_reader_reads_alike(tmp_path, monkeypatch):
    scanned, parsed, _ = _both(tmp_path, monkeypatch, SHEET)
    assert scanned.values == parsed.values and scanned.formulas == parsed.formulas


def test_a_damaged_value_and_a_dtd_are_refused_as_before(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match=r"Plans!A2 stores 'x7'"):
        _both(tmp_path, monkeypatch, PLAIN.replace(b"<v>7</v>", b"<v>x7</v>"))
    dtd = PLAIN.replace(b"<worksheet", b'<!DOCTYPE w [<!ENTITY e "x">]><worksheet', 1)
    with pytest.raises(RefusedXml):
        read_cells(_book(tmp_path, dtd, STRINGS), {"Plans"}, 1000, 1000)
    with pytest.raises(TooManyCells):
        read_cells(_book(tmp_path, PLAIN, STRINGS), {"Plans"}, 5, 1000)


def test_a_sheet_scanned_in_chunks_reads_as_one(tmp_path, monkeypatch):
    rows = b"".join(b'<row r="%d"><c r="A%d"><v>%d</v></c><c r="B%d" t="s"><v>1</v></c><c r="C%d" t="inlineStr">'
                    b'<is><t>t%d</t></is></c></row>' % (r, r, r, r, r, r) for r in range(1, 2001))
    sheet = f'<worksheet xmlns="{MAIN}"><sheetData>'.encode() + rows + b"</sheetData></worksheet>"
    monkeypatch.setattr(xlsx_sheet_scan, "CHUNK_BYTES", 100)
    scanned, parsed, was_scanned = _both(tmp_path, monkeypatch, sheet)
    assert was_scanned and scanned.values == parsed.values and len(scanned.values) == 2000
    assert scanned.values[1999] == {1: 1999, 2: "b", 3: "t1999"}


def test_a_written_workbook_reads_back_through_the_scan(tmp_path):
    path = tmp_path / "book.xlsx"
    write_scenario(default_scenario(), path)
    assert read_scenario(path).plans == default_scenario().plans
    bad = _patched(path, tmp_path / "bad.xlsx", "xl/worksheets/sheet2.xml", lambda d: d.replace(b"<sheetData>", b"<sheetData><row", 1))
    with pytest.raises(ValidationError, match="damaged"):
        read_scenario(bad)


def test_chunks_of_numbers_and_shared_strings_take_the_short_scan_and_read_as_expat_reads_them(tmp_path, monkeypatch):
    # rows of numbers, shared strings and empty formatted cells (the short scan's), with a row holding a date cell
    # and one an inline string: those chunks are read again by the full scan, from their start
    rows = b"".join(b'<row r="%d"><c r="A%d"><v>%d</v></c><c r="B%d" s="0" t="s"><v>1</v></c><c r="C%d" s="0" t="n"/>'
                    b'<c r="D%d" t="n"><v>1.5E%d</v></c></row>' % (r, r, r, r, r, r, r % 7) for r in range(1, 401))
    rows = rows.replace(b'<c r="C200" s="0" t="n"/>', b'<c r="C200" s="1"><v>45293</v></c>')
    rows = rows.replace(b'<c r="C300" s="0" t="n"/>', b'<c r="C300" t="inlineStr"><is><t>x</t></is></c>')
    sheet = f'<worksheet xmlns="{MAIN}"><sheetData>'.encode() + rows + b"</sheetData></worksheet>"
    monkeypatch.setattr(xlsx_sheet_scan, "CHUNK_BYTES", 200)
    short = []

    def counted(scan):
        def chunk(text, reader):
            try:
                scan(text, reader)
            except xlsx_sheet_scan._NotSimple:
                short.append((scan.__name__, False))
                raise
            short.append((scan.__name__, True))
        return chunk
    for name in ("_simple_chunk", "_short_chunk", "_full_chunk"):
        monkeypatch.setattr(xlsx_sheet_scan, name, counted(getattr(xlsx_sheet_scan, name)))
    scanned, parsed, was_scanned = _both(tmp_path, monkeypatch, sheet)
    assert was_scanned and scanned.values == parsed.values and len(scanned.values) == 400
    # the date cell's chunk is in the short shape (refused by _short_chunk); the inline string's is not, and goes to
    # _full_chunk without being tokenized by _simple_chunk first (which would refuse it at that cell)
    assert sorted(x for x in short if not x[1]) == [("_short_chunk", False)]
    assert short.count(("_full_chunk", True)) == 2
    assert short.count(("_short_chunk", True)) > 100
    assert scanned.values[7] == {1: 7, 2: "b", 4: 1.5} and scanned.values[200][3] == datetime.datetime(2024, 1, 2)
    assert scanned.values[300][3] == "x"


@pytest.mark.parametrize("chunk", [
    '<row r="7"><c r="A7"><v>7</v></c><c r="B7" s="0" t="s"><v>1</v></c><c r="C7" s="2" t="n" /></row>',
    '<row r="7" spans="1:3" ht="12.8" customHeight="1"><c r="A7" t="n"><v>-1.5E-3</v></c><c r="B7" t="n"><v></v></c>'
    '<c r="C7" s="4"/></row><row r="9"/><row r="10" ht="3" />',                   # rows ending the chunk without cells
    '<row r="3"><c r="D3"><v>1</v></c></row><row r="4"><c r="A5"><v>2</v></c><c r="AB5" t="s"><v>0</v></c>'
    '<c r="XFD5"><v>3</v></c></row>',                                            # a cell's row not its row tag's
    '<row r="2"><c r="C2"><v>1</v></c><c r="A2"><v>2</v></c><c r="C2"><v>3</v></c></row>',   # out of order, twice
    '<row r="1"><c r="A1"><v>1</v></c></row><row r="1"><c r="B1" t="s"><v>2</v></c></row>',  # a row twice
    '<c r="B4"><v>4</v></c></row><row r="5" />',                                  # cells before any row tag
    '',
])
def test_the_short_scan_stores_what_the_simple_scan_stores(chunk):
    """_short_chunk (a chunk in the short shape: only the cells holding a value visited) leaves the same cells, in the
    same order, the same count charged and the reader at the same row and column as _simple_chunk."""
    from tcoapp.io.xlsx_cells_read import SheetCells, _SheetReader

    assert xlsx_sheet_scan._SHORT_SHAPE.fullmatch(chunk)
    readers = []
    for scan in (xlsx_sheet_scan._simple_chunk, xlsx_sheet_scan._short_chunk):
        reader = _SheetReader(SheetCells("Plans"), {3}, set(), None, [1000])
        reader.row, reader.col = 6, 2
        reader.cells.values[6] = {1: 0.5}
        scan(chunk, reader)
        readers.append(reader)
    simple, short = readers
    assert [(row, list(cells.items())) for row, cells in short.cells.values.items()] == \
        [(row, list(cells.items())) for row, cells in simple.cells.values.items()]
    assert (short.row, short.col, short.budget) == (simple.row, simple.col, simple.budget)


@pytest.mark.parametrize("chunk", [
    '<row r="1"><c r="A1"><v>x</v></c></row>',                      # not a number
    '<row r="1"><c r="A1" s="3"><v>45293</v></c></row>',            # a date's style
    '<row r="1"><c r="A1" t="b"><v>1</v></c></row>',                # a boolean
])
def test_the_short_scan_refuses_what_the_simple_scan_refuses(chunk):
    from tcoapp.io.xlsx_cells_read import SheetCells, _SheetReader

    assert xlsx_sheet_scan._SHORT_SHAPE.fullmatch(chunk)
    for scan in (xlsx_sheet_scan._simple_chunk, xlsx_sheet_scan._short_chunk):
        with pytest.raises(xlsx_sheet_scan._NotSimple):
            scan(chunk, _SheetReader(SheetCells("Plans"), {3}, set(), None, [1000]))


@pytest.mark.parametrize("chunk", [
    '<row r="1"><c r="A0"><v>1</v></c></row>',                      # a row outside any sheet
    '<row r="1"><c r="A1048577" /></row>',                          # another, in an empty cell
    '<row r="1"><c r="XFE1" /></row>',                              # a column outside any sheet
    '<row r="1"><c r="A01"><v>1</v></c></row>',                     # a leading zero
    '<row spans="1:2" r="1"><c r="A1"><v>1</v></c></row>',          # the row's number not first
    '<row r="1"><c r="A1" t="inlineStr"><is><t>x</t></is></c></row>',   # an inline string
])
def test_a_chunk_outside_the_short_shape_is_left_to_the_simple_scan(chunk):
    assert not xlsx_sheet_scan._SHORT_SHAPE.fullmatch(chunk)
