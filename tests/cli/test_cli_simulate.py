"""`tcoapp simulate` through the real CLI (subprocess): the JSON of docs/model.md, "Uncertainty: Monte Carlo", seeds, the
workbook's MonteCarlo sheets, bad input."""
import json

import openpyxl
import pytest

from ..io.uncertainty_factory import write_uncertain_workbook
from .test_cli_workbook import run_cli

STATS = {"mean", "p5", "p10", "p50", "p90", "p95", "share_defined"}
METRICS = ("npv_usd", "irr", "payback_months", "cost_per_million_output_tokens_usd", "revenue_usd_per_rack_per_year")


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    return write_uncertain_workbook(tmp_path_factory.mktemp("sim") / "u.xlsx")


def test_simulate_json_has_the_contract_keys(book):
    done = run_cli("simulate", str(book), "--draws", "2000", "--seed", "4", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["draws"] == 2000 and data["seed"] == 4
    assert [p["name"] for p in data["plans"]] == ["Acme big", "Acme small"]
    for plan in data["plans"]:
        for key in METRICS:
            assert set(plan[key]) == STATS, key
            assert 0 <= plan[key]["share_defined"] <= 1
            s = plan[key]
            finite = [s[k] for k in ("p5", "p10", "p50", "p90", "p95") if s[k] is not None]
            assert finite == sorted(finite)
        assert 0 <= plan["prob_npv_positive"] <= 1
    pairs = {(p["a"], p["b"]): p["prob_a_higher_npv"] for p in data["pairwise"]}
    assert set(pairs) == {("Acme big", "Acme small"), ("Acme small", "Acme big")}
    assert pairs[("Acme big", "Acme small")] + pairs[("Acme small", "Acme big")] <= 1.0


def test_same_seed_same_output_other_seed_other_output(book):
    runs = [run_cli("simulate", str(book), "--draws", "500", "--seed", seed, "--json").stdout for seed in ("1", "1", "2")]
    assert runs[0] == runs[1]
    assert json.loads(runs[0])["plans"][0]["npv_usd"] != json.loads(runs[2])["plans"][0]["npv_usd"]


def test_simulate_out_writes_the_monte_carlo_sheets(book, tmp_path):
    out = tmp_path / "result.xlsx"
    done = run_cli("simulate", str(book), "--draws", "300", "--out", str(out))
    assert done.returncode == 0, done.stderr
    wb = openpyxl.load_workbook(out)
    assert {"Uncertainty", "MonteCarlo", "MonteCarloDraws"} <= set(wb.sheetnames)
    draws = wb["MonteCarloDraws"]
    assert draws.max_row == 2 + 300
    assert draws.cell(1, 2).value == "Acme big: npv_usd"
    rows = list(wb["MonteCarlo"].iter_rows(values_only=True))
    summary = [r for r in rows if r[1] == "npv_usd"]
    assert [r[0] for r in summary] == ["Acme big", "Acme small"]
    start = next(i for i, r in enumerate(rows) if r[0] == "npv_usd bin centre") + 2  # the NPV histogram
    shares = [r[1] for r in rows[start:start + 30]]
    defined = summary[0][9]  # share_defined of Acme big's NPV
    assert sum(shares) == pytest.approx(defined) and len(wb["MonteCarlo"]._charts) == 1
    # the exported workbook imports back (the Monte Carlo sheets are outputs)
    again = run_cli("simulate", str(out), "--draws", "300", "--json")
    assert again.returncode == 0, again.stderr


@pytest.mark.parametrize("args, expected", [
    (("--draws", "0"), "error: draws = 0: must be a whole number between 1 and"),
    (("--seed", "-3"), "error: seed = -3: must be a whole number >= 0"),
])
def test_bad_arguments_exit_2_with_one_line(book, args, expected):
    done = run_cli("simulate", str(book), *args)
    assert done.returncode == 2
    assert done.stderr.strip() == expected or done.stderr.startswith(expected), done.stderr
    assert "Traceback" not in done.stderr


def test_a_bad_uncertainty_row_names_its_cell(tmp_path):
    rows = [{"plan": "*", "key": "utilization", "distribution": "uniform", "low": 0.9, "high": 0.5}]
    done = run_cli("simulate", str(write_uncertain_workbook(tmp_path / "bad.xlsx", rows)), "--json")
    assert done.returncode == 2
    assert done.stderr.strip() == "error: Uncertainty!F3 high = 0.5: must be greater than low (0.9)"


def test_default_scenario_without_uncertainty_gives_its_deterministic_values():
    """Without the model's error (--no-model-error) nothing is drawn; with it (the default) every generated
    plan's NPV spreads about its figure."""
    sim = json.loads(run_cli("simulate", "--draws", "50", "--json", "--no-model-error").stdout)
    compute = json.loads(run_cli("compute", "--json").stdout)
    drawn = json.loads(run_cli("simulate", "--draws", "400", "--json").stdout)
    for s, c, d in zip(sim["plans"], compute["plans"], drawn["plans"]):
        if c["npv_usd"] is None:  # a plan without an operating point has no NPV in either
            assert s["npv_usd"]["p10"] is None and s["npv_usd"]["p90"] is None
            continue
        assert s["npv_usd"]["p10"] == s["npv_usd"]["p90"] == pytest.approx(c["npv_usd"], rel=1e-11)
        assert d["npv_usd"]["p10"] < c["npv_usd"] < d["npv_usd"]["p90"]


def test_a_financed_plan_shows_its_equity_risk(tmp_path):
    """Equity NPV, equity IRR and min DSCR are summarized over the draws like NPV: defined in every draw of
    the financed plan (its median DSCR near the deterministic one), min DSCR n/a on a plan without debt."""
    import shutil
    from pathlib import Path
    path = tmp_path / "financed.xlsx"
    shutil.copy(Path(__file__).resolve().parents[2] / "samples" / "gpu_cloud_financed.xlsx", path)
    wb = openpyxl.load_workbook(path)
    ws = wb["Uncertainty"]
    ws.cell(3, 1, "*"), ws.cell(3, 2, "utilization"), ws.cell(3, 3, "uniform"), ws.cell(3, 4, 0.5), ws.cell(3, 6, 0.9)
    wb.save(path)
    sim = json.loads(run_cli("simulate", str(path), "--draws", "400", "--json").stdout)
    compute = {p["name"]: p for p in json.loads(run_cli("compute", str(path), "--json").stdout)["plans"]}
    financed = [p for p in sim["plans"] if compute[p["name"]]["min_dscr"] is not None]
    unlevered = [p for p in sim["plans"] if compute[p["name"]]["min_dscr"] is None]
    assert financed and unlevered
    for plan in financed:
        for key in ("equity_npv_usd", "equity_irr", "min_dscr"):
            assert set(plan[key]) == STATS and plan[key]["share_defined"] > 0.9, key
        assert plan["min_dscr"]["p5"] < compute[plan["name"]]["min_dscr"] < plan["min_dscr"]["p95"]
        assert plan["equity_npv_usd"]["p5"] < plan["equity_npv_usd"]["p95"]
    for plan in unlevered:
        assert plan["min_dscr"]["share_defined"] == 0 and plan["min_dscr"]["mean"] is None
        assert plan["equity_npv_usd"]["p50"] == pytest.approx(plan["npv_usd"]["p50"], rel=1e-9)
