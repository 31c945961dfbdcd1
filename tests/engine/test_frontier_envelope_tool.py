"""tools/frontier_envelope.py: the published frontier as the upper envelope of measured runs, per GPU
over all of a run's GPUs, read at its most stable vertex."""
import json
import math
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import frontier_envelope as fe  # noqa: E402


def run(user, total_per_gpu, conc, disagg=False, prefill=8, decode=8, isl=1024, osl=1024, hardware="b200"):
    return {"hardware": hardware, "framework": "trt", "model": "dsr1", "precision": "fp8", "spec_method": "none",
            "disagg": disagg, "isl": isl, "osl": osl, "conc": conc, "date": "2026-02-01", "run_url": f"u{conc}",
            "decode_tp": 8, "decode_ep": 1, "decode_dp_attention": False, "num_prefill_gpu": prefill,
            "num_decode_gpu": decode,
            "metrics": {"median_intvty": user, "tput_per_gpu": total_per_gpu,
                        "output_tput_per_gpu": total_per_gpu / 2 * ((prefill + decode) / decode if disagg else 1)}}


def test_per_gpu_counts_every_gpu_of_a_disaggregated_run():
    # 8 prefill + 24 decode GPUs: output_tput_per_gpu is per decode GPU (x 32 / 24); the envelope uses all 32
    r = run(50.0, 400.0, 64, disagg=True, prefill=8, decode=24)
    assert fe.per_gpu(r) == 200.0
    assert r["metrics"]["output_tput_per_gpu"] > fe.per_gpu(r)
    assert fe.per_gpu(run(50.0, 900.0, 64, isl=8192, osl=1024)) == 100.0


def test_envelope_is_the_best_run_at_or_above_the_target():
    runs = [run(30.0, 2000.0, 256), run(45.0, 1200.0, 128), run(60.0, 700.0, 64), run(90.0, 300.0, 16)]
    assert fe.envelope(runs, 45.0)[0] == 600.0
    assert fe.envelope(runs, 46.0)[0] == 350.0      # the 45 run no longer reaches the target
    assert math.isnan(fe.envelope(runs, 91.0)[0])
    # a slower run beside a faster, more interactive one is not a vertex
    runs.append(run(40.0, 500.0, 8))
    assert [fe.per_user(r) for r in sorted(fe.vertices(runs), key=fe.per_user)] == [30.0, 45.0, 60.0, 90.0]


def test_the_target_is_the_most_stable_vertex_in_range():
    # a dense stretch at 40-60 and a cliff at 100: the target is read where the envelope moves least
    runs = [run(34.0, 1300.0, 512), run(40.0, 1200.0, 256), run(48.0, 1100.0, 128), run(58.0, 1000.0, 64),
            run(100.0, 100.0, 4), run(130.0, 60.0, 2)]
    chosen, stable = fe.choose_target(runs)
    assert 34.0 <= fe.per_user(chosen) <= 48.0 and stable < 0.3   # not at the cliff (58 -> 100: ln 10)
    assert fe.choose_target([run(10.0, 100.0, 4)]) is None


def test_the_cli_writes_one_row_per_group_with_its_source(tmp_path):
    path = tmp_path / "rows.json"
    path.write_text(json.dumps([run(40.0, 1200.0, 256), run(48.0, 1100.0, 128), run(58.0, 1000.0, 64)]),
                    encoding="utf-8")
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "frontier_envelope.py"), str(path), str(path),
                          "--source", "fixture"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("device,model,precision")
    assert lines[1].startswith("B200,DeepSeek-R1,fp8,1024,1024,") and "fixture; run u" in lines[1]


def test_the_shipped_points_are_the_eleven_of_the_check():
    import csv
    with open(ROOT / "tools" / "frontier_points.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 11
    keys = {(r["device"], r["model"], r["input_tokens"]) for r in rows}
    for device in ("B200", "GB200-NVL72", "H100-SXM"):
        for isl in ("1024", "8192"):
            assert (device, "DeepSeek-R1", isl) in keys
    for r in rows:
        assert 32 <= float(r["tokens_per_s_per_user"]) <= 120 and r["source"]
        assert r["published_tokens_per_s_per_device"] or "unknown" in r["configuration"]


def split_run(user, conc, prefill, decode, input_per_prefill_gpu=0.0, ttft=1.0):
    r = run(user, 400.0, conc, disagg=True, prefill=prefill, decode=decode)
    r.update(prefill_num_workers=1)
    r["metrics"].update(input_tput_per_gpu=input_per_prefill_gpu, median_ttft=ttft)
    return r


def test_densest_sequences_per_gpu_counts_the_gpus_a_run_occupies():
    aggregated = run(50.0, 400.0, 64)                 # TP8: 8 GPUs (its num_*_gpu fields may say TP x EP)
    aggregated.update(num_prefill_gpu=64, num_decode_gpu=64)
    split = split_run(40.0, 96, prefill=16, decode=32)   # 48 GPUs, prefill ones included
    assert fe.gpus(aggregated) == 8 and fe.gpus(split) == 48
    assert fe.densest_sequences_per_gpu([aggregated, split], 30.0) == 8.0
    assert fe.densest_sequences_per_gpu([aggregated, split], 45.0) == 8.0
    assert fe.densest_sequences_per_gpu([split], 45.0) != fe.densest_sequences_per_gpu([split], 45.0)   # none reaches
    # the points file rounds the target to 2 decimals: the run it was read at still reaches it
    assert fe.densest_sequences_per_gpu([run(60.766, 400.0, 32)], 60.77) == 4.0


def test_prefill_capacity_is_the_best_disaggregated_prefill_throughput():
    runs = [run(50.0, 400.0, 64), split_run(40.0, 96, 8, 8, 6000.0, 2.0), split_run(30.0, 512, 16, 8, 6500.0, 9.0)]
    capacity, best = fe.prefill_capacity(runs)
    assert capacity == 6500.0 and best["conc"] == 512
    assert fe.prefill_capacity([run(50.0, 400.0, 64)])[1] is None   # no disaggregated run: no measured capacity


def test_annotate_adds_the_sampling_columns_and_keeps_the_rest(tmp_path):
    path = tmp_path / "rows.json"
    path.write_text(json.dumps([run(40.0, 1200.0, 256), split_run(48.0, 128, 8, 8, 7000.0, 1.5)]), encoding="utf-8")
    points = tmp_path / "points.csv"
    points.write_text("device,model,precision,input_tokens,output_tokens,tokens_per_s_per_user,published_tokens_per_s_per_device,"
                      "configuration,date,source\nB200,DeepSeek-R1,fp8,1024,1024,45.0,600,c,d,s\n"
                      "B200,gpt-oss-120b,mxfp4,1024,1024,100,,unknown,,s\n", encoding="utf-8")
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "frontier_envelope.py"), str(path), "--annotate", str(points)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    import csv
    import io
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert rows[0]["published_tokens_per_s_per_device"] == "600" and rows[0]["configuration"] == "c"
    assert rows[0]["densest_sequences_per_gpu"] == "8.0"          # only the 48 run reaches 45: 128 / 16 GPUs
    assert rows[0]["prefill_input_tokens_per_s_per_gpu"] == "7000"
    assert rows[1]["densest_sequences_per_gpu"] == "" and rows[1]["prefill_input_tokens_per_s_per_gpu"] == ""
