"""tools/frontier_check.py runs the default search at a published point and prints the ratio."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_tool_prints_a_ratio_per_point_and_the_summary(tmp_path):
    points = tmp_path / "points.csv"
    points.write_text("device,model,precision,input_tokens,output_tokens,tokens_per_s_per_user,"
                      "published_tokens_per_s_per_device,configuration,date,source\n"
                      "B200,DeepSeek-R1,fp8,1024,1024,47.0,1341.41,trt mtp,2026-02-05,fixture\n"
                      "B200,gpt-oss-120b,mxfp4,1024,1024,100,,no published value: unknown,,fixture\n", encoding="utf-8")
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "frontier_check.py"), str(points), "--draft-tokens", "0"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    line = out.stdout.splitlines()[0]
    assert "published   1341.4" in line and "ratio" in line and "draft tokens" not in line
    assert "1 points: ratio" in out.stdout and "goal" in out.stdout
    unknown = out.stdout.splitlines()[1]
    assert "published  unknown" in unknown and "ratio   nan" in unknown   # not counted in the summary


def _tool():
    sys.path.insert(0, str(ROOT / "tools"))
    import frontier_check
    return frontier_check


def test_a_searched_answer_denser_than_any_measured_run_is_under_sampled():
    fc = _tool()
    row = {"densest_sequences_per_gpu": "0.67", "prefill_input_tokens_per_s_per_gpu": "1000"}
    text, under = fc.sampling_text(row, {"sequences_per_device": 3.84, "prefill_tokens_per_s_per_device": 2800.0})
    assert under and "UNDER-SAMPLED" in text and "lower bound" in text and "(2.80x)" in text
    text, under = fc.sampling_text(row, {"sequences_per_device": 0.5, "prefill_tokens_per_s_per_device": None})
    assert not under and text.startswith("sampled") and "prefill" not in text
    # a points file without the columns says nothing and counts the point as sampled
    assert fc.sampling_text({}, {"sequences_per_device": 3.0, "prefill_tokens_per_s_per_device": 1.0}) == ("", False)


def test_the_summary_tests_a_lower_bound_on_its_one_side():
    fc = _tool()
    text = fc.summary_by_sampling([0.9, 1.1, 2.6], [7.0, 0.5])
    assert "sampled (3): ratio 0.90-2.60, median 1.10; 2 of 3 within" in text
    assert "under-sampled (2, published value a lower bound)" in text and "1 of 2 at or above 0.6" in text
