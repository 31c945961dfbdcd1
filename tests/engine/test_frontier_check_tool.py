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
