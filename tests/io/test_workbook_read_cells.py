"""The streaming cell reader (io/xlsx_cells_read.py): what Excel and LibreOffice write is read as openpyxl
reads it (shared strings with rich text and phonetic runs, inline strings, shared formulas, dates, errors),
only cells holding something count, and oversized files are refused in one line, quickly."""
from __future__ import annotations

import datetime
import re
import time
import zipfile

import openpyxl
import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.io import sheets as S
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario
from tcoapp.io.xlsx_cells_read import TooManyCells, read_cells

from .broken.corpus import _patch_member

MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"


_patched = _patch_member  # src with one zip member's bytes transformed, written to dst


SST_REL = ('<Relationship Id="rIdSst" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
           'sharedStrings" Target="sharedStrings.xml"/>')
SST_TYPE = ('<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.'
            'spreadsheetml.sharedStrings+xml"/>')
INLINE = re.compile(rb'<c ([^>]*?)t="inlineStr"([^>]*)><is><t[^>]*>(.*?)</t></is></c>', re.S)


def with_shared_strings(src, dst, sheet_xml: dict[str, bytes] | None = None, strings_xml: bytes | None = None,
                        unused: int = 0):
    """`src` rewritten as Excel and LibreOffice write text: every inline string moved to a shared string table
    (openpyxl writes inline strings), `unused` unused strings appended; or the given sheet and table XML."""
    table: dict[bytes, int] = {}

    def shared(match):
        index = table.setdefault(match.group(3), len(table))
        return b'<c %st="s"%s><v>%d</v></c>' % (match.group(1), match.group(2), index)

    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if sheet_xml and item.filename in sheet_xml:
                data = sheet_xml[item.filename]
            elif item.filename.startswith("xl/worksheets/sheet"):
                data = INLINE.sub(shared, data)
            if item.filename == "xl/_rels/workbook.xml.rels":
                data = data.replace(b"</Relationships>", SST_REL.encode() + b"</Relationships>")
            if item.filename == "[Content_Types].xml":
                data = data.replace(b"</Types>", SST_TYPE.encode() + b"</Types>")
            zout.writestr(item, data)
        if strings_xml is None:
            items = b"".join(b"<si><t>%s</t></si>" % text for text in table)
            items += b"".join(b"<si><t>unused %d</t></si>" % i for i in range(unused))
            strings_xml = b'<sst xmlns="%s">%s</sst>' % (MAIN.encode(), items)
        zout.writestr("xl/sharedStrings.xml", strings_xml)
    return dst


def _book(tmp_path, sheet: bytes, strings_xml: bytes):
    wb = openpyxl.Workbook()
    wb.active.title = "Plans"
    wb.active["B2"] = datetime.datetime(2024, 1, 2)  # a date style (index 1)
    wb.save(tmp_path / "src.xlsx")
    return with_shared_strings(tmp_path / "src.xlsx", tmp_path / "book.xlsx", {"xl/worksheets/sheet1.xml": sheet},
                               strings_xml)


SHEET = (f'<worksheet xmlns="{MAIN}"><sheetData>'
         '<row r="1"><c r="A1" t="s"><v>2</v></c><c r="B1" t="s"><v>0</v></c><c r="C1" t="inlineStr"><is><r><t>in</t></r>'
         '<r><t>line</t></r><rPh><t>x</t></rPh></is></c><c r="D1" t="e"><v>#REF!</v></c><c r="E1" t="b"><v>1</v></c></row>'
         '<row r="2"><c r="A2"><v>7</v></c><c r="B2" s="1"><v>45293</v></c><c r="C2"><f>A2*2</f><v>14</v></c>'
         '<c r="D2"><f t="shared" ref="D2:D3" si="0">A2+1</f></c></row>'
         '<row r="3"><c r="D3"><f t="shared" si="0"/></c></row>'
         '<row r="1048576" customFormat="false" ht="12.8"></row>'
         '</sheetData></worksheet>').encode()


def test_values_formulas_and_strings_as_openpyxl_reads_them(tmp_path):
    strings = (f'<sst xmlns="{MAIN}" count="3" uniqueCount="3"><si><r><t>ri</t></r><r><rPr/><t>ch</t></r>'
               '<rPh><t>ph</t></rPh></si><si/><si><t xml:space="preserve"> plain </t></si></sst>').encode()
    path = _book(tmp_path, SHEET, strings)
    names, cells = read_cells(path, {"Plans"}, 100, 100)
    sheet = cells["Plans"]
    assert names == {"Plans": "worksheet"}
    values = sheet.values
    assert values[1] == {1: " plain ", 2: "rich", 3: "inline", 4: "#REF!", 5: True}
    assert values[2][1] == 7 and values[2][3] == 14
    assert values[2][2] == datetime.datetime(2024, 1, 2)  # a date-formatted number is a datetime, as in openpyxl
    assert sheet.formulas[(2, 4)] == "=A2+1" and sheet.formulas[(3, 4)] == "=A3+1"  # shared formula, translated
    assert 1048576 not in values  # the padding row holds nothing


