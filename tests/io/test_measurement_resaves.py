"""`tcoapp accuracy` on a user's measurements file as spreadsheets save it: ';' between cells with
decimal commas (a German Excel), UTF-16 (Excel's "Unicode text"), a file with dot decimals and ';'
whose every number reads two ways; physically impossible rows; a file with no modellable row (exit 2)."""
from __future__ import annotations

import csv
import io

import pytest

from tcoapp.cli import main
from tcoapp.io.measurement_numbers import NUMBER_COLUMNS
from tcoapp.io.measurements import DEFAULT_CSV, read_measurements

ROWS = list(csv.reader(DEFAULT_CSV.read_text(encoding="utf-8").splitlines()))
HEADER = ROWS[0]


def text(rows, delimiter=",") -> str:
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator="\r\n").writerows(rows)
    return out.getvalue()


def german(rows):
    out = [list(rows[0])]
    for row in rows[1:]:
        row = list(row)
        for column in NUMBER_COLUMNS:
            i = HEADER.index(column)
            whole, _, fraction = row[i].partition(".")
            if whole.isdigit():
                row[i] = f"{int(whole):,}".replace(",", ".") + ("," + fraction if fraction else "")
        out.append(row)
    return out


def _read(path):
    return [dict(r) for _, r in read_measurements(path)]


def test_a_semicolon_decimal_comma_resave_reads_as_the_original(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text(text(german(ROWS), ";"), encoding="cp1252", errors="replace")
    original = _read(DEFAULT_CSV)
    read = _read(path)
    numbers = [{c: r[c] for c in NUMBER_COLUMNS} for r in read]
    assert numbers == [{c: r[c] for c in NUMBER_COLUMNS} for r in original]
    assert [r.get("invalid") for r in read] == [r.get("invalid") for r in original]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le"])
def test_a_utf16_resave_reads_as_the_original(tmp_path, encoding):
    path = tmp_path / "m.txt"
    path.write_text(text(ROWS, "\t"), encoding=encoding)
    assert _read(path) == _read(DEFAULT_CSV)


def test_the_cli_reads_a_german_semicolon_file(tmp_path, capsys):
    path = tmp_path / "m.csv"
    path.write_text(text(german(ROWS[:40]), ";"), encoding="utf-8")
    assert main(["accuracy", str(path), "--in-sample"]) == 0
    out = capsys.readouterr()
    assert "no column" not in out.err and "modelled" in out.out


def test_an_all_ambiguous_semicolon_file_is_refused_with_both_readings(tmp_path, capsys):
    rows = [HEADER] + [list(r) for r in ROWS[1:4]]
    for row in rows[1:]:
        for column in NUMBER_COLUMNS:
            row[HEADER.index(column)] = ""
        row[HEADER.index("tokens_per_s_per_gpu")] = "45.125"
        row[HEADER.index("count")] = "8"
    path = tmp_path / "m.csv"
    path.write_text(text(rows, ";"), encoding="utf-8")
    assert main(["accuracy", str(path), "--in-sample"]) == 2
    err = capsys.readouterr().err
    assert "45.125 with a decimal point and 45125 with a decimal comma" in err


@pytest.mark.parametrize("column, value, said", [
    ("tokens_per_s_per_gpu", "1e308", "past the physical bound of 1e+07"),
    ("tokens_per_s_per_user", "250000", "past the physical bound of 1e+05"),
    ("measured_power_w", "90000", "past the physical bound of 1e+04"),
])
def test_a_physically_impossible_measurement_is_skipped_with_its_reason(tmp_path, column, value, said):
    rows = [list(r) for r in ROWS]
    rows[4][HEADER.index(column)] = value
    rows[4][HEADER.index("count")] = "1"
    path = tmp_path / "m.csv"
    path.write_text(text(rows), encoding="utf-8")
    invalid = [r["invalid"] for r in _read(path) if r.get("invalid")]
    assert len(invalid) == 1 and invalid[0].startswith(f"line 5: column '{column}'") and said in invalid[0], invalid


def test_a_file_with_no_modellable_row_exits_2(tmp_path, capsys):
    rows = [HEADER] + [list(r) for r in ROWS[1:6]]
    for row in rows[1:]:
        row[HEADER.index("device")] = "No Such Accelerator"
    path = tmp_path / "m.csv"
    path.write_text(text(rows), encoding="utf-8")
    assert main(["accuracy", str(path), "--in-sample"]) == 2
    out = capsys.readouterr()
    assert "no row could be modelled" in out.out and "no row could be modelled" in out.err
