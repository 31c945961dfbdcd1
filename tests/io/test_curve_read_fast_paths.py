"""The curve reader's fast paths give what the general, cell-by-cell reading gives (docs/curves.md):
the number reader's shortcut for plain digits, the columns of whole numbers that neither decide a
file's convention nor change, the column-wise read of a file without a bad cell, and the JSON text
of `tcoapp curves --json`."""
from __future__ import annotations

import dataclasses
import itertools
import json
import math
import random
from pathlib import Path

import numpy as np
import pytest

from tcoapp.engine.core import number_text
from tcoapp.engine.core.number_text import COMMA, POINT, looks_numeric, plain_text
from tcoapp.io.curve_files import read as curve_read
from tcoapp.io.curve_files import rows as curve_rows
from tcoapp.io.curve_files.checks import COUNT_KEYS
from tcoapp.io.curve_files.numbers import _whole_digits, localized
from tcoapp.io.curve_files.table import Table, read_table
from tcoapp.present.json_text import dumps

ROOT = Path(__file__).resolve().parents[2]
CURVE_FILES = sorted({p.name: p for p in [*(ROOT / "tests" / "data" / "curves").glob("*.csv"),
                                          *(ROOT.parent.parent / "shared" / "fixtures" / "curves").glob("*.csv")]
                      }.values())
ALPHABET = "0123-.,' e+\u2212\u00a0"


def test_plain_text_shortcut_equals_the_general_parse_on_every_short_text():
    texts = ["".join(t) for n in range(1, 5) for t in itertools.product(ALPHABET, repeat=n)]
    rng = random.Random(47)
    texts += ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(5, 12))) for _ in range(20000)]
    texts += ["-12", "1.234", "12.345", "1234.567", "-0.500", "007", "0.5", "12.3456", "1.5e3"]
    for text in texts:
        for decimal in (POINT, COMMA):
            assert plain_text(text, decimal) == number_text._plain_text(text, decimal), (text, decimal)


def _table(column: list[str]) -> Table:
    return Table("t.csv", ("batch",), 1, tuple((k + 2, (c,)) for k, c in enumerate(column)))


@pytest.mark.parametrize("column, whole", [
    (["1", "22", "-3", "", "4000"], True), (["-"], True), ([], True),
    (["1", "2.5"], False), (["4.000"], False), (["1 000"], False), (["1\n2"], False), (["12\n"], False),
    (["1'234"], False), ([" 7"], False)])
def test_a_column_of_whole_numbers_is_found_in_one_pass(column, whole):
    assert _whole_digits(_table(column), 0) is whole


def test_a_column_skipped_as_whole_numbers_neither_decides_nor_changes():
    """What `_whole_digits` lets the reader skip is what the cell-by-cell reading leaves alone."""
    rng = random.Random(7)
    pool = ["0", "12", "-3", "", "-", "4000", "007", "1.5", "4.000", "1,5", "x", "1'234", " 8 "]
    for _ in range(3000):
        column = [rng.choice(pool) for _ in range(rng.randint(0, 5))]
        if not _whole_digits(_table(column), 0):
            continue
        for text in column:
            for decimal in (POINT, COMMA):
                plain = plain_text(text, decimal)
                assert plain == text or (plain is None and not looks_numeric(text)), text
            assert plain_text(text, POINT) == plain_text(text, COMMA)


@pytest.mark.parametrize("path", CURVE_FILES, ids=lambda p: p.stem)
def test_the_column_wise_read_equals_the_cell_by_cell_read(path):
    table = read_table(path)
    spec = curve_read._format("auto", table)
    table = localized(spec, table, COUNT_KEYS)
    problems = []
    where = curve_rows.locate(spec, table, problems)
    raw = curve_rows.raw_numbers(spec, table, where, problems)
    assert not problems
    by_cell = [curve_rows._row_numbers(spec, table, where, row, cells, problems) for row, cells in table.rows]
    assert not problems and all(values is not None for values in by_cell)
    assert raw.rows == [row for row, _ in table.rows]
    for field in where:
        expected = [values[field] for values in by_cell]
        assert [x if x == x else "nan" for x in raw.columns[field].tolist()] == [
            x if x == x else "nan" for x in expected], field


