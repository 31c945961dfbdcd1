"""Every TTFT and TPOT spelling the field's benchmark tools write is read (one test per tool), the
median first; a latency-like column the reader does not know is named in a warning."""
from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.io.curve_files import read_curve_file
from tcoapp.io.curve_files.latency_headers import parse

DATA = Path(__file__).resolve().parent.parent / "data" / "curves"
BATCH, RATE = (1, 8, 32), (90.0, 600.0, 1500.0)
TTFT_MS = {"median": (210.0, 260.0, 480.0), "mean": (230.0, 300.0, 520.0), "p99": (900.0, 950.0, 1400.0),
           "std": (10.0, 20.0, 50.0)}
TPOT_MS = {"median": (11.0, 13.0, 21.0), "mean": (12.0, 14.0, 22.0), "p99": (30.0, 31.0, 44.0), "std": (1.0, 1.0, 2.0)}


def plain(tmp_path, columns: dict[str, tuple[float, ...]]) -> Path:
    """A plain curve file (batch, tokens/s per device) with the tool's latency columns."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["curve", "device", "model", "batch", "tokens_per_s_per_device", *columns])
    for k in range(3):
        writer.writerow(["c", "H200", "Llama-3.1-70B", BATCH[k], RATE[k], *(v[k] for v in columns.values())])
    path = tmp_path / "sweep.csv"
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


def assert_reads(path, ttft_ms, tpot_ms=None):
    result = read_curve_file(path)
    (curve,) = result.curves
    assert np.allclose(curve.ttft_s, np.array(ttft_ms) / 1e3, rtol=1e-12)
    if tpot_ms is not None:
        assert np.allclose(curve.tokens_per_s_per_user, 1e3 / np.array(tpot_ms), rtol=1e-12)
    assert not any("look like a latency" in w for w in result.warnings), result.warnings
    return result


def test_vllm_bench_serve_columns(tmp_path):
    """vLLM `bench serve` result keys: {mean,median,std,p99}_{ttft,tpot,itl,e2el}_ms."""
    cols = {f"{s}_{q}_ms": (TTFT_MS if q == "ttft" else TPOT_MS)[s] for q in ("ttft", "tpot", "itl", "e2el")
            for s in ("mean", "median", "std", "p99")}
    assert_reads(plain(tmp_path, cols), TTFT_MS["median"], TPOT_MS["median"])


def test_vllm_means_only(tmp_path):
    assert_reads(plain(tmp_path, {"mean_ttft_ms": TTFT_MS["mean"], "p99_ttft_ms": TTFT_MS["p99"],
                                  "mean_tpot_ms": TPOT_MS["mean"]}), TTFT_MS["mean"], TPOT_MS["mean"])


def test_sglang_bench_serving_columns(tmp_path):
    """SGLang `bench_serving`: {mean,median,std,p99}_{ttft,tpot,itl}_ms and *_e2e_latency_ms, p95_itl_ms."""
    cols = {"mean_e2e_latency_ms": TTFT_MS["p99"], "median_e2e_latency_ms": TTFT_MS["p99"],
            "mean_ttft_ms": TTFT_MS["mean"], "median_ttft_ms": TTFT_MS["median"], "std_ttft_ms": TTFT_MS["std"],
            "p99_ttft_ms": TTFT_MS["p99"], "mean_itl_ms": TPOT_MS["mean"], "median_itl_ms": TPOT_MS["median"],
            "p95_itl_ms": TPOT_MS["p99"], "std_itl_ms": TPOT_MS["std"]}
    assert_reads(plain(tmp_path, cols), TTFT_MS["median"], TPOT_MS["median"])   # ITL stands in for TPOT


def test_genai_perf_columns(tmp_path):
    """GenAI-Perf metric tags (`time_to_first_token`, `inter_token_latency`, in ms) with a statistic,
    as its JSON export flattens them."""
    cols = {"time_to_first_token.avg": TTFT_MS["mean"], "time_to_first_token.p50": TTFT_MS["median"],
            "time_to_first_token.p99": TTFT_MS["p99"], "inter_token_latency.avg": TPOT_MS["mean"],
            "inter_token_latency.p50": TPOT_MS["median"], "request_latency.avg": TTFT_MS["p99"]}
    assert_reads(plain(tmp_path, cols), TTFT_MS["median"], TPOT_MS["median"])


def test_aiperf_sweep_csv_columns(tmp_path):
    """aiperf's sweep CSV: {tag}_{stat}_{mean,std,min,max,cv} over repeated runs."""
    cols = {}
    for tag, values in (("time_to_first_token", TTFT_MS), ("inter_token_latency", TPOT_MS)):
        for stat in ("avg", "p50", "p99"):
            for across in ("mean", "std", "min", "max", "cv"):
                cols[f"{tag}_{stat}_{across}"] = values["median" if stat == "p50" else "mean" if stat == "avg" else "p99"]
    assert_reads(plain(tmp_path, cols), TTFT_MS["median"], TPOT_MS["median"])


