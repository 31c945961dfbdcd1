"""When openpyxl cannot parse a workbook, find the sheet and cell its XML breaks at.

openpyxl's own errors name no place and show parser internals ("invalid literal for int() with
base 10: 'nan'", "'list' object has no attribute 'find'"). This module reads the parts itself (with
defusedxml, after io.safety has vetted the archive) and names what a person can fix: a chart sheet,
the cell whose stored number is not a number, the cell where a control character breaks the XML.
Only called on the failure path, so its cost does not matter.
"""
from __future__ import annotations

import math
import posixpath
import re
import zipfile
from datetime import datetime
from xml.etree.ElementTree import ParseError

from defusedxml import ElementTree

from ..engine.core.errors import shown

MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
DOC_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
PKG_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
CELL_REF = re.compile(r"[A-Z]{1,3}[1-9][0-9]{0,6}")
CELL_START = re.compile(rb'<(?:\w+:)?c\b[^>]*?\br="([A-Z]{1,3}[0-9]{1,7})"')


def explain(path) -> str | None:
    """One line naming the sheet (and cell) that keeps the workbook from being read, or None."""
    try:
        with zipfile.ZipFile(path) as archive:
            broken = _broken_part(archive, ("xl/workbook.xml", "xl/_rels/workbook.xml.rels", "xl/sharedStrings.xml",
                                            "xl/styles.xml", "[Content_Types].xml"))
            if broken:
                return broken
            for name, part, kind in _sheet_parts(archive):
                if kind == "chartsheet":
                    return (f"sheet {shown(name)} is a chart sheet: a scenario workbook holds only worksheets "
                            "(delete the chart sheet, or move its chart onto a worksheet)")
                if part not in archive.namelist():
                    return f"sheet {shown(name)}: its part {part!r} is missing from the file"
                problem = _sheet_problem(name, archive.read(part))
                if problem:
                    return problem
    except Exception:  # noqa: BLE001 - a diagnosis that fails itself leaves the reader's own message
        return None
    return None


def _broken_part(archive: zipfile.ZipFile, parts) -> str | None:
    for part in parts:
        if part not in archive.namelist():
            continue
        try:
            ElementTree.fromstring(archive.read(part))
        except ParseError as exc:
            return (f"the part {part!r} of the file is not well-formed XML ({exc}): the file is damaged or was "
                    "edited by hand")
    return None


def _sheet_parts(archive: zipfile.ZipFile) -> list[tuple[str, str, str]]:
    """(sheet name, part path, "worksheet" | "chartsheet" | other) in workbook order."""
    workbook = ElementTree.fromstring(archive.read("xl/workbook.xml"))
    rels = ElementTree.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    targets = {}
    for rel in rels.iter(f"{PKG_REL}Relationship"):
        target = rel.get("Target", "")
        part = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join("xl", target))
        targets[rel.get("Id")] = (part, rel.get("Type", "").rsplit("/", 1)[-1])
    parts = []
    for sheet in workbook.iter(f"{MAIN}sheet"):
        part, kind = targets.get(sheet.get(f"{DOC_REL}id"), ("", ""))
        parts.append((sheet.get("name", ""), part, kind))
    return parts


def _sheet_problem(name: str, data: bytes) -> str | None:
    try:
        root = ElementTree.fromstring(data)
    except ParseError as exc:
        return _broken_xml(name, data, exc)
    for cell in root.iter(f"{MAIN}c"):
        problem = _cell_problem(name, cell)
        if problem:
            return problem
    return None


def _broken_xml(name: str, data: bytes, exc: ParseError) -> str:
    line, column = getattr(exc, "position", (1, 0))
    lines = data.split(b"\n")
    offset = sum(len(text) + 1 for text in lines[: line - 1]) + column
    cells = CELL_START.findall(data[: offset + 1])
    place = f"{name}!{cells[-1].decode()}" if cells else f"sheet {shown(name)}"
    reason = str(exc).split(":")[0]
    window = data[max(0, offset - 2): offset + 2]
    if "invalid character" in reason or any(b < 0x20 and b not in b"\t\n\r" for b in window):
        return f"{place}: holds a control character, which a workbook cannot store (retype the text)"
    return f"{place}: the sheet's XML is damaged here ({reason}); the file was not written by a spreadsheet application"


def _cell_problem(name: str, cell) -> str | None:
    ref = cell.get("r")
    if ref is not None and not CELL_REF.fullmatch(ref):
        return f"sheet {shown(name)}: a cell has the impossible address {shown(ref)}"
    value = cell.find(f"{MAIN}v")
    text = (value.text or "").strip() if value is not None else ""
    if not text:
        return None
    kind = cell.get("t", "n")
    where = f"{name}!{ref}" if ref else f"sheet {shown(name)}"
    if kind == "n" and not _is_number(text):
        return f"{where}: the stored number {shown(text)} is not a number (type the value again)"
    if kind == "b" and text not in ("0", "1"):
        return f"{where}: the stored TRUE/FALSE value {shown(text)} is neither"
    if kind == "s" and not text.isdigit():
        return f"{where}: the stored text reference {shown(text)} is not a string index"
    if kind == "d" and not _is_date(text):
        return f"{where}: the stored date {shown(text)} is not a date"
    return None


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _is_date(text: str) -> bool:
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True
