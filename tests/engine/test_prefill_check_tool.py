"""tools/prefill_check.py: the model's prefill beside the prefill throughput of InferenceX's disaggregated
prefill workers."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def split_run(input_per_prefill_gpu, tp=8, ep=8, dp=True, isl=8192, conc=256):
    return {"hardware": "b200", "framework": "dynamo-trt", "model": "dsr1", "precision": "fp8", "spec_method": "none",
            "disagg": True, "isl": isl, "osl": 1024, "conc": conc, "date": "2026-02-12", "run_url": f"u{conc}{tp}",
            "prefill_tp": tp, "prefill_ep": ep, "prefill_dp_attention": dp, "prefill_num_workers": 1,
            "num_prefill_gpu": 8, "num_decode_gpu": 8, "decode_tp": 8, "decode_ep": 8, "decode_dp_attention": True,
            "metrics": {"median_intvty": 30.0, "tput_per_gpu": 3000.0, "input_tput_per_gpu": input_per_prefill_gpu,
                        "median_ttft": 2.07}}


def test_the_model_prefill_is_per_device_at_the_runs_prefill_parallelism():
    sys.path.insert(0, str(ROOT / "tools"))
    import prefill_check
    from tcoapp.io.default_scenario import default_scenario
    scenario = default_scenario()
    wide, wide_alone = prefill_check.model_prefill(scenario, "B200", "fp8", split_run(6520.0))          # TP1 EP8
    narrow, _ = prefill_check.model_prefill(scenario, "B200", "fp8", split_run(6520.0, tp=8, ep=1, dp=False))  # TP8
    assert 1000 < wide < 100000 and 1000 < narrow < 100000
    assert 8192 / (wide * 8) > wide_alone * 0.5      # busy-replica prefill of one request, not a fraction of it
    longer, _ = prefill_check.model_prefill(scenario, "B200", "fp8", split_run(6520.0, isl=1024))
    assert longer > wide                             # attention grows with the prompt: fewer input tokens/s at 8k


def test_the_cli_prints_measured_model_and_their_ratio(tmp_path):
    path = tmp_path / "rows.json"
    path.write_text(json.dumps([split_run(6520.0), split_run(5000.0, conc=64)]), encoding="utf-8")
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "prefill_check.py"), str(path)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    line = out.stdout.splitlines()[0]
    assert line.startswith("B200         fp8  8192 in: measured    6,520") and "conc 256" in line   # the best run
    model = float(line.split("model")[1].split("(")[0].replace(",", ""))
    assert f"({model / 6520.0:.2f}x" in line
    assert "1 groups: model / measured" in out.stdout
