"""Read the cells of chosen sheets of an .xlsx file in one streaming pass, bounded by what they hold.

What a spreadsheet application writes after ordinary edits is read as it is: LibreOffice writes an
empty (formatted) row 1048576 after a row is deleted, Excel writes formatted empty cells and
`dimension` ranges far past the data, sheets can be in any order. Only cells holding a value or a
formula count against the limit (sheets.MAX_CELLS); empty rows and cells cost nothing but parsing.
The cached value and the formula of a cell come from the same pass (openpyxl needs two), and only
the shared strings the chosen sheets use are kept.

Cell values are what openpyxl's read-only, data-only parse gives: numbers as int or float, text,
booleans, error codes ("#REF!") as text, date-formatted numbers as datetime. The XML is parsed by
expat with DTDs and entity declarations refused (the XML bomb defence defusedxml gives openpyxl).
"""
from __future__ import annotations

import posixpath
import zipfile
from dataclasses import dataclass, field
from typing import Any, Callable

from openpyxl.styles.numbers import BUILTIN_FORMATS, is_date_format, is_timedelta_format
from openpyxl.utils.datetime import CALENDAR_MAC_1904, CALENDAR_WINDOWS_1900, from_ISO8601, from_excel

from .archive_parts import PartsArchive
from .xlsx_xml import (  # noqa: F401  (re-exported: the readers import them from here)
    _COLUMNS, MAIN, MAX_COLUMN, MAX_ROW, NAMESPACES, PACKAGE_REL, REL, STRICT_MAIN, STRICT_REL, RefusedXml,
    TooManyCells, _parse, _parser, _Shared, _split_ref,
)


class BadCellReference(ValueError):
    """A cell's reference lies outside any sheet (columns A..XFD, rows 1..1048576) or is not a reference."""

    def __init__(self, sheet: str, ref: str):
        super().__init__(f"sheet {sheet!r} holds a cell at {ref[:20]!r}, outside any sheet (columns A..XFD, rows "
                         "1..1,048,576)")
        self.sheet, self.ref = sheet, ref


class BadCellValue(ValueError):
    """A cell's stored value is not of its stored type (`<c t="n"><v>abc</v>`: a damaged or hand-edited file)."""

    def __init__(self, sheet: str, ref: str, raw: str, kind: str):
        what = {"n": "a number", "b": "a boolean (0 or 1)", "s": "a shared-string index", "d": "an ISO date"}.get(kind, kind)
        super().__init__(f"{sheet}!{ref} stores {raw[:40]!r} where the file says {what} is stored")


class TooManyStrings(ValueError):
    def __init__(self, count: int, limit: int):
        super().__init__(count)
        self.count, self.limit = count, limit


@dataclass
class SheetCells:
    """The non-empty cells of one sheet: values[row][col] (1-based), formulas[(row, col)] = "=..."."""

    name: str
    values: dict[int, dict[int, Any]] = field(default_factory=dict)
    formulas: dict[tuple[int, int], str] = field(default_factory=dict)


def _attr(attrs: dict, name: str) -> str | None:
    """An attribute in the relationships namespace (r:id) or without a namespace."""
    for key in (f"{REL}}}{name}", f"{STRICT_REL}}}{name}", name):
        if key in attrs:
            return attrs[key]
    return None


def _relationships(archive: zipfile.ZipFile, part: str) -> dict[str, tuple[str, str]]:
    """rId -> (target part, type) of a part's relationships."""
    folder, name = posixpath.split(part)
    rels_part = posixpath.join(folder, "_rels", name + ".rels")
    out: dict[str, tuple[str, str]] = {}
    if rels_part not in archive.namelist():
        return out

    def rel(attrs):
        target = attrs.get("Target", "")
        target = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
        out[attrs.get("Id", "")] = (target, attrs.get("Type", ""))

    _parse(archive, rels_part, _parser({"Relationship": rel}, {}))
    return out


def _workbook_part(archive: zipfile.ZipFile) -> str:
    for target, kind in _relationships(archive, "").values():
        if kind.endswith("/officeDocument"):
            return target
    return "xl/workbook.xml"


