"""Edit workbooks inside LibreOffice Calc (headless, through UNO), as an analyst does: type a value
or a formula, insert or delete rows, sort a table, move a sheet, copy a column; then recalculate
everything and save as .xlsx (what File > Save does with "Keep current format").

Run by the system Python that ships with LibreOffice's UNO bridge (python3 with
/usr/lib/libreoffice/program on its path), never imported by tcoapp:

    python3 lo_edit.py JOBS.json

JOBS.json: [{"src": in.xlsx, "dst": out.xlsx, "ops": [[op, args...], ...]}, ...] with ops
    ["set", sheet, "B7", value]          a number or text ("=..." is a formula)
    ["delete_rows", sheet, row, count]   1-based row
    ["insert_rows", sheet, row, count]
    ["insert_columns", sheet, col, count]  1-based column
    ["replace_all", "*", search, replace]  Find & Replace over every sheet (values and formulas)
    ["delete_columns", sheet, col, count]  1-based column
    ["copy_column", sheet, from_col, to_col]   whole column, values and formulas (1-based)
    ["sort", sheet, "A3:Z40", key_col, ascending]  key_col 0-based within the range
    ["move_sheet", sheet, position]      0-based position
    ["insert_sheet", name, position], ["copy_sheet", sheet, new name, position], ["rename_sheet", sheet, new name],
    ["annotate", sheet, "B7", text], ["number_format", sheet, "B7", "0.00"], ["paste_values", sheet, "A1:Z9"],
    ["move_range", sheet, "A1:Z9", "C5"]
and optional "after": [["shown", sheet, "C1"], ...] writes the text each cell shows (after recalculation) to DST.shown.json
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.append("/usr/lib/libreoffice/program")
import uno  # noqa: E402
from com.sun.star.beans import PropertyValue  # noqa: E402
from com.sun.star.table import CellRangeAddress, CellAddress  # noqa: E402


def _prop(name, value):
    p = PropertyValue()
    p.Name, p.Value = name, value
    return p


def _connect(pipe):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    for _ in range(120):
        try:
            ctx = resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
            return ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
        except Exception:  # noqa: BLE001 - not up yet
            time.sleep(0.5)
    raise RuntimeError("LibreOffice did not start")


_SHOWN: dict = {}


def _apply(doc, op):
    kind, sheet_name, *args = op
    sheets = doc.getSheets()
    if kind == "insert_sheet":   # ["insert_sheet", new name, position]
        sheets.insertNewByName(sheet_name, args[0])
        return
    if kind == "replace_all":
        return _replace_all(sheets, *args)
    sheet = sheets.getByName(sheet_name)
    index = [sheets.getByIndex(i).getName() for i in range(sheets.getCount())].index(sheet_name)
    if kind == "set":
        cell = sheet.getCellRangeByName(args[0])
        value = args[1]
        if isinstance(value, str) and value.startswith("="):
            cell.setFormula(value)
        elif isinstance(value, str):
            cell.setString(value)
        else:
            cell.setValue(value)
    elif kind == "delete_rows":
        sheet.getRows().removeByIndex(args[0] - 1, args[1])
    elif kind == "insert_rows":
        sheet.getRows().insertByIndex(args[0] - 1, args[1])
    elif kind == "insert_columns":  # ["insert_columns", sheet, col, count]: 1-based column
        sheet.getColumns().insertByIndex(args[0] - 1, args[1])
    elif kind == "delete_columns":
        sheet.getColumns().removeByIndex(args[0] - 1, args[1])
    elif kind == "copy_column":
        source = CellRangeAddress()
        source.Sheet, source.StartColumn, source.EndColumn = index, args[0] - 1, args[0] - 1
        source.StartRow, source.EndRow = 0, 1048575
        target = CellAddress()
        target.Sheet, target.Column, target.Row = index, args[1] - 1, 0
        sheet.copyRange(target, source)
    elif kind == "sort":
        rng = sheet.getCellRangeByName(args[0])
        field = uno.createUnoStruct("com.sun.star.table.TableSortField")
        field.Field, field.IsAscending = args[1], bool(args[2])
        desc = rng.createSortDescriptor()
        for p in desc:
            if p.Name == "SortFields":
                p.Value = uno.Any("[]com.sun.star.table.TableSortField", (field,))
            elif p.Name == "ContainsHeader":
                p.Value = False
        rng.sort(desc)
    elif kind == "move_sheet":
        sheets.moveByName(sheet_name, args[0])
    elif kind == "copy_sheet":     # ["copy_sheet", sheet, copy's name, position]
        sheets.copyByName(sheet_name, args[0], args[1])
    elif kind == "rename_sheet":   # ["rename_sheet", sheet, new name]
        sheet.setName(args[0])
    elif kind == "annotate":       # ["annotate", sheet, "B7", text]: a comment
        address = sheet.getCellRangeByName(args[0]).getCellAddress()
        sheet.getAnnotations().insertNew(address, args[1])
    elif kind == "number_format":  # ["number_format", sheet, "B7", "0.00%"]
        cell = sheet.getCellRangeByName(args[0])
        formats = doc.getNumberFormats()
        locale = uno.createUnoStruct("com.sun.star.lang.Locale")
        key = formats.queryKey(args[1], locale, False)
        cell.NumberFormat = key if key != -1 else formats.addNew(args[1], locale)
    elif kind == "paste_values":   # ["paste_values", sheet, "A1:Z99"]: copy, paste special values only
        rng = sheet.getCellRangeByName(args[0])
        rng.setDataArray(rng.getDataArray())
    elif kind == "shown":          # ["shown", sheet, "C1"]: the text the cell shows, into DST.shown.json
        _SHOWN[f"{sheet_name}!{args[0]}"] = sheet.getCellRangeByName(args[0]).getString()
    elif kind == "move_range":     # ["move_range", sheet, "A1:Z9", "C5"]: cut and paste (references follow)
        target = sheet.getCellRangeByName(args[1]).getCellAddress()
        sheet.moveRange(target, sheet.getCellRangeByName(args[0]).getRangeAddress())
    else:
        raise ValueError(f"unknown op {kind}")


def _replace_all(sheets, search, replace):
    """Find & Replace over every sheet (Edit > Find & Replace, "All sheets", Replace All): values and formulas."""
    for i in range(sheets.getCount()):
        target = sheets.getByIndex(i)
        desc = target.createReplaceDescriptor()
        desc.setSearchString(search)
        desc.setReplaceString(replace)
        target.replaceAll(desc)


def run(jobs, profile):
    pipe = f"tcoapp_lo_{os.getpid()}"
    office = subprocess.Popen(["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--norestore",
                               "--invisible", f"--accept=pipe,name={pipe};urp;"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        desktop = _connect(pipe)
        for job in jobs:
            url = uno.systemPathToFileUrl(os.path.abspath(job["src"]))
            doc = desktop.loadComponentFromURL(url, "_blank", 0, (_prop("Hidden", True),))
            doc.calculateAll()
            for op in job["ops"]:
                _apply(doc, op)
            doc.calculateAll()
            _SHOWN.clear()
            for op in job.get("after", []):   # "shown" ops: read once everything is recalculated
                _apply(doc, op)
            if _SHOWN:
                with open(job["dst"] + ".shown.json", "w") as handle:
                    json.dump(_SHOWN, handle)
            out = uno.systemPathToFileUrl(os.path.abspath(job["dst"]))
            doc.storeToURL(out, (_prop("FilterName", "Calc MS Excel 2007 XML"),))
            doc.close(True)
        try:
            desktop.terminate()
        except Exception:  # noqa: BLE001 - the bridge drops as it quits
            pass
        office.wait(timeout=60)
    finally:
        if office.poll() is None:
            office.kill()


if __name__ == "__main__":
    with open(sys.argv[1]) as handle:
        jobs = json.load(handle)
    with tempfile.TemporaryDirectory() as profile:
        run(jobs, profile)
