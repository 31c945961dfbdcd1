"""openpyxl's worksheet writer with each row's cells written as text: the same bytes, without an element tree per cell.

openpyxl serializes a cell by building an ElementTree element and walking it with et_xmlfile (about 25 us a
cell; the 20-plan workbook has 10,000 such cells on Plans, Results and CashFlow). Here a row's plain cells
-- a number, a boolean, an error, a text, a formula, empty and styled -- are written from one template each,
with the escaping, attribute order and empty-element form openpyxl's etree writer gives them (`<c r="A1" s="3"
t="n" />`, `<f>..</f><v />`, `xml:space="preserve"` where a text has outer blanks). Anything else -- a date, rich
text, an array or data-table formula, a hyperlink -- is written by openpyxl itself. Used only where openpyxl
writes with its etree writer (without lxml), whose output stream it writes to (tests compare the bytes).
"""
from __future__ import annotations

import openpyxl
import openpyxl.cell._writer as cell_writer
from openpyxl.comments.comment_sheet import CommentRecord
from openpyxl.worksheet._writer import WorksheetWriter


def _text(text: str) -> str:
    """Character data as ElementTree escapes it."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


def _attribute(text: str) -> str:
    """An attribute value as ElementTree escapes it."""
    text = _text(text)
    for raw, escaped in (('"', "&quot;"), ("\r", "&#13;"), ("\n", "&#10;"), ("\t", "&#09;")):
        if raw in text:
            text = text.replace(raw, escaped)
    return text


class CellComment:
    """A cell's comment as write_row records it: the cell's reference and its openpyxl Comment (written as text by
    xlsx_fast_comments; openpyxl's own writer takes `record()`)."""

    __slots__ = ("ref", "comment")

    def __init__(self, ref: str, comment):
        self.ref, self.comment = ref, comment

    def record(self) -> CommentRecord:
        """CommentRecord.from_cell of the cell."""
        record = CommentRecord(ref=self.ref, author=self.comment.author)
        record.text.t = self.comment.content
        record.height, record.width = self.comment.height, self.comment.width
        return record


class FastRowsWriter(WorksheetWriter):
    """WorksheetWriter whose rows are written as text (see the module's note)."""

    def _ids(self) -> dict:
        """Style id by style array (as bytes), for this sheet's write: openpyxl's cell.style_id copies and hashes the
        array into the workbook's list for every cell; the list only grows while saving, so an id found stays."""
        ids = self.__dict__.get("_style_ids")
        if ids is None:
            ids = self._style_ids = {}
        return ids

    def write_cols(self):
        """WorksheetWriter.write_cols as text: each column's attributes as ColumnDimension.to_tree takes them
        (dict(col): its set fields, in their order), without an element per column walked by the etree writer."""
        xf = self.xf.send(True)
        if openpyxl.LXML or not hasattr(xf, "_file"):   # another serializer: its own way
            self.xf.send(None)
            return super().write_cols()
        dims = self.ws.column_dimensions
        for col in dims.values():
            col.reindex()
        out, outlines = [], set()
        for col in sorted(dims.values(), key=lambda col: col.min):   # DimensionHolder.to_tree's order
            attrs = dict(col)
            if attrs.keys() != {"min", "max"}:
                outlines.add(col.outlineLevel)
                out.append("<col" + "".join(f' {k}="{_attribute(v)}"' for k, v in attrs.items()) + " />")
        if outlines:
            dims.max_outline = max(outlines)
        if out:
            xf._file("<cols>" + "".join(out) + "</cols>")
        self.xf.send(None)

    def write_row(self, xf, row, row_idx):
        if openpyxl.LXML or not hasattr(xf, "_file"):   # another serializer: its own way
            return super().write_row(xf, row, row_idx)
        attrs = {"r": f"{row_idx}"}
        attrs.update(self.ws.row_dimensions.get(row_idx, {}))
        out = ["<row" + "".join(f' {k}="{_attribute(v)}"' for k, v in attrs.items()) + ">"]
        write, ids = xf._file, self._ids()
        for cell in row:
            if cell._comment is not None:
                self.ws._comments.append(CellComment(cell.coordinate, cell._comment))
            if cell._value is None and not cell.has_style and not cell._comment:
                continue
            text = _cell(cell, ids)
            if text is None:   # a kind written by openpyxl itself
                write("".join(out))
                out.clear()
                cell_writer.write_cell(xf, self.ws, cell, cell.has_style)
            else:
                out.append(text)
        out.append("</row>")
        write("".join(out))


def _cell(cell, style_ids: dict) -> str | None:
    """A cell's XML as openpyxl's etree writer gives it, or None for a kind left to openpyxl; style_ids:
    FastRowsWriter._ids."""
    kind, value = cell.data_type, cell._value
    if kind == "d" or cell.hyperlink:
        return None
    head = f'<c r="{cell.coordinate}"'
    if cell.has_style:
        key = cell._style.tobytes()
        style = style_ids.get(key)
        if style is None:
            style = style_ids[key] = cell.style_id
        head += f' s="{style}"'
    if kind == "s":
        head += ' t="inlineStr"'
    elif kind != "f":
        head += f' t="{kind}"'
    if value is None or value == "":
        return head + " />"
    if kind == "f":
        if type(value) is not str:
            return None
        formula = f"<f>{_text(value[1:])}</f>" if value[1:] else "<f />"
        return f"{head}>{formula}<v /></c>"
    if kind == "s":
        if type(value) is not str:
            return None
        stripped = value.strip()
        space = ' xml:space="preserve"' if stripped and value != stripped else ""
        return f"{head}><is><t{space}>{_text(value)}</t></is></c>"
    text = cell_writer.safe_string(value)   # looked up here: exact_floats swaps it while saving
    return f"{head}><v>{_text(text)}</v></c>" if text else f"{head}><v /></c>"
