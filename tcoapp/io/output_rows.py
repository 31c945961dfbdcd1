"""Rows an analyst typed into the app's output sheets, Results and CashFlow (docs/workbook_format.md, "Your own
sheets"). Those sheets are rewritten from the engine and the inputs on every save, so such a row is not kept: it
is named in a note when the workbook is read (every surface shows the read notes), before a save could drop it.

A row is the app's when its column A is a key (lower-case snake case, with a `poolN.` prefix on a pool's rows), a
section title the app writes, a formula naming the Plans sheet (CashFlow's plan headers) or empty; any other
text, number or formula in column A is the analyst's. Only column A is looked at: the XML of the two sheets is
scanned for it, without loading the sheets (CashFlow holds tens of thousands of cells).
"""
from __future__ import annotations

import functools
import re
import zipfile
from html import unescape

from . import sheets as S
from .xlsx_cells_read import _relationships, _shared_strings, shared_strings_part, sheet_parts

OUTPUT_SHEETS = (S.RESULTS, S.CASH_FLOW)
_CELL_A = re.compile(rb'<(?:\w+:)?c\s([^>]*?\br="A(\d+)"[^>]*?)(?:/>|>(.*?)</(?:\w+:)?c>)', re.S)
_A_REF = re.compile(rb'r="A\d+"')   # a literal start: scanned at memchr speed (a leading \b is 10x slower)
_TYPE = re.compile(rb'\bt="(\w+)"')
_VALUE = re.compile(rb'<(?:\w+:)?v>(.*?)</(?:\w+:)?v>', re.S)
_FORMULA = re.compile(rb'<(?:\w+:)?f(?:\s[^>]*)?>(.*?)</(?:\w+:)?f>', re.S)
_TEXT = re.compile(rb'<(?:\w+:)?t(?:\s[^>]*)?>(.*?)</(?:\w+:)?t>', re.S)
_KEY = re.compile(r"^(pool\d+\.)?[a-z][a-z0-9_]*$")
SHOWN = 6   # rows named in a note; more are counted


def _column_a(xml: bytes) -> list[tuple[int, str, str]]:
    """(row, kind, text) of each column-A cell: kind "formula" (text: the formula), "shared" (text: the string's
    index), "text" or "number"."""
    out = []
    end = 0
    for ref in _A_REF.finditer(xml):   # from each column-A reference back to its cell's start: the sheet's other
        at = ref.start()                # cells (tens of thousands on CashFlow) are never tried
        if at < end or (at and (xml[at - 1:at].isalnum() or xml[at - 1:at] == b"_")):   # not `r=` itself: `sqref=`
            continue
        cell = _CELL_A.match(xml, max(xml.rfind(b"<", 0, ref.start()), 0))
        if cell is None:
            continue
        end = cell.end()
        attrs, row, body = cell.groups()
        body = body or b""
        formula = _FORMULA.search(body)
        if formula:
            out.append((int(row), "formula", unescape(formula.group(1).decode("utf-8", "replace"))))
            continue
        kind = (_TYPE.search(attrs) or [b"", b"n"])[1]
        if kind == b"inlineStr":
            out.append((int(row), "text", unescape("".join(t.decode("utf-8", "replace") for t in _TEXT.findall(body)))))
            continue
        value = _VALUE.search(body)
        if value:
            out.append((int(row), "shared" if kind == b"s" else "text" if kind == b"str" else "number",
                        unescape(value.group(1).decode("utf-8", "replace"))))
    return out


def _is_app_row(kind: str, text: str, titles: frozenset[str], pool_title: re.Pattern) -> bool:
    if kind == "formula":
        return text.lstrip("=").replace("'", "").startswith(S.PLANS + "!")
    if kind == "number":
        return False
    text = text.strip()
    return not text or bool(_KEY.match(text)) or text in titles or bool(pool_title.fullmatch(text))


def analyst_output_rows(archive: zipfile.ZipFile, read=None) -> dict[str, list[tuple[int, str]]]:
    """{sheet: [(row, column A as shown)]} of the rows in Results and CashFlow that are not the app's (`read(part)`:
    a part's bytes, default archive.read)."""
    from .xlsx_results import pool_title, section_titles

    titles = section_titles()
    pool = re.compile(re.escape(pool_title(0)).replace("0", r"\d+", 1))
    parts = sheet_parts(archive)
    read = read or archive.read
    cells = {name: _column_a(read(parts[name])) for name in OUTPUT_SHEETS
             if parts.get(name) in archive.namelist()}
    needed = {int(text) for found in cells.values() for _, kind, text in found if kind == "shared" and text.isdigit()}
    strings = _shared_strings(archive, shared_strings_part(archive), needed) if needed else {}
    out: dict[str, list[tuple[int, str]]] = {}
    for name, found in cells.items():
        for row, kind, text in found:
            if kind == "shared":
                kind, text = "text", strings.get(int(text), "") if text.isdigit() else ""
            if not _is_app_row(kind, text, titles, pool):
                out.setdefault(name, []).append((row, ("=" + text) if kind == "formula" else text))
    return out


_ANCHOR = re.compile(rb"<(?:\w+:)?(?:twoCellAnchor|oneCellAnchor|absoluteAnchor)\b")


def analyst_drawings(archive: zipfile.ZipFile, read=None) -> dict[str, str]:
    """{sheet: what of the analyst's it holds} for Results and CashFlow: charts or pictures beyond the app's (none
    on Results, APP_CASHFLOW_CHARTS on CashFlow) and data validations (the app writes none on either)."""
    from .xlsx_charts import APP_CASHFLOW_CHARTS

    parts, names, found, read = sheet_parts(archive), set(archive.namelist()), {}, read or archive.read
    for name, app_charts in ((S.RESULTS, 0), (S.CASH_FLOW, APP_CASHFLOW_CHARTS)):
        part = parts.get(name)
        if part not in names:
            continue
        drawn = sum(len(_ANCHOR.findall(archive.read(target))) for target, kind in _relationships(archive, part).values()
                    if kind.endswith("/drawing") and target in names)
        validations = read(part).count(b"<dataValidation ")
        what = ([f"{drawn - app_charts} chart{'s' if drawn - app_charts > 1 else ''} or picture"
                 f"{'s' if drawn - app_charts > 1 else ''}"] if drawn > app_charts else [])
        what += [f"{validations} data validation{'s' if validations > 1 else ''}"] if validations else []
        if what:
            found[name] = " and ".join(what)
    return found


def output_row_notes(archive: zipfile.ZipFile) -> list[str]:
    """One note per output sheet holding rows of the analyst's: which rows, and that a save does not keep them;
    one per output sheet holding charts, pictures or data validations of the analyst's."""
    read = functools.lru_cache(maxsize=None)(archive.read)   # each output sheet unpacked once for both looks
    notes = [f"{name} holds {what} not the app's: {name} is rewritten on save and they are not kept: put them on "
             "a sheet of your own (kept on save, charts redrawn)" for name, what in analyst_drawings(archive, read).items()]
    for name, rows in analyst_output_rows(archive, read).items():
        shown = ", ".join(f"{row} ({_short(text)!r})" for row, text in rows[:SHOWN])
        more = f" and {len(rows) - SHOWN} more" if len(rows) > SHOWN else ""
        notes.append(f"{name} row{'s' if len(rows) > 1 else ''} {shown}{more}: not the app's; {name} is rewritten on "
                     f"save and {'they are' if len(rows) > 1 else 'it is'} not kept: move your rows to a sheet of your "
                     "own (kept on save; formulas there may reference Results and CashFlow)")
    return notes


def _short(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"
