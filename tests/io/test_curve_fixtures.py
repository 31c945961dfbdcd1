"""Every real curve file users bring (tests/data/curves, copied from ../shared/fixtures/curves)
imports, and each point equals the file's own columns in project units (read here independently
with the csv module: seconds, per device, power 0 = unknown)."""
from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import numpy as np
import pytest

from tcoapp.io.curve_files import read_curve_file

DATA = Path(__file__).resolve().parent.parent / "data" / "curves"
FIXTURES = sorted(DATA.glob("*.csv"))
AIC = [p for p in FIXTURES if p.name.startswith("aiconfigurator")]
IX = [p for p in FIXTURES if p.name.startswith("inferencex")]


def file_rows(path: Path) -> dict[int, dict[str, str]]:
    """line number -> {header: text}, comment lines skipped (independent of the importer)."""
    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.reader(handle)
        header, out = None, {}
        for cells in reader:
            if not cells or cells[0].startswith("#"):
                continue
            if header is None:
                header = cells
            else:
                out[reader.line_num] = dict(zip(header, cells))
    return out


def expected_point(path: Path, row: dict[str, str]) -> dict[str, float]:
    nan = float("nan")
    if path.name.startswith("aiconfigurator"):  # aiconfigurator: ttft in ms, power_w 0 = no data
        power = float(row["power_w"])
        return {"batch": float(row["concurrency"]), "tokens_per_s_per_device": float(row["tokens/s/gpu"]),
                "tokens_per_s_per_user": float(row["tokens/s/user"]), "ttft_s": float(row["ttft"]) / 1000,
                "power_w": power if power > 0 else nan}
    return {"batch": float(row["Concurrency"]), "tokens_per_s_per_device": float(row["Output Throughput/Chip (tok/s)"]),
            "tokens_per_s_per_user": float(row["Median Interactivity (tok/s/user)"]),
            "ttft_s": float(row["Median TTFT (s)"]), "power_w": nan}


def row_of(where: str) -> int:
    return int(re.fullmatch(r".+:row (\d+)", where).group(1))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_points_equal_the_files_own_columns(path):
    result = read_curve_file(path)
    rows = file_rows(path)
    seen = []
    for curve in result.curves:
        if "role" in curve.config_dict:
            continue  # a disaggregated deployment's pool curve: its own test below
        assert curve.source.startswith(f"{result.format} import of {path.name}")
        assert len(curve.point_sources) == curve.batch.size
        for i, where in enumerate(curve.point_sources):
            want = expected_point(path, rows[row_of(where)])
            for key, value in want.items():
                got = float(getattr(curve, key)[i])
                assert (math.isnan(got) and math.isnan(value)) or got == pytest.approx(value, rel=1e-12), (where, key)
            seen.append(row_of(where))
    dropped = [int(r) for w in result.warnings if "dropped row(s)" in w
               for r in w.split("dropped row(s) ")[1].split(", ")]
    assert sorted(seen + dropped) == sorted(rows), "every row is a point or a dropped duplicate that is said"


@pytest.mark.parametrize("path", AIC, ids=lambda p: p.name)
def test_aiconfigurator_power_zero_is_unknown_and_said(path):
    result = read_curve_file(path)
    assert all(math.isnan(p) for c in result.curves for p in c.power_w)
    assert any("'power_w' is 0" in w and "read as unknown" in w for w in result.warnings)


def test_aggregated_pareto_one_curve_per_parallel_configuration_with_duplicates_resolved():
    path = DATA / "aiconfigurator_llama70b_fp8_h200_agg_pareto.csv"
    result = read_curve_file(path)
    by_tp = {c.tensor_parallel: c for c in result.curves}
    assert sorted(by_tp) == [1, 2, 4, 8] and result.format == "aiconfigurator"
    tp8 = by_tp[8]
    assert tp8.device == "H200-SXM" and tp8.model == "Llama-3.1-70B" and tp8.precision == "fp8_static"
    config = tp8.config_dict
    assert config["parallel"] == "tp8pp1dp1etp1ep1" and config["tensor_parallel"] == "8"
    assert (config["input_tokens"], config["output_tokens"], config["weight_precision"]) == ("4000", "1000", "fp8")
    assert config["system"] == "h200_sxm" and config["version"] == "1.3.0rc20"
    # batch 4 appears twice (ctx_tokens 8000 on row 45, 4000 on row 46): row 45 has more tokens/s/gpu
    note = next(w for w in result.warnings if "at batch 4 " in w)
    assert "rows 45, 46" in note and "ctx_tokens 8000, 4000" in note and "kept row 45" in note
    assert tp8.tokens_per_s_per_device[0] == 74.913
    assert "model 'nvidia/Llama-3.1-70B-Instruct-FP8' read as catalog model 'Llama-3.1-70B'" in result.warnings


