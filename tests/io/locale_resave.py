"""A curve file as a spreadsheet in another locale re-saves it, with thousands grouping on: its cell
separator, decimal separator and grouping (digits kept, so the numbers are exactly the original's)."""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path

NUMBER = re.compile(r"^(-?)(\d+)(?:\.(\d+))?$")
# locale: (cell separator, decimal, grouping)
LOCALES = {"german": (";", ",", "."), "french_nbsp": (";", ",", "\u00a0"), "french_u202f": (";", ",", "\u202f"),
           "swiss": (";", ".", "'"), "us_grouped": (",", ".", ","), "german_tab": ("\t", ",", ".")}


def group(digits: str, sep: str) -> str:
    head = len(digits) % 3 or 3
    return sep.join([digits[:head]] + [digits[i:i + 3] for i in range(head, len(digits), 3)])


def resave(path, delimiter: str, decimal: str, grouping: str, text: str | None = None) -> str:
    """The file as a spreadsheet in that locale saves it with thousands grouping on (digits kept)."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\r\n")
    for cells in csv.reader((text if text is not None else Path(path).read_text(encoding="utf-8")).splitlines()):
        row = []
        for cell in cells:
            m = NUMBER.match(cell)
            row.append(m.group(1) + group(m.group(2), grouping) + (decimal + m.group(3) if m.group(3) else "")
                       if m else cell)
        writer.writerow(row)
    return out.getvalue()


def two_decimals(text: str) -> str:
    """The file as a US spreadsheet re-saves it with its cells formatted "2 decimals, 1000 separator"
    (integers get `.00`: `2.00`, `4,000.00`; a value with more decimals keeps its digits)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    for cells in csv.reader(text.splitlines()):
        row = []
        for cell in cells:
            m = NUMBER.match(cell)
            row.append(m.group(1) + group(m.group(2), ",") + "." + (m.group(3) or "").ljust(2, "0") if m else cell)
        writer.writerow(row)
    return out.getvalue()
