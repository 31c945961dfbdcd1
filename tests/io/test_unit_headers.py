"""Curve-file headers that carry their unit (`ttft (ms)`, `ttft_ms`, `TTFT [us]`, `power (kW)`) are
converted to the project's unit or refused in one line; never dropped silently."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.io.curve_files import read_curve_file

DATA = Path(__file__).resolve().parent.parent / "data" / "curves"
PARETO = DATA / "aiconfigurator_llama70b_fp8_h200_agg_pareto.csv"
INFERENCEX = DATA / "inferencex_dsr1_gb300_current_headers.csv"
PLAIN = "curve,device,model,batch,tokens_per_s_per_device,{ttft},{power}\nc,H200,m,1,100,{t1},{p1}\nc,H200,m,8,600,{t2},{p2}\n"


def plain(tmp_path, ttft="ttft_s", power="power_w", t=(0.25, 0.5), p=(700, 710)):
    path = tmp_path / "plain.csv"
    path.write_text(PLAIN.format(ttft=ttft, power=power, t1=t[0], t2=t[1], p1=p[0], p2=p[1]), encoding="utf-8")
    return path


@pytest.mark.parametrize("header, values", [("ttft (ms)", (250, 500)), ("ttft_ms", (250, 500)), ("TTFT [ms]", (250, 500)),
                                            ("ttft (s)", (0.25, 0.5)), ("ttft_us", (250000, 500000)),
                                            ("ttft (µs)", (250000, 500000))])
def test_a_ttft_header_with_its_unit_is_converted_to_seconds(tmp_path, header, values):
    curve = read_curve_file(plain(tmp_path, ttft=header, t=values)).curves[0]
    assert np.allclose(curve.ttft_s, [0.25, 0.5], rtol=1e-12, atol=0)


@pytest.mark.parametrize("header, values", [("power (kW)", (0.7, 0.71)), ("power_kw", (0.7, 0.71)),
                                            ("Power [W]", (700, 710))])
def test_a_power_header_with_its_unit_is_converted_to_watts(tmp_path, header, values):
    curve = read_curve_file(plain(tmp_path, power=header, p=values)).curves[0]
    assert np.allclose(curve.power_w, [700, 710])


@pytest.mark.parametrize("header, said", [("ttft (min)", "ttft (min): unit 'min' is not one of s, ms, us"),
                                          ("ttft", "ttft: states no unit"),
                                          ("power (mW)", "power (mW): unit 'mW' is not one of W, kW")])
def test_a_unit_that_is_not_the_quantitys_is_refused_in_one_line(tmp_path, header, said):
    kwargs = {"power": header} if header.startswith("power") else {"ttft": header}
    with pytest.raises(ValidationError) as err:
        read_curve_file(plain(tmp_path, **kwargs))
    lines = [str(p) for p in err.value.problems]
    assert len(lines) == 1 and said in lines[0] and lines[0].startswith("plain.csv:row 1")


def test_aiconfigurator_ttft_in_seconds_by_its_header(tmp_path):
    text = PARETO.read_text(encoding="utf-8")
    header, *rows = text.splitlines()
    cells = header.split(",")
    i = cells.index("ttft")
    cells[i] = "ttft (s)"
    converted = []
    for row in rows:
        values = row.split(",")
        values[i] = repr(float(values[i]) / 1000)
        converted.append(",".join(values))
    path = tmp_path / PARETO.name
    path.write_text("\n".join([",".join(cells)] + converted), encoding="utf-8")
    new, old = read_curve_file(path), read_curve_file(PARETO)
    for a, b in zip(new.curves, old.curves):
        assert np.allclose(a.ttft_s, b.ttft_s, rtol=1e-12)


def test_an_inferencex_header_in_microseconds_is_not_read_as_seconds(tmp_path):
    text = INFERENCEX.read_text(encoding="utf-8").replace("Median TTFT (s)", "Median TTFT (us)")
    header, *rows = text.splitlines()
    i = header.split(",").index("Median TTFT (us)")
    fixed = [header] + [",".join(v if k != i else repr(float(v) * 1e6) for k, v in enumerate(r.split(","))) for r in rows]
    path = tmp_path / INFERENCEX.name
    path.write_text("\n".join(fixed), encoding="utf-8")
    new, old = read_curve_file(path), read_curve_file(INFERENCEX)
    for a, b in zip(new.curves, old.curves):
        assert np.allclose(np.nan_to_num(a.ttft_s), np.nan_to_num(b.ttft_s), rtol=1e-9)
