"""`tcoapp curves FILE --json` and `--into BOOK.xlsx` through the real CLI (subprocess)."""
import json
import os
from pathlib import Path

import pytest

from tcoapp.io.workbook_read import read_scenario

from .test_cli_workbook import run_cli

DATA = Path(__file__).resolve().parent.parent / "data" / "curves"
DISAGG = DATA / "aiconfigurator_llama70b_fp8_h200_disagg_pareto.csv"


def test_curves_json_of_a_disaggregated_aiconfigurator_file():
    done = run_cli("curves", str(DISAGG), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["format"] == "aiconfigurator" and len(data["curves"]) == 6  # 2 deployments, each + 2 pool curves
    eight = next(c for c in data["curves"] if c["config"].get("prefill_devices") == "4")
    assert eight["device"] == "H200-SXM" and eight["model"] == "Llama-3.1-70B"
    assert eight["config"]["decode.tensor_parallel"] == "4" and eight["config"]["prefill.workers"] == "4"
    first = eight["points"][0]
    assert first == {"batch": 4.0, "tokens_per_s_per_device": 51.405, "tokens_per_s_per_user": 111.724,
                     "ttft_s": pytest.approx(0.869328), "power_w": None, "source": f"{DISAGG.name}:row 15"}
    assert any("read as unknown" in w for w in data["warnings"])


def test_curves_text_summary_and_bad_file_errors(tmp_path):
    done = run_cli("curves", str(DATA / "inferencex_dsr1_gb300_current_headers.csv"))
    assert done.returncode == 0 and "inferencex format, 3 curve(s), 8 point(s)" in done.stdout
    bad = tmp_path / "bad.csv"
    bad.write_text("Hardware,TP,Concurrency,Output Throughput/GPU\nb200,8,four,100\nb200,8,8,-1\n")
    done = run_cli("curves", str(bad), "--json")
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == ["error: bad.csv:row 2 Concurrency = 'four': not a number",
                                        "error: bad.csv:row 3 Output Throughput/GPU = -1: must be a number > 0 and at most 1e9"]


def test_curves_into_a_workbook_then_compute_on_one(tmp_path):
    book = tmp_path / "book.xlsx"
    done = run_cli("curves", str(DISAGG), "--into", str(book))
    assert done.returncode == 0, done.stderr
    assert "created from the built-in default scenario" in done.stderr and "added 6 curve(s)" in done.stderr
    scenario = read_scenario(book)
    curve = next(c for c in scenario.curves.values() if c.config_dict.get("prefill_devices") == "4")
    assert curve.batch.size == 13 and curve.config_dict["decode.workers"] == "1"  # config kept in the workbook
    assert curve.source == f"aiconfigurator import of {DISAGG.name}"
    before = book.read_bytes()
    again = run_cli("curves", str(DISAGG), "--into", str(book))
    assert again.returncode == 2 and "already has a curve of that name" in again.stderr
    assert book.read_bytes() == before  # a refused import leaves the book untouched
    assert run_cli("curves", str(DISAGG), "--into", str(book), "--replace").returncode == 0
    assert [f for f in os.listdir(tmp_path) if f.endswith(".tmp")] == []  # atomic save cleaned up


def test_curves_into_a_folder_that_does_not_exist_fails_cleanly(tmp_path):
    done = run_cli("curves", str(DISAGG), "--into", str(tmp_path / "nope" / "book.xlsx"))
    assert done.returncode == 2 and "does not exist" in done.stderr


@pytest.mark.parametrize("chunk_chars", [1, 50, 1 << 20])
def test_curves_json_is_printed_as_one_text_in_chunks(capsys, chunk_chars):
    """The --json text written a chunk at a time is `print(curve_file_text(result))`, byte for byte."""
    from tcoapp.cli.curves import _print_parts
    from tcoapp.io.curve_files import read_curve_file
    from tcoapp.present.curve_file_text import curve_file_parts, curve_file_text
    result = read_curve_file(DISAGG)
    _print_parts(curve_file_parts(result), chunk_chars)
    written = capsys.readouterr().out
    print(curve_file_text(result))
    assert written == capsys.readouterr().out