def test_a_bad_cell_is_still_named_cell_by_cell(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("curve,device,model,batch,tokens_per_s_per_device\nc,H200-SXM,Llama-3.1-70B,1,100\n"
                    "c,H200-SXM,Llama-3.1-70B,2,abc\nc,H200-SXM,Llama-3.1-70B,3,2e7\n", encoding="utf-8")
    with pytest.raises(Exception) as error:
        curve_read.read_curve_file(path)
    text = str(error.value)
    assert "bad.csv:row 3" in text and "'abc': not a number" in text
    assert "bad.csv:row 4" in text and "past the physical bound" in text


@pytest.mark.parametrize("path", CURVE_FILES, ids=lambda p: p.stem)
def test_curves_json_text_is_the_standard_encoders(path):
    from tcoapp.io.curve_files.to_json import curve_file_json
    from tcoapp.present.curve_file_text import curve_file_text
    result = curve_read.read_curve_file(path)
    value = curve_file_json(result)
    assert dumps(value) == json.dumps(value, indent=2, allow_nan=False) == curve_file_text(result)


def test_curves_json_text_from_columns_writes_null_for_what_is_not_finite_and_any_source():
    """The points written from a curve's columns: NaN and infinities as null, -0.0 kept, a source of
    any kind (or a count that differs from the points') as the general writer writes it."""
    from tcoapp.engine.performance.measured import make_measured_curve
    from tcoapp.io.curve_files.to_json import curve_file_json
    from tcoapp.present.curve_file_text import curve_file_text
    nan, inf = math.nan, math.inf
    curve = make_measured_curve("c %s", "H200-SXM", "Llama-3.1-70B", [1.0, 2.0, 3.0], [100.0, 150.5, 1e-7],
                                [50.0, nan, 3.0], [600.0, 700.0, 800.0], [nan, 0.25, 1.0], source="s")
    curve = dataclasses.replace(curve, power_w=np.array([-0.0, 700.0, inf]), ttft_s=np.array([nan, -inf, 1.0]))
    for sources in (("f:row 2", "f:row 3", "f:row \"4\""), ("a", None, 3), ("a",), ()):
        result = curve_read.CurveFile("f.csv", "plain", (dataclasses.replace(curve, point_sources=sources),),
                                      ("w",), ())
        value = curve_file_json(result)
        assert curve_file_text(result) == dumps(value) == json.dumps(value, indent=2, allow_nan=False)


def _random_value(rng: random.Random, depth: int = 0):
    scalars = [None, True, False, 0, -7, 2**70, 1.5, -0.0, 1e300, 3.14159, "", "a\"b\\c\n\u00e9\U0001f600", "%s %%"]
    if depth > 3 or rng.random() < 0.4:
        return rng.choice(scalars)
    if rng.random() < 0.3:   # records: a list of flat dicts under the same keys
        keys = [rng.choice(["a", "b", "%d", "é"]) + str(k) for k in range(rng.randint(1, 4))]
        return [{k: rng.choice(scalars) for k in keys} for _ in range(rng.randint(1, 4))]
    if rng.random() < 0.5:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(["x", "y", "z", "w"]) + str(k): _random_value(rng, depth + 1) for k in range(rng.randint(0, 4))}


def test_json_text_equals_the_standard_encoder_on_any_value():
    rng = random.Random(3)
    for _ in range(3000):
        value = _random_value(rng)
        assert dumps(value) == json.dumps(value, indent=2, allow_nan=False)
    odd = {"records": [{"a": 1, "b": [1]}, {"a": 2, "b": []}], "keys": {1: "x", None: 2, 2.5: True}, "t": (1, 2),
           "mixed": [{"a": 1}, {"b": 2}], "empty": [{}], "one": [{"a": 1.0}, 3]}
    assert dumps(odd) == json.dumps(odd, indent=2, allow_nan=False)


@pytest.mark.parametrize("bad", [math.nan, math.inf, [{"a": -math.inf}], {"x": [{"a": 1.0}, {"a": math.nan}]}])
def test_json_text_refuses_what_the_standard_encoder_refuses(bad):
    with pytest.raises(ValueError):
        json.dumps(bad, allow_nan=False)
    with pytest.raises(ValueError):
        dumps(bad)


def test_json_text_refuses_an_object_json_cannot_encode():
    with pytest.raises(TypeError):
        dumps({"a": [{"b": object()}]})


