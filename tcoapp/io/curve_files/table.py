"""A CSV file as a header and numbered rows, with its comment preamble set aside.

Published InferenceX exports start with `#` lines (license, attribution, notes) before the header;
they are kept as the preamble, never parsed as data. Row numbers are the file's own line numbers,
so every error points at the line a user sees in an editor.
"""
from __future__ import annotations

import csv
import itertools
import pathlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter

from ...engine.core.errors import Problem, ValidationError
from .byte_cells import ByteCells, uniform_cells
from .text_columns import CodedTexts


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
    delimiter: str = ","                        # the cell separator (',', ';' or a tab)
    notes: tuple[str, ...] = ()                 # what reading it noticed (its encoding)

    def where(self, row: int) -> str:
        return f"{self.name}:row {row}"

    def wheres(self, rows) -> tuple[str, ...]:
        """`where` of each row of `rows` (line numbers), in one pass."""
        prefix = f"{self.name}:row "
        return tuple([f"{prefix}{row}" for row in rows])

    def lines(self) -> list[int]:
        """Each row's line number."""
        if isinstance(self.rows, ColumnRows):
            return list(self.rows.lines)
        return list(map(itemgetter(0), self.rows))

    def column(self, i: int) -> list[str]:
        """Each row's text in column i, as in the file ("" where the row is shorter)."""
        if isinstance(self.rows, ColumnRows):
            return self.rows.column(i)
        cells = list(map(itemgetter(1), self.rows))
        try:   # every row long enough (the usual file): no test row by row
            return list(map(itemgetter(i), cells))
        except IndexError:
            return [c[i] if i < len(c) else "" for c in cells]

    def index(self) -> dict[str, int]:
        """header_key -> column index (the first of repeated headers)."""
        out: dict[str, int] = {}
        for i, h in enumerate(self.headers):
            out.setdefault(header_key(h), i)
        return out


class ColumnRows(Sequence):
    """The rows of a file whose every line after the header is one row of as many cells (the usual
    file), kept column by column: a sequence of (line number, cells) as `Table.rows`, each row's tuple
    made only where one is asked for (a 100,000-row file is read column by column). `columns`: each
    column's texts, or the cells as byte offsets (`ByteCells`), each column read from them when first
    asked for (`coded`: its distinct texts and each row's index among them, no string per cell)."""

    def __init__(self, first_line: int, columns: list[list[str]] | ByteCells):
        self.cells = columns if isinstance(columns, ByteCells) else None
        self._texts = {} if self.cells is not None else dict(enumerate(columns))
        self.width = self.cells.width if self.cells is not None else len(columns)
        size = self.cells.size if self.cells is not None else len(columns[0]) if columns else 0
        self.lines = range(first_line, first_line + size)

    @property
    def columns(self) -> list[list[str]]:
        return [self.column(i) for i in range(self.width)]

    def column(self, i: int) -> list[str]:
        """Each row's text in column i ("" where the file has no such column)."""
        if i >= self.width:
            return [""] * len(self.lines)
        if i not in self._texts:
            self._texts[i] = self.cells.texts(i)
        return self._texts[i]

    def coded(self, i: int) -> CodedTexts | None:
        """Column i as its distinct texts and each row's index among them, where read from the file's bytes
        (`ByteCells.coded`); else None (then `column`)."""
        return self.cells.coded(i) if self.cells is not None and i < self.width else None

    def __len__(self) -> int:
        return len(self.lines)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return tuple(self)[k]
        return self.lines[k], tuple(column[k] for column in self.columns)

    def __iter__(self):
        return zip(self.lines, zip(*self.columns)) if self.width else iter(())

    def __eq__(self, other) -> bool:
        return isinstance(other, (tuple, ColumnRows)) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"ColumnRows({tuple(self)!r})"


# A curve file holds at most a few thousand points (aiconfigurator: tens of rows per run, an InferenceX
# export: hundreds); past these limits a file is refused at once, before it is parsed in full.
MAX_FILE_BYTES = 50_000_000
MAX_DATA_ROWS = 100_000
_HOW_TO_SAVE = "save it from the spreadsheet as 'CSV UTF-8 (comma delimited)'"


def _is_comment(cells: list[str]) -> bool:
    return bool(cells) and cells[0].lstrip().startswith("#")


def _is_blank(cells: list[str]) -> bool:
    return not "".join(cells).strip()


def _is_comment_line(line: str) -> bool:
    """A `#` line, also as a spreadsheet re-saves it: quoted (`"# License, ..."`)."""
    return line.lstrip().lstrip('"').lstrip().startswith("#")


