"""Parallel layouts and checkpoint precisions of real files mapped to the engine's configuration:
aiconfigurator's tp/pp/dp/moe_tp/moe_ep (attention tp x dp and experts moe_tp x moe_ep over the same
GPUs), worker counts of disaggregated pools, InferenceX's TP/EP/DP Attention, gpt-oss's MXFP4 experts."""
from __future__ import annotations

from pathlib import Path

import pytest

from tcoapp.io.curve_files import read_curve_file
from tcoapp.io.curve_files.config import _aic_layout, project_precision

DATA = Path(__file__).resolve().parent.parent / "data" / "curves"
QWEN = DATA / "aiconfigurator_qwen3_235b_b200_trtllm_agg_pareto.csv"
QWEN_DISAGG = DATA / "aiconfigurator_qwen3_235b_b200_trtllm_disagg_pareto.csv"
GPTOSS = DATA / "aiconfigurator_gptoss120b_b200_trtllm_agg_pareto.csv"
LLAMA = DATA / "aiconfigurator_llama70b_fp8_h200_agg_pareto.csv"
INFERENCEX = DATA / "inferencex_dsr1_gb300_current_headers.csv"


def by_parallel(path) -> dict:
    return {c.config_dict["parallel"]: c for c in read_curve_file(path).curves}


@pytest.mark.parametrize("parallel, tp, ep, adp, gpus", [
    ("tp1pp1dp8etp2ep4", "2", "4", "true", 8), ("tp1pp1dp8etp1ep8", "1", "8", "true", 8),
    ("tp8pp1dp1etp1ep8", "1", "8", "false", 8), ("tp8pp1dp1etp2ep4", "2", "4", "false", 8),
    ("tp4pp1dp1etp2ep2", "2", "2", "false", 4), ("tp8pp1dp1etp8ep1", "8", "1", "false", 8),
    ("tp4pp1dp1etp4ep1", "4", "1", "false", 4)])
def test_qwen3_moe_layouts_are_the_engines_tp_ep_and_attention_dp(parallel, tp, ep, adp, gpus):
    c = by_parallel(QWEN)[parallel].config_dict
    assert (c["tensor_parallel"], c["expert_parallel"], c["attention_dp"]) == (tp, ep, adp)
    assert int(c["tensor_parallel"]) * int(c["expert_parallel"]) == gpus
    assert by_parallel(QWEN)[parallel].tensor_parallel == gpus  # devices per replica
    assert c["serving_stack"] == "trtllm" and c["weight_precision"] == "bf16"


def test_the_issues_layout_tp1pp1dp4etp4ep1_is_four_gpus_not_one():
    v = {"tp": "1", "pp": "1", "dp": "4", "moetp": "4", "moeep": "1"}
    assert _aic_layout(v, "")[:3] == ("4", "1", "true")


def test_a_hybrid_attention_layout_is_said():
    tp, ep, adp, note = _aic_layout({"tp": "2", "dp": "4", "moetp": "1", "moeep": "8"}, "")
    assert (tp, ep, adp) == ("1", "8", "true") and "attention tp 2 x dp 4" in note


def test_dense_layouts_stay_tensor_parallel():
    curves = read_curve_file(LLAMA).curves
    c = next(c for c in curves if c.tensor_parallel == 4).config_dict
    assert (c["tensor_parallel"], c["expert_parallel"], c["attention_dp"]) == ("4", "1", "false")
    assert c["weight_precision"] == "fp8" and "attention_weight_precision" not in c


def test_gpt_oss_experts_are_mxfp4_beside_bf16_attention():
    for curve in read_curve_file(GPTOSS).curves:
        c = curve.config_dict
        assert (c["weight_precision"], c["attention_weight_precision"], c["kv_precision"]) == ("mxfp4", "bf16", "bf16")
    c = by_parallel(GPTOSS)["tp1pp1dp4etp1ep4"].config_dict
    assert (c["tensor_parallel"], c["expert_parallel"], c["attention_dp"]) == ("1", "4", "true")


def test_disaggregated_pools_count_their_workers_gpus():
    deployments = [c for c in read_curve_file(QWEN_DISAGG).curves if "disaggregated" in c.config_dict]
    c = next(d.config_dict for d in deployments if d.config_dict["(d)parallel"] == "tp4pp1dp1etp2ep2")
    assert (c["prefill.tensor_parallel"], c["prefill.expert_parallel"], c["prefill.attention_dp"]) == ("1", "4", "true")
    assert (c["decode.tensor_parallel"], c["decode.expert_parallel"], c["decode.attention_dp"]) == ("2", "2", "false")
    assert int(c["prefill_devices"]) == 4 * int(c["prefill.workers"])
    assert int(c["decode_devices"]) == 4 * int(c["decode.workers"])
    assert c["decode.serving_stack"] == "trtllm"