def test_a_table_with_comments_is_parsed_whole(tmp_path):
    strings = (f'<sst xmlns="{MAIN}"><!-- a <si> in a comment --><si><t>a</t></si><si><t>b</t></si>'
               '<si><t>c</t></si></sst>').encode()
    path = _book(tmp_path, SHEET, strings)
    assert read_cells(path, {"Plans"}, 100, 100)[1]["Plans"].values[1][1] == "c"


def test_only_cells_holding_something_count(tmp_path):
    path = _book(tmp_path, SHEET, f'<sst xmlns="{MAIN}"><si><t>a</t></si><si><t>b</t></si><si><t>c</t></si></sst>'.encode())
    with pytest.raises(TooManyCells):
        read_cells(path, {"Plans"}, 5, 100)
    empty = b"".join(b'<row r="%d"><c r="A%d" s="1"/><c r="XFD%d" s="1"/></row>' % (r, r, r) for r in range(10, 20000))
    padded = _patched(path, tmp_path / "padded.xlsx", "xl/worksheets/sheet1.xml",
                      lambda d: d.replace(b'<row r="1048576"', empty + b'<row r="1048576"'))
    assert set(read_cells(padded, {"Plans"}, 10, 100)[1]["Plans"].values) == {1, 2}  # 39,980 empty cells: none count


def _lo_strings_book(tmp_path, extra: int):
    """The default export with its text in a shared string table and `extra` unused strings after it."""
    src = tmp_path / "plain.xlsx"
    write_scenario(default_scenario(), src)
    return with_shared_strings(src, tmp_path / f"unused_{extra}.xlsx", unused=extra)


@pytest.mark.slow
def test_unused_shared_strings_cost_little_and_too_many_are_refused_in_one_line(tmp_path):
    path = _lo_strings_book(tmp_path, 900_000)
    start = time.perf_counter()
    assert read_scenario(path).plans == default_scenario().plans
    assert time.perf_counter() - start < 10  # openpyxl needs ~35 s to open it
    path = _lo_strings_book(tmp_path, S.MAX_SHARED_STRINGS + 10)
    start = time.perf_counter()
    with pytest.raises(ValidationError) as info:
        read_scenario(path)
    assert time.perf_counter() - start < 5
    assert len(str(info.value).splitlines()) == 1 and "shared string table" in str(info.value)


@pytest.mark.slow
def test_more_plans_than_the_limit_are_refused_in_one_line(tmp_path):
    src = tmp_path / "src.xlsx"
    write_scenario(default_scenario().with_plans(default_scenario().plans[:1]), src)
    n = S.MAX_PLANS * 10

    def many(xml: bytes) -> bytes:
        head = b"".join(b'<c r="%s1" t="inlineStr"><is><t>plan %d</t></is></c>'
                        % (openpyxl.utils.get_column_letter(3 + i).encode(), i) for i in range(1, min(n, 16000)))
        return xml.replace(b"</row>", head + b"</row>", 1)
    path = _patched(src, tmp_path / "many.xlsx", "xl/worksheets/sheet2.xml", many)
    start = time.perf_counter()
    with pytest.raises(ValidationError) as info:
        read_scenario(path)
    assert time.perf_counter() - start < 5
    assert "at most 1,000 plans" in str(info.value) and len(info.value.problems) == 1


@pytest.mark.parametrize("ref", ["ZZZZ99999999", "XFE1", "A0", "A1048577", "1A"])
def test_a_cell_outside_any_sheet_is_refused_in_one_line(tmp_path, ref):
    """A damaged cell reference (the fuzzer's ZZZZ99999999 reached openpyxl's column letters: internal error)."""
    src = tmp_path / "good.xlsx"
    write_scenario(default_scenario(), src)
    wb = openpyxl.load_workbook(src, read_only=True)
    member = f"xl/worksheets/sheet{wb.sheetnames.index(S.PLANS) + 1}.xml"  # openpyxl numbers parts in sheet order
    bad = _patched(src, tmp_path / "bad.xlsx", member,
                   lambda data: re.sub(rb'<c r="[A-Z]+[0-9]+"', b'<c r="%s"' % ref.encode(), data, count=1))
    with pytest.raises(ValidationError) as error:
        read_scenario(bad)
    assert "outside any sheet (columns A..XFD, rows 1..1,048,576)" in str(error.value) and ref in str(error.value)


def test_a_row_holding_only_uncached_formulas_is_read(tmp_path):
    """A formula with no saved value alone in its row is named at its cell (it was a KeyError: internal error)."""
    path = tmp_path / "good.xlsx"
    write_scenario(default_scenario(), path)
    wb = openpyxl.load_workbook(path)
    row = wb[S.DEVICES].max_row + 2
    wb[S.DEVICES].cell(row, 2).value = "=A1"
    wb.save(tmp_path / "formula.xlsx")
    with pytest.raises(ValidationError) as error:
        read_scenario(tmp_path / "formula.xlsx")
    assert f"Devices!B{row} vendor: holds the formula =A1 with no saved value" in str(error.value)