def test_the_collector_is_paused_inside_and_restored_after_even_on_an_error():
    import gc

    from tcoapp.io.paused_gc import paused_gc
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        with paused_gc():
            assert not gc.isenabled()
            with paused_gc():
                assert not gc.isenabled()
            assert not gc.isenabled()   # the inner block leaves it as it found it
            raise RuntimeError
    assert gc.isenabled()


def _table_read_line_by_line(path, monkeypatch) -> Table:
    from tcoapp.io.curve_files import table as curve_table
    with monkeypatch.context() as m:
        m.setattr(curve_table, "_one_line_per_row", lambda body, delimiter, cells=None: False)
        return read_table(path)


def _outcome(read, path):
    try:
        return read(path)
    except Exception as exc:   # the same refusal, word for word
        return type(exc).__name__, str(exc)


def test_the_rows_read_at_once_equal_the_rows_read_line_by_line(tmp_path, monkeypatch):
    """A file of one line per row is read without checking each row (blank, comment); any text gives
    the table the line-by-line reading gives: blank lines of any whitespace, comments, quoted cells
    over several lines, line ends of every kind, a missing last line end."""
    rng = random.Random(11)
    pieces = ["a", "1", "2.5", ",", ",", ";", "\t", " ", "\x0c", "\x85", "\u2028", "#", '"', "\n", "\n", "\r\n", "\r"]
    texts = ["batch,tokens_per_s_per_device\n1,2\n\n3,4\n", "# note\nbatch,x\n1,2\r\n3,4\r\n", "b,x\r1,2\r 3 ,4",
             "b,x\n1,2\n , \n", "b,x\n1,2\n  # c\n3,4", 'b,x\n1,"2\n3"\n', "b;x\n1;2\n;\n", "b\tx\n1\t2\n\t\n"]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 40))) for _ in range(3000)]
    cells = ["a", "1", "2.5", " ", "\x0c", "\u2028", "#"]   # mostly files read at once
    texts += ["".join(rng.choice(cells) + rng.choice([",", ",", ",", "\n", "\r\n", "\r"]) for _ in range(rng.randint(1, 30)))
              for _ in range(2000)]
    path = tmp_path / "t.csv"
    for text in texts:
        path.write_bytes(text.encode("utf-8"))
        assert _outcome(read_table, path) == _outcome(lambda p: _table_read_line_by_line(p, monkeypatch), path), text


def test_a_file_past_the_row_limit_is_refused_when_read_at_once(tmp_path, monkeypatch):
    from tcoapp.io.curve_files import table as curve_table
    monkeypatch.setattr(curve_table, "MAX_DATA_ROWS", 5)
    path = tmp_path / "many.csv"
    path.write_text("batch,x\n" + "".join(f"{k},1\n" for k in range(1, 7)), encoding="utf-8")
    with pytest.raises(Exception, match="more than 5 data rows"):
        read_table(path)
    path.write_text("batch,x\n" + "".join(f"{k},1\n" for k in range(1, 6)), encoding="utf-8")
    assert [row for row, _ in read_table(path).rows] == [2, 3, 4, 5, 6]


def test_the_first_line_found_in_a_prefix_is_the_first_of_all_lines():
    """delimiter_of splits only as much of the text as it needs: the same line as splitting all of it."""
    from tcoapp.io.curve_files.table import _first_line
    rng = random.Random(5)
    pieces = ["a", "#", " ", "\n", "\r", "\r\n", "\x0c", "\x1c", "\u2028", "\x85", ",", "b;c"]
    wanted = lambda line: line.strip() and not line.lstrip().startswith("#")   # noqa: E731
    for _ in range(400):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12000)))
        if rng.random() < 0.5:   # most lines comments or blank: the line is found far into the text
            text = "#\n" * rng.randint(0, 3000) + text
        assert _first_line(text, wanted) == next((ln for ln in text.splitlines() if wanted(ln)), "")


def _plain_file(path: Path, rows: int, curves: int) -> Path:
    """benchmarks/bench_curves.py's plain CSV at a size for a test (`curves` curves, file order mixed)."""
    path.write_text("curve,device,model,batch,tokens_per_s_per_device\n" + "".join(
        f"c{i % curves},H200-SXM,Llama-3.1-70B,{i // curves + 1},{100 + i % 997}\n" for i in range(rows)),
        encoding="utf-8")
    return path