def sheet_parts(archive: zipfile.ZipFile) -> dict[str, str]:
    """Sheet name -> its part in the archive."""
    book = _workbook_part(archive)
    rels = _relationships(archive, book)
    found: list[tuple[str, str]] = []
    _parse(archive, book, _parser({"sheet": lambda a: found.append((a.get("name", ""), _attr(a, "id") or ""))}, {}))
    return {name: rels.get(rid, ("", ""))[0] for name, rid in found}


def names_and_states(archive: zipfile.ZipFile) -> tuple[list[tuple[str, str | None]], list[str]]:
    """The workbook's defined names as (name, localSheetId or None) and its sheets' states ("visible" where the
    file says none), in the order of the workbook part."""
    names: list[tuple[str, str | None]] = []
    states: list[str] = []
    tags = {"definedName": lambda a: names.append((a.get("name", ""), a.get("localSheetId"))),
            "sheet": lambda a: states.append(a.get("state", "visible"))}
    _parse(archive, _workbook_part(archive), _parser(tags, {}))
    return names, states


def shared_strings_part(archive: zipfile.ZipFile) -> str | None:
    """The shared string table's part (None: the workbook has none)."""
    rels = _relationships(archive, _workbook_part(archive))
    return next((target for target, kind in rels.values() if kind.endswith("/sharedStrings")), None)


def _count_strings(data: bytes, limit: int) -> int:
    count = data.count(b"<si>") + data.count(b"<si ") + data.count(b"<si/>") + data.count(b":si>") + data.count(b":si ")
    if count > limit:
        raise TooManyStrings(count, limit)
    return count


def _shared_strings(archive: zipfile.ZipFile, part: str | None, needed: set[int]) -> dict[int, str]:
    """The text of each needed <si> of the shared string table (phonetic runs left out, as openpyxl reads it).

    Only the strings the chosen sheets use are parsed: the table is scanned for where each <si> starts (a
    byte search), and the needed ones are parsed with the table's own start tag around them (its namespace
    declarations). A table with comments or CDATA, where a byte search could be fooled, is parsed whole."""
    if part is None or part not in archive.namelist() or not needed:
        return {}
    data = archive.read(part)  # its size is bounded by io.safety (sheets.MAX_MEMBER_BYTES); its count by read_cells
    if b"<!--" in data or b"<![CDATA[" in data or b":si" in data:
        return _parse_strings(data, None)
    head_start = data.find(b"<sst")
    head_end = data.find(b">", head_start) + 1
    if head_start < 0 or data[head_end - 2:head_end] == b"/>":
        return {}
    wrapper, closing = data[head_start:head_end], b"</sst>"
    wanted = sorted(needed)
    fragments: dict[int, bytes] = {}
    pos, index, last = head_end, -1, wanted[-1]
    i = 0
    while index < last:  # up to the last needed string; the rest of the table is never looked at
        pos = data.find(b"<si", pos)
        if pos < 0:
            break
        if data[pos + 3:pos + 4] not in (b">", b" ", b"/", b"\t", b"\n", b"\r"):
            pos += 3
            continue
        index += 1
        if index == wanted[i]:
            close = data.find(b">", pos)  # the end of the <si> start tag: <si/> is empty
            stop = close + 1 if data[close - 1:close] == b"/" else data.find(b"</si>", close) + 5
            fragments[index] = data[pos:stop]
            i += 1
        pos += 3
    if not fragments:
        return {}
    return _parse_strings(wrapper + b"".join(fragments.values()) + closing, list(fragments))