def test_inferencex_disaggregated_rows_carry_their_pools_chips(tmp_path):
    curves = read_curve_file(INFERENCEX).curves
    assert len(curves) == 3 and all(c.config_dict["disaggregated"] == "true" for c in curves)
    c = next(c.config_dict for c in curves if c.config_dict["TP"] == "72" and c.config_dict["EP"] == "32")
    assert (c["prefill.devices"], c["decode.devices"], c["decode.attention_dp"]) == ("40", "32", "true")
    assert c["serving_stack"] == "sglang"  # Framework dynamo-sglang: SGLang behind Dynamo


def test_inferencex_aggregated_tp_counts_every_gpu_and_ep_splits_them(tmp_path):
    """The real export with its rows made aggregated (Disaggregated false): TP 8 EP 1 is TP 8; a layout
    whose TP the EP does not divide (TP 72, EP 32) is said, not read as 72 x 32 GPUs."""
    text = INFERENCEX.read_text(encoding="utf-8").replace(",true,", ",false,")
    path = tmp_path / "inferencex_agg.csv"
    path.write_text(text, encoding="utf-8")
    result = read_curve_file(path)
    c = next(c.config_dict for c in result.curves if c.config_dict["TP"] == "8")
    assert (c["tensor_parallel"], c["expert_parallel"], c["attention_dp"]) == ("8", "1", "false")
    odd = next(c for c in result.curves if c.config_dict["TP"] == "72" and c.config_dict["EP"] == "32")
    assert "tensor_parallel" not in odd.config_dict and odd.tensor_parallel == 72
    assert any("TP 72 with EP 32" in w for w in result.warnings)


@pytest.mark.parametrize("text, vendor, expected", [
    ("fp8_static", "", "fp8"), ("w4a8_mxfp4_mxfp8", "", "mxfp4"), ("w4a16_mxfp4", "", "mxfp4"),
    ("bfloat16", "", "bf16"), ("nvfp4", "", "nvfp4"), ("fp4", "AMD", "mxfp4"), ("fp4", "NVIDIA", "nvfp4"),
    ("int8_wo", "", "")])
def test_precision_names(text, vendor, expected):
    assert project_precision(text, vendor) == expected


def test_a_curve_whose_tp_and_ep_give_no_engine_layout_is_not_calibrated(tmp_path):
    from tcoapp.engine.performance.curve_fit import CalibrationRefused, fit_curve
    from tcoapp.io.catalog import load_catalog

    path = tmp_path / "inferencex_agg.csv"
    path.write_text(INFERENCEX.read_text(encoding="utf-8").replace(",true,", ",false,"), encoding="utf-8")
    odd = next(c for c in read_curve_file(path).curves if c.config_dict["TP"] == "72" and c.config_dict["EP"] == "32")
    catalog = load_catalog()
    with pytest.raises(CalibrationRefused) as err:
        fit_curve(odd, catalog.devices, catalog.models)
    assert "TP 72 with EP 32 says no engine layout" in str(err.value)


def test_a_disaggregated_moe_deployment_becomes_pools_with_its_layout_precisions_and_stack():
    from tcoapp.engine.plan.pools_from_curve import two_pool_plan
    from tcoapp.io.default_scenario import default_scenario

    path = DATA / "aiconfigurator_gptoss120b_b200_trtllm_disagg_pareto.csv"
    deployment = next(c for c in read_curve_file(path).curves
                      if c.config_dict.get("(d)parallel") == "tp1pp1dp4etp1ep4" and "disaggregated" in c.config_dict)
    plan = two_pool_plan(deployment, default_scenario().plans[0], "gpt-oss pools")
    prefill, decode = plan.pools
    assert plan.serving_stack == "trtllm" and plan.model == "gpt-oss-120b"
    assert (decode.tensor_parallel, decode.expert_parallel, decode.attention_dp) == (1, 4, True)
    assert (decode.weight_precision, decode.attention_weight_precision) == ("mxfp4", "bf16")
    assert (prefill.weight_precision, prefill.attention_weight_precision) == ("mxfp4", "bf16")
