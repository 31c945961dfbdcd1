"""No accepted input makes a metric absurd; a refusal names the sheet, cell or row and the allowed
range, never an exception class."""
from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tcoapp.cli import main
from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.quantities.inputs import PLAN_FIELD_BY_NAME
from tcoapp.engine.quantities.validate import coerce
from tcoapp.io.curve_files import read_curve_file
from tcoapp.io.load import load_scenario

from .broken.corpus import hand_made, plans_rows
from .far_cells import sheet_parts

DATA = Path(__file__).resolve().parent.parent / "data" / "curves"
DISAGG = DATA / "aiconfigurator_llama70b_fp8_h200_disagg_pareto.csv"


@pytest.mark.parametrize("value", [1e-300, 1e-9, 0.0])
def test_a_utilization_near_zero_is_refused_with_its_range(tmp_path, value):
    path = hand_made(tmp_path / "u.xlsx", plans_rows(utilization=value))
    with pytest.raises(ValidationError) as err:
        load_scenario(str(path))
    lines = [str(p) for p in err.value.problems]
    assert len(lines) == 1 and lines[0].startswith("Plans!C7 utilization") and "between 0.001 and 1" in lines[0]
    assert coerce(PLAN_FIELD_BY_NAME["utilization"], 0.001) == (0.001, None)


def test_a_curve_file_with_1e30_decode_workers_is_refused_naming_row_and_column(tmp_path):
    lines = DISAGG.read_text(encoding="utf-8").splitlines()
    header = lines[0].split(",")
    cells = lines[2].split(",")
    cells[header.index("(d)workers")] = "1e30"
    lines[2] = ",".join(cells)
    path = tmp_path / "d.csv"
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(ValidationError) as err:
        read_curve_file(path)
    assert [str(p) for p in err.value.problems] == [
        "d.csv:row 3 (d)workers = 1e30: must be a whole number from 0 to 1,000,000"]


def test_a_point_value_past_any_measurement_is_refused(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("curve,device,model,batch,tokens_per_s_per_device\nc,H200,m,1,1e30\n", encoding="utf-8")
    with pytest.raises(ValidationError) as err:
        read_curve_file(path)
    assert [str(p) for p in err.value.problems] == [
        "p.csv:row 2 tokens_per_s_per_device = 1e30: must be a number > 0 and at most 1e9"]


def test_a_damaged_part_is_refused_without_an_exception_class(tmp_path):
    from tcoapp.io.workbook_read import _parse_error
    line = _parse_error(ValueError("invalid literal for int() with base 10: 'x'"))
    assert "ValueError" not in line and line.startswith("cannot read the workbook: ") and "re-save it" in line


def test_a_cell_storing_text_as_a_number_is_named_without_an_exception_class(tmp_path, capsys):
    source = hand_made(tmp_path / "ok.xlsx", plans_rows())
    part = sheet_parts(source)["Plans"]
    target = tmp_path / "bad.xlsx"
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == part:
                xml = data.decode("utf-8")
                start = xml.index('<c r="C7"')
                end = xml.index("</c>", start) + 4
                data = (xml[:start] + '<c r="C7" t="n"><v>abc</v></c>' + xml[end:]).encode("utf-8")
            out.writestr(info, data)
    assert main(["compute", str(target)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Plans!C7" in err[0] and "'abc'" in err[0] and "Error" not in err[0], err
