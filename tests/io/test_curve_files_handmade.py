"""Curve files made by hand: older InferenceX headers, the published preamble, unit checks, the
plain format, and bad files (one error per problem, each naming the file, row and column)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.performance.measured import evaluate_measured
from tcoapp.io.curve_files import read_curve_file

DATA = Path(__file__).resolve().parent.parent / "data" / "curves"
CURRENT = DATA / "inferencex_dsr1_gb300_current_headers.csv"
PREAMBLE = ("# InferenceX by SemiAnalysis - https://inferencex.semianalysis.com\n"
            "# License: Apache-2.0. Attribution required: SemiAnalysis InferenceX\n"
            "# Note: latency columns, as exported\n")
OLD_NAMES = {"Output Throughput/Chip (tok/s)": "Output Throughput/GPU", "Median TTFT (s)": "Median TTFT (ms)",
             "Median TPOT (s)": "Median TPOT (ms)", "Num Prefill Chips": "Num Prefill GPUs",
             "Num Decode Chips": "Num Decode GPUs"}


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def old_export(tmp_path) -> Path:
    """The real GB300 rows under older InferenceX headers: "(ms)" labels over values in seconds, and
    the published `#` preamble."""
    header, *rows = CURRENT.read_text(encoding="utf-8").splitlines()
    for new, old in OLD_NAMES.items():
        header = header.replace(new, old)
    return write(tmp_path, "old_export.csv", PREAMBLE + "\n".join([header, *rows]) + "\n")


def test_older_headers_with_preamble_read_like_the_current_export(tmp_path):
    old, current = read_curve_file(old_export(tmp_path)), read_curve_file(CURRENT)
    assert [c.name.split(" ", 1)[1] for c in old.curves] == [c.name.split(" ", 1)[1] for c in current.curves]
    for a, b in zip(old.curves, current.curves):
        for key in ("batch", "tokens_per_s_per_device", "tokens_per_s_per_user", "ttft_s"):
            np.testing.assert_array_equal(getattr(a, key), getattr(b, key))
        assert a.config_dict["prefill_devices"] == b.config_dict["prefill_devices"]
    assert old.preamble[1] == "License: Apache-2.0. Attribution required: SemiAnalysis InferenceX"
    assert "Attribution required" in old.curves[0].source
    note = next(w for w in old.warnings if "'Median TPOT (ms)' holds seconds" in w)
    assert "TPOT and TTFT read as s" in note


IX_MS = """Model,Hardware,Framework,Precision,ISL,OSL,TP,EP,DP Attention,Disaggregated,Concurrency,Output Throughput/GPU,Median Interactivity (tok/s/user),Median TPOT (ms),Median TTFT (ms),Date
dsr1,b200,sglang,fp8,1024,1024,8,1,False,False,4,310.5,95.2,10.5,210,2025-10-01
dsr1,b200,sglang,fp8,1024,1024,8,1,False,False,64,2400,55.1,18.1,480,2025-10-01
dsr1,b200,sglang,fp8,1024,1024,8,1,False,False,16,1020,78.0,12.8,300,2025-10-01
dsr1,b200,sglang,fp8,1024,1024,8,8,True,False,64,3100,40.2,24.9,520,2025-10-01
dsr1,b200,sglang,fp8,1024,1024,8,8,True,False,256,6200,22.0,45.5,900,2025-10-01
"""


def test_milliseconds_that_are_milliseconds_stay_so_and_configs_split(tmp_path):
    result = read_curve_file(write(tmp_path, "ix.csv", IX_MS))
    assert len(result.warnings) == 1 and result.warnings[0].startswith("model 'dsr1' matches no catalog model")
    tp8 = next(c for c in result.curves if c.config_dict["EP"] == "1")
    np.testing.assert_array_equal(tp8.batch, [4, 16, 64])
    np.testing.assert_allclose(tp8.ttft_s, [0.21, 0.3, 0.48])
    np.testing.assert_array_equal(tp8.tokens_per_s_per_user, [95.2, 78.0, 55.1])
    assert tp8.device == "B200" and tp8.tensor_parallel == 8 and tp8.point_sources == ("ix.csv:row 2", "ix.csv:row 4", "ix.csv:row 3")
    assert tp8.name == "ix EP=1" and tp8.config_dict["attention_dp"] == "false"


def test_reruns_on_several_dates_keep_the_latest(tmp_path):
    rerun = IX_MS + "dsr1,b200,sglang,fp8,1024,1024,8,1,False,False,16,900,80.0,12.5,290,2025-11-20\n"
    result = read_curve_file(write(tmp_path, "ix.csv", rerun))
    tp8 = next(c for c in result.curves if c.config_dict["EP"] == "1")
    assert tp8.tokens_per_s_per_device[1] == 900  # 2025-11-20 beats 2025-10-01 although slower
    note = next(w for w in result.warnings if "at batch 16" in w)
    assert "rows 4, 7" in note and "kept row 7 (the latest date" in note and "Date 2025-10-01, 2025-11-20" in note


def test_disagreeing_latency_columns_and_implausible_ttft_are_said(tmp_path):
    disagree = IX_MS.replace(",95.2,10.5,", ",9.52,10.5,").replace(",55.1,18.1,", ",5.51,18.1,").replace(
        ",78.0,12.8,", ",7.8,12.8,").replace(",40.2,24.9,", ",4.02,24.9,").replace(",22.0,45.5,", ",2.2,45.5,")
    result = read_curve_file(write(tmp_path, "d.csv", disagree))
    assert any("the two columns disagree" in w for w in result.warnings)
    slip = ("Hardware,TP,Concurrency,Output Throughput/GPU,Median TPOT (s),Median TTFT (ms)\n"
            "b200,8,4,300,0.0105,0.21\nb200,8,16,1000,0.0128,0.3\n")  # TTFT in s under an ms label, no interactivity
    result = read_curve_file(write(tmp_path, "slip.csv", slip))
    assert any("check the TTFT column's unit" in w for w in result.warnings)
    np.testing.assert_allclose(result.curves[0].tokens_per_s_per_user, [1 / 0.0105, 1 / 0.0128])  # 1 / TPOT


def test_amd_fp4_is_mxfp4_and_nvidia_fp4_is_nvfp4(tmp_path):
    text = ("Hardware,Precision,TP,Concurrency,Output Throughput/GPU\n"
            "mi355x,fp4,8,8,900\nmi355x,fp4,8,32,2500\nb200,fp4,8,8,1000\n")
    result = read_curve_file(write(tmp_path, "fp4.csv", text))
    assert {c.device: c.config_dict["weight_precision"] for c in result.curves} == {"MI355X": "mxfp4", "B200": "nvfp4"}


PLAIN = """curve,device,model,batch,tokens_per_s_per_device,tokens_per_s_per_user,power_w,ttft_s,precision,tensor_parallel,source,config
mine,H200-SXM,Llama-3.3-70B,1,40,80,400,0.09,fp8,2,lab sweep 2026-11,input_tokens=2000; output_tokens=500
mine,H200-SXM,Llama-3.3-70B,64,1500,47,650,0.2,fp8,2,lab sweep 2026-11,input_tokens=2000; output_tokens=500
mine,H200-SXM,Llama-3.3-70B,16,520,65,560,,fp8,2,lab sweep 2026-11,input_tokens=2000; output_tokens=500
"""


def test_plain_csv_of_own_sweeps(tmp_path):
    result = read_curve_file(write(tmp_path, "sweep.csv", PLAIN))
    (curve,) = result.curves
    assert result.format == "plain"
    assert result.warnings == ("sweep.csv: 'ttft_s' is empty in 1 of 3 row(s) (row 4): TTFT is unknown at those points",)
    assert curve.name == "mine" and curve.tensor_parallel == 2 and curve.source == "lab sweep 2026-11"
    assert curve.config == (("input_tokens", "2000"), ("output_tokens", "500"))
    assert np.isnan(curve.ttft_s[1]) and curve.power_w.tolist() == [400, 560, 650]
    arrays = evaluate_measured(curve, [1, 32, 128], tensor_parallel=2, idle_w=70, tdp_w=700)
    assert arrays.feasible.tolist() == [True, True, False]  # 128 is extrapolated, flagged


def problems_of(tmp_path, name, text, **kw):
    with pytest.raises(ValidationError) as err:
        read_curve_file(write(tmp_path, name, text), **kw)
    return [(p.where, p.field, p.message) for p in err.value.problems]


def test_bad_cells_one_error_each_with_file_row_and_column(tmp_path):
    bad = (IX_MS.replace(",64,2400,", ",64,fast,").replace(",16,1020,", ",16,-5,")
           .replace(",True,False,256,", ",True,False,,"))
    problems = problems_of(tmp_path, "bad.csv", bad)
    assert [(w, f) for w, f, _ in problems] == [("bad.csv:row 3", "Output Throughput/GPU"),
                                                ("bad.csv:row 4", "Output Throughput/GPU"),
                                                ("bad.csv:row 6", "Concurrency")]
    assert "not a number" in problems[0][2] and "> 0" in problems[1][2] and "is empty" in problems[2][2]


def test_plain_duplicates_and_bad_config_are_errors(tmp_path):
    dup = PLAIN + "mine,H200-SXM,Llama-3.3-70B,16,530,64,560,,fp8,2,lab sweep 2026-11,input_tokens=2000; output_tokens=500\n"
    assert problems_of(tmp_path, "dup.csv", dup) == [
        ("dup.csv:row 5", "batch", "= 16: curve 'mine' already has a point at this batch (row 4)")]
    bad = PLAIN.replace("input_tokens=2000; output_tokens=500\nmine,H200-SXM,Llama-3.3-70B,64",
                        "input_tokens=2000; oops\nmine,H200-SXM,Llama-3.3-70B,64", 1)
    ((where, field, message),) = problems_of(tmp_path, "cfg.csv", bad)
    assert (where, field) == ("cfg.csv:row 2", "config") and "'oops' is not" in message


def test_missing_columns_unknown_format_and_empty_files(tmp_path):
    no_tput = IX_MS.replace("Output Throughput/GPU", "Something Else")
    ((where, field, message),) = problems_of(tmp_path, "ix.csv", no_tput, fmt="inferencex")
    assert where == "ix.csv:row 1" and "required column missing" in message
    assert "unknown curve format" in problems_of(tmp_path, "x.csv", "a,b\n1,2\n")[0][2]
    assert "empty" in problems_of(tmp_path, "e.csv", "")[0][2]
    assert "empty" in problems_of(tmp_path, "c.csv", "# only a comment\n")[0][2]
    assert problems_of(tmp_path, "h.csv", PREAMBLE + PLAIN.splitlines()[0] + "\n")[0][:1] == ("h.csv:row 5",)
    assert "one of auto" in problems_of(tmp_path, "f.csv", PLAIN, fmt="excel")[0][2]


def test_semicolon_and_tab_separated_files(tmp_path):
    for name, sep in (("semi.csv", ";"), ("tabs.tsv", "\t")):
        text = PLAIN.replace(",", sep).replace("input_tokens=2000; output_tokens=500", '"input_tokens=2000; output_tokens=500"')
        (curve,) = read_curve_file(write(tmp_path, name, text)).curves
        assert curve.batch.tolist() == [1, 16, 64] and curve.config == (("input_tokens", "2000"), ("output_tokens", "500"))


def test_decimal_commas_in_semicolon_files_and_us_dates(tmp_path):
    text = ("Hardware;TP;Concurrency;Output Throughput/GPU;Median TTFT (s)\n"
            "b200;8;4;310,5;0,21\nb200;8;16;1.020,25;0,3\n")
    (curve,) = read_curve_file(write(tmp_path, "eu.csv", text)).curves
    assert curve.tokens_per_s_per_device.tolist() == [310.5, 1020.25] and curve.ttft_s.tolist() == [0.21, 0.3]
    with pytest.raises(ValidationError, match=r"^eu.csv: numbers are written two ways: row 3 Median TTFT \(s\) = '0.3' "):
        read_curve_file(write(tmp_path, "eu.csv", text.replace("0,3", "0.3")))  # one convention per file
    rerun = IX_MS.replace("2025-10-01", "9/30/2025") + "dsr1,b200,sglang,fp8,1024,1024,8,1,False,False,16,900,80.0,12.5,290,10/2/2025\n"
    tp8 = next(c for c in read_curve_file(write(tmp_path, "us.csv", rerun)).curves if c.config_dict["EP"] == "1")
    assert tp8.tokens_per_s_per_device[1] == 900  # 10/2/2025 is after 9/30/2025 (as dates, not as text)


def test_binary_file_is_refused_with_its_name(tmp_path):
    path = tmp_path / "pic.csv"
    path.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x80\x81")
    with pytest.raises(ValidationError, match=r"pic.csv: cannot read the file"):
        read_curve_file(path)


def test_curves_interleaved_out_of_batch_order_keep_each_points_row_and_a_repeat_only_in_its_own_curve(tmp_path):
    # rows of three curves interleaved, each out of batch order, with a rerun in one of them only: each curve's
    # points in batch order with their own rows, the rerun resolved (and said) in its curve alone
    header, *rows = CURRENT.read_text(encoding="utf-8").splitlines()
    mixed = [rows[2], rows[0], rows[1], rows[0].replace(",2026-02-09,", ",2025-12-01,", 1)]
    path = write(tmp_path, "mixed.csv", "\n".join([header, *mixed]) + "\n")
    plain = write(tmp_path, "plain.csv", "curve,device,model,batch,tokens_per_s_per_device,power_w\n"
                  "b,H200-SXM,Llama-3.1-70B,8,90,\na,H200-SXM,Llama-3.1-70B,8,100,700\n"
                  "b,H200-SXM,Llama-3.1-70B,2,40,500\na,H200-SXM,Llama-3.1-70B,2,50,\nc,H200-SXM,Llama-3.1-70B,4,70,600\n"
                  "a,H200-SXM,Llama-3.1-70B,4,80,650\n")
    result = read_curve_file(plain)
    assert [c.name for c in result.curves] == ["b", "a", "c"]
    b, a, c = result.curves
    assert a.batch.tolist() == [2, 4, 8] and a.tokens_per_s_per_device.tolist() == [50, 80, 100]
    assert a.point_sources == ("plain.csv:row 5", "plain.csv:row 7", "plain.csv:row 3")
    assert np.isnan(a.power_w[0]) and a.power_w[1:].tolist() == [650, 700]
    assert b.batch.tolist() == [2, 8] and b.point_sources == ("plain.csv:row 4", "plain.csv:row 2")
    assert c.point_sources == ("plain.csv:row 6",)
    tp72, tp8 = read_curve_file(path).curves
    assert tp72.point_sources == ("mixed.csv:row 2",) and tp8.batch.tolist() == [4, 8]
    assert tp8.point_sources == ("mixed.csv:row 3", "mixed.csv:row 4")
    assert "mixed.csv: rows 3, 5 give curve 'mixed TP=8' the same point at batch 4: kept row 3" in \
        read_curve_file(path).warnings