def _read_curve_by_curve(path, monkeypatch):
    """read_curve_file with every curve made by make_measured_curve on its own (no check of all at once)."""
    with monkeypatch.context() as m:
        m.setattr(curve_read._Groups, "curve_columns", lambda self, g: None)
        return _outcome(curve_read.read_curve_file, path)


def test_the_curves_checked_all_at_once_equal_the_curves_made_one_by_one(tmp_path, monkeypatch):
    """The curves of a file's groups, checked for all groups at once (`_Groups.curve_columns`), are the
    curves make_measured_curve makes of each group."""
    for path in [*CURVE_FILES, _plain_file(tmp_path / "many.csv", 3000, 70)]:
        fast = _outcome(curve_read.read_curve_file, path)
        assert not isinstance(fast, tuple) and fast == _read_curve_by_curve(path, monkeypatch), path.name
    many = curve_read.read_curve_file(tmp_path / "many.csv")
    assert len(many.curves) == 70 and all(np.all(np.diff(c.batch) > 0) for c in many.curves)


@pytest.mark.parametrize("batch, ttft, checked", [
    ([1, 2, 1, 3], [0.5, 0.1, 0.2, 0.3], True), ([1, 2, 1, 3], [0.5, 0.0, 0.2, 0.3], False),
    ([1, 2, 1, 3], [0.5, np.nan, -1.0, 0.3], False), ([2, 1, 5, 4], [np.nan] * 4, True)])
def test_groups_are_checked_at_once_only_when_make_measured_curve_keeps_them_as_they_are(batch, ttft, checked):
    """A value make_measured_curve refuses (<= 0) leaves every curve to it (its error, from the first such
    curve); else each group's columns are the ones it keeps, in batch order."""
    from tcoapp.engine.performance.measured import make_measured_curve
    n = len(batch)
    points = {"batch": np.array(batch, float), "tokens_per_s_per_device": np.arange(1.0, n + 1),
              "tokens_per_s_per_user": np.full(n, np.nan), "power_w": np.full(n, 700.0), "ttft_s": np.array(ttft, float)}
    rows = curve_rows.Rows(np.arange(2, n + 2), points, [("a",), ("a",), ("b",), ("b",)], [()] * n, {})
    groups = curve_read._Groups(rows)
    assert (groups.curve_columns(0) is not None) is checked
    if checked:
        for g in range(len(groups.keys)):
            c = groups.columns(g)
            made = make_measured_curve("x", "d", "m", *(c[f] for f in curve_rows.POINT_FIELDS))
            assert np.array_equal(groups.curve_columns(g), [getattr(made, f) for f in curve_rows.POINT_FIELDS],
                                  equal_nan=True)


def test_a_plain_curve_file_is_read_without_the_catalog(tmp_path, monkeypatch):
    """A plain CSV names no catalog entry to match: it is read without loading the shipped catalog; an
    aiconfigurator file still maps its names to the catalog's."""
    import tcoapp.io.catalog as catalog

    def refused():
        raise AssertionError("the catalog was loaded")
    with monkeypatch.context() as m:
        m.setattr(catalog, "load_catalog", refused)
        result = curve_read.read_curve_file(_plain_file(tmp_path / "plain.csv", 40, 4))
        assert [c.name for c in result.curves] == ["c0", "c1", "c2", "c3"]
        with pytest.raises(AssertionError, match="the catalog was loaded"):
            curve_read.read_curve_file(ROOT / "tests" / "data" / "curves" / "aiconfigurator_llama70b_fp8_h200_agg_pareto.csv")
    result = curve_read.read_curve_file(ROOT / "tests" / "data" / "curves" / "aiconfigurator_llama70b_fp8_h200_agg_pareto.csv")
    assert {c.device for c in result.curves} == {"H200-SXM"}


