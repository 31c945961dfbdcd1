"""A uniform file's cells read from its bytes (io/curve_files/byte_cells.py) are the cells a split of its
text gives: each column's texts, its distinct texts and each row's index among them; and what the reader
makes of a coded column (numbers, stripped texts, groups, whole-number columns) is what it makes of the
column's texts."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

from tcoapp.io.curve_files import rows as curve_rows
from tcoapp.io.curve_files.byte_cells import uniform_cells
from tcoapp.io.curve_files.numbers import _whole_digits
from tcoapp.io.curve_files.table import ColumnRows, Table
from tcoapp.io.curve_files.text_columns import CodedTexts, TextColumns, group_ids

# short and long cells (one, two and more 8-byte words, past the 64 coded), blanks, padding, non-ASCII
CELLS = ["", "a", "1", "12", " 3 ", "4.5", "c999", "H200-SXM", "H200-SXM2", "Llama-3.1-70B", "Llama-3.1-70C",
         "\u00e9t\u00e9", "\u00a07", "x" * 8, "x" * 9, "x" * 16, "x" * 17, "y" * 64, "y" * 65, "1_0", "nan", "-2"]


def _split(body: str, delimiter: str) -> list[list[str]]:
    return [list(column) for column in zip(*(line.split(delimiter) for line in body.split("\n")))]


def _random_body(rng: random.Random, delimiter: str) -> tuple[str, int]:
    width, size = rng.randint(1, 5), rng.randint(1, 30)
    pools = [rng.sample(CELLS, rng.randint(1, 6)) for _ in range(width)]
    return "\n".join(delimiter.join(rng.choice(pool) for pool in pools) for _ in range(size)), size


def test_the_cells_of_a_uniform_body_are_its_split_column_by_column():
    rng = random.Random(5)
    for _ in range(1500):
        delimiter = rng.choice([",", ";", "\t"])
        body, size = _random_body(rng, delimiter)
        cells = uniform_cells(body.encode("utf-8"), delimiter, size)
        expected = _split(body, delimiter)
        assert cells is not None and cells.width == len(expected)
        for j, column in enumerate(expected):
            assert cells.texts(j) == column, (body, j)
            coded = cells.coded(j)
            if max(map(len, (c.encode() for c in column))) > 64:
                assert coded is None
                continue
            assert coded.uniques == list(dict.fromkeys(column)), (body, j)
            assert [coded.uniques[k] for k in coded.codes.tolist()] == column


def test_a_body_with_lines_of_unequal_width_has_no_uniform_cells():
    assert uniform_cells(b"a,b\nc", ",", 2) is None
    assert uniform_cells(b"a,b\nc,d,e", ",", 2) is None
    assert uniform_cells(b"a\nb,c", ",", 2) is None
    assert uniform_cells(b"a,b", ",", 1).width == 2


def test_texts_with_one_key_but_different_bytes_are_not_coded(monkeypatch):
    """Cells past 8 bytes are told apart by a hash of their words, checked: a collision leaves the column
    uncoded (read cell by cell), never merges two texts."""
    from tcoapp.io.curve_files import byte_cells
    monkeypatch.setattr(byte_cells, "_MIX", np.uint64(0))   # every key is the last word: "aaaaaaaaX" = "bbbbbbbbX"
    body = "aaaaaaaaX,1\nbbbbbbbbX,2".encode()
    cells = uniform_cells(body, ",", 2)
    assert cells.coded(0) is None and cells.texts(0) == ["aaaaaaaaX", "bbbbbbbbX"]
    assert cells.coded(1).uniques == ["1", "2"]


def test_coded_texts_behave_as_the_list_of_their_texts():
    coded = CodedTexts(["a", " a", "b"], np.array([0, 1, 0, 2, 1]))
    texts = ["a", " a", "a", "b", " a"]
    assert list(coded) == texts and coded.texts() == texts and len(coded) == 5 and coded == texts
    assert [coded[k] for k in range(5)] == texts and coded[1:3] == texts[1:3] and coded.count("a") == 2
    stripped = coded.mapped(str.strip)
    assert list(stripped) == ["a", "a", "a", "b", "a"] and not stripped.same()
    assert CodedTexts(["a", "a"], np.array([0, 1])).same() and CodedTexts(["a"], np.zeros(3, np.intp)).same()


def test_groups_of_coded_columns_are_the_groups_of_their_texts():
    """group_ids over coded columns (distinct texts that a strip made equal are one group) gives the groups
    of the columns' texts, in order of their first row."""
    rng = random.Random(9)
    for _ in range(1500):
        size = rng.randint(1, 12)
        columns = []
        for _ in range(rng.randint(1, 3)):
            texts = [rng.choice(["a", " a", "b", "c ", "c"]) for _ in range(size)]
            uniques = list(dict.fromkeys(texts))
            coded = CodedTexts(uniques, np.array([uniques.index(t) for t in texts], np.intp)).mapped(str.strip)
            columns.append((coded, [t.strip() for t in texts]))
        keys, ids = group_ids(TextColumns([c for c, _ in columns], size))
        expected_keys, expected_ids = group_ids(TextColumns([t for _, t in columns], size))
        assert keys == expected_keys and ids.tolist() == expected_ids.tolist()


