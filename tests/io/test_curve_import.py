"""Curve import: InferenceX export, aiconfigurator pareto.csv, plain CSV; provenance and errors."""
from __future__ import annotations

import numpy as np
import pytest

from tcoapp.engine.errors import ValidationError
from tcoapp.engine.performance.measured import evaluate_measured
from tcoapp.io.curve_import import import_curves

INFERENCEX = """Model,Hardware,Framework,Precision,ISL,OSL,TP,EP,DP Attention,Disaggregated,Concurrency,Output Throughput/GPU,Median Interactivity (tok/s/user),Median TTFT (ms)
dsr1,b200,sglang,fp8,1024,1024,8,1,False,False,4,310.5,95.2,210
dsr1,b200,sglang,fp8,1024,1024,8,1,False,False,64,2400,55.1,480
dsr1,b200,sglang,fp8,1024,1024,8,1,False,False,16,1020,78.0,300
dsr1,b200,sglang,fp8,1024,1024,8,8,True,False,64,3100,40.2,520
dsr1,b200,sglang,fp8,1024,1024,8,8,True,False,256,6200,22.0,900
"""

AICONFIG = """model,isl,osl,prefix,concurrency,request_rate,bs,global_bs,ttft,tpot,request_latency,seq/s,seq/s/gpu,tokens/s,tokens/s/gpu,tokens/s/user,num_total_gpus,tp,pp,dp,moe_tp,moe_ep,parallel,gemm,kvcache,fmha,moe,comm,memory,backend,version,system,power_w
QWEN3_32B,4000,500,0,8,1.2,8,8,180.5,9.1,4700,1.7,0.42,850,212.5,109.9,4,4,1,1,1,1,tp4pp1dp1etp1ep1,fp8_block,fp8,fp8,fp8,half,40.1,trtllm,1.0.0,h200_sxm,610
QWEN3_32B,4000,500,0,32,3.9,32,32,260.0,12.0,6300,5.1,1.28,2550,637.5,83.3,4,4,1,1,1,1,tp4pp1dp1etp1ep1,fp8_block,fp8,fp8,fp8,half,52.7,trtllm,1.0.0,h200_sxm,655
"""