def test_record_lists_are_the_lists_of_records_written_one_by_one():
    """record_lists_text (each list joined from its columns) gives what list_text(records_text(...)) gives,
    for any keys (escapes, '%'), depths and list sizes (empty ones too)."""
    from tcoapp.present.json_text import list_text, record_lists_text, records_text
    rng = random.Random(19)
    values = ["1.0", "null", '"a\\"b"', "%s", "%%", "-0.0", '"\\u00e9"']
    for _ in range(400):
        keys = [rng.choice(["a", "%d", "é", 'q"', "x y"]) + str(k) for k in range(rng.randint(1, 6))]
        sizes = [rng.choice([0, 0, 1, 2, 5]) for _ in range(rng.randint(1, 6))]
        columns = [[rng.choice(values) for _ in range(sum(sizes))] for _ in keys]
        depth = rng.randint(0, 4)
        texts = record_lists_text(keys, columns, sizes, depth)
        starts = list(itertools.accumulate([0, *sizes]))
        assert texts == [list_text(records_text(keys, [c[a:b] for c in columns], depth + 1), depth)
                         for a, b in zip(starts, starts[1:])]
    with pytest.raises(ValueError):
        record_lists_text(["a"], [["1", "2"]], [1], 0)
    with pytest.raises(ValueError):
        record_lists_text(["a", "b"], [["1"]], [1], 0)


@pytest.mark.parametrize("path", CURVE_FILES, ids=lambda p: p.stem)
def test_the_json_parts_of_a_file_join_into_its_text(path):
    from tcoapp.io.curve_files.to_json import curve_file_json
    from tcoapp.present.curve_file_text import curve_file_parts
    result = curve_read.read_curve_file(path)
    assert "".join(curve_file_parts(result)) == json.dumps(curve_file_json(result), indent=2, allow_nan=False)


def test_a_body_is_split_column_by_column_exactly_when_every_line_is_as_wide():
    """`_uniform_columns` (one split at the separators) gives each line's cells column by column when every
    line has as many, and None otherwise: what splitting line by line gives."""
    from tcoapp.io.curve_files.table import _uniform_columns
    rng = random.Random(23)
    for _ in range(4000):
        delimiter = rng.choice([",", ";", "\t"])
        width = rng.randint(1, 4)
        lines = []
        for _ in range(rng.randint(1, 6)):
            cells = rng.randint(width - 1, width + 1) if rng.random() < 0.3 else width
            lines.append(delimiter.join(rng.choice(["", "a", "1", " ", "x y", ",", ";"]) for _ in range(max(cells, 1))))
        body = "\n".join(lines)
        split = [line.split(delimiter) for line in body.split("\n")]
        uniform = len({len(cells) for cells in split}) == 1
        expected = [list(column) for column in zip(*split)] if uniform else None
        assert _uniform_columns(body, delimiter, len(split)) == expected, (body, delimiter)


def test_rows_kept_column_by_column_are_the_rows():
    from tcoapp.io.curve_files.table import ColumnRows
    rows = ColumnRows(5, [["a", "b", "c"], ["1", "2", "3"]])
    as_tuple = ((5, ("a", "1")), (6, ("b", "2")), (7, ("c", "3")))
    assert rows == as_tuple and tuple(rows) == as_tuple and len(rows) == 3 and rows[1] == (6, ("b", "2"))
    assert rows[-1] == (7, ("c", "3")) and rows[1:] == as_tuple[1:] and rows != as_tuple[:2]
    assert ColumnRows(2, []) == () and len(ColumnRows(2, [])) == 0


def test_the_text_lines_are_the_lines_string_io_gives():
    import io

    from tcoapp.io.curve_files.table import _text_lines
    rng = random.Random(29)
    pieces = ["a", ",", '"', "\n", "\r", "\r\n", "\x85", "\u2028", "\x0c", " "]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        assert list(_text_lines(text)) == list(io.StringIO(text, newline="")), repr(text)


def test_configurations_grouped_by_the_columns_that_differ_are_grouped_by_all():
    """group_ids over TextColumns (only the columns that differ looked at) gives the groups, in order of
    their first row, that grouping the rows' whole tuples gives."""
    from tcoapp.io.curve_files.text_columns import TextColumns, group_ids
    rng = random.Random(31)
    for _ in range(1500):
        size = rng.randint(0, 12)
        columns = [[rng.choice(choices) for _ in range(size)]
                   for choices in rng.sample([["a"], ["a", "b"], ["", "x", "y"], ["1", "2", "3", "4"], [""]], rng.randint(0, 4))]
        texts = TextColumns(columns, size)
        tuples = list(zip(*columns)) if columns else [()] * size
        assert list(texts) == tuples and len(texts) == size and texts == tuples
        assert all(texts[k] == tuples[k] for k in range(size))
        keys, ids = group_ids(texts)
        expected_keys, expected_ids = group_ids(tuples)
        assert keys == expected_keys == list(dict.fromkeys(tuples))
        assert ids.tolist() == expected_ids.tolist() == [expected_keys.index(t) for t in tuples]
    with pytest.raises(ValueError):
        TextColumns([["a"], ["a", "b"]], 2)