def _parse_strings(data: bytes, indices: list[int] | None) -> dict[int, str]:
    strings: list[str] = []
    text: list[str] = []
    state = {"phonetic": 0, "in_t": False}

    def si(_attrs):
        text.clear()

    def t(_attrs):
        state["in_t"] = state["phonetic"] == 0

    def t_end():
        state["in_t"] = False

    def rph(_attrs):
        state["phonetic"] += 1

    def rph_end():
        state["phonetic"] -= 1

    def si_end():
        strings.append("".join(text).replace("x005F_", ""))

    parser = _parser({"si": si, "t": t, "rPh": rph}, {"si": si_end, "t": t_end, "rPh": rph_end})
    parser.CharacterDataHandler = lambda chunk: text.append(chunk) if state["in_t"] else None
    parser.Parse(data, True)
    return dict(zip(indices if indices is not None else range(len(strings)), strings))


def _resolve_strings(cells: SheetCells, strings: dict[int, str]) -> None:
    for row in cells.values.values():
        for col, value in row.items():
            if type(value) is _Shared:
                if value not in strings:
                    raise ValueError(f"{cells.name}: a cell names shared string {int(value)}, which the file does not have")
                row[col] = strings[value]


def _date_styles(archive: zipfile.ZipFile, part: str | None) -> tuple[set[int], set[int]]:
    """(style indices whose number format is a date, those that are a duration), as openpyxl sees them."""
    if part is None or part not in archive.namelist():
        return set(), set()
    formats = dict(BUILTIN_FORMATS)
    xf_formats: list[int] = []
    where = {"cellXfs": False}

    def num_fmt(attrs):
        if "numFmtId" in attrs and "formatCode" in attrs:
            formats[int(attrs["numFmtId"])] = attrs["formatCode"]

    def cell_xfs(_attrs):
        where["cellXfs"] = True

    def cell_xfs_end():
        where["cellXfs"] = False

    def xf(attrs):
        if where["cellXfs"]:
            xf_formats.append(int(attrs.get("numFmtId", 0) or 0))

    _parse(archive, part, _parser({"numFmt": num_fmt, "cellXfs": cell_xfs, "xf": xf}, {"cellXfs": cell_xfs_end}))
    dates, durations = set(), set()
    for index, fmt_id in enumerate(xf_formats):
        code = formats.get(fmt_id)
        if code and is_date_format(code):
            dates.add(index)
            if is_timedelta_format(code):
                durations.add(index)
    return dates, durations


