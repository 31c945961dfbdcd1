"""Curve files re-saved by spreadsheets in every locale's number format (German `4.000` and
`8.192,000000`, US `"8,192.00"`, French grouping with a no-break space or U+202F, Swiss `4'000`)
read exactly as the original, or are refused in one line naming the file's convention and the fix.
Typed workbook text is read by the same reader."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.core.number_text import read_typed
from tcoapp.engine.quantities.inputs import PLAN_FIELD_BY_NAME
from tcoapp.engine.quantities.validate import coerce
from tcoapp.io.curve_files import read_curve_file

from .locale_resave import LOCALES, resave

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted({p.name: p for p in [*(ROOT / "tests" / "data" / "curves").glob("*.csv"),
                                    *(ROOT.parent.parent / "shared" / "fixtures" / "curves").glob("*.csv")]}.values())
def content(result):
    return [(c.name, c.config, c.batch.tolist(), c.tokens_per_s_per_device.tolist(),
             np.nan_to_num(c.tokens_per_s_per_user, nan=-1).tolist(), np.nan_to_num(c.ttft_s, nan=-1).tolist(),
             np.nan_to_num(c.power_w, nan=-1).tolist()) for c in result.curves]


@pytest.mark.parametrize("locale", sorted(LOCALES))
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_a_locale_resave_of_every_real_curve_file_reads_exactly_as_the_original(tmp_path, path, locale):
    text = resave(path, *LOCALES[locale])
    if locale == "german":
        assert ";4.000;1.000;" in text or "8.192" in text or "200.000" in text   # grouped workloads really there
    target = tmp_path / path.name
    target.write_text(text, encoding="utf-8")
    assert content(read_curve_file(target)) == content(read_curve_file(path))


def test_a_german_save_reads_isl_4000_not_4(tmp_path):
    src = ROOT / "tests" / "data" / "curves" / "aiconfigurator_llama70b_fp8_h200_agg_pareto.csv"
    target = tmp_path / src.name
    target.write_text(resave(src, ";", ",", "."), encoding="utf-8")
    result = read_curve_file(target)
    assert {c.config_dict["input_tokens"] for c in result.curves} == {"4000"}
    assert {c.config_dict["output_tokens"] for c in result.curves} == {"1000"}
    assert any("numbers read with a decimal comma" in w for w in result.warnings)


def test_an_all_ambiguous_german_file_is_refused_with_both_readings(tmp_path):
    """`4.000` is 4 or 4000 and no cell decides: the ';' is no proof (a US file re-saved with ';' as its
    list separator writes 45.125 the same), so both readings are shown, not one guessed."""
    path = tmp_path / "plain.csv"
    path.write_text("curve;device;model;batch;tokens_per_s_per_device\nc;H200;m;1;4.000\nc;H200;m;2;8.192\n",
                    encoding="utf-8")
    with pytest.raises(ValidationError) as err:
        read_curve_file(path)
    (line,) = [str(p) for p in err.value.problems]
    assert "row 2 tokens_per_s_per_device = 4.000 is 4 with a decimal point and 4000 with a decimal comma" in line


def test_a_semicolon_file_with_dot_decimals_is_not_read_a_thousand_times_too_high(tmp_path):
    path = tmp_path / "dots.csv"
    path.write_text("curve;device;model;batch;tokens_per_s_per_device\nc;H200;m;1;45.125\nc;H200;m;2;80.250\n",
                    encoding="utf-8")
    with pytest.raises(ValidationError) as err:
        read_curve_file(path)
    (line,) = [str(p) for p in err.value.problems]
    assert "45.125 with a decimal point and 45125 with a decimal comma" in line


def test_physics_decides_an_all_ambiguous_file_where_it_can(tmp_path):
    """A batch of 1.024 sequences is no batch: the decimal comma is the only plausible reading."""
    path = tmp_path / "plain.csv"
    path.write_text("curve;device;model;batch;tokens_per_s_per_device\nc;H200;m;1.024;4.000\nc;H200;m;2.048;8.192\n",
                    encoding="utf-8")
    result = read_curve_file(path)
    assert result.curves[0].batch.tolist() == [1024.0, 2048.0]
    assert result.curves[0].tokens_per_s_per_device.tolist() == [4000.0, 8192.0]
    assert any("only this reading keeps every number within its physical bounds" in w for w in result.warnings)
    # 123,456 tokens/s per user is past the physical bound (1e5): the decimal point is the only reading
    path.write_text("batch;tokens_per_s_per_device;tokens_per_s_per_user\n1;45.125;123.456\n", encoding="utf-8")
    curve = read_curve_file(path).curves[0]
    assert curve.tokens_per_s_per_device.tolist() == [45.125] and curve.tokens_per_s_per_user.tolist() == [123.456]


def test_two_conventions_in_one_file_are_refused_in_one_line(tmp_path):
    path = tmp_path / "mixed.csv"
    path.write_text('batch,tokens_per_s_per_device,ttft_s\n1,"4,5",0.25\n2,"1.234,5",0.5\n', encoding="utf-8")
    with pytest.raises(ValidationError) as err:
        read_curve_file(path)
    lines = [str(p) for p in err.value.problems]
    assert len(lines) == 1 and "written two ways" in lines[0] and "decimal point" in lines[0]
    assert "Use system separators" in lines[0] and "Error" not in lines[0]


def test_a_number_its_convention_cannot_read_is_refused_in_one_line(tmp_path):
    path = tmp_path / "indian.csv"
    rows = "".join(f'{b},"12,34,{b:03d}",0.25\n' for b in range(1, 60))
    path.write_text("batch,tokens_per_s_per_device,ttft_s\n" + rows, encoding="utf-8")
    with pytest.raises(ValidationError) as err:
        read_curve_file(path)
    assert [str(p) for p in err.value.problems] == [
        "indian.csv:row 2 tokens_per_s_per_device = '12,34,001' is not a number written with this file's decimal point "
        "(1,234.5 or 1'234.5: US, UK, Swiss spreadsheets) (see row 2 ttft_s = '0.25'): save it again with one number "
        "format (Excel: File > Options > Advanced > 'Use system separators'), or as 'CSV UTF-8 (comma delimited)' "
        "from an English-locale spreadsheet (and 58 more cell(s) like it)"]


@pytest.mark.parametrize("text, fraction, value", [("8%", True, 0.08), ("1,200,000", False, 1200000.0),
                                                   ("1.200.000,5", False, 1200000.5), ("1\u202f200\u202f000,5", False,
                                                                                        1200000.5),
                                                   ("1'200'000.5", False, 1200000.5), ("0,42", False, 0.42)])
def test_typed_workbook_text_reads_every_locale_alike(text, fraction, value):
    assert read_typed(text, fraction) == (value, None)
    field = PLAN_FIELD_BY_NAME["utilization"] if fraction else _big_field()
    assert coerce(field, text) == (value, None)    # what a workbook cell typed as text gives


def _big_field():
    return next(f for f in PLAN_FIELD_BY_NAME.values() if f.type == "float" and (f.max or 0) >= 1e7 and (f.min or 0) <= 0)


@pytest.mark.parametrize("text", ["4.000", "1,200"])
def test_typed_text_that_reads_two_ways_is_refused_with_both_readings(text):
    value, error = coerce(_big_field(), text)
    assert value is None and "with a decimal point and as" in error and "must be" in error


def test_a_comma_separated_file_whose_every_number_has_three_decimals_has_a_decimal_point(tmp_path):
    """In a ','-separated file a decimal comma would need every number quoted: `45.125` is 45.125."""
    path = tmp_path / "us.csv"
    path.write_text("batch,tokens_per_s_per_device,ttft_s\n1,45.125,0.250\n2,80.250,0.375\n", encoding="utf-8")
    result = read_curve_file(path)
    assert result.curves[0].tokens_per_s_per_device.tolist() == [45.125, 80.25]


def test_an_all_ambiguous_tab_file_is_refused_with_both_readings(tmp_path):
    path = tmp_path / "tab.csv"
    path.write_text("batch\ttokens_per_s_per_device\n1\t45.125\n2\t80.250\n", encoding="utf-8")
    with pytest.raises(ValidationError, match="45.125 with a decimal point and 45125 with a decimal comma"):
        read_curve_file(path)
