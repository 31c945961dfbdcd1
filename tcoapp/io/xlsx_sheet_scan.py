"""A worksheet's cells read by one regular expression per chunk of rows instead of an XML parser's callbacks.

Most of a workbook's read time was expat calling Python for each `<c>`, `<v>` and their ends (the 5,000-point
Curves sheet: 116,000 calls). The `sheetData` of a worksheet as Excel, LibreOffice and tcoapp write it is a flat
run of `<row r=..>` and `<c r=.. s=.. t=..>` elements holding `<f>`, `<v>` or `<is><t>`: that is tokenized here
with a regular expression (C speed), and every value converted exactly as xlsx_cells_read's expat reader does
(the cells that are not a plain number or shared string are handed to that reader's own cell code).

Anything else -- another element or attribute order, whitespace between elements, comments, a prefix, another
encoding, a control character, an entity other than XML's five and character references -- and the sheet is
read by the expat reader instead, from the start: the scan only ever reads what the parser would, faster. The
rest of the part (everything but the cells) is still parsed by expat, so a DTD or entity declaration is refused
and a damaged part fails as before.
"""
from __future__ import annotations

import re
import xml.parsers.expat

from .xlsx_xml import _COLUMNS, MAIN, MAX_COLUMN, MAX_ROW, STRICT_MAIN, TooManyCells, _parser, _Shared, _split_ref

MAX_SCANNED_BYTES = 64 * 1024 * 1024   # a larger part is streamed by expat (the scan holds the part in memory)
CHUNK_BYTES = 1 << 18                  # rows tokenized at a time (a chunk ends after a </row>)

_ATTRS = r'((?: [a-zA-Z0-9:_.-]{1,40}="[^"<>&]*")*) ?'
_TOKEN = re.compile(
    r'<c r="([A-Z]{1,3})([0-9]{1,7})"(?: s="(0|[1-9][0-9]{0,8})")?(?: t="([a-zA-Z]{1,9})")?(?: ?/>|>'
    r'(?:(<f)' + _ATTRS + r'(?:/>|>([^<]*)</f>))?'
    r'(?:<v>([^<]*)</v>|<v ?/>)?'
    r'(?:(<is>)(?:<t(?: xml:space="preserve")?>([^<]*)</t>|<t ?/>)?</is>)?'
    r'</c>)'
    r'|(<row)' + _ATTRS + r'(/?)>'
    r'|(</row>)'
    r'|(.)', re.S)
# the cells of most rows: a number or shared string (`<c r="D3" s="21" t="n"><v>1.0</v></c>`) or an empty
# formatted cell, and row tags; a chunk holding anything else is read with _TOKEN (its groups cost a fifth more)
_SIMPLE = re.compile(
    r'<c r="([A-Z]{1,3})([0-9]{1,7})"(?: s="(0|[1-9][0-9]{0,8})")?(?: t="([a-zA-Z]{1,9})")?(?: ?/>|><v>([^<]*)</v></c>)'
    r'|(<row)' + _ATTRS + r'(/?)>'
    r'|(</row>)'
    r'|(.)', re.S)
_ROW_R = re.compile(r' r="([0-9]{1,7})"')
# a chunk wholly of what _simple_chunk reads, each row tag with its number first and each cell inside a sheet (columns
# A..XFD, rows 1..999,999, no leading zero): one match in C checks the shape, then only the cells holding a value are
# visited in Python (_short_chunk), not every cell, row tag and end tag (the Curves sheet: a third of its tokens)
_COLUMN_IN_SHEET = r'(?:[A-Z]{1,2}|[A-W][A-Z]{2}|X[A-E][A-Z]|XF[A-D])'
_ROW_IN_SHEET = r'[1-9][0-9]{0,5}'
_SHORT_SHAPE = re.compile(
    r'(?:<c r="' + _COLUMN_IN_SHEET + _ROW_IN_SHEET + r'"(?: s="(?:0|[1-9][0-9]{0,8})")?(?: t="[a-zA-Z]{1,9}")?'
    r'(?: ?/>|><v>[^<]*</v></c>)'
    r'|<row r="' + _ROW_IN_SHEET + r'"(?: [a-zA-Z0-9:_.-]{1,40}="[^"<>&]*")* ?/?>'
    r'|</row>)*+')
