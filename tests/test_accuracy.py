"""The accuracy of the generated model on the public measurements (tests/data copy of ../shared/reference):
the row rules (engine/performance/measurement_rows.py), the computation (engine/performance/accuracy.py)
and the CSV (io/measurements.py); the command is tested in tests/cli/test_cli_accuracy.py."""
from __future__ import annotations

import re

import numpy as np
import pytest

from tcoapp.engine.performance import accuracy, measurement_rows
from tcoapp.io.catalog import load_catalog
from tcoapp.io.measurements import DEFAULT_CSV, accuracy_of_file


@pytest.fixture(scope="module")
def result():
    return accuracy_of_file()


def test_models_most_rows_and_says_why_it_skips_the_rest(result):
    assert len(result.results) >= 480
    assert len(result.results) + len(result.skipped) == 627
    reasons = {reason for _, reason in result.skipped}
    assert any("not in the catalog" in r for r in reasons)


def test_median_error_with_shipped_defaults_is_under_the_target(result):
    summary = result.summary()
    assert summary["overall"]["median_ape_pct"] < 15.0
    assert summary["overall"]["n"] == len(result.results)
    assert set(summary) >= {"NVIDIA Hopper", "NVIDIA Blackwell", "AMD CDNA3", "overall"}
    for group in summary.values():
        assert group["p90_ape_pct"] >= group["median_ape_pct"]
    by_device = result.summary("device")
    assert {"H200-SXM", "B200", "MI300X"} <= set(by_device)
    assert sum(g["n"] for k, g in by_device.items() if k != "overall") == len(result.results)


def test_predictions_are_positive_and_errors_are_what_they_say(result):
    r = result.results[0]
    assert r.abs_pct_error == pytest.approx(abs(r.predicted / r.measured - 1) * 100)
    assert all(x.predicted > 0 for x in result.results)
    assert np.median(result.errors()) == pytest.approx(result.summary()["overall"]["median_ape_pct"])


def test_row_rules():
    assert measurement_rows.map_device("NVIDIA GB200 (NVL72)") == "GB200-NVL72"
    assert measurement_rows.map_device("NVIDIA H200-NVL-141GB") is None
    assert measurement_rows.map_device("AMD Instinct MI300X 192GB HBM3 (x8) and AMD Instinct MI325X") is None
    assert measurement_rows.map_model("Llama-2-70B-Chat (MLPerf llama2-70b-99)") == "Llama-2-70B"
    row = {"notes": "parallelism DEP4; uniform synthetic ISL/OSL"}
    axes = measurement_rows.row_parallelism(row, 4, None, True)
    assert axes == {"tensor_parallel": (1,), "expert_parallel": (4,), "attention_dp": (True,)}
    cat = load_catalog()
    assert measurement_rows.row_precision({"precision": "not stated in summary"}, cat.devices["B200"]) == "nvfp4"
    assert measurement_rows.row_precision({"precision": "not stated in summary"}, cat.devices["H100-SXM"]) == "fp8"
    assert measurement_rows.row_precision({"precision": "FP8 (as labelled)"}, cat.devices["H100-SXM"], "gpt-oss-120b") == "mxfp4"



def test_offline_goals_with_the_shipped_factors(result):
    """Offline / max-throughput rows (issue 11 goals): median <= 12 %, p90 <= 40 %, MoE median <= 20 %,
    AMD median <= 20 %, held-out sources no more than 5 points worse than the fitted ones."""
    offline = lambda r: r.scenario == "offline"  # noqa: E731
    overall = result.summary(where=offline)["overall"]
    assert overall["median_ape_pct"] <= 12.0 and overall["p90_ape_pct"] <= 40.0
    assert result.summary("kind", where=offline)["MoE"]["median_ape_pct"] <= 20.0
    amd = np.array([r.abs_pct_error for r in result.results if offline(r) and r.family.startswith("AMD")])
    assert amd.size >= 20 and np.median(amd) <= 20.0
    split = result.summary("split", where=offline)
    assert split["held-out"]["n"] >= 30 and split["fit"]["n"] >= 60
    assert split["held-out"]["median_ape_pct"] <= split["fit"]["median_ape_pct"] + 5.0


