"""Comments written as text (io/xlsx_fast_comments.py): the comments part and its VML drawing are openpyxl's bytes,
on the samples and on comments with texts ElementTree escapes; anything else is left to openpyxl."""
from __future__ import annotations

import datetime
import zipfile

import openpyxl
import pytest
from openpyxl.comments import Comment
from openpyxl.comments.comment_sheet import CommentRecord, CommentSheet
from openpyxl.xml.functions import tostring

from tcoapp.io import workbook_write, xlsx_fast_comments
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario
from tcoapp.io.xlsx_fast_comments import comments_vml, comments_xml, plain_comments


def _sheet(comments: list[tuple[str, Comment]]) -> CommentSheet:
    ws = openpyxl.Workbook().active
    records = []
    for ref, comment in comments:
        ws[ref].comment = comment
        records.append(CommentRecord.from_cell(ws[ref]))
    return CommentSheet.from_comments(records)


def _openpyxl(sheet: CommentSheet) -> tuple[bytes, bytes]:
    return tostring(sheet.to_tree()), sheet.write_shapes(None)


ODD = [("A1", Comment("plain", "tcoapp")), ("B2", Comment("  padded\nlines  ", "tcoapp", height=120, width=320)),
       ("AA10", Comment('R&D <x> "q" \'a\' é€ \t', "someone else", height=79.5, width=144.25)),
       ("XFD1048576", Comment("   ", "tcoapp")), ("C3", Comment("a]]>b", "someone else"))]


def test_odd_texts_are_written_as_openpyxl_writes_them():
    sheet = _sheet(ODD)
    assert plain_comments(sheet.commentList)
    assert (comments_xml(sheet), comments_vml(sheet)) == _openpyxl(sheet)


@pytest.mark.parametrize("sample", ["gpu_cloud_financed", "uncertainty_llama70b"])
def test_a_sample_saves_the_same_comment_parts(sample, tmp_path, monkeypatch):
    scenario = read_scenario(f"samples/{sample}.xlsx")
    fast, slow = tmp_path / "fast.xlsx", tmp_path / "slow.xlsx"
    used = []
    check = xlsx_fast_comments.fast
    monkeypatch.setattr(workbook_write, "fast_comments", lambda book, ws: used.append(check(book, ws)) or used[-1])
    written = datetime.datetime(2026, 1, 2, 3, 4, 5)   # the About sheet's date: the same in both
    write_scenario(scenario, fast, written=written)
    monkeypatch.setattr(workbook_write, "fast_comments", lambda book, ws: False)
    write_scenario(scenario, slow, written=written)
    assert used and all(used)
    with zipfile.ZipFile(fast) as a, zipfile.ZipFile(slow) as b:
        assert a.namelist() == b.namelist()
        names = [n for n in a.namelist() if "comment" in n or n.endswith(".rels") or n == "[Content_Types].xml"
                 or n.startswith("xl/worksheets/sheet")]
        assert any(n.startswith("xl/comments/") for n in names)
        for name in names:
            assert a.read(name) == b.read(name), name


@pytest.mark.parametrize("change", [
    lambda r: setattr(r.text, "t", ""),              # an empty text
    lambda r: setattr(r.text, "t", None),            # none
    lambda r: setattr(r, "shapeId", 3),              # a shape of its own
    lambda r: setattr(r, "author", " padded "),      # an author ElementTree would not write as given
])
def test_other_comments_are_left_to_openpyxl(change):
    sheet = _sheet(ODD)
    change(sheet.commentList[1])
    assert not plain_comments(sheet.commentList)