_VALUED = re.compile(r'<c r="([A-Z]{1,3})([0-9]{1,7})"(?: s="([0-9]{1,9})")?(?: t="([a-zA-Z]{1,9})")?><v>([^<]*)</v>')
_LAST_CELL = re.compile(r'<c r="([A-Z]{1,3})([0-9]{1,7})"')
_SHARED_SI = re.compile(r' si="([^"]*)"')
_CONTROL = bytes(c for c in range(32) if c not in (9, 10))   # a carriage return expat normalizes, the rest it refuses
_STRUCTURE = re.compile(rb'<(?:\w+:)?(?:c|row|v|f|is|t)[\s/>]')
_ROOT = re.compile(rb'<worksheet\b([^<>]*)>')
_ENCODING = re.compile(rb'^\s*<\?xml[^>]*\bencoding=["\']([^"\']*)["\']')
_DECLARED = re.compile(rb'\bxmlns:([\w.-]+)=')
_PREFIXED = re.compile(rb' ([\w.-]+):[\w.-]+="')
_ENTITY = re.compile(r"&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,7})|#x([0-9a-fA-F]{1,6}));")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}


class _Unscannable(Exception):
    """The part is not in the shape the scan reads: the expat reader reads it."""


def scan_sheet(data: bytes, reader) -> bool:
    """Read the cells of a worksheet part's bytes `data` into `reader` (xlsx_cells_read._SheetReader) as its expat
    parser would; False (the reader as it was) when the part is not in the shape this scan reads."""
    if len(data) > MAX_SCANNED_BYTES or reader.last_row is not None:
        return False
    parts = _split(data)
    if parts is None:
        return False
    head, body, tail = parts
    budget = reader.budget[0]
    try:
        _check_skeleton(head, tail)
        for chunk in _chunks(body):
            _read_chunk(chunk, reader)
    except _Unscannable:
        reader.cells.values.clear()
        reader.cells.formulas.clear()
        reader.masters.clear()
        reader.dependents.clear()
        reader.row = reader.col = 0
        reader.budget[0] = budget
        return False
    return True


def _split(data: bytes):
    """(head, the cells' XML, tail) of a part with one `<sheetData>` in the main namespace, in UTF-8, without the
    characters expat would normalize or refuse; None otherwise."""
    start = data.find(b"<sheetData>")
    end = data.rfind(b"</sheetData>")
    if start < 0 or end < start or data.count(b"<sheetData") != 1 or _odd(data):
        return None
    head, body, tail = data[:start], data[start + len(b"<sheetData>"):end], data[end + len(b"</sheetData>"):]
    encoding = _ENCODING.match(head)
    if encoding and encoding.group(1).lower() not in (b"utf-8", b"utf8"):
        return None
    root = _ROOT.search(head)
    if root is None or _STRUCTURE.search(head) or _STRUCTURE.search(tail):
        return None
    namespace = re.search(rb'\bxmlns="([^"]*)"', root.group(1))
    if namespace is not None and namespace.group(1).decode("utf-8", "replace") not in (MAIN, STRICT_MAIN):
        return None
    declared = set(_DECLARED.findall(root.group(1))) | {b"xml"}
    if b":" in body and not set(_PREFIXED.findall(body)) <= declared:   # expat refuses an unbound prefix (a prefixed
        return None                                                      # name has a colon: a byte search first)
    return head, body, tail


def _odd(data: bytes) -> bool:
    """Whether the part holds what expat would normalize or refuse: a control character or carriage return, or
    `]]>` (bytes searches: a regular expression over the whole part took a fifth of the scan)."""
    return (b"]]>" in data or b"\xef\xbf\xbe" in data or b"\xef\xbf\xbf" in data   # U+FFFE, U+FFFF: not XML characters
            or len(data.translate(None, _CONTROL)) != len(data))


def _check_skeleton(head: bytes, tail: bytes) -> None:
    """The part without its cells, parsed by expat: a DTD or entity is refused (RefusedXml), a damaged part fails as
    the expat reader would fail on it."""
    try:
        _parser({}, {}).Parse(head + b"<sheetData/>" + tail, True)
    except xml.parsers.expat.ExpatError:
        raise _Unscannable from None   # the expat reader reports it, from the start of the part