def delimiter_of(text: str) -> str:
    """',' unless the first line that is not a comment holds ';' or tabs and no comma (a spreadsheet
    saved in a locale that writes semicolons, or a TSV)."""
    line = _first_line(text, lambda ln: ln.strip() and not _is_comment_line(ln))
    if "," not in line:
        for candidate in (";", "\t"):
            if candidate in line:
                return candidate
    return ","


def _first_line(text: str, wanted) -> str:
    """The first of `text.splitlines()` that is `wanted` ("" if none), splitting only as far as it needs:
    the lines of a prefix are the text's lines but its last one (which the prefix may cut)."""
    size = 4096
    while True:
        lines = text[:size].splitlines()
        if size < len(text):
            lines.pop()
        line = next((ln for ln in lines if wanted(ln)), None)
        if line is not None or size >= len(text):
            return line or ""
        size *= 8


def decode_text(data: bytes, name: str) -> tuple[str, str]:
    """(text, encoding note) of a file's bytes: UTF-8 (with or without BOM), UTF-16 with its BOM (Excel's
    "Unicode text"), UTF-16 without BOM (every other byte 0), else Windows-1252 (Excel's "CSV" on
    Windows), said in the note. Raises ValidationError with the fix when none reads it."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        candidates = [("utf-16", "UTF-16")]
    elif len(data) >= 4 and (data[1:40:2].count(0) > 15 or data[0:40:2].count(0) > 15):
        candidates = [("utf-16-le" if data[1] == 0 else "utf-16-be", "UTF-16 (no byte-order mark)")]
    else:
        candidates = [("utf-8-sig", ""), ("cp1252", "Windows-1252")]
    for codec, label in candidates:
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        if "\x00" in text:
            continue
        return text.lstrip("\ufeff"), (f"{name}: read as {label} text" if label and codec != "utf-16" else "")
    raise ValidationError([Problem(name, "", f"cannot read the file: it is not UTF-8, UTF-16 or Windows-1252 text: "
                                             f"{_HOW_TO_SAVE}")])


def read_table(path) -> Table:
    """The file's header and data rows; raises ValidationError if it cannot be read, is larger than
    MAX_FILE_BYTES / MAX_DATA_ROWS, or has no header."""
    path = pathlib.Path(path)
    name = path.name
    data = _file_bytes(path)
    text, encoding_note = decode_text(data, name)
    del data   # (4.4 MB for a 100,000-row file: freed before the text is split)
    delimiter = delimiter_of(text)
    preamble, headers, header_row, rows, body = [], None, 0, [], None
    try:
        reader = csv.reader(_text_lines(text), delimiter=delimiter)
        for cells in reader:
            if _is_blank(cells):
                continue
            if _is_comment(cells):
                if headers is None:
                    preamble.append(delimiter.join(c for c in cells if c.strip()).lstrip()[1:].strip())
                continue
            if headers is None:
                headers, header_row = tuple(c.strip() for c in cells), reader.line_num
                body = _line_ends(text, _after_line(text, header_row))
                body_lines = body.count("\n") + 1 if body else 0
                body_cells = _uniform_cells(body, delimiter, body_lines)
                if _one_line_per_row(body, delimiter, body_cells):
                    break
                body = body_cells = None
            else:
                rows.append((reader.line_num, tuple(cells)))
                if len(rows) > MAX_DATA_ROWS:
                    raise ValidationError([_too_many_rows(name)])
    except csv.Error as exc:
        raise ValidationError([Problem(f"{name}:row {reader.line_num}", "", f"cannot read the file: {exc}")]) from None
    if headers is None:
        raise ValidationError([Problem(f"{name}:row 1", "", "the file is empty: a header row is needed")])
    if body is not None:   # one line per row: split at once, the text (and the reader on it) freed first
        del text, reader
        rows = _plain_rows(body, delimiter, header_row, name, body_lines, body_cells)
    rows = rows if isinstance(rows, ColumnRows) else tuple(rows)
    return Table(name, headers, header_row, rows, tuple(preamble), decimal_comma=delimiter == ";",
                 delimiter=delimiter, notes=(encoding_note,) if encoding_note else ())


def _file_bytes(path: pathlib.Path) -> bytes:
    """The file's bytes; raises ValidationError if it cannot be read or is larger than MAX_FILE_BYTES."""
    name = path.name
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ValidationError([Problem(name, "", f"the file is {size / 1e6:.0f} MB: a curve file may be at most "
                                                     f"{MAX_FILE_BYTES / 1e6:.0f} MB ({MAX_DATA_ROWS:,} rows); split it "
                                                     "or keep the rows of the curves you need")])
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise ValidationError([Problem(name, "", f"cannot read the file: {exc.strerror or exc}")]) from None


