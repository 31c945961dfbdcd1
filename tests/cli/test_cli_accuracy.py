"""`tcoapp accuracy [CSV] [--rows] [--in-sample] [--by GROUPING] [--cv]` through the real CLI (subprocess)."""
from tcoapp.engine.performance.accuracy import GROUPINGS

from .test_cli_workbook import run_cli


def test_accuracy_prints_the_leave_one_family_out_table_by_regime_class_and_vendor():
    from tcoapp.io.catalog import load_catalog
    from tcoapp.io.cross_validated import stored_cross_validation
    from tcoapp.io.measurements import read_measurements
    assert stored_cross_validation(read_measurements(), load_catalog()) is not None, (
        "resources/measurements/cross_validated.csv is stale: run python tools/refit_factors.py --intervals")
    done = run_cli("accuracy")
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[0].startswith("LEAVE-ONE-FAMILY-OUT by regime x class x vendor (unseen") and "median APE %" in out[1]
    groups = [line[:32].strip() for line in out[2:]]
    for regime in ("offline", "server", "interactive"):
        for kind in ("dense", "MoE"):
            assert f"{regime} {kind} all" in groups and f"{regime} {kind} NVIDIA" in groups
    assert {"offline", "server", "interactive", "dense", "MoE", "NVIDIA", "AMD", "overall"} <= set(groups)
    assert any(line.startswith("80 % prediction band (from both splits") for line in out)
    # the unknown-configuration rows are their own cell, in both tables
    assert sum(1 for g in groups if g == "unknown configuration all") == 2
    # the second split: leave one era out, with its boundary, its own table and its own band coverage
    era = next(i for i, line in enumerate(out) if line.startswith("LEAVE-ONE-ERA-OUT by regime x class x vendor"))
    from tcoapp.engine.performance.cross_validation import ERA_BOUNDARY
    assert f"before {ERA_BOUNDARY}" in out[era] and any("median APE %" in line for line in out[era + 1:era + 3])
    assert any(line.strip().startswith("unknown configuration") for line in out[era:])
    assert sum(line.startswith("80 % prediction band (from both splits") for line in out) == 2
    assert any(line.startswith("WORSE OF THE TWO SPLITS") for line in out[era:])
    assert out[-2].startswith("stored leave-one-era-out predictions (current")
    assert any(line.strip().startswith("interactive/MoE") and "% of" in line for line in out)
    assert max(len(line) for line in out) <= 100
    assert any(line.startswith("modelled ") and "source families" in line for line in out)
    assert out[-1].startswith("stored leave-one-family-out predictions (current") and "took" in out[-1]
    assert not any(line.startswith("line ") for line in out)


def test_accuracy_recomputes_leave_one_family_out_on_a_given_file(tmp_path):
    from tcoapp.io.measurements import DEFAULT_CSV
    lines = DEFAULT_CSV.read_text(encoding="utf-8").splitlines()
    small = [lines[0]] + [x for x in lines[1:] if "inference_results_v4.1" in x or "inference_results_v5.0" in x]
    csv = tmp_path / "m.csv"
    csv.write_text("\n".join(small) + "\n", encoding="utf-8")
    done = run_cli("accuracy", str(csv), "--rows")
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    rows = [line for line in out if line.startswith("line ")]
    assert len(rows) == 10 and all(line.endswith("]") and "[MLPerf v" in line for line in rows)
    assert any(line.startswith("LEAVE-ONE-FAMILY-OUT") for line in out)
    # MLPerf v4.1 / v5.0 rows state no configuration this reader finds: the unknown cell, none fitted
    assert "unknown configuration all" in done.stdout and "of 4 source families" in done.stdout
    assert all("(configuration unknown)" in line for line in rows)
    assert any(line.startswith("LEAVE-ONE-ERA-OUT") for line in out)
    assert out[-2] == "leave-one-era-out recomputed" and out[-1].startswith("leave-one-family-out recomputed; took")


def test_accuracy_rows_of_a_small_csv_in_sample(tmp_path):
    csv = tmp_path / "m.csv"
    csv.write_text("model,device,count,precision,scenario,output_len,input_len,tokens_per_s_per_gpu,source\n"
                   "Llama-2-70B-Chat,NVIDIA H200-SXM-141GB,8,FP8,MLPerf Offline,290,,3900,https://example.org/a\n"
                   "Mystery-7B,NVIDIA H200-SXM-141GB,1,FP8,MLPerf Offline,290,,3900,https://example.org/b\n"
                   "Llama-2-70B-Chat,NVIDIA H200-SXM-141GB,single node,FP8,MLPerf Offline,290,,3900,https://e.org/c\n",
                   encoding="utf-8")
    done = run_cli("accuracy", str(csv), "--rows", "--in-sample", "--by", "device")
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("line ")]
    assert len(rows) == 1 and "H200-SXM" in rows[0] and "measured    3900.0" in rows[0]
    assert done.stdout.startswith("line ") and "IN-SAMPLE" in done.stdout
    assert "modelled 1 rows" in done.stdout and "model not in the catalog" in done.stdout
    assert "line 4: column 'count': 'single node' is not a number" in done.stdout


def test_accuracy_refuses_a_missing_or_empty_file_and_a_bad_grouping_in_one_line(tmp_path):
    done = run_cli("accuracy", str(tmp_path / "none.csv"))
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1 and "none.csv" in done.stderr and "cannot be read" in done.stderr
    (tmp_path / "empty.csv").write_text("", encoding="utf-8")
    done = run_cli("accuracy", str(tmp_path / "empty.csv"))
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.splitlines()) == 1
    assert "no measurement rows" in done.stderr
    done = run_cli("accuracy", "--by", "colour")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert all(g in done.stderr for g in GROUPINGS)
