"""A CSV file as a header and numbered rows, with its comment preamble set aside.

Published InferenceX exports start with `#` lines (license, attribution, notes) before the header;
they are kept as the preamble, never parsed as data. Row numbers are the file's own line numbers,
so every error points at the line a user sees in an editor.
"""
from __future__ import annotations

import csv
import pathlib
import re
from dataclasses import dataclass

from ...engine.errors import Problem, ValidationError


def header_key(header: str) -> str:
    """A header reduced to lower-case letters and digits: "Output Throughput/Chip (tok/s)" ->
    "outputthroughputchiptoks"."""
    return re.sub(r"[^a-z0-9]", "", header.lower())


@dataclass(frozen=True)
class Table:
    name: str                                   # the file name, as errors cite it
    headers: tuple[str, ...]
    header_row: int                             # the header's line number
    rows: tuple[tuple[int, tuple[str, ...]], ...]  # (line number, cells), blank and comment lines dropped
    preamble: tuple[str, ...] = ()              # the leading comment lines, '#' removed
    decimal_comma: bool = False                 # a ';'-separated file: "0,42" is 0.42

    def where(self, row: int) -> str:
        return f"{self.name}:row {row}"

    def index(self) -> dict[str, int]:
        """header_key -> column index (the first of repeated headers)."""
        out: dict[str, int] = {}
        for i, h in enumerate(self.headers):
            out.setdefault(header_key(h), i)
        return out


def _is_comment(cells: list[str]) -> bool:
    return bool(cells) and cells[0].lstrip().startswith("#")


def _is_blank(cells: list[str]) -> bool:
    return not any(c.strip() for c in cells)


def _delimiter(handle) -> str:
    """',' unless the first line that is not a comment holds ';' or tabs and no comma (a spreadsheet
    saved in a locale that writes semicolons, or a TSV)."""
    for line in handle:
        if line.strip() and not line.lstrip().startswith("#"):
            break
    else:
        line = ""
    handle.seek(0)
    if "," not in line:
        for candidate in (";", "\t"):
            if candidate in line:
                return candidate
    return ","


def read_table(path) -> Table:
    """The file's header and data rows; raises ValidationError if it cannot be read or has no header."""
    path = pathlib.Path(path)
    name = path.name
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            delimiter = _delimiter(handle)
            reader = csv.reader(handle, delimiter=delimiter)
            preamble, headers, header_row, rows = [], None, 0, []
            for cells in reader:
                if _is_blank(cells):
                    continue
                if _is_comment(cells):
                    if headers is None:
                        preamble.append(",".join(cells).lstrip()[1:].strip())
                    continue
                if headers is None:
                    headers, header_row = tuple(c.strip() for c in cells), reader.line_num
                else:
                    rows.append((reader.line_num, tuple(cells)))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ValidationError([Problem(name, "", f"cannot read the file: {exc}")]) from None
    if headers is None:
        raise ValidationError([Problem(f"{name}:row 1", "", "the file is empty: a header row is needed")])
    return Table(name, headers, header_row, tuple(rows), tuple(preamble), decimal_comma=delimiter == ";")