@pytest.mark.parametrize("name", ["aiconfigurator_llama70b_fp8_h200_disagg_pareto.csv",
                                  "aiconfigurator_llama70b_fp8_h200_disagg_best_config_topn.csv"])
def test_disaggregated_configurations_are_separate_curves_with_both_pools(name):
    path = DATA / name
    result = read_curve_file(path)
    rows = file_rows(path)
    keys = {(r["(p)workers"], r["(p)parallel"], r["(d)workers"], r["(d)parallel"]) for r in rows.values()}
    deployments = [c for c in result.curves if "role" not in c.config_dict]
    assert len(deployments) == len(keys)  # one curve per (prefill pool, decode pool) pair, never mixed
    assert len(result.curves) == 3 * len(keys)  # + its prefill and its decode pool curve
    for curve in deployments:
        c = curve.config_dict
        for where in curve.point_sources:
            row = rows[row_of(where)]
            assert (c["prefill.workers"], c["prefill.tensor_parallel"]) == (row["(p)workers"], row["(p)tp"])
            assert (c["decode.workers"], c["decode.tensor_parallel"]) == (row["(d)workers"], row["(d)tp"])
            p_gpus = int(row["(p)workers"]) * int(row["(p)tp"]) * int(row["(p)pp"])
            d_gpus = int(row["(d)workers"]) * int(row["(d)tp"]) * int(row["(d)pp"])
            assert (c["prefill_devices"], c["decode_devices"]) == (str(p_gpus), str(d_gpus))
            assert p_gpus + d_gpus == int(row["num_total_gpus"])
        assert c["disaggregated"] == "true" and c["prefill.device"] == c["decode.device"] == "H200-SXM"
        assert curve.tensor_parallel is None  # the replica is the whole prefill + decode unit
        assert curve.name.startswith(path.stem + " prefill ")
    assert any("serves 9" in w and "of the requests/s of its smaller pool" in w for w in result.warnings)


@pytest.mark.parametrize("name", ["aiconfigurator_llama70b_fp8_h200_disagg_pareto.csv",
                                  "aiconfigurator_llama70b_fp8_h200_disagg_best_config_topn.csv"])
def test_pool_curves_hold_each_pools_own_rate_and_configuration(name):
    """prefill / decode pool: batch (p)bs / (d)bs, tokens/s per device = (p|d)seq/s/worker x osl /
    the pool worker's GPUs (tp x pp x dp), computed here from the file's columns."""
    path = DATA / name
    result = read_curve_file(path)
    rows = file_rows(path)
    by_name = {c.name: c for c in result.curves}
    for curve in result.curves:
        c = curve.config_dict
        if "role" not in c:
            continue
        side = "(p)" if c["role"] == "prefill" else "(d)"
        assert c["deployment"] in by_name and curve.name == f"{c['deployment']} {c['role']} pool"
        for i, where in enumerate(curve.point_sources):
            row = rows[row_of(where)]
            gpus = int(row[f"{side}tp"]) * int(row[f"{side}pp"]) * int(row[f"{side}dp"])
            assert curve.batch[i] == float(row[f"{side}bs"])
            assert curve.tokens_per_s_per_device[i] == pytest.approx(
                float(row[f"{side}seq/s/worker"]) * float(row["osl"]) / gpus, rel=1e-12)
            assert (c["workers"], c["tensor_parallel"], c[f"{side}parallel"]) == (
                row[f"{side}workers"], row[f"{side}tp"], row[f"{side}parallel"])
            if side == "(d)":
                assert curve.tokens_per_s_per_user[i] == float(row["tokens/s/user"]) and math.isnan(curve.ttft_s[i])
            else:
                assert curve.ttft_s[i] == pytest.approx(float(row["ttft"]) / 1000) and math.isnan(curve.tokens_per_s_per_user[i])
        assert c["devices"] == by_name[c["deployment"]].config_dict[f"{c['role']}_devices"]


