"""The cells of a file's body where every line has as many (the usual file), as byte offsets into its
UTF-8 text, each column read as its distinct texts and each row's index among them (`CodedTexts`): a
100,000-row file's 500,000 cells hold a few thousand distinct texts, and no string is made per cell.

The separators and line ends are ASCII, never part of another character's UTF-8 bytes, so each cell's
bytes are its text's; no text holds a NUL (decode_text refuses one), so a cell's bytes padded with
zeros tell it from every other cell.
"""
from __future__ import annotations

import numpy as np

from .text_columns import CodedTexts

# the widest cell (bytes) a column is coded with: a wider one's texts are made cell by cell
_WIDEST = 64
# MASKS[k]: the k low bytes of a little-endian 8-byte word
_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(9)], np.uint64)
_MIX = np.uint64(0x9E3779B97F4A7C15)   # an odd multiplier that spreads a word's bytes over the hash


class ByteCells:
    """The cells of `size` lines of `width` cells each: cell (r, j) is body[starts[r, j]:ends[r, j]]."""

    def __init__(self, body: bytes, starts: np.ndarray, ends: np.ndarray):
        self.body = body
        self.starts, self.ends = starts, ends
        self.size, self.width = starts.shape
        self._padded = np.frombuffer(body + bytes(_WIDEST + 8), np.uint8)   # a window of _WIDEST after any cell
        # the 8 bytes from each offset as one little-endian word (offsets into the padded body)
        self._words = np.ndarray((len(self._padded) - 7,), "<u8", self._padded, strides=(1,))
        self._coded: dict[int, CodedTexts | None] = {}

    def coded(self, j: int) -> CodedTexts | None:
        """Column j as its distinct texts (in order of their first row) and each row's index among them;
        None when a cell is wider than 64 bytes."""
        if j not in self._coded:
            self._coded[j] = self._code(j)
        return self._coded[j]

    def blank_or_comment_line(self) -> bool | None:
        """Whether a line is blank (its cells white space or empty) or a comment (its first cell starts with
        '#' after white space), told from each column's distinct texts; None when a column is not coded."""
        columns = [self.coded(j) for j in range(self.width)]
        if None in columns:
            return None
        if any(text.lstrip().startswith("#") for text in columns[0].uniques):
            return True
        blank = np.ones(self.size, bool)
        for column in columns:
            empty = np.array([not text.strip() for text in column.uniques])
            if not empty.any():
                return False
            blank &= empty[column.codes]
        return bool(blank.any())

    def texts(self, j: int) -> list[str]:
        """Each line's text in column j."""
        coded = self.coded(j)
        if coded is not None:
            return coded.texts()
        # the cells' bytes, the byte after each (a separator or line end) made a line end, split there at once
        starts, ends = self.starts[:, j], self.ends[:, j]
        lengths = ends - starts + 1
        stops = np.cumsum(lengths)
        chosen = self._padded[np.arange(stops[-1]) + np.repeat(starts - (stops - lengths), lengths)]
        chosen[stops - 1] = 10
        return chosen[:-1].tobytes().decode("utf-8", "surrogatepass").split("\n")

    def _code(self, j: int) -> CodedTexts | None:
        starts, lengths = self.starts[:, j], self.ends[:, j] - self.starts[:, j]
        widest = int(lengths.max())
        if widest > _WIDEST:
            return None
        count = max((widest + 7) // 8, 1)   # 8-byte words per cell, each with the bytes past the cell's end zero
        words = [self._words[starts + 8 * k] & _MASKS[np.clip(lengths - 8 * k, 0, 8)] for k in range(count)]
        if all((word == word[0]).all() for word in words):   # one text in every row (a file's device, model)
            return CodedTexts([self.body[starts[0]:starts[0] + lengths[0]].decode("utf-8", "surrogatepass")],
                              np.zeros(self.size, np.intp))
        key = words[0]
        for word in words[1:]:
            key = key * _MIX ^ word
        codes, first = _factorized(key)
        if count > 1:   # two texts with one key: no code
            same = np.stack(words, axis=1)
            if not (same == same[first[codes]]).all():
                return None
        ends = starts + lengths
        body = self.body
        spans = zip(starts[first].tolist(), ends[first].tolist())
        uniques = [body[a:b].decode("utf-8", "surrogatepass") for a, b in spans]
        return CodedTexts(uniques, codes)


def _factorized(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(each row's index among the distinct keys, numbered in order of their first row; each distinct
    key's first row)."""
    size = len(key)
    if (key == key[0]).all():
        return np.zeros(size, np.intp), np.zeros(1, np.intp)
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    new = np.empty(size, bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    first = order[new]   # each distinct key's first row (the sort is stable), in the keys' order
    by_row = np.argsort(first)
    number = np.empty(len(first), np.intp)
    number[by_row] = np.arange(len(first))
    codes = np.empty(size, np.intp)
    codes[order] = number[np.cumsum(new) - 1]
    return codes, first[by_row]


def uniform_cells(body: bytes, delimiter: str, size: int) -> ByteCells | None:
    """The cells of `body` (UTF-8 bytes of `size` >= 1 lines joined by line ends, none after the last) when
    every line has as many, else None: its separators and line ends, in order, are then `width - 1`
    separators and a line end, `size` times but the last line end."""
    data = np.frombuffer(body, np.uint8)
    first_end = body.find(b"\n")
    width = body.count(delimiter.encode(), 0, first_end if first_end >= 0 else len(body)) + 1
    marks = np.flatnonzero((data == ord(delimiter)) | (data == 10))
    if len(marks) != size * width - 1 or (data[marks[width - 1::width]] != 10).any():
        return None   # (size - 1 line ends where each line's would be: the other marks are all separators)
    starts = np.empty(size * width, np.intp)
    starts[0] = 0
    starts[1:] = marks + 1
    ends = np.empty(size * width, np.intp)
    ends[:-1] = marks
    ends[-1] = len(body)
    return ByteCells(body, starts.reshape(size, width), ends.reshape(size, width))