def _coded_table(column: list[str]) -> Table:
    body = "\n".join(column)
    rows = ColumnRows(2, uniform_cells(body.encode("utf-8"), ",", len(column)))
    assert rows.coded(0) is not None
    return Table("t.csv", ("batch",), 1, rows)


def _listed_table(column: list[str]) -> Table:
    return Table("t.csv", ("batch",), 1, tuple((k + 2, (c,)) for k, c in enumerate(column)))


def test_a_coded_column_reads_as_its_texts():
    """Numbers (a distinct text read once), whole-number columns and stripped texts of a coded column are
    those of its texts."""
    rng = random.Random(13)
    pool = ["1", "2", " 3 ", "", "  ", "4.5", "1e3", "-0", "nan", "1_0", "x", "\u00a07", "-12", "4000", "007"]
    for _ in range(2000):
        column = [rng.choice(pool) for _ in range(rng.randint(1, 8))]
        coded, listed = _coded_table(column), _listed_table(column)
        assert _whole_digits(coded, 0) is _whole_digits(listed, 0), column
        found, expected = curve_rows._table_floats(coded, 0), curve_rows._column_floats(column)
        if expected is None:
            assert found is None, column
        else:
            assert [repr(v) for v in found[0].tolist()] == [repr(v) for v in expected[0].tolist()], column
            assert (found[1] is None) == (expected[1] is None)
            assert found[1] is None or found[1].tolist() == expected[1].tolist()
        raw = curve_rows.RawNumbers(list(coded.rows.lines), None, {}, coded)
        assert list(raw.texts(0)) == [c.strip() for c in column] and list(raw.texts(3)) == [""] * len(column)
        assert coded.column(0) == column and list(coded.rows) == list(listed.rows)


@pytest.mark.parametrize("text", ["c,d,m,batch,tokens_per_s_per_device\n",
                                  "curve;device;model;batch;tokens_per_s_per_device\n"])
def test_a_large_plain_file_read_from_its_bytes_is_the_file_read_line_by_line(tmp_path, text, monkeypatch):
    from tcoapp.io.curve_files import read as curve_read
    from tcoapp.io.curve_files import table as curve_table
    delimiter = ";" if ";" in text else ","
    header = text.replace("c" + delimiter + "d" + delimiter + "m", delimiter.join(["curve", "device", "model"]))
    lines = [delimiter.join([f"c{k % 7}", "H200-SXM" if k % 3 else " H200-SXM", "Llama-3.1-70B", str(k // 7 + 1),
                             f"{100 + k % 13}.{k % 10}" if delimiter == "," else f"{100 + k % 13},{k % 10}"])
             for k in range(300)]
    path = tmp_path / "big.csv"
    path.write_text(header + "\n".join(lines) + "\n", encoding="utf-8")
    fast = curve_read.read_curve_file(path)
    monkeypatch.setattr(curve_table, "uniform_cells", lambda *args: None)
    slow = curve_read.read_curve_file(path)
    assert fast == slow and len(fast.curves) == 7 and not math.isnan(fast.curves[0].tokens_per_s_per_device[0])


def test_blank_and_comment_lines_told_from_the_distinct_texts_are_those_the_search_finds():
    """`_one_line_per_row` with a body's cells (blank and comment lines told from each column's distinct
    texts) says what searching the text says."""
    from tcoapp.io.curve_files.table import _one_line_per_row
    rng = random.Random(17)
    pool = ["", " ", "a", "#", " #a", "a#", "\x0c", "\u2028", "\x85", "\u00a0#", "1", "y" * 70]
    told = 0
    for _ in range(4000):
        delimiter = rng.choice([",", ";", "\t"])
        width, size = rng.randint(1, 4), rng.randint(1, 8)
        pools = [rng.sample(pool, rng.randint(1, 4)) for _ in range(width)]
        body = "\n".join(delimiter.join(rng.choice(p) for p in pools) for _ in range(size))
        cells = uniform_cells(body.encode("utf-8"), delimiter, size)
        told += delimiter != "\t" and cells.blank_or_comment_line() is not None
        assert _one_line_per_row(body, delimiter, cells) == _one_line_per_row(body, delimiter), (body, delimiter)
    assert told > 1500
