"""A worksheet's cell comments (their XML part and their VML drawing) written as text: the same bytes as openpyxl's.

openpyxl builds an element tree per comment twice, once for the comments part and once for its VML shape, and
walks both with ElementTree (about 85 us a comment; the 20-plan workbook has ~470 help comments, a sample ~300:
a tenth of a sample's save). Here the comments part is written from one template per comment, with ElementTree's
escaping, and each VML shape from a template cut out of the VML openpyxl itself writes for two placeholder
comments (so its namespace prefixes and attribute order are openpyxl's by construction). Anything else -- rich
text, an empty text, a comment with properties, a VML drawing kept from a macro workbook, lxml -- is written by
openpyxl itself. tests/io/test_fast_comments.py compares the bytes with openpyxl's on the samples.

The comments are written from the cells' own Comment objects (xlsx_fast_rows.CellComment, recorded as the rows are
written): openpyxl turns each into a CommentRecord, an object of typed descriptors with a Text of its own, and
gives every one an author id through another descriptor (about 30 us a comment, a fifth of a sample's sheet
writing); the records are made only where openpyxl writes the comments itself (`comment_records`).
"""
from __future__ import annotations

import functools

import openpyxl
from openpyxl.comments.comment_sheet import CommentRecord, CommentSheet
from openpyxl.utils import coordinate_to_tuple, get_column_letter
from openpyxl.xml.constants import SHEET_MAIN_NS

from .xlsx_fast_rows import CellComment, _attribute, _text

# placeholder height, width, row and column of the two shapes the VML template is cut from: numbers of one length,
# found nowhere else in openpyxl's VML
_PLACEHOLDERS = ((10001, 10002, 10003, 10004), (10011, 10012, 10013, 10014))
_FIRST_SHAPE_ID = 1026   # ShapeWriter.write numbers the shapes from 1026


class CommentsPart:
    """The comments part of a sheet written here, as openpyxl's writer counts and lists it (a CommentSheet's
    numbered path, content type and relationship type)."""

    mime_type, _rel_type = CommentSheet.mime_type, CommentSheet._rel_type

    def __init__(self, number: int):
        self._id = number

    @property
    def path(self) -> str:
        return CommentSheet._path.format(self._id)


def comment_records(comments) -> list:
    """The sheet's comments as openpyxl's own writer takes them: CommentRecords."""
    return [c.record() if isinstance(c, CellComment) else c for c in comments]


def plain_cell_comments(comments) -> bool:
    """Whether every comment is a CellComment this module writes: a non-empty plain text, an author written as given."""
    for item in comments:
        if not isinstance(item, CellComment):
            return False
        text, author = item.comment.content, item.comment.author
        if type(text) is not str or not text or type(author) is not str or not author or author != author.strip():
            return False
    return True


def comments_xml(comments: list[CellComment]) -> bytes:
    """tostring(CommentSheet.from_comments(records).to_tree()), as openpyxl writes the comments part of these comments'
    CommentRecords (checked by plain_cell_comments); authors numbered in the order they first come, as openpyxl's."""
    authors: dict[str, int] = {}
    for item in comments:
        authors.setdefault(item.comment.author, len(authors))
    listed = "".join(f"<author>{_text(author)}</author>" for author in authors)
    out = [f'<comments xmlns="{SHEET_MAIN_NS}"><authors>{listed}</authors><commentList>']
    for item in comments:
        text = item.comment.content
        stripped = text.strip()
        space = ' xml:space="preserve"' if stripped and text != stripped else ""
        out.append(f'<comment ref="{_attribute(item.ref)}" authorId="{authors[item.comment.author]}" shapeId="0"><text>'
                   f"<t{space}>{_text(text)}</t></text></comment>")
    out.append("</commentList></comments>")
    return "".join(out).encode("utf-8")


def comments_vml(comments: list[CellComment]) -> bytes:
    """CommentSheet.write_shapes(None) of these comments' records: their VML drawing, as openpyxl writes it for a new
    drawing."""
    head, shape, tail = _vml_template()
    shapes = []
    for number, item in enumerate(comments, _FIRST_SHAPE_ID):
        row, col = coordinate_to_tuple(item.ref)
        shapes.append(shape.format(id=number, height=item.comment.height, width=item.comment.width, row=row - 1,
                                   col=col - 1))
    return (head + "".join(shapes) + tail).encode("utf-8")


@functools.lru_cache(maxsize=None)
def _vml_template() -> tuple[str, str, str]:
    """(head, one shape with {id}, {height}, {width}, {row}, {col} to fill, tail) of openpyxl's comment VML."""
    def written(count: int) -> str:
        comments = [CommentSheet.from_comments([_placeholder(*_PLACEHOLDERS[i])]) for i in range(count)]
        records = [record for sheet in comments for record in sheet.commentList]
        return CommentSheet(authors=comments[0].authors, commentList=records).write_shapes(None).decode("utf-8")

    one, two = written(1), written(2)
    tail = "</xml>"
    size = len(two) - len(one)   # the second shape (placeholders of one length: the shapes are of one length)
    if not (one.endswith(tail) and two.endswith(tail) and two[:len(one) - len(tail)] == one[:-len(tail)]):
        raise AssertionError("openpyxl's comment VML is not a head, shapes and a tail")
    head, shape = one[:-len(tail) - size], two[len(one) - len(tail):-len(tail)]
    if "{" in shape or "}" in shape:
        raise AssertionError("openpyxl's comment VML shape holds braces")
    height, width, row, col = _PLACEHOLDERS[1]
    for old, new in ((f"_x0000_s{_FIRST_SHAPE_ID + 1:04d}", "_x0000_s{id:04d}"), (f"height:{height}px", "height:{height}px"),
                     (f"width:{width}px", "width:{width}px"), (f">{row - 1}<", ">{row}<"), (f">{col - 1}<", ">{col}<")):
        if shape.count(old) != 1:
            raise AssertionError(f"openpyxl's comment VML shape holds {old!r} {shape.count(old)} times")
        shape = shape.replace(old, new)
    return head, shape, tail


def _placeholder(height: int, width: int, row: int, col: int) -> CommentRecord:
    record = CommentRecord(ref=f"{get_column_letter(col)}{row}", author="tcoapp", height=height, width=width)
    record.text.t = "x"
    return record


def fast(workbook, ws) -> bool:
    """Whether ws's comments are written here: openpyxl's etree writer, a new VML drawing, plain comments."""
    return (not openpyxl.LXML and (ws.legacy_drawing is None or workbook.vba_archive is None)
            and plain_cell_comments(ws._comments))

