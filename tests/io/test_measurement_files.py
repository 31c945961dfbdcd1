"""`tcoapp accuracy` on damaged measurement files: the damaged row is skipped with its line, column and
reason (never an internal error, never a silent 0); an empty file is one line, exit 2; a German re-save
reads alike."""
from __future__ import annotations

import csv
import io

import pytest

from tcoapp.cli import main
from tcoapp.io.measurement_numbers import NUMBER_COLUMNS
from tcoapp.io.measurements import DEFAULT_CSV, read_measurements

ROWS = list(csv.reader(DEFAULT_CSV.read_text(encoding="utf-8").splitlines()))
HEADER = ROWS[0]


def write(path, rows):
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


def damaged(column: str, value: str, row: int = 5):
    rows = [list(r) for r in ROWS]
    rows[row - 1][HEADER.index(column)] = value
    return rows


CASES = {
    "inf": (damaged("tokens_per_s_per_gpu", "inf"), "line 5: column 'tokens_per_s_per_gpu': 'inf' is not a number"),
    "nan": (damaged("output_len", "nan"), "line 5: column 'output_len': 'nan' is not a number"),
    "nan concurrency": (damaged("batch_or_concurrency", "NaN"),
                        "line 5: column 'batch_or_concurrency': 'NaN' is not a number"),
    "text": (damaged("count", "eight"), "line 5: column 'count': 'eight' is not a number"),
    "negative": (damaged("ttft_s", "-1"), "line 5: column 'ttft_s': '-1' is out of range (must be a finite number >= 0"),
    "short last line": (ROWS[:-1] + [ROWS[-1][:7]], f"line {len(ROWS)}: short line: 7 of {len(HEADER)} columns"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_damaged_measurement_row_is_skipped_with_its_reason(tmp_path, case):
    rows, said = CASES[case]
    path = write(tmp_path / "m.csv", rows)
    read = read_measurements(path)
    assert len(read) == len(ROWS) - 1
    invalid = [r["invalid"] for _, r in read if r.get("invalid")]
    assert len(invalid) == 1 and invalid[0].startswith(said), invalid
    assert "Error" not in invalid[0]


@pytest.mark.parametrize("text, said", [("", "the file is empty"), (",".join(HEADER) + "\n", "no measurement rows")])
def test_an_empty_measurement_file_says_so(tmp_path, capsys, text, said):
    path = tmp_path / "m.csv"
    path.write_text(text, encoding="utf-8")
    assert main(["accuracy", str(path)]) == 2
    assert said in capsys.readouterr().err


def test_a_german_resave_of_the_measurements_reads_as_the_original(tmp_path):
    rows = [list(r) for r in ROWS]
    for row in rows[1:]:
        for column in NUMBER_COLUMNS:
            i = HEADER.index(column)
            whole, _, fraction = row[i].partition(".")
            if whole.isdigit():
                grouped = f"{int(whole):,}".replace(",", ".")
                row[i] = grouped + ("," + fraction if fraction else "")
    path = write(tmp_path / "m.csv", rows)
    assert any("." in r[HEADER.index("tokens_per_s_total")] and "," in r[HEADER.index("tokens_per_s_total")]
               for r in rows[1:])
    assert [dict(r) for _, r in read_measurements(path)] == [dict(r) for _, r in read_measurements(DEFAULT_CSV)]
