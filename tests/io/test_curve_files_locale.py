"""Curve files as spreadsheets write them: a European Excel re-save of the real InferenceX export
(quoted comment line, semicolons, decimal commas, WAHR/FALSCH), cp1252 and UTF-16 saves; and what
a file must not get past silently (a repeated header, TP = inf, an unknown boolean, an empty TTFT,
a file too large)."""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.io.curve_files import read_curve_file
from tcoapp.io.curve_files import table as table_module

DATA = Path(__file__).resolve().parent.parent / "data" / "curves"
INFERENCEX = DATA / "inferencex_dsr1_gb300_current_headers.csv"
PARETO = DATA / "aiconfigurator_llama70b_fp8_h200_agg_pareto.csv"
NUMBER = re.compile(r"^-?\d+\.\d+(e-?\d+)?$")
BOOLEANS = {"de": ("WAHR", "FALSCH"), "fr": ("VRAI", "FAUX"), "es": ("VERDADERO", "FALSO"), "nl": ("WAAR", "ONWAAR")}


def european(path: Path, true: str, false: str, preamble: str) -> str:
    """The file as Excel in a decimal-comma locale saves it: ';' between cells, ',' in numbers, the
    locale's TRUE/FALSE, a comment line quoted because it holds the delimiter."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    writer.writerow([preamble] + [""] * 3)
    for cells in csv.reader(path.read_text(encoding="utf-8").splitlines()):
        writer.writerow([c.replace(".", ",") if NUMBER.match(c) else true if c == "true" else false if c == "false"
                         else c for c in cells])
    return out.getvalue()


def points(result):
    return {c.name: (c.config_dict.get("disaggregated"), c.batch.tolist(), c.tokens_per_s_per_device.round(9).tolist(),
                     np.nan_to_num(c.ttft_s).round(12).tolist()) for c in result.curves}


@pytest.mark.parametrize("locale", sorted(BOOLEANS))
def test_a_european_excel_resave_of_the_inferencex_export_reads_as_the_original(tmp_path, locale):
    true, false = BOOLEANS[locale]
    path = tmp_path / INFERENCEX.name
    text = european(INFERENCEX, true, false, "# Data: InferenceX (SemiAnalysis); Apache-2.0; attribution required")
    assert text.startswith('"# Data: InferenceX (SemiAnalysis); Apache-2.0') and f";{true};" in text
    path.write_text(text, encoding="utf-8")
    resaved, original = read_curve_file(path), read_curve_file(INFERENCEX)
    assert points(resaved) == points(original)
    assert all(c.config_dict["disaggregated"] == "true" for c in resaved.curves)  # not aggregated TP 72
    assert resaved.preamble == ("Data: InferenceX (SemiAnalysis); Apache-2.0; attribution required",)


def test_falsch_reads_false_and_an_unknown_boolean_is_an_error(tmp_path):
    path = tmp_path / "agg.csv"
    path.write_text(INFERENCEX.read_text(encoding="utf-8").replace(",true,", ",FALSCH,"), encoding="utf-8")
    assert all("disaggregated" not in c.config_dict for c in read_curve_file(path).curves)
    path.write_text(INFERENCEX.read_text(encoding="utf-8").replace(",true,", ",vielleicht,", 1), encoding="utf-8")
    with pytest.raises(ValidationError) as err:
        read_curve_file(path)
    assert [str(p) for p in err.value.problems] == [
        "agg.csv:row 2 Disaggregated = 'vielleicht': not a true/false value (TRUE/FALSE, WAHR/FALSCH, VRAI/FAUX, 1/0, ...)"]


@pytest.mark.parametrize("encoding, note", [("utf-16", ""), ("utf-16-le", "read as UTF-16 (no byte-order mark) text"),
                                            ("cp1252", "read as Windows-1252 text"), ("utf-8-sig", "")])
def test_spreadsheet_encodings_are_detected(tmp_path, encoding, note):
    lines = PARETO.read_text(encoding="utf-8").splitlines()
    lines.insert(0, "# Messung: Müller, 25 °C")  # a character outside ASCII, as a European user types it
    path = tmp_path / PARETO.name
    path.write_bytes("\r\n".join(lines).encode(encoding))
    result, original = read_curve_file(path), read_curve_file(PARETO)
    assert points(result) == points(original) and result.preamble == ("Messung: Müller, 25 °C",)
    said = [w for w in result.warnings if w.startswith(f"{PARETO.name}: read as ")]
    assert said == ([f"{PARETO.name}: {note}"] if note else [])


def test_bytes_no_encoding_reads_give_one_line_that_says_how_to_fix_the_file(tmp_path):
    path = tmp_path / "broken.csv"
    path.write_bytes(b"batch,tokens_per_s_per_device\n1,\x81\x8d\x90\n")
    with pytest.raises(ValidationError) as err:
        read_curve_file(path)
    assert [str(p) for p in err.value.problems] == [
        "broken.csv: cannot read the file: it is not UTF-8, UTF-16 or Windows-1252 text: save it from the "
        "spreadsheet as 'CSV UTF-8 (comma delimited)'"]


def test_a_repeated_header_is_an_error_naming_its_columns(tmp_path):
    lines = PARETO.read_text(encoding="utf-8").splitlines()
    headers = lines[0].split(",")
    headers[headers.index("pp")] = "tp"
    path = tmp_path / "dup.csv"
    path.write_text("\n".join([",".join(headers)] + lines[1:]), encoding="utf-8")
    with pytest.raises(ValidationError) as err:
        read_curve_file(path)
    assert [str(p) for p in err.value.problems] == [
        "dup.csv:row 1 tp: appears in 2 columns (T, U): keep one (which holds the value cannot be guessed)"]


@pytest.mark.parametrize("value, message", [("inf", "= inf: must be a whole number >= 0"),
                                            ("2.5", "= 2.5: must be a whole number >= 0"),
                                            ("four", "= 'four': not a number (a whole number >= 0)")])
def test_a_count_that_is_not_a_whole_number_is_an_error_naming_row_and_column(tmp_path, value, message):
    lines = PARETO.read_text(encoding="utf-8").splitlines()
    headers = lines[0].split(",")
    cells = lines[3].split(",")
    cells[headers.index("tp")] = value
    lines[3] = ",".join(cells)
    path = tmp_path / "tp.csv"
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(ValidationError) as err:
        read_curve_file(path)
    assert [str(p) for p in err.value.problems] == [f"tp.csv:row 4 tp {message}"]


def test_an_empty_ttft_is_unknown_and_said(tmp_path):
    lines = PARETO.read_text(encoding="utf-8").splitlines()
    headers = lines[0].split(",")
    for k in (2, 5):
        cells = lines[k].split(",")
        cells[headers.index("ttft")] = ""
        lines[k] = ",".join(cells)
    path = tmp_path / PARETO.name
    path.write_text("\n".join(lines), encoding="utf-8")
    result = read_curve_file(path)
    assert f"{PARETO.name}: 'ttft' is empty in 2 of 45 row(s) (row 3, 6): TTFT is unknown at those points" in result.warnings
    assert sum(int(np.isnan(c.ttft_s).sum()) for c in result.curves) == 2


def test_a_file_past_the_row_limit_is_refused_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(table_module, "MAX_DATA_ROWS", 40)
    with pytest.raises(ValidationError) as err:
        read_curve_file(PARETO)
    assert [str(p) for p in err.value.problems] == [
        f"{PARETO.name}: more than 40 data rows: a curve file may hold at most 40; split it or keep the rows of "
        "the curves you need"]


def test_a_file_past_the_size_limit_is_refused_before_it_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(table_module, "MAX_FILE_BYTES", 1000)
    with pytest.raises(ValidationError) as err:
        read_curve_file(PARETO)
    assert "a curve file may be at most 0 MB" in str(err.value.problems[0])