PLAIN = """curve,device,model,batch,tokens_per_s_per_device,tokens_per_s_per_user,power_w,ttft_s,precision,tensor_parallel,source
mine,H200-SXM,Llama-3.3-70B,1,40,80,400,0.09,fp8,2,lab sweep 2026-11
mine,H200-SXM,Llama-3.3-70B,64,1500,47,650,0.2,fp8,2,lab sweep 2026-11
mine,H200-SXM,Llama-3.3-70B,16,520,65,560,,fp8,2,lab sweep 2026-11
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_inferencex_export_groups_configurations_into_curves(tmp_path):
    curves = import_curves(write(tmp_path, "ix.csv", INFERENCEX))
    assert len(curves) == 2
    tp8 = next(c for c in curves if "ep=1" in c.name)
    np.testing.assert_array_equal(tp8.batch, [4, 16, 64])
    np.testing.assert_array_equal(tp8.tokens_per_s_per_device, [310.5, 1020, 2400])
    np.testing.assert_allclose(tp8.ttft_s, [0.21, 0.3, 0.48])  # ms -> s
    np.testing.assert_array_equal(tp8.tokens_per_s_per_user, [95.2, 78.0, 55.1])
    assert tp8.device == "b200" and tp8.model == "dsr1" and tp8.precision == "fp8" and tp8.tensor_parallel == 8
    assert tp8.source == "inferencex import of ix.csv"
    assert tp8.point_sources == ("ix.csv:row 2", "ix.csv:row 4", "ix.csv:row 3")
    assert np.all(np.isnan(tp8.power_w))


def test_aiconfigurator_pareto_csv(tmp_path):
    (curve,) = import_curves(write(tmp_path, "pareto.csv", AICONFIG))
    np.testing.assert_array_equal(curve.batch, [8, 32])
    np.testing.assert_array_equal(curve.tokens_per_s_per_device, [212.5, 637.5])
    np.testing.assert_array_equal(curve.power_w, [610, 655])
    np.testing.assert_allclose(curve.ttft_s, [0.1805, 0.26])
    assert curve.device == "h200_sxm" and curve.precision == "fp8_block" and curve.tensor_parallel == 4
    assert curve.source == "aiconfigurator import of pareto.csv"


def test_plain_csv_of_own_sweeps_evaluates_like_any_measured_curve(tmp_path):
    (curve,) = import_curves(write(tmp_path, "sweep.csv", PLAIN))
    assert curve.name == "mine" and curve.device == "H200-SXM" and curve.tensor_parallel == 2
    assert np.isnan(curve.ttft_s[1])  # batch 16 had no TTFT
    arrays = evaluate_measured(curve, [1, 32, 128], tensor_parallel=2, idle_w=70, tdp_w=700)
    assert arrays.feasible.tolist() == [True, True, False]  # 128 is extrapolated, flagged


def test_errors_name_file_row_and_column(tmp_path):
    bad = PLAIN.replace("mine,H200-SXM,Llama-3.3-70B,64,1500", "mine,H200-SXM,Llama-3.3-70B,64,fast").replace(
        ",16,520,", ",16,-5,")
    with pytest.raises(ValidationError) as err:
        import_curves(write(tmp_path, "bad.csv", bad))
    problems = {(p.where, p.field) for p in err.value.problems}
    assert problems == {("bad.csv:row 3", "tokens_per_s_per_device"), ("bad.csv:row 4", "tokens_per_s_per_device")}
    assert "not a number" in str(err.value) and "must be a number > 0" in str(err.value)


def test_missing_required_column_and_duplicate_batch(tmp_path):
    no_tput = INFERENCEX.replace("Output Throughput/GPU", "Something Else")
    with pytest.raises(ValidationError) as err:
        import_curves(write(tmp_path, "ix.csv", no_tput), fmt="inferencex")
    assert err.value.problems[0].where == "ix.csv:row 1" and "required column missing" in str(err.value)
    dup = INFERENCEX + "dsr1,b200,sglang,fp8,1024,1024,8,1,False,False,16,1100,77,310\n"
    with pytest.raises(ValidationError, match=r"ix.csv:row 7 batch = 16: same configuration and batch as row 4"):
        import_curves(write(tmp_path, "ix.csv", dup))


def test_unknown_format_and_empty_file(tmp_path):
    with pytest.raises(ValidationError, match="unknown curve format"):
        import_curves(write(tmp_path, "x.csv", "a,b\n1,2\n"))
    with pytest.raises(ValidationError, match="empty"):
        import_curves(write(tmp_path, "e.csv", ""))
    with pytest.raises(ValidationError, match="no data rows"):
        import_curves(write(tmp_path, "h.csv", PLAIN.splitlines()[0] + "\n"))


def test_header_variants_and_tpot_fallback(tmp_path):
    text = ("Hardware,Precision,TP,Concurrency,Output Throughput/GPU (tok/s),Median TPOT (ms),Median TTFT (s)\n"
            "mi355x,fp4,8,8,900,20,0.4\n"
            "mi355x,fp4,8,32,2500,40,0.9\n")
    (curve,) = import_curves(write(tmp_path, "ix2.csv", text))
    np.testing.assert_array_equal(curve.tokens_per_s_per_device, [900, 2500])
    np.testing.assert_allclose(curve.tokens_per_s_per_user, [50, 25])  # 1 / TPOT
    np.testing.assert_allclose(curve.ttft_s, [0.4, 0.9])  # already seconds
    no_tp = text.replace("Hardware,Precision,TP,", "Hardware,Precision,Nodes,")
    (curve,) = import_curves(write(tmp_path, "ix3.csv", no_tp))
    assert curve.tensor_parallel is None  # "tp" never matches "Median TPOT"
