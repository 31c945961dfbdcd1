"""Each row's texts of a few columns (a file's configuration columns), kept column by column.

A 100,000-row file's rows are grouped into curves by these texts: a sequence of one tuple per row
(as `list(zip(*columns))` holds them) whose tuples are made only where one is asked for, and whose
grouping looks only at the columns that differ between rows.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class CodedTexts(Sequence):
    """A column's texts as its distinct texts, in order of their first row, and each row's index among them
    (a column of 100,000 cells read from a file's bytes: one string per distinct text, not per cell)."""

    def __init__(self, uniques: list[str], codes: np.ndarray):
        self.uniques, self.codes = uniques, codes
        self._texts: list[str] | None = None

    def texts(self) -> list[str]:
        """Each row's text (made once)."""
        if self._texts is None:
            table = np.empty(len(self.uniques), object)
            table[:] = self.uniques
            self._texts = table[self.codes].tolist()
        return self._texts

    def mapped(self, function) -> CodedTexts:
        """The column with `function` applied to each text (once per distinct text; the texts it makes
        equal stay distinct here, and in order of their first row)."""
        return CodedTexts(list(map(function, self.uniques)), self.codes)

    def same(self) -> bool:
        """Whether every row holds one text."""
        return len(set(self.uniques)) <= 1

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, k):
        return self.texts()[k] if isinstance(k, slice) else self.uniques[self.codes[k]]

    def __iter__(self):
        return iter(self.texts())

    def __eq__(self, other) -> bool:
        return isinstance(other, (list, CodedTexts)) and self.texts() == list(other)

    __hash__ = None  # type: ignore[assignment]


class TextColumns(Sequence):
    """Each row's texts in `columns` (one list per column, each as long as there are rows), as tuples."""

    def __init__(self, columns: list[list[str]], size: int):
        if any(len(column) != size for column in columns):
            raise ValueError("TextColumns: every column holds one text per row")
        self.columns, self.size = columns, size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, k):
        if isinstance(k, slice):
            return list(self)[k]
        return tuple(column[k] for column in self.columns)

    def __iter__(self):
        return zip(*self.columns) if self.columns else iter([()] * self.size)

    def __eq__(self, other) -> bool:
        return isinstance(other, (list, TextColumns)) and list(self) == list(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def rows_at(self, indices: list[int]) -> list[tuple[str, ...]]:
        """The rows at `indices`, as tuples (taken column by column)."""
        if not self.columns:
            return [()] * len(indices)
        return list(zip(*[[column[k] for k in indices] for column in self.columns]))

    def varying(self) -> list[list[str]]:
        """The columns whose texts are not all the same."""
        return [c for c in self.columns if c and not _same(c)]


def _same(column) -> bool:
    """Whether every row of a non-empty column holds one text."""
    return column.same() if isinstance(column, CodedTexts) else column.count(column[0]) == len(column)


def group_ids(configs: Sequence) -> tuple[list, np.ndarray]:
    """(the distinct items of `configs` in order of their first row, each row's index among them)."""
    size = len(configs)
    keyed = configs
    if isinstance(configs, TextColumns):   # the rows told apart by the columns that differ only
        varying = configs.varying()
        keyed = varying[0] if len(varying) == 1 else list(zip(*varying)) if varying else [()] * size
    if isinstance(keyed, CodedTexts):   # one column that differs, coded: its distinct texts numbered
        code: dict = {}
        ids = np.array([code.setdefault(text, len(code)) for text in keyed.uniques], np.intp)[keyed.codes]
    else:
        code = {key: g for g, key in enumerate(dict.fromkeys(keyed))}
        ids = np.fromiter(map(code.__getitem__, keyed), np.intp, size)
    if keyed is configs:
        return list(code), ids
    # each group's first row: groups are numbered in order of their first row, so that is where the
    # largest number so far grows
    first = np.flatnonzero(np.diff(np.maximum.accumulate(ids), prepend=-1) > 0).tolist()
    return configs.rows_at(first), ids