class _SheetReader:
    """The expat handlers of one worksheet part."""

    def __init__(self, cells: SheetCells, dates: set[int], durations: set[int], epoch, budget: list[int],
                 last_row: int | None = None):
        self.cells, self.dates, self.durations, self.epoch = cells, dates, durations, epoch
        self.date_texts = {str(style) for style in dates}   # as a cell's s="..." writes them (xlsx_sheet_scan)
        self.budget = budget
        self.last_row = last_row   # stop (_HeaderRead) past this row: a sheet read only for its header row
        self.row = 0
        self.col = 0
        self.text: list[str] = []
        self.kind = "n"
        self.style = 0
        self.value: str | None = None
        self.formula: str | None = None
        self.shared: str | None = None
        self.inline: list[str] | None = None
        self.in_text = False
        self.phonetic = 0
        self.masters: dict[str, tuple[str, int, int]] = {}
        self.dependents: dict[tuple[int, int], str] = {}

    def parser(self):
        """The parser, its start and end handlers one call per element: the cell and value elements (nearly all
        of a sheet) are handled inline, the rest by the methods below."""
        parser = _parser({}, {})
        starts = {"row": self.row_start, "c": self.c_start, "v": self.text_start, "f": self.f_start,
                  "is": self.is_start, "t": self.t_start, "rPh": self.rph_start}
        ends = {"c": self.c_end, "v": self.v_end, "f": self.f_end, "t": self.t_end, "rPh": self.rph_end}
        local = {f"{ns}}}{name}" if ns else name: name for name in {*starts, *ends} for ns in NAMESPACES}
        local_get, text = local.get, self.text
        c_start, c_end = self.c_start, self.c_end

        def start(name, attrs):
            tag = local_get(name)
            if tag == "c":
                c_start(attrs)
            elif tag == "v":
                text.clear()
                self.in_text = True
            elif tag is not None:
                starts[tag](attrs)

        def end(name):
            tag = local_get(name)
            if tag == "v":
                self.value = "".join(text)
                self.in_text = False
            elif tag == "c":
                c_end()
            elif tag in ends:
                ends[tag]()

        parser.StartElementHandler = start
        parser.EndElementHandler = end
        parser.CharacterDataHandler = self.chars
        return parser

    def chars(self, data):
        if self.in_text:
            self.text.append(data)

    def row_start(self, attrs):
        r = attrs.get("r")
        self.row = int(r) if r else self.row + 1
        self.col = 0
        if self.last_row is not None and self.row > self.last_row:
            raise _HeaderRead

    def c_start(self, attrs, _columns=_COLUMNS):
        get = attrs.get
        ref = get("r")
        if ref:
            letters = ref.rstrip("0123456789")
            col = _columns.get(letters)
            if col is None:
                if not (letters.isascii() and letters.isalpha() and len(ref) > len(letters)):
                    raise BadCellReference(self.cells.name, ref)
                col = _split_ref(ref)[1]
            self.row, self.col = int(ref[len(letters):]), col
            if not (1 <= self.row <= MAX_ROW and col <= MAX_COLUMN):
                raise BadCellReference(self.cells.name, ref)
        else:
            self.col += 1
        self.kind = get("t", "n")
        s = get("s")
        self.style = int(s) if s and s.isdigit() else 0
        self.value = self.formula = self.shared = self.inline = None

    def text_start(self, _attrs):
        self.text.clear()
        self.in_text = True

    def v_end(self):
        self.value = "".join(self.text)
        self.in_text = False

    def f_start(self, attrs):
        self.text.clear()
        self.in_text = True
        if attrs.get("t") == "shared":
            self.shared = attrs.get("si")

    def f_end(self):
        self.formula = "".join(self.text)
        self.in_text = False

    def is_start(self, _attrs):
        self.inline = []

    def t_start(self, _attrs):
        if self.inline is not None and not self.phonetic:
            self.text.clear()
            self.in_text = True

    def t_end(self):
        if self.inline is not None and self.in_text:
            self.inline.append("".join(self.text))
            self.in_text = False

    def rph_start(self, _attrs):
        self.phonetic += 1

    def rph_end(self):
        self.phonetic -= 1

    def c_end(self):
        try:
            value = self._value()
        except (ValueError, OverflowError, TypeError):
            from openpyxl.utils import get_column_letter
            raise BadCellValue(self.cells.name, f"{get_column_letter(max(self.col, 1))}{self.row}", str(self.value),
                               self.kind) from None
        formula = self.formula
        if formula is not None or self.shared is not None:
            key = (self.row, self.col)
            if formula:
                self.cells.formulas[key] = "=" + formula
                if self.shared is not None:
                    self.masters[self.shared] = (formula, self.row, self.col)
            elif self.shared is not None:
                self.dependents[key] = self.shared
        elif value is None:
            return
        self.budget[0] -= 1
        if self.budget[0] < 0:
            raise TooManyCells(self.cells.name, 0)
        if value is not None:
            row = self.cells.values.get(self.row)
            if row is None:
                row = self.cells.values[self.row] = {}
            row[self.col] = value

    def _value(self) -> Any:
        kind, value = self.kind, self.value
        if kind == "inlineStr":
            return "".join(self.inline) if self.inline is not None else None
        if not value:
            return None
        if kind == "n":
            number = float(value) if ("." in value or "E" in value or "e" in value) else int(value)
            if self.style in self.dates:
                try:
                    return from_excel(number, self.epoch, timedelta=self.style in self.durations)
                except (OverflowError, ValueError):
                    return "#VALUE!"
            return number
        if kind == "s":
            return _Shared(int(value))
        if kind == "b":
            return bool(int(value))
        if kind == "d":
            return from_ISO8601(value)
        return value  # "str" (a formula's text), "e" (an error code)

    def finish(self) -> None:
        """Shared formulas: each dependent cell gets its master's formula, translated to its place."""
        if not self.dependents:
            return
        from openpyxl.formula.translate import Translator
        from openpyxl.utils import get_column_letter

        for (row, col), si in self.dependents.items():
            master = self.masters.get(si)
            if master is None:
                continue
            text, m_row, m_col = master
            origin = f"{get_column_letter(m_col)}{m_row}"
            self.cells.formulas[(row, col)] = Translator("=" + text, origin).translate_formula(
                f"{get_column_letter(col)}{row}")