def test_public_gb200_pareto_maps_the_system_and_the_kimi_model():
    result = read_curve_file(DATA / "aiconfigurator_gb200_agg_cold_pareto_public.csv")
    assert {c.device for c in result.curves} == {"GB200-NVL72"}
    assert "device 'gb200' read as catalog device 'GB200-NVL72'" in result.warnings
    # Kimi-K2.5's text model is the Kimi-K2 architecture (catalog row since issue 11), and it is said
    assert "model 'nvidia/Kimi-K2.5-NVFP4' read as catalog model 'Kimi-K2.5'" in result.warnings
    assert {c.model for c in result.curves} == {"Kimi-K2.5"}
    ep2 = next(c for c in result.curves if c.config_dict["parallel"] == "tp4pp1dp1etp2ep2")
    assert ep2.batch.tolist() == [1, 2, 3, 4]
    # attention tp4 over the 4 GPUs, experts etp2 x ep2: a replica of TP 2 x EP 2 = 4 devices
    assert (ep2.config_dict["tensor_parallel"], ep2.config_dict["expert_parallel"]) == ("2", "2")
    assert any("at batch 3 " in w and "rows 4, 6, 7" in w for w in result.warnings)


@pytest.mark.parametrize("path", IX, ids=lambda p: p.name)
def test_inferencex_current_headers(path):
    result = read_curve_file(path)
    assert result.format == "inferencex"
    assert not any("holds seconds" in w or "disagree" in w for w in result.warnings)  # (s) labels are right
    for curve in result.curves:
        c = curve.config_dict
        assert curve.device == "GB300-NVL72" and curve.model == "DeepSeek-R1" and c["Model"] == "DeepSeek-R1-0528"
        assert c["disaggregated"] == "true" and int(c["prefill_devices"]) > 0 and int(c["decode_devices"]) > 0
        assert (c["input_tokens"], c["output_tokens"]) == ("8192", "1024")
        assert c["decode.devices"] == c["Num Decode Chips"] and c["prefill.devices"] == c["Num Prefill Chips"]
        assert c["decode.attention_dp"] == c["DP Attention"] and "tensor_parallel" not in c  # TP is the decode pool's
        assert c["weight_precision"] == "fp8" and c["decode.device"] == c["prefill.device"] == "GB300-NVL72"


def test_a_row_whose_pool_rate_is_empty_is_left_out_of_that_pool_curve_and_said(tmp_path):
    """A disaggregated row cut short after its (p)seq/s/worker cell (as a hand edit leaves it) gave the decode
    pool curve a point of null throughput with exit 0; the point is left out of that pool's curve, with a
    warning naming the row, and the deployment's own point is kept."""
    lines = (DATA / "aiconfigurator_llama70b_fp8_h200_disagg_pareto.csv").read_text().splitlines()
    header = lines[0].split(",")
    cells = lines[4].split(",")   # file row 5: a point of a deployment of 13 points
    cells[header.index("(d)seq/s/worker")] = ""
    path = tmp_path / "cut.csv"
    path.write_text("\n".join([*lines[:4], ",".join(cells), *lines[5:]]) + "\n")
    before = read_curve_file(DATA / "aiconfigurator_llama70b_fp8_h200_disagg_pareto.csv")
    after = read_curve_file(path)
    def key(name):  # curve names start with the file's name
        return name.split(" ", 1)[1]

    count = {key(c.name): len(c.batch) for c in before.curves}
    for curve in after.curves:
        assert np.all(np.isfinite(curve.batch)) and np.all(np.isfinite(curve.tokens_per_s_per_device))
    changed = [c for c in after.curves if len(c.batch) != count[key(c.name)]]
    assert [c.name.endswith(" decode pool") for c in changed] == [True]
    assert len(changed[0].batch) == count[key(changed[0].name)] - 1
    assert any("row 5:" in w and "left out of the decode pool curve" in w for w in after.warnings), after.warnings
    assert {key(c.name) for c in after.curves} == set(count)
