"""The XML primitives the workbook cell readers share (xlsx_cells_read: the streaming parse;
xlsx_sheet_scan: the scan of a worksheet's cells): namespaces, the sheet's size, an expat parser that
refuses DTDs and entity declarations (the XML bomb defence defusedxml gives openpyxl), a cell
reference's row and column, and the errors they raise."""
from __future__ import annotations

import xml.parsers.expat
import zipfile
from typing import Callable

MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
STRICT_MAIN = "http://purl.oclc.org/ooxml/spreadsheetml/main"
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
STRICT_REL = "http://purl.oclc.org/ooxml/officeDocument/relationships"
PACKAGE_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
NAMESPACES = (MAIN, STRICT_MAIN, PACKAGE_REL, "")  # the element namespaces read (no namespace: a bare name)


class RefusedXml(ValueError):
    """A part declares a DTD or entities (as an XML bomb does)."""


class TooManyCells(ValueError):
    def __init__(self, sheet: str, limit: int):
        super().__init__(sheet)
        self.sheet, self.limit = sheet, limit


MAX_ROW, MAX_COLUMN = 1_048_576, 16_384  # the size of an Excel / LibreOffice sheet


class _Shared(int):
    """A cell's index into the shared string table, until the strings the sheets use are read."""


_COLUMNS: dict[str, int] = {}


def _split_ref(ref: str) -> tuple[int, int]:
    """'AB12' -> (12, 28)."""
    letters = ref.rstrip("0123456789")
    col = _COLUMNS.get(letters)
    if col is None:
        col = 0
        for ch in letters.upper():
            col = col * 26 + ord(ch) - 64
        _COLUMNS[letters] = col
    return int(ref[len(letters):]), col


def _parser(tags: dict[str, Callable], end_tags: dict[str, Callable], text: list[str] | None = None):
    """An expat parser (namespace-aware) calling tags[local name](attrs) and end_tags[local name]()."""
    parser = xml.parsers.expat.ParserCreate(namespace_separator="}")
    parser.buffer_text = True
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)

    def refuse(*_args):
        raise RefusedXml("the workbook's XML declares entities or a DTD")

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse

    # handlers by the full (namespace-qualified) name: a dict look-up per element, nothing else
    starts = {f"{ns}}}{local}" if ns else local: h for local, h in tags.items() for ns in NAMESPACES}
    ends = {f"{ns}}}{local}" if ns else local: h for local, h in end_tags.items() for ns in NAMESPACES}
    starts_get, ends_get = starts.get, ends.get

    def start(name, attrs):
        handler = starts_get(name)
        if handler is not None:
            handler(attrs)

    def end(name):
        handler = ends_get(name)
        if handler is not None:
            handler()

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    if text is not None:
        parser.CharacterDataHandler = text.append
    return parser


def _parse(archive: zipfile.ZipFile, part: str, parser) -> None:
    with archive.open(part) as source:
        parser.ParseFile(source)