def test_record_lists_with_columns_the_same_in_every_record_or_quoted_by_the_template():
    """record_lists_text with a Same column (one text for every record) or a Quoted one (strings written
    between the template's quotes) gives what the columns written out in full give."""
    from tcoapp.present.json_text import Quoted, Same, record_lists_text
    rng = random.Random(37)
    values = ["1.0", "null", '"a"', "%s", "-0.0"]
    for _ in range(600):
        keys = [rng.choice(["a", "%d", "é", 'q"']) + str(k) for k in range(rng.randint(1, 5))]
        sizes = [rng.choice([0, 1, 2, 5]) for _ in range(rng.randint(1, 5))]
        rows = sum(sizes)
        full, given = [], []
        for _ in keys:
            kind = rng.choice(["list", "same", "quoted"])
            if kind == "same":
                text = rng.choice(values)
                full.append([text] * rows)
                given.append(Same(text))
            elif kind == "quoted":
                strings = [rng.choice(["f.csv:row 2", "", "x %s y"]) for _ in range(rows)]
                full.append([json.dumps(s) for s in strings])
                given.append(Quoted(strings))
            else:
                full.append([rng.choice(values) for _ in range(rows)])
                given.append(full[-1])
        depth = rng.randint(0, 3)
        assert record_lists_text(keys, given, sizes, depth) == record_lists_text(keys, full, sizes, depth)
    with pytest.raises(ValueError):
        record_lists_text(["a", "b"], [Same("1"), ["1", "2"]], [1], 0)


def test_a_column_s_numbers_read_once_per_distinct_text_are_each_cell_s():
    """_column_floats (each distinct text read once) gives float() of each cell, NaN and a mask where a
    cell is blank, and None where a cell is not a number."""
    rng = random.Random(41)
    pool = ["1", "2", " 3 ", "", "  ", "4.5", "1e3", "-0", "nan", "inf", "1_0", "x", "\u00a07"]
    for _ in range(3000):
        cells = [rng.choice(pool) for _ in range(rng.randint(0, 8))]
        found = curve_rows._column_floats(cells)
        try:
            expected = [float(c) if c.strip() else math.nan for c in cells]
        except ValueError:
            assert found is None, cells
            continue
        values, filled = found
        assert [repr(v) for v in values.tolist()] == [repr(v) for v in expected], cells
        blank = [not c.strip() for c in cells]
        assert (filled is None) == (not any(blank)) and (filled is None or filled.tolist() == [not b for b in blank])


def test_float_texts_of_repeated_values_are_each_value_s_text():
    """_float_texts (a column of repeated values has each distinct one written once; none finite: one
    Same null) gives each value's JSON: its repr, or null where it is not finite."""
    from tcoapp.present.curve_file_text import _float_texts
    from tcoapp.present.json_text import Same
    rng = random.Random(43)
    pool = [1.0, 2.5, 0.1 + 0.2, 1e-7, 1e300, 0.0, -0.0, math.nan, math.inf, -math.inf, 100.0]
    for _ in range(3000):
        values = np.array([rng.choice(pool[:rng.randint(1, len(pool))]) for _ in range(rng.randint(0, 12))], float)
        texts = _float_texts(values)
        expected = [repr(v) if math.isfinite(v) else "null" for v in values.tolist()]
        if isinstance(texts, Same):
            assert texts.text == "null" and all(t == "null" for t in expected)
        else:
            assert texts == expected, values


def test_sources_written_between_the_template_s_quotes_are_those_json_writes_so():
    """_string_texts leaves the quotes to the template (Quoted) only where JSON writes every character of
    every source as it is; else each source's JSON."""
    from tcoapp.present.curve_file_text import _string_texts
    from tcoapp.present.json_text import Quoted
    rng = random.Random(47)
    pool = ["f.csv:row 2", "a", " ", "~", '"', "\\", "\x7f", "\x1f", "\n", "\u00e9", "\u2028", "\U0001f600", "/"]
    for _ in range(3000):
        values = ["".join(rng.choice(pool) for _ in range(rng.randint(0, 3))) for _ in range(rng.randint(0, 4))]
        texts = _string_texts(values)
        expected = [json.dumps(v) for v in values]
        if isinstance(texts, Quoted):
            assert ['"' + v + '"' for v in texts] == expected and list(texts) == values
        else:
            assert texts == expected, values


