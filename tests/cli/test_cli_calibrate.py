"""`tcoapp calibrate BOOK.xlsx --curve NAME [--write]` through the real CLI (subprocess), on a real
aiconfigurator curve imported with `tcoapp curves --into`."""
import json
from pathlib import Path

import pytest

from tcoapp.io.workbook_read import read_scenario

from .test_cli_workbook import run_cli

PARETO = Path(__file__).resolve().parent.parent / "data" / "curves" / "aiconfigurator_llama70b_fp8_h200_agg_pareto.csv"
TP4 = "aiconfigurator_llama70b_fp8_h200_agg_pareto parallel=tp4pp1dp1etp1ep1"


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    path = tmp_path_factory.mktemp("calibrate") / "book.xlsx"
    done = run_cli("curves", str(PARETO), "--into", str(path))
    assert done.returncode == 0, done.stderr
    return path


def plans(path) -> dict:
    done = run_cli("compute", str(path), "--json")
    assert done.returncode == 0, done.stderr
    return {p["name"]: p for p in json.loads(done.stdout)["plans"]}


def test_calibrate_prints_factors_and_errors_before_and_after_without_writing(book):
    before = book.read_bytes()
    done = run_cli("calibrate", str(book), "--curve", TP4, "--json")
    assert done.returncode == 0, done.stderr
    fit = json.loads(done.stdout)
    assert fit["device"] == "H200-SXM" and fit["serving"]["tensor_parallel"] == 4 and len(fit["points"]) == 14
    assert fit["median_abs_pct_error"]["before"] > 10 and fit["median_abs_pct_error"]["after"] <= 10
    # with imperfect memory/compute overlap, compute time shows at every batch: eta_compute is fitted
    assert fit["factors"]["eta_mem"]["before"] == 0.8 and "eta_compute" in fit["factors"]
    assert fit["written"] is False and book.read_bytes() == before
    text = run_cli("calibrate", str(book), "--curve", TP4)
    assert "median |error|" in text.stdout and "eta_compute" in text.stdout
    assert "not written: add --write" in text.stdout


def test_calibrate_write_stores_factors_for_plans_on_that_device_only(book):
    old = plans(book)
    done = run_cli("calibrate", str(book), "--curve", TP4, "--write", "--json")
    assert done.returncode == 0, done.stderr
    fit = json.loads(done.stdout)
    scenario = read_scenario(book)
    stored = scenario.device_factors["H200-SXM"]
    for name, value in fit["factors"].items():
        assert getattr(stored, name) == value["after"]
    assert scenario.factors == read_scenario(book).factors  # the value column is untouched
    new = plans(book)
    h200 = next(n for n in new if n.startswith("H200"))
    h100 = next(n for n in new if n.startswith("H100"))
    assert new[h200]["tokens_per_s_per_device"] != old[h200]["tokens_per_s_per_device"]
    assert new[h100]["tokens_per_s_per_device"] == old[h100]["tokens_per_s_per_device"]


def test_calibrate_refusals_are_one_line_each(book):
    done = run_cli("calibrate", str(book), "--curve", "aiconfigurator_llama70b_fp8_h200_agg_pareto parallel=tp1pp1dp1etp1ep1")
    assert done.returncode == 2 and "has 1 point(s): a fit needs at least 2" in done.stderr
    done = run_cli("calibrate", str(book), "--curve", TP4, "--fit", "eta_mem,moe_compute_efficiency")
    assert done.returncode == 2 and done.stderr.startswith("error: moe_compute_efficiency cannot be identified")
    done = run_cli("calibrate", str(book), "--curve", "nope")
    assert done.returncode == 2 and "= 'nope': no curve of that name" in done.stderr and "Traceback" not in done.stderr
