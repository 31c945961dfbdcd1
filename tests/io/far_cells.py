"""A workbook with one value put in a far cell (XFD1048576 by default) of one sheet, written straight
into the sheet's XML (no spreadsheet library re-saves the rest)."""
from __future__ import annotations

import re
import zipfile
from pathlib import Path

from openpyxl.utils import column_index_from_string


def sheet_parts(path) -> dict[str, str]:
    """sheet name -> its part in the archive."""
    with zipfile.ZipFile(path) as archive:
        book = archive.read("xl/workbook.xml").decode("utf-8")
        rels = archive.read("xl/_rels/workbook.xml.rels").decode("utf-8")
    targets = {m.group(1): m.group(2) for m in re.finditer(r'<Relationship[^>]*Id="([^"]+)"[^>]*Target="([^"]+)"', rels)}
    targets.update({m.group(2): m.group(1) for m in re.finditer(r'<Relationship[^>]*Target="([^"]+)"[^>]*Id="([^"]+)"', rels)})
    out = {}
    for m in re.finditer(r'<sheet [^>]*name="([^"]+)"[^>]*r:id="([^"]+)"', book):
        target = targets[m.group(2)].lstrip("/")
        out[m.group(1)] = target if target.startswith("xl/") else "xl/" + target
    return out


def with_far_cell(source, target, sheet: str, ref: str = "XFD1048576", text: str = "far") -> Path:
    """A copy of `source` with `text` in `sheet`!`ref` (the sheet's declared dimension left as it was)."""
    part = sheet_parts(source)[sheet]
    row = int(re.sub(r"[A-Z]", "", ref))
    assert column_index_from_string(re.sub(r"\d", "", ref)) >= 1
    cell = f'<row r="{row}"><c r="{ref}" t="inlineStr"><is><t>{text}</t></is></c></row>'
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == part:
                xml = data.decode("utf-8")
                xml = xml.replace("<sheetData/>", "<sheetData></sheetData>")
                last = list(re.finditer(r'<row [^>]*r="(\d+)"', xml))
                assert not last or int(last[-1].group(1)) < row
                data = xml.replace("</sheetData>", cell + "</sheetData>", 1).encode("utf-8")
            out.writestr(info, data)
    return Path(target)