def _chunks(body: bytes):
    """The cells' XML as text, about CHUNK_BYTES at a time, each ending after a `</row>`."""
    pos = 0
    while pos < len(body):
        cut = body.find(b"</row>", pos + CHUNK_BYTES)
        stop = len(body) if cut < 0 else cut + len(b"</row>")
        try:
            yield body[pos:stop].decode("utf-8")
        except UnicodeDecodeError:
            raise _Unscannable from None
        pos = stop


class _NotSimple(Exception):
    """A chunk holds a cell _simple_chunk does not read."""


def _read_chunk(text: str, reader) -> None:
    """The cells of one chunk of rows into the reader (by `_simple_chunk` where it reads them all, else `_full_chunk`);
    the cell budget is charged per chunk (TooManyCells before the next one)."""
    row, col = reader.row, reader.col
    try:
        if _SHORT_SHAPE.fullmatch(text):
            _short_chunk(text, reader)
        elif "<is>" in text or "<f" in text:   # an inline string or a formula: _simple_chunk would tokenize the
            raise _NotSimple                    # whole chunk before refusing it at that cell (no token of its own)
        else:
            _simple_chunk(text, reader)
    except _NotSimple:   # read again from the chunk's start: what was stored is stored again, the same
        reader.row, reader.col = row, col
        _full_chunk(text, reader)


def _plain_value(style: str, kind: str, v: str, dates) -> object:
    """A non-empty cell value of a simple chunk (a shared string's index or a plain number, as _plain reads
    them inline); raises _NotSimple at a date-styled cell or any other type."""
    if style in dates:
        raise _NotSimple
    if kind == "s" and v.isdigit():
        return _Shared(int(v))
    if kind == "n" or not kind:
        try:
            return float(v) if ("." in v or "E" in v or "e" in v) else int(v)
        except ValueError:
            raise _NotSimple from None
    raise _NotSimple


def _short_chunk(text: str, reader) -> None:
    """A chunk in _SHORT_SHAPE, stored as _simple_chunk stores it (the same cells, values, order, count and reader
    state after it); raises _NotSimple where _simple_chunk does. Its row tags and empty cells store nothing: only the
    cells holding a value are visited, and the reader's row and column are those of the chunk's last row tag and
    the cell after it, as _simple_chunk leaves them."""
    values, dates = reader.cells.values, reader.date_texts
    cells, cells_digits, counted = None, None, 0
    for letters, digits, style, kind, v in _VALUED.findall(text):
        if not v:
            continue   # an empty value: nothing read, nothing counted
        value = _plain_value(style, kind, v, dates)
        if digits != cells_digits:   # the shape has no leading zero: other digits, another row
            row = int(digits)
            cells = values.get(row)
            if cells is None:
                cells = values[row] = {}
            cells_digits = digits
        cells[_COLUMNS.get(letters) or _column(letters, digits)] = value
        counted += 1
    last_row = text.rfind("<row ")
    if last_row >= 0:
        reader.row, reader.col = int(_ROW_R.search(text, last_row).group(1)), 0
    last_cell = text.rfind('<c r="')
    if last_cell > last_row:
        letters, digits = _LAST_CELL.match(text, last_cell).groups()
        reader.row, reader.col = int(digits), _COLUMNS.get(letters) or _column(letters, digits)
    _charge(reader, counted)


def _simple_chunk(text: str, reader) -> None:
    """A chunk of plain numbers, shared strings and empty cells only, stored as _full_chunk stores them; raises
    _NotSimple at any other cell or element."""
    values, dates = reader.cells.values, reader.date_texts
    row, col = reader.row, reader.col
    cells, cells_row, counted, row_digits = values.get(row), row, 0, None
    for letters, digits, style, kind, v, row_tag, row_attrs, _row_end, _end_tag, other in _SIMPLE.findall(text):
        if letters:
            col = _COLUMNS.get(letters) or _column(letters, digits)
            if digits != row_digits:   # the cells of one row: its number read once (as _row reads it)
                row, row_digits = _row(digits), digits
            if not v:
                continue   # an empty (formatted) cell: nothing read, nothing counted
            value = _plain_value(style, kind, v, dates)
            if row != cells_row:
                cells = values.get(row)
                if cells is None:
                    cells = values[row] = {}
                cells_row = row
            cells[col] = value
            counted += 1
        elif row_tag:
            number = _ROW_R.search(row_attrs)
            row, col, row_digits = (int(number.group(1)) if number else row + 1), 0, None
        elif other:
            raise _NotSimple
    reader.row, reader.col = row, col
    _charge(reader, counted)