def test_inferencex_headers_in_a_plain_file(tmp_path):
    cols = {"Mean TTFT (s)": tuple(v / 1e3 for v in TTFT_MS["mean"]), "P99 TTFT (s)": TTFT_MS["p99"],
            "Std TTFT (s)": TTFT_MS["std"], "Mean TPOT (s)": tuple(v / 1e3 for v in TPOT_MS["mean"]),
            "P99 ITL (s)": TPOT_MS["p99"]}
    assert_reads(plain(tmp_path, cols), TTFT_MS["mean"], TPOT_MS["mean"])


def test_the_inferencex_export_reads_its_median_and_warns_of_nothing():
    path = DATA / "inferencex_dsr1_gb300_current_headers.csv"
    result = read_curve_file(path)
    assert not any("look like a latency" in w for w in result.warnings)
    rows = [r for r in csv.DictReader(ln for ln in path.read_text(encoding="utf-8").splitlines()
                                      if not ln.startswith("#"))]
    medians = sorted(float(r["Median TTFT (s)"]) for r in rows)
    assert sorted(x for c in result.curves for x in c.ttft_s.tolist()) == pytest.approx(medians, rel=1e-12)


def test_aiconfigurator_ttft_and_tpot_in_ms():
    path = DATA / "aiconfigurator_llama70b_fp8_h200_agg_pareto.csv"
    result = read_curve_file(path)
    rows = list(csv.DictReader(path.read_text(encoding="utf-8").splitlines()))
    in_file = {round(float(r["ttft"]) / 1e3, 12) for r in rows}
    read = {round(x, 12) for c in result.curves for x in c.ttft_s.tolist()}
    assert read and read <= in_file
    assert not any("look like a latency" in w for w in result.warnings)


@pytest.mark.parametrize("header, scale", [("ttft_p50_ms", 1e-3), ("p50 ttft (ms)", 1e-3), ("TTFT p50 [ms]", 1e-3),
                                           ("median ttft (s)", 1.0), ("avg_ttft_sec", 1.0), ("ttft_median_us", 1e-6),
                                           ("Time To First Token (ms)", 1e-3), ("time per output token (ms)", None)])
def test_hand_written_spellings(tmp_path, header, scale):
    if scale is None:     # a TPOT: tokens/s per user = 1 / TPOT
        result = read_curve_file(plain(tmp_path, {header: TPOT_MS["median"]}))
        assert np.allclose(result.curves[0].tokens_per_s_per_user, 1e3 / np.array(TPOT_MS["median"]))
        return
    result = read_curve_file(plain(tmp_path, {header: TTFT_MS["median"]}))
    assert np.allclose(result.curves[0].ttft_s, np.array(TTFT_MS["median"]) * scale, rtol=1e-12)


def test_an_unknown_latency_like_column_is_named_in_a_warning(tmp_path):
    result = read_curve_file(plain(tmp_path, {"ttft_s": (0.2, 0.25, 0.5), "ttft_limit_s": (2, 2, 2),
                                              "first_token_wait": (1, 1, 1)}))
    (note,) = [w for w in result.warnings if "look like a latency" in w]
    assert "ttft_limit_s" in note and "first_token_wait" in note and "not read" in note
    assert np.allclose(result.curves[0].ttft_s, [0.2, 0.25, 0.5])


def test_a_latency_without_a_unit_is_refused(tmp_path):
    with pytest.raises(ValidationError) as err:
        read_curve_file(plain(tmp_path, {"median_ttft": TTFT_MS["median"]}))
    assert "median_ttft: states no unit" in str(err.value)


@pytest.mark.parametrize("header", ["ttft_limit_s", "title", "tokens_per_s_per_user", "Mean Interactivity (tok/s/user)",
                                    "ttft_slo_ms"])
def test_not_a_latency_reading(header):
    assert parse(header) is None or parse(header).quantity not in ("ttft", "tpot")