def _one_line_per_row_searching_every_line(body: str, delimiter: str) -> bool:
    """`table._one_line_per_row` as it was before it tried only the lines that start as a blank or comment
    line can: every line searched for both patterns."""
    import re
    if '"' in body:
        return False
    blanks = r"[^\S\n]"
    blank_line = "(?:" + blanks + "|" + re.escape(delimiter) + r")*(?:\n|\Z)"
    patterns = (blank_line, blanks + "*#") if "#" in body else (blank_line,)
    return not any(re.match(p, body) or re.search("\n" + p, body) for p in patterns)


def test_blank_and_comment_lines_found_by_their_first_character_are_those_of_every_line():
    """`_one_line_per_row` tries only the lines that start with a blank, a line end, a separator or '#':
    it says what searching every line for a blank or comment line says, on any text (blanks of every
    kind, unicode ones, separators, comments, a last line that is empty)."""
    from tcoapp.io.curve_files.table import _one_line_per_row
    rng = random.Random(53)
    pieces = ["a", "1", ",", ";", "\t", " ", "#", "\n", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1f", "\x85", "\xa0",
              "\u2028", "\u3000", '"', "x y"]
    texts = ["", "\n", "a", "a\n", "\na", "a\n\nb", "a\n , \nb", "a\n  #c", "#", "a,b\n\tb", "a\n\u3000\nb"]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 30))) for _ in range(6000)]
    texts += ["\n".join(rng.choice(["1,2", "a,b", "c,3", " 1,2", "1,2 ", ",", "", "# x", "\u00e9,1"])
                        for _ in range(rng.randint(1, 8))) for _ in range(3000)]
    for text in texts:
        for delimiter in (",", ";", "\t"):
            assert _one_line_per_row(text, delimiter) == _one_line_per_row_searching_every_line(text, delimiter), (
                text, delimiter)


def test_curve_metas_made_once_per_configuration_read_are_those_made_per_curve(tmp_path):
    """`config.metas` makes a plain CSV's meta once for the curves that differ only in what it does not
    read (their name, their source): each curve gets the meta made of its own configuration."""
    from tcoapp.io.curve_files.config import META, metas, names_for
    mixed = tmp_path / "mixed.csv"
    mixed.write_text("curve,device,model,precision,tensor_parallel,source,config,batch,tokens_per_s_per_device\n" + "".join(
        f"c{i % 9},{['H200-SXM', 'B200'][i % 2]},Llama-3.1-70B,{['fp8', 'bf16', ''][i % 7 % 3]},{[1, 2, ''][i % 3]},"
        f"run {i % 4},{['tp=2; ep=1', ''][i % 5 == 0]},{i + 1},{100 + i}\n" for i in range(60)), encoding="utf-8")
    for path in [*CURVE_FILES, _plain_file(tmp_path / "many.csv", 3000, 70), mixed]:
        table = read_table(path)
        spec = curve_read._format("auto", table)
        table = localized(spec, table, COUNT_KEYS)
        rows, _ = curve_rows.read_rows(spec, table, problems := [])
        if problems or rows is None:
            continue
        keys = curve_read._Groups(rows).keys
        names = names_for(lambda: curve_read._names(None, None, None))
        assert metas(spec, table, keys, names) == [META[spec.name](spec, table, key, names) for key in keys], path.name


def test_reading_a_curve_file_does_not_build_the_input_tables():
    """`tcoapp curves` reads a measured point's values from engine/quantities/curve_arrays.py: it does not
    import the input tables (inputs.py, their rows), which cost start-up time and which it does not read."""
    import subprocess
    import sys
    code = ("import sys, tcoapp.cli.curves, tcoapp.io.curve_files.read, tcoapp.present.curve_file_text; "
            "print(sorted(m for m in sys.modules if m in ('tcoapp.engine.quantities.inputs', "
            "'tcoapp.engine.quantities.row')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr
