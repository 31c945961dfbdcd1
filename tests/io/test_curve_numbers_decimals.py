"""Numbers as a spreadsheet's number format writes them: integers with decimals (`2.00`, `1,000.00` from
"2 decimals, 1000 separator") are the integers; a file in which every number reads two ways is
refused with both readings shown, unless only one reading is physically plausible."""
from __future__ import annotations

from pathlib import Path

import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.core.number_text import integer_text
from tcoapp.io.curve_files import read_curve_file

from .locale_resave import two_decimals

DATA = Path(__file__).resolve().parent.parent / "data" / "curves"


def _shape(result):
    return sorted((c.name, c.batch.tolist(), c.tokens_per_s_per_device.round(9).tolist(), c.config) for c in result.curves)


@pytest.mark.parametrize("name", ["aiconfigurator_llama70b_fp8_h200_disagg_pareto.csv",
                                  "aiconfigurator_llama70b_fp8_h200_disagg_best_config_topn.csv",
                                  "aiconfigurator_llama70b_fp8_h200_agg_pareto.csv"])
def test_a_two_decimals_resave_keeps_every_curve_and_pool_curve(tmp_path, name):
    original = DATA / name
    path = tmp_path / name
    path.write_text(two_decimals(original.read_text(encoding="utf-8")), encoding="utf-8")
    assert ",2.00," in path.read_text() or ",1.00," in path.read_text()
    resaved, before = read_curve_file(path), read_curve_file(original)
    assert len(resaved.curves) == len(before.curves)
    assert _shape(resaved) == _shape(before)


@pytest.mark.parametrize("text, plain", [("2.00", "2"), ("4000.0", "4000"), ("-3.000", "-3"), ("2.50", "2.50"),
                                         ("12", "12"), ("1e3", "1e3")])
def test_integer_text(text, plain):
    assert integer_text(text) == plain


@pytest.mark.parametrize("header, value, said", [
    ("tokens_per_s_per_device", "2e7", "= 2e+07: 2e+07 output tokens/s per device is past the physical bound of 1e+07"),
    ("tokens_per_s_per_user", "250000", "250000 output tokens/s per user is past the physical bound of 1e+05"),
    ("power (kW)", "12", "12000 W per device is past the physical bound of 1e+04"),
])
def test_a_point_past_its_physical_bound_is_refused(tmp_path, header, value, said):
    path = tmp_path / "p.csv"
    extra = f",{header}" if header != "tokens_per_s_per_device" else ""
    rows = ["batch,tokens_per_s_per_device" + extra, f"1,{value if not extra else '100'}" + (f",{value}" if extra else "")]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(ValidationError) as err:
        read_curve_file(path)
    assert said in str(err.value), str(err.value)


def test_the_curves_sheet_takes_the_same_physical_bounds():
    from tcoapp.engine.core.physical_bounds import POWER_PER_DEVICE_MAX_W, TOKENS_PER_S_PER_DEVICE_MAX
    from tcoapp.engine.quantities.inputs import CURVE_POINT_FIELDS
    from tcoapp.engine.quantities.validate import coerce
    by_name = {f.name: f for f in CURVE_POINT_FIELDS}
    assert coerce(by_name["tokens_per_s_per_device"], 2e7)[1] == "= 2e+07: must be a number > 0 and <= 10,000,000"
    assert coerce(by_name["tokens_per_s_per_device"], TOKENS_PER_S_PER_DEVICE_MAX) == (TOKENS_PER_S_PER_DEVICE_MAX, None)
    assert coerce(by_name["power_w"], 1e308)[1] == "= 1e+308: must be a number > 0 and <= 10,000"
    assert coerce(by_name["power_w"], POWER_PER_DEVICE_MAX_W)[1] is None
