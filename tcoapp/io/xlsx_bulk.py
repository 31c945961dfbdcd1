"""Fast bulk rows for big input tables (the Curves sheet: thousands of measured points).

openpyxl serializes a cell in ~25 us, so 5,000 curve points x 11 columns would take over a
second. The sheet is therefore written by openpyxl with its header rows and ONE template data row
(styled like every data row); after saving, the remaining rows are generated as plain XML text
with the template row's style ids and spliced into that worksheet part. Values are written the
way the cell writer would (numbers with every digit, text always as inline strings, never
formulas), so the file reads back exactly as if openpyxl had written every row.
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


def splice_rows(workbook, data: bytes, pending: list[PendingRows], transforms=None) -> bytes:
    """The saved workbook `data` with every pending row inserted into its sheet's XML, and each
    `transforms[sheet title](xml) -> xml` applied, in one pass over the archive."""
    pending = [p for p in pending if p.rows]
    edits: dict[str, list] = {}
    for p in pending:
        edits.setdefault(workbook[p.title].path.lstrip("/"), []).append(lambda xml, p=p: _splice(xml, p))
    for title, transform in (transforms or {}).items():
        edits.setdefault(workbook[title].path.lstrip("/"), []).append(transform)
    if not edits:
        return data
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zout:
        for item in zin.infolist():
            body = zin.read(item.filename)
            if item.filename in edits:
                text = body.decode("utf-8")
                for edit in edits[item.filename]:
                    text = edit(text)
                body = text.encode("utf-8")
            zout.writestr(item, body)
    return out.getvalue()


def _splice(xml: str, pending: PendingRows) -> str:
    start = xml.index(f'<row r="{pending.template_row}"')
    end = xml.index("</row>", start) + len("</row>")
    styles = _template_styles(xml[start:end], pending.template_row)
    first = pending.template_row + 1
    width = max([pending.n_cols] + [len(values) for values in pending.rows])
    columns = [(get_column_letter(col), styles.get(get_column_letter(col), "")) for col in range(1, width + 1)]
    texts: dict[str, str] = {}  # a curve's name, device and model repeat on each of its rows: escaped once
    rows = "".join(_row_xml(first + i, values, columns, pending.title, texts) for i, values in enumerate(pending.rows))
    last = first + len(pending.rows) - 1
    xml = xml[:end] + rows + xml[end:]
    return re.sub(r'<dimension ref="([A-Z]+\d+):([A-Z]+)\d+"',
                  lambda m: f'<dimension ref="{m.group(1)}:{m.group(2)}{last}"', xml, count=1)


def _template_styles(row_xml: str, row: int) -> dict[str, str]:
    styles = {}
    for match in re.finditer(r'<c r="([A-Z]+)' + str(row) + r'"([^>]*?)/?>', row_xml):
        style = re.search(r'\bs="(\d+)"', match.group(2))
        styles[match.group(1)] = f' s="{style.group(1)}"' if style else ""
    return styles


def _row_xml(row: int, values: list, columns: list[tuple[str, str]], title: str, texts: dict[str, str]) -> str:
    cells = []
    for (letter, style), value in zip(columns, values):
        ref = f'r="{letter}{row}"{style}'
        if isinstance(value, float) and math.isfinite(value):
            cells.append(f'<c {ref} t="n"><v>{value!r}</v></c>')
        elif isinstance(value, str) and value in texts:
            cells.append(f"<c {ref}{texts[value]}")
        else:
            cells.append(cell_xml(ref, value, title, f"{letter}{row}"))
            if isinstance(value, str) and value:
                texts[value] = cells[-1][len(f"<c {ref}"):]
    return f'<row r="{row}">{"".join(cells)}</row>'


def cell_xml(ref: str, value, title: str, where: str) -> str:
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
