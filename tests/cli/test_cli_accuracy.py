"""`tcoapp accuracy [CSV] [--rows] [--by GROUPING]` through the real CLI (subprocess)."""
from tcoapp.engine.performance.accuracy import GROUPINGS

from .test_cli_workbook import run_cli


def test_accuracy_prints_the_tables_by_regime_and_the_calibration():
    done = run_cli("accuracy", "--by", "scenario")
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[0] == "by scenario:" and "median APE %" in out[1]
    assert {line.split()[0] for line in out[2:6]} == {"interactive", "offline", "server", "overall"}
    assert "held-out sources only, by regime:" in out
    assert any(line.startswith("80 % prediction band, calibration on held-out sources") for line in out)
    assert any(line.startswith("modelled ") and "skipped" in line for line in out)
    assert not any(line.startswith("line ") for line in out)


def test_accuracy_rows_of_a_small_csv(tmp_path):
    csv = tmp_path / "m.csv"
    csv.write_text("model,device,count,precision,scenario,output_len,input_len,tokens_per_s_per_gpu,source\n"
                   "Llama-2-70B-Chat,NVIDIA H200-SXM-141GB,8,FP8,MLPerf Offline,290,,3900,https://example.org/a\n"
                   "Mystery-7B,NVIDIA H200-SXM-141GB,1,FP8,MLPerf Offline,290,,3900,https://example.org/b\n",
                   encoding="utf-8")
    done = run_cli("accuracy", str(csv), "--rows", "--by", "device")
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("line ")]
    assert len(rows) == 1 and "H200-SXM" in rows[0] and "measured    3900.0" in rows[0]
    assert "modelled 1 rows" in done.stdout and "model not in the catalog" in done.stdout


def test_accuracy_refuses_a_missing_file_and_a_bad_grouping_in_one_line(tmp_path):
    done = run_cli("accuracy", str(tmp_path / "none.csv"))
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1 and "none.csv" in done.stderr and "cannot be read" in done.stderr
    done = run_cli("accuracy", "--by", "colour")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert all(g in done.stderr for g in GROUPINGS)
