"""Fast bulk rows for big input tables (the Curves sheet: thousands of measured points).

openpyxl serializes a cell in ~25 us, so 5,000 curve points x 11 columns would take over a
second. The sheet is therefore written by openpyxl with its header rows and ONE template data row
(styled like every data row); after saving, the remaining rows are generated as plain XML text
with the template row's style ids and spliced into that worksheet part. Numbers are written with
every digit; texts (never formulas) go to a shared-string table, as Excel writes them (openpyxl
writes inline strings, which a reader parses cell by cell: 20,000 curve texts cost a read 0.1 s),
so the file reads back exactly as if openpyxl had written every row, only faster.
"""
from __future__ import annotations

import io
import math
import re
import zipfile
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from openpyxl.utils import get_column_letter

from .cell_limits import unwritable_text
from .xlsx_styles import CellKindError


@dataclass
class PendingRows:
    """Rows to splice after the template row `template_row` of the sheet titled `title`."""

    title: str
    template_row: int
    n_cols: int
    rows: list[list] = field(default_factory=list)


def splice_rows(workbook, parts, pending: list[PendingRows], transforms=None) -> bytes:
    """The saved workbook -- its parts by name in order (workbook_write.saved_parts) or a zip file's bytes -- zipped
    with every pending row inserted into its sheet's XML and each `transforms[sheet title](xml) -> xml` applied."""
    pending = [p for p in pending if p.rows]
    strings: dict[str, int] = {}  # the bulk rows' texts, in a shared-string table (openpyxl writes none)
    edits: dict[str, list] = {}
    for p in pending:
        edits.setdefault(workbook[p.title].path.lstrip("/"), []).append(lambda xml, p=p: _splice(xml, p, strings))
    for title, transform in (transforms or {}).items():
        edits.setdefault(workbook[title].path.lstrip("/"), []).append(transform)
    bodies = dict(parts) if isinstance(parts, dict) else _unzipped(parts)
    for name, edit_list in edits.items():
        text = bodies[name].decode("utf-8")
        for edit in edit_list:
            text = edit(text)
        bodies[name] = text.encode("utf-8")
    if strings:
        if SHARED_STRINGS in bodies:
            raise AssertionError("the workbook already has a shared-string table")
        bodies[CONTENT_TYPES] = bodies[CONTENT_TYPES].replace(b"</Types>", SHARED_TYPE + b"</Types>", 1)
        bodies[WORKBOOK_RELS] = bodies[WORKBOOK_RELS].replace(b"</Relationships>", SHARED_REL + b"</Relationships>", 1)
        bodies[SHARED_STRINGS] = _shared_strings_xml(strings)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=LEVEL) as zout:
        for name, body in bodies.items():   # compressed here, once
            zout.writestr(name, body)
    return out.getvalue()


def _unzipped(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


LEVEL = 1  # zlib's fastest: a save 0.15 s faster on the 20-plan benchmark, the file ~20 % larger than at level 6

CONTENT_TYPES, WORKBOOK_RELS, SHARED_STRINGS = "[Content_Types].xml", "xl/_rels/workbook.xml.rels", "xl/sharedStrings.xml"
SHARED_TYPE = (b'<Override PartName="/xl/sharedStrings.xml" '
               b'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>')
SHARED_REL = (b'<Relationship Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" '
              b'Target="sharedStrings.xml" Id="rIdSharedStrings"/>')


def _shared_strings_xml(strings: dict[str, int]) -> bytes:
    items = "".join(f'<si><t{_space(text)}>{escape(text)}</t></si>' for text in strings)
    return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
            f'count="{len(strings)}" uniqueCount="{len(strings)}">{items}</sst>').encode("utf-8")


def _space(text: str) -> str:
    return ' xml:space="preserve"' if text != text.strip() else ""


def _splice(xml: str, pending: PendingRows, strings: dict[str, int]) -> str:
    start = xml.index(f'<row r="{pending.template_row}"')
    end = xml.index("</row>", start) + len("</row>")
    styles = _template_styles(xml[start:end], pending.template_row)
    first = pending.template_row + 1
    width = max([pending.n_cols] + [len(values) for values in pending.rows])
    columns = [(get_column_letter(col), styles.get(get_column_letter(col), "")) for col in range(1, width + 1)]
    rows = "".join(_row_xml(first + i, values, columns, pending.title, strings) for i, values in enumerate(pending.rows))
    last = first + len(pending.rows) - 1
    return with_last_row(xml[:end] + rows + xml[end:], last)


def with_last_row(xml: str, last: int) -> str:
    """The worksheet XML with its dimension reaching row `last`."""
    return re.sub(r'<dimension ref="([A-Z]+\d+):([A-Z]+)\d+"',
                  lambda m: f'<dimension ref="{m.group(1)}:{m.group(2)}{last}"', xml, count=1)


def _template_styles(row_xml: str, row: int) -> dict[str, str]:
    styles = {}
    for match in re.finditer(r'<c r="([A-Z]+)' + str(row) + r'"([^>]*?)/?>', row_xml):
        style = re.search(r'\bs="(\d+)"', match.group(2))
        styles[match.group(1)] = f' s="{style.group(1)}"' if style else ""
    return styles


def _row_xml(row: int, values: list, columns: list[tuple[str, str]], title: str, strings: dict[str, int]) -> str:
    """One row; texts go to the shared-string table (a curve's name, device and model repeat on each of its
    rows: a reader parses an index, not the text, each time)."""
    cells = []
    append, finite = cells.append, math.isfinite
    for (letter, style), value in zip(columns, values):
        if value is None:   # what cell_xml writes for it, without the call
            append(f'<c r="{letter}{row}"{style} />')
        elif isinstance(value, float) and finite(value):
            append(f'<c r="{letter}{row}"{style} t="n"><v>{value!r}</v></c>')
        elif isinstance(value, str) and value:
            index = strings.get(value)
            if index is None:
                problem = unwritable_text(value)
                if problem:
                    raise CellKindError(f"{title}!{letter}{row}: {problem}")
                index = strings[value] = len(strings)
            append(f'<c r="{letter}{row}"{style} t="s"><v>{index}</v></c>')
        else:
            append(cell_xml(f'r="{letter}{row}"{style}', value, title, f"{letter}{row}"))
    return f'<row r="{row}">{"".join(cells)}</row>'


def cell_xml(ref: str, value, title: str, where: str) -> str:
    kind = type(value)
    if kind is float:   # the usual cell first, by its exact type (a bool is an int, a numpy float a float)
        return f'<c {ref} t="n"><v>{value!r}</v></c>' if math.isfinite(value) else f"<c {ref} />"
    if value is None or (isinstance(value, float) and not math.isfinite(value)) or value == "":
        return f"<c {ref} />"
    if isinstance(value, bool):
        return f'<c {ref} t="b"><v>{int(value)}</v></c>'
    if isinstance(value, (int, float)):
        return f'<c {ref} t="n"><v>{value!r}</v></c>' if isinstance(value, float) else f'<c {ref} t="n"><v>{value}</v></c>'
    text = str(value)
    problem = unwritable_text(text)
    if problem:
        raise CellKindError(f"{title}!{where}: {problem}")
    space = ' xml:space="preserve"' if text != text.strip() else ""
    return f'<c {ref} t="inlineStr"><is><t{space}>{escape(text)}</t></is></c>'