def _too_many_rows(name: str) -> Problem:
    return Problem(name, "", f"more than {MAX_DATA_ROWS:,} data rows: a curve file may hold at most "
                             f"{MAX_DATA_ROWS:,}; split it or keep the rows of the curves you need")


_LINE_END = re.compile(r"\r\n|\n|\r")


def _after_line(text: str, line: int) -> int:
    """Where the text after line `line` starts (1-based; lines end as the csv reader's input splits them)."""
    ends = itertools.islice(_LINE_END.finditer(text), line - 1, line)
    return next((m.end() for m in ends), len(text))


def _text_lines(text: str):
    """The lines of `text` as `io.StringIO(text, newline="")` gives them (each with its end: '\r\n', '\n' or
    '\r'), one at a time and without a copy of the text (the reader needs only those up to the header)."""
    start = 0
    for end in _LINE_END.finditer(text):
        yield text[start:end.end()]
        start = end.end()
    if start < len(text):
        yield text[start:]


def _line_ends(text: str, start: int) -> str:
    """The text from `start` on, every line end as one '\n' (the csv reader ends a line at '\r\n', '\n' or
    '\r') and none after its last line (one copy of it where it has no '\r')."""
    if text.find("\r", start) < 0:
        return text[start:len(text) - 1 if text.endswith("\n") and start < len(text) else len(text)]
    body = text[start:].replace("\r\n", "\n").replace("\r", "\n")
    return body[:-1] if body.endswith("\n") else body


def _uniform_cells(body: str, delimiter: str, size: int) -> ByteCells | None:
    """`uniform_cells` of a body of `size` lines that may be one line per row (no quote, no empty last
    line, at most MAX_DATA_ROWS lines), else None."""
    if size > MAX_DATA_ROWS or not body or body.endswith("\n") or '"' in body:
        return None
    return uniform_cells(body.encode("utf-8", "surrogatepass"), delimiter, size)


def _one_line_per_row(body: str, delimiter: str, cells: ByteCells | None = None) -> bool:
    """Whether every line of `body` (the text after the header, its line ends as `_line_ends` leaves them)
    is one row and no row is blank or a comment (the usual file): no quote (so no cell spans lines) and no
    line of blanks and separators only or starting with '#'. Then its rows need no check one by one (what
    read_table's loop does). Only the lines that start with a blank, a line end, a separator or '#' can be
    blank or comments: those are found in one search and tried (in the usual file none)."""
    if '"' in body:
        return False
    blanks = r"[^\S\n]"   # a blank but no line end
    blank_line = "(?:" + blanks + "|" + re.escape(delimiter) + r")*(?:\n|\Z)"
    comment = blanks + "*#"
    patterns = (blank_line, comment) if "#" in body else (blank_line,)   # no '#': no comment line
    if not body or body.endswith("\n"):   # a last line that is empty (or no line at all): blank
        return False
    # told from the cells' distinct texts (not where the separator is a blank: then a comment's '#' may follow
    # blank cells)
    found = None if cells is None or delimiter.isspace() else cells.blank_or_comment_line()
    if found is not None:
        return not found
    compiled = [re.compile(p) for p in patterns]
    starts = [0, *(m.end() for m in re.finditer(r"\n(?=[\s#" + re.escape(delimiter) + "])", body))]
    return not any(c.match(body, start) for start in starts for c in compiled)


def _plain_rows(body: str, delimiter: str, header_row: int, name: str, size: int, cells: ByteCells | None = None):
    """The rows of `body`, the text after the header of a file of one line per row (`_one_line_per_row`,
    its line ends as `_line_ends` leaves them, `size` lines): row k is on line header_row + k; refused past
    MAX_DATA_ROWS before it is split. With no quote in it, each line's cells are its text between
    separators, as the csv reader reads them: when every line has as many cells (the usual file), kept
    column by column as byte offsets (`cells`, from `_uniform_cells`), else split line by line."""
    if cells is not None:   # (at most MAX_DATA_ROWS lines)
        return ColumnRows(header_row + 1, cells)
    if size > MAX_DATA_ROWS:
        raise ValidationError([_too_many_rows(name)])
    rows = list(map(tuple, map(str.split, body.split("\n") if body else [], itertools.repeat(delimiter))))
    return list(zip(range(header_row + 1, header_row + 1 + len(rows)), rows))


def _uniform_columns(body: str, delimiter: str, size: int) -> list[list[str]] | None:
    """The cells of `body`'s `size` lines column by column when every line has as many cells, else None
    (`uniform_cells`, each column's texts made)."""
    cells = uniform_cells(body.encode("utf-8", "surrogatepass"), delimiter, size)
    return None if cells is None else [cells.texts(j) for j in range(cells.width)]