def _full_chunk(text: str, reader) -> None:
    """The cells of one chunk of rows into the reader: plain numbers and shared strings here, any other cell through
    the reader's own cell code."""
    values, dates = reader.cells.values, reader.date_texts
    row, col = reader.row, reader.col
    cells, cells_row, counted = values.get(row), row, 0
    for (letters, digits, style, kind, f, f_attrs, f_text, v, is_, is_text, row_tag, row_attrs, _row_end,
         _end_tag, other) in _TOKEN.findall(text):
        if letters:
            col = _COLUMNS.get(letters) or _column(letters, digits)
            row = _row(digits)
            value = None if (not v or f or is_ or style in dates) else _plain(kind, v)
            if value is None:
                if v or f or is_:   # else an empty (formatted) cell: nothing read, nothing counted
                    reader.row, reader.col = row, col
                    _cell(reader, kind, style, f, f_attrs, f_text, v, is_, is_text)
                    cells_row = -1
                continue
            if row != cells_row:
                cells = values.get(row)
                if cells is None:
                    cells = values[row] = {}
                cells_row = row
            cells[col] = value
            counted += 1
        elif row_tag:
            number = _ROW_R.search(row_attrs)
            row, col = (int(number.group(1)) if number else row + 1), 0
        elif other:
            raise _Unscannable
    reader.row, reader.col = row, col
    _charge(reader, counted)


def _plain(kind: str, v: str):
    """A plain number or shared-string index as the expat reader reads it; None for any other cell (a boolean, an
    error, a formula's text, a damaged value: the reader's own cell code reads it, or refuses it)."""
    if kind == "n" or not kind:
        try:
            return float(v) if ("." in v or "E" in v or "e" in v) else int(v)
        except ValueError:
            return None
    if kind == "s" and v.isdigit():
        return _Shared(int(v))
    return None


def _row(digits: str) -> int:
    row = int(digits)
    if row > MAX_ROW or row < 1:
        raise _Unscannable   # the expat reader names the cell outside any sheet
    return row


def _charge(reader, counted: int) -> None:
    reader.budget[0] -= counted
    if reader.budget[0] < 0:
        raise TooManyCells(reader.cells.name, 0)


def _column(letters: str, digits: str) -> int:
    col = _split_ref(letters + digits)[1]
    if col > MAX_COLUMN:
        raise _Unscannable
    return col


def _cell(reader, kind: str, style: str, f: str, f_attrs: str, f_text: str, v: str, is_: str, is_text: str) -> None:
    """A cell other than a plain number or shared string, through the expat reader's own cell code."""
    reader.kind = kind or "n"
    reader.style = int(style) if style else 0
    reader.value = _unescape(v) if v else None
    reader.formula = reader.shared = None
    if f:
        reader.formula = _unescape(f_text)
        if 't="shared"' in f_attrs:
            si = _SHARED_SI.search(f_attrs)
            reader.shared = si.group(1) if si else None
    reader.inline = ([_unescape(is_text)] if is_text else []) if is_ else None
    reader.c_end()


def _unescape(text: str) -> str:
    if "&" not in text:
        return text
    out = _ENTITY.sub(_entity, text)
    if "&" in _ENTITY.sub("", text):
        raise _Unscannable   # an entity XML does not define (expat refuses it)
    return out


def _entity(match: re.Match) -> str:
    named, decimal, hexadecimal = match.groups()
    if named:
        return _NAMED[named]
    code = int(decimal) if decimal else int(hexadecimal, 16)
    if code in (9, 10, 13) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or 0x10000 <= code <= 0x10FFFF:
        return chr(code)
    raise _Unscannable   # a character XML does not allow (expat refuses it)
