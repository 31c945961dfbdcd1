"""Comments written as text (io/xlsx_fast_comments.py): the comments part and its VML drawing are openpyxl's bytes,
on the samples and on comments with texts ElementTree escapes, written from the cells' comments (no CommentRecord);
anything else is left to openpyxl, which is given its CommentRecords."""
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
from tcoapp.io.xlsx_fast_comments import comment_records, comments_vml, comments_xml, plain_cell_comments
from tcoapp.io.xlsx_fast_rows import CellComment


def _comments(comments: list[tuple[str, Comment]]) -> list[CellComment]:
    """The comments as FastRowsWriter records them, set on cells of a sheet (as the workbook's are)."""
    ws = openpyxl.Workbook().active
    for ref, comment in comments:
        ws[ref].comment = comment
    return [CellComment(ws[ref].coordinate, ws[ref].comment) for ref, _ in comments]


def _sheet(comments: list[CellComment]) -> CommentSheet:
    """openpyxl's comment sheet of the same cells (CommentRecord.from_cell, as its worksheet writer makes them)."""
    ws = openpyxl.Workbook().active
    records = []
    for item in comments:
        ws[item.ref].comment = Comment(item.comment.content, item.comment.author, item.comment.height,
                                       item.comment.width)
        records.append(CommentRecord.from_cell(ws[item.ref]))
    return CommentSheet.from_comments(records)


def _openpyxl(sheet: CommentSheet) -> tuple[bytes, bytes]:
    return tostring(sheet.to_tree()), sheet.write_shapes(None)


ODD = [("A1", Comment("plain", "tcoapp")), ("B2", Comment("  padded\nlines  ", "tcoapp", height=120, width=320)),
       ("AA10", Comment('R&D <x> "q" \'a\' é€ \t', "someone else", height=79.5, width=144.25)),
       ("XFD1048576", Comment("   ", "tcoapp")), ("C3", Comment("a]]>b", "someone else"))]


def test_odd_texts_are_written_as_openpyxl_writes_them():
    comments = _comments(ODD)
    assert plain_cell_comments(comments)
    assert (comments_xml(comments), comments_vml(comments)) == _openpyxl(_sheet(comments))


def test_the_records_given_to_openpyxl_are_from_cell():
    comments = _comments(ODD)
    ws = openpyxl.Workbook().active
    for ref, comment in ODD:
        ws[ref].comment = Comment(comment.content, comment.author, comment.height, comment.width)
    made, theirs = comment_records(comments), [CommentRecord.from_cell(ws[ref]) for ref, _ in ODD]
    assert [tostring(r.to_tree()) for r in made] == [tostring(r.to_tree()) for r in theirs]
    assert [(r.author, r.height, r.width) for r in made] == [(r.author, r.height, r.width) for r in theirs]
    assert comment_records(theirs) == theirs   # records openpyxl's own row writer made pass as they are


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
    lambda c: setattr(c.comment, "content", ""),       # an empty text
    lambda c: setattr(c.comment, "content", None),     # none
    lambda c: setattr(c.comment, "author", " padded "),  # an author ElementTree would not write as given
    lambda c: setattr(c.comment, "author", ""),        # no author
])
def test_other_comments_are_left_to_openpyxl(change):
    comments = _comments(ODD)
    change(comments[1])
    assert not plain_cell_comments(comments)


def test_a_record_made_by_openpyxl_is_left_to_openpyxl():
    """Rows openpyxl writes itself (another serializer) record CommentRecords: those comments are openpyxl's too."""
    comments = _comments(ODD)
    assert not plain_cell_comments(comments[:1] + comment_records(comments[1:2]))
