"""`tcoapp accuracy` on damaged measurement files: one line naming the row and the column, exit 2
(never an internal error, never a silent 0); an empty file says so; a German re-save reads alike."""
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
    "inf": (damaged("tokens_per_s_per_gpu", "inf"), "row 5 tokens_per_s_per_gpu = 'inf': not a number"),
    "nan": (damaged("output_len", "nan"), "row 5 output_len = 'nan': not a number"),
    "nan concurrency": (damaged("batch_or_concurrency", "NaN"), "row 5 batch_or_concurrency = 'NaN': not a number"),
    "text": (damaged("count", "eight"), "row 5 count = 'eight': not a number"),
    "negative": (damaged("ttft_s", "-1"), "row 5 ttft_s = '-1': must be a finite number >= 0"),
    "short last line": (ROWS[:-1] + [ROWS[-1][:7]], f"row {len(ROWS)} has 7 cells, the header {len(HEADER)}"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_damaged_measurement_file_is_refused_in_one_line(tmp_path, capsys, case):
    rows, said = CASES[case]
    path = write(tmp_path / "m.csv", rows)
    assert main(["accuracy", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0] and err[0].startswith("error: measurements CSV") and "Error" not in err[0]


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
