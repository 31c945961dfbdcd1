"""Formula cells written as worksheet XML, for the big formula sheets (CashFlow: 20 plans x 11 years x
60 lines is ~13,000 cells).

openpyxl creates, styles and serializes a cell in ~60 us; here each cell is one XML string with its
style id, its formula and its cached value (the engine's number, so tools that do not calculate
still see it). openpyxl writes the rest of the sheet (titles, formats, the keys and labels it comments); after
saving, `insert` puts these cells at the end of their rows (the rows' other cells are in columns before them) and
the rows openpyxl did not write in their places. The cells are exactly what openpyxl would write for the same
formula and value; a cell whose style openpyxl numbers (a CashFlow label) takes its id then (`late_style`: a token
of control characters, which no text of a cell holds, cell_limits).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from openpyxl.utils import get_column_letter

from .xlsx_bulk import cell_xml, with_last_row
from .xlsx_styles import style_array

_ROW = re.compile(r'(<row r="(\d+)"[^>]*(?<!/)>)(.*?)(</row>)', re.S)  # not a self-closed (empty) row
_ROW_NUMBER = re.compile(r'<row r="(\d+)"')
_CLOSED_ROW = re.compile(r'<row [^>]*/>')
_DIMENSION = re.compile(r'<dimension ref="[A-Z]+\d+:[A-Z]+(\d+)"')


def _formula_xml(ref: str, body: str, style: int, cached) -> str:
    if cached is None or cached == "":
        return f'<c r="{ref}" s="{style}"><f>{body}</f><v /></c>'
    if isinstance(cached, str):
        return f'<c r="{ref}" s="{style}" t="str"><f>{body}</f><v>{escape(cached)}</v></c>'
    return f'<c r="{ref}" s="{style}"><f>{body}</f><v>{float(cached)!r}</v></c>'


@dataclass
class RawCells:
    """Cells of one sheet, by row, in column order."""

    title: str
    rows: dict[int, list[str]] = field(default_factory=dict)
    _styles: dict = field(default_factory=dict)
    _texts: dict = field(default_factory=dict)   # a text cell's XML after its reference and style, by text
    _late: dict = field(default_factory=dict)    # a style id found when inserting: token -> (workbook, style array)

    def late_style(self, workbook, kind: str, unit: str = "") -> str:
        """A style for `value` whose id is looked up when the cells are inserted, after saving: the id openpyxl gave
        the same style array (a cell of `put`'s style written by openpyxl, as a label on Plans). openpyxl numbers
        styles in the order its cells are written, so a cell styled here with an id taken now would renumber them;
        insert refuses a style no openpyxl cell has."""
        token = f"\x02{kind}\x03{unit}\x02"
        if token not in self._late:
            self._late[token] = (workbook, style_array(workbook, kind, unit))
        return token

    def style_id(self, workbook, kind: str, unit: str = "", border=None) -> int:
        key = (kind, unit, border is not None)
        if key not in self._styles:
            self._styles[key] = workbook._cell_styles.add(style_array(workbook, kind, unit, border))
        return self._styles[key]

    def formula(self, row: int, col: int, text: str, style: int, cached=None) -> None:
        """A formula cell (text with its '='); cached: the value it computes to, None: not known."""
        self.escaped_formula(row, col, escape(text[1:]), style, cached)

    def escaped_formula(self, row: int, col: int, body: str, style: int, cached=None) -> None:
        """A formula cell from its text escaped for XML, without its '=' (a formula escaped once for many cells)."""
        self.rows.setdefault(row, []).append(_formula_xml(f"{get_column_letter(col)}{row}", body, style, cached))

    def formula_column(self, letter: str, cells, cached: dict) -> None:
        """escaped_formula for cells of the column `letter`, (row, escaped body, style id) each, their values from
        `cached` by coordinate (a CashFlow year's ~100 cells: the column's letter found once)."""
        rows = self.rows
        for row, body, style in cells:
            ref = f"{letter}{row}"
            rows.setdefault(row, []).append(_formula_xml(ref, body, style, cached.get(ref)))

    def number(self, row: int, col: int, value: float, style: int) -> None:
        """A number cell; a number that does not exist is refused (the caller writes none)."""
        if not math.isfinite(value):
            raise ValueError(f"{self.title}!{get_column_letter(col)}{row}: not a number: {value}")
        self.value(row, col, float(value), style)

    def value(self, row: int, col: int, value, style: int | str | None) -> None:
        """A plain cell (number, bool, text, None: empty) as openpyxl writes it; text is checked (cell_limits); style:
        an id, a late_style, or None: unstyled."""
        letter = get_column_letter(col)
        ref = f'r="{letter}{row}"' if style is None else f'r="{letter}{row}" s="{style}"'
        if type(value) is str and value:   # a text as cell_xml writes it, checked and escaped once per text
            tail = self._texts.get(value)
            if tail is None:
                xml = cell_xml(ref, value, self.title, f"{letter}{row}")
                tail = self._texts[value] = xml[xml.index(' t="inlineStr">'):]
            xml = f"<c {ref}{tail}"
        elif type(value) is int:
            xml = f'<c {ref} t="n"><v>{value}</v></c>'
        else:
            xml = cell_xml(ref, value, self.title, f"{letter}{row}")
        self.rows.setdefault(row, []).append(xml)

    def insert(self, xml: str) -> str:
        """The sheet's XML with these cells at the end of their rows; rows openpyxl did not write are added in
        order (openpyxl writes a row with its dimensions, r first: `<row r="7">` where it has none), the dimension
        reaches the last, and each late style is its id."""
        written = {int(r) for r in _ROW_NUMBER.findall(xml)}
        new = sorted(set(self.rows) - written)
        if new and _CLOSED_ROW.search(xml):   # (openpyxl writes none: a row it writes is opened and closed)
            raise AssertionError(f"{self.title}: a self-closed row, new rows could not be placed before it")
        at = 0   # the next new row to place

        def add(match):
            nonlocal at
            row = int(match.group(2))
            before = ""
            if at < len(new) and new[at] < row:
                end = at
                while end < len(new) and new[end] < row:
                    end += 1
                before = "".join(f'<row r="{r}">{"".join(self.rows[r])}</row>' for r in new[at:end])
                at = end
            cells = self.rows.get(row)
            if not cells:
                return before + match.group(0) if before else match.group(0)
            return before + match.group(1) + match.group(3) + "".join(cells) + match.group(4)

        out = _ROW.sub(add, xml)
        if at < len(new):   # after every written row: the sheet's last rows
            rows = "".join(f'<row r="{row}">{"".join(self.rows[row])}</row>' for row in new[at:])
            out = out.replace("</sheetData>", rows + "</sheetData>", 1) if "</sheetData>" in out else \
                out.replace("<sheetData />", f"<sheetData>{rows}</sheetData>", 1)
        if self.rows:
            last = _DIMENSION.search(out)
            if last is None or int(last.group(1)) < max(self.rows):
                out = with_last_row(out, max(self.rows))
        for token, (workbook, array) in self._late.items():
            if array not in workbook._cell_styles:
                raise AssertionError(f"{self.title}: a style no cell openpyxl wrote has ({token!r})")
            out = out.replace(token, str(workbook._cell_styles.index(array)))
        return out