def test_every_regime_class_and_vendor_is_covered_on_both_sides_of_the_split(result):
    for by, groups in (("scenario", {"offline", "server", "interactive"}), ("kind", {"dense", "MoE"}),
                       ("vendor", {"NVIDIA", "AMD"})):
        for split in ("fit", "held-out"):
            found = result.summary(by, where=lambda r, split=split: r.split == split)
            assert groups <= set(found), (by, split, set(found))
    assert {"TensorRT-LLM", "vLLM", "SGLang", "ROCm"} <= set(result.summary("stack"))
    for group in result.summary("scenario").values():
        assert group["p90_ape_pct"] >= group["median_ape_pct"]


def test_no_held_back_mlperf_server_or_interactive_row_is_in_the_data():
    import csv
    with open(DEFAULT_CSV, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if re.search(r"inference_results_v(4\.1|5\.0|5\.1)", row["source"]):
                assert "offline" in row["scenario"].lower(), row["source"]


def test_the_split_keeps_every_source_page_on_one_side(result):
    import csv
    with open(DEFAULT_CSV, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    sides: dict[str, set] = {}
    for row in rows:
        sides.setdefault(row["source"], set()).add(measurement_rows.row_split(row))
        sides.setdefault(row["source_group"], set()).add(measurement_rows.row_split(row))
        assert row["source_group"] == measurement_rows.source_group(row)
    assert all(len(s) == 1 for s in sides.values())
    recomputed = measurement_rows.assign_splits([dict(r, split="") for r in rows])
    assert [r["split"] for r in recomputed] == [r["split"] for r in rows]
    assert {r.split for r in result.results} == {"fit", "held-out"}
    assert {r.kind for r in result.results} == {"dense", "MoE"}


def test_an_mlperf_server_row_without_its_per_user_rate_takes_the_benchmarks_limits():
    row = {"scenario": "MLPerf Server", "tokens_per_s_per_user": "", "ttft_limit_s": "", "tpot_limit_s": ""}
    per_user, ttft = measurement_rows.row_latency_targets(row, "Llama-2-70B")
    assert per_user == pytest.approx(1 / (measurement_rows.MEAN_TPOT_OVER_P99_LIMIT * 0.2)) and ttft == 2.0
    stated = dict(row, tokens_per_s_per_user="9.5", ttft_limit_s="1.5")
    assert measurement_rows.row_latency_targets(stated, "Llama-2-70B") == (9.5, 1.5)
    assert measurement_rows.row_latency_targets({"scenario": "MLPerf Offline"}, "Llama-2-70B") == (None, None)
    cat = load_catalog()
    full = {"model": "Llama-2-70B-Chat", "device": "NVIDIA H200", "count": "8", "precision": "FP8", "output_len": "290",
            "tokens_per_s_per_gpu": "3000", **row}
    h200, llama = cat.devices["H200-SXM"], cat.models["Llama-2-70B"]
    served = accuracy.model_row(full, h200, llama)
    interactive = accuracy.model_row(dict(full, scenario="MLPerf Interactive"), h200, llama)
    offline = accuracy.model_row(dict(full, scenario="MLPerf Offline"), h200, llama)
    assert served[2] >= per_user * (1 - 1e-9) and 0 < served[0] <= offline[0]
    assert interactive[2] >= 1 / (measurement_rows.MEAN_TPOT_OVER_P99_LIMIT * 0.04) * (1 - 1e-9)
    assert 0 < interactive[0] < served[0]  # the 40 ms TPOT limit costs throughput


def test_the_refit_holds_a_stack_factor_that_no_fit_row_identifies(result):
    """tools/refit_factors.py fits a stack's step factor only where a fit row runs that stack (no
    residual depends on it otherwise: a solver could move it anywhere)."""
    import pathlib
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
    import refit_factors
    fit_rows = [r for r in result.results if r.split == "fit"]
    names, held = refit_factors.identified(refit_factors.FIT, fit_rows)
    assert "SGLang" not in {r.stack for r in fit_rows}
    assert set(held) == {"stack_step_sglang"} and "stack_step_sglang" not in names
    assert {"stack_step_rocm", "stack_step_vllm", "eta_compute"} <= set(names)
    names, held = refit_factors.identified(refit_factors.FIT, result.results)  # every row: SGLang is there
    assert held == {} and names == refit_factors.FIT