def _chosen(sheets, names, rels, wanted, headers) -> list[tuple[str, str]]:
    """(name, part) of the worksheets to read: the wanted ones whole, those `headers` names for their row 1."""
    return [(name, rels.get(rid, ("", ""))[0]) for name, rid in sheets
            if names[name] == "worksheet" and (name in wanted or (headers is not None and headers(name)))]


def _read_sheet(archive, part: str, reader: "_SheetReader", max_cells: int) -> SheetCells:
    """One worksheet's cells (only row 1 for a reader with last_row 1)."""
    from .xlsx_sheet_scan import MAX_SCANNED_BYTES, scan_sheet

    try:
        if reader.last_row is not None or archive.getinfo(part).file_size > MAX_SCANNED_BYTES or \
                not scan_sheet(archive.read(part), reader):
            _parse(archive, part, reader.parser())
    except _HeaderRead:
        pass
    except TooManyCells:
        raise TooManyCells(reader.cells.name, max_cells) from None
    reader.finish()
    return reader.cells


class _HeaderRead(Exception):
    """Raised by a reader of a sheet's header row once it reaches row 2."""


def read_cells(path, wanted, max_cells: int, max_strings: int, headers: Callable[[str], bool] | None = None,
               parts: dict[str, bytes] | None = None) -> tuple[dict[str, str], dict[str, SheetCells]]:
    """({every sheet name in workbook order: its kind ("worksheet", "chartsheet", ...)}, the cells of each
    worksheet in `wanted`, and row 1 only of each other worksheet for which `headers(name)` is true (which
    table a renamed sheet holds is told by its header row).

    Raises TooManyCells when the wanted sheets hold more than `max_cells` cells with a value or a
    formula, TooManyStrings when the shared string table holds more than `max_strings` strings,
    RefusedXml for a DTD or entity declaration; KeyError, zipfile and expat errors for a damaged file.
    """
    with PartsArchive(path, parts) as archive:   # parts: those unpacked already (archive_parts.py)
        book_part = _workbook_part(archive)
        rels = _relationships(archive, book_part)
        sheets: list[tuple[str, str]] = []
        flags = {"date1904": False}

        def sheet(attrs):
            sheets.append((attrs.get("name", ""), _attr(attrs, "id") or ""))

        def workbook_pr(attrs):
            flags["date1904"] = attrs.get("date1904", "0") in ("1", "true")

        _parse(archive, book_part, _parser({"sheet": sheet, "workbookPr": workbook_pr}, {}))
        by_type = {kind.rsplit("/", 1)[-1]: target for target, kind in rels.values()}
        epoch = CALENDAR_MAC_1904 if flags["date1904"] else CALENDAR_WINDOWS_1900
        names = {name: rels.get(rid, ("", ""))[1].rsplit("/", 1)[-1] for name, rid in sheets}
        chosen = _chosen(sheets, names, rels, wanted, headers)
        if not chosen:
            return names, {}
        strings_part = by_type.get("sharedStrings")
        if strings_part in archive.namelist():  # refused before anything is parsed
            _count_strings(archive.read(strings_part), max_strings)
        dates, durations = _date_styles(archive, by_type.get("styles"))
        budget = [max_cells]
        out: dict[str, SheetCells] = {}
        for name, part in chosen:
            reader = _SheetReader(SheetCells(name), dates, durations, epoch, budget, None if name in wanted else 1)
            out[name] = _read_sheet(archive, part, reader, max_cells)
        needed = {v for cells in out.values() for row in cells.values.values() for v in row.values() if type(v) is _Shared}
        strings = _shared_strings(archive, strings_part, needed)
        for cells in out.values():
            _resolve_strings(cells, strings)
        return names, out
