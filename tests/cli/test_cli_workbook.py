"""A hand-made workbook through the real CLI (subprocess), and its bad-input variants."""
import json
import subprocess
import sys

import pytest

from ..reference_finance import case
from .workbook_factory import CURVE_POINTS, CUSTOM_DEVICE, PLAN_ROWS, write_workbook


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "tcoapp", *args], capture_output=True, text=True, timeout=120)


def expected_for(column: int) -> dict:
    """Independent docs/model.md section 3 arithmetic for plan `column` (0 or 1) of the hand-made workbook."""
    v = {r[0]: r[2 + column] for r in PLAN_ROWS}
    point = {b: (tps, power) for b, tps, _, power in CURVE_POINTS}[v["batch"]]
    (_, _, _, _, _, _, _, tdp, idle, price, dps, sprice, sover, *_rest) = CUSTOM_DEVICE
    return case(price, dps, sprice, tdp, idle, sover, v["device_count"], v["rack_power_cap_kw"],
                v["servers_per_rack_max"], v["other_capex_fraction"], v["pue"], v["electricity_usd_per_kwh"],
                v["colocation_usd_per_kw_month"], v["maintenance_fraction_per_year"],
                v["software_usd_per_device_year"], v["staff_usd_per_year"], v["utilization"], v["years"],
                v["discount_rate"], v["residual_value_fraction"], v["price_usd_per_million_output_tokens"],
                v["price_usd_per_million_input_tokens"], v["input_tokens"], v["output_tokens"], point[0], point[1])


def test_hand_made_workbook_computes_to_design_numbers(tmp_path):
    path = write_workbook(tmp_path / "hand.xlsx")
    done = run_cli("compute", str(path), "--json")
    assert done.returncode == 0, done.stderr
    plans = json.loads(done.stdout)["plans"]
    assert [p["name"] for p in plans] == ["Acme big", "Acme small"]
    for column, plan in enumerate(plans):
        want = expected_for(column)
        for key, value in want.items():
            if value is None:
                assert plan[key] is None, key
            else:
                assert plan[key] == pytest.approx(value, rel=1e-9), (plan["name"], key)
        batch = PLAN_ROWS[3][2 + column]
        tps, tpu, power = {b: (t, u, p) for b, t, u, p in CURVE_POINTS}[batch]
        assert plan["tokens_per_s_per_device"] == pytest.approx(tps, rel=1e-11)
        assert plan["tokens_per_s_per_user"] == pytest.approx(tpu, rel=1e-11)
        assert plan["tokens_per_joule"] == pytest.approx(tps / power, rel=1e-11)


def test_never_payback_is_null_in_json(tmp_path):
    rows = [r if r[0] != "price_usd_per_million_output_tokens" else (r[0], r[1], 0.0, 0.0) for r in PLAN_ROWS]
    rows = [r if r[0] != "price_usd_per_million_input_tokens" else (r[0], r[1], 0.0, 0.0) for r in rows]
    done = run_cli("compute", str(write_workbook(tmp_path / "free.xlsx", rows)), "--json")
    assert done.returncode == 0, done.stderr
    for plan in json.loads(done.stdout)["plans"]:
        assert plan["payback_months"] is None and plan["irr"] is None
        assert plan["npv_usd"] < 0


def _set(rows, key, big, small=None):
    out = []
    for r in rows:
        out.append((r[0], r[1], big, r[3] if small is None else small) if r[0] == key else r)
    return out


BAD_CASES = {
    "text_in_number": (dict(plan_rows=_set(PLAN_ROWS, "pue", "high")), ["Plans!C12 pue", "not a number", "between 1 and 5"]),
    "utilization_1.4": (dict(plan_rows=_set(PLAN_ROWS, "utilization", 1.4)), ["Plans!C18 utilization = 1.4", "between 0.001 and 1"]),
    "dangling_device": (dict(plan_rows=_set(PLAN_ROWS, "device", "XPU-9")), ["Plans!C2 device", "'XPU-9'", "no device of that name"]),
    "unknown_key": (dict(plan_rows=PLAN_ROWS + [("gpu_colour", "", "green", "blue")]), ["Plans!A24 gpu_colour: unknown key"]),
    "missing_sheet": (dict(drop_sheet="Curves"), ["Plans!C4 curve", "'xpu-tiny'", "no measured curve"]),
    "missing_plans": (dict(drop_sheet="Plans", extra_sheet="Notes"), ["sheet 'Plans' is missing"]),
    "failure_rate_1.5": (dict(plan_rows=PLAN_ROWS + [("annual_failure_rate", "", 1.5, 0.02)]),
                         ["Plans!C24 annual_failure_rate = 1.5: must be a number between 0 and 1"]),
    "negative_tranche_ramp": (dict(plan_rows=PLAN_ROWS + [("tranche_ramp_months", "", 6, -2)]),
                              ["Plans!D24 tranche_ramp_months = -2: must be a number between 0 and 600"]),
}


@pytest.mark.parametrize("name", list(BAD_CASES))
def test_bad_workbook_gives_clear_errors(tmp_path, name):
    kwargs, fragments = BAD_CASES[name]
    done = run_cli("compute", str(write_workbook(tmp_path / f"{name}.xlsx", **kwargs)), "--json")
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert all(line.startswith("error: ") for line in lines), lines
    for fragment in fragments:
        assert fragment in done.stderr, (fragment, done.stderr)


def test_several_problems_reported_at_once(tmp_path):
    rows = _set(_set(PLAN_ROWS, "utilization", 1.4, -0.1), "years", 0)
    done = run_cli("compute", str(write_workbook(tmp_path / "many.xlsx", rows)), "--json")
    assert done.returncode == 2
    for cell in ("Plans!C18", "Plans!D18", "Plans!C19"):
        assert cell in done.stderr


def test_not_a_workbook(tmp_path):
    path = tmp_path / "notes.xlsx"
    path.write_text("hello")
    done = run_cli("compute", str(path), "--json")
    assert done.returncode == 2 and "not an .xlsx workbook" in done.stderr and "Traceback" not in done.stderr


def test_version_and_help():
    from tcoapp import __version__
    assert run_cli("--version").stdout.strip() == f"tcoapp {__version__}"
    help_text = run_cli("--help").stdout
    assert "compute" in help_text
    compute_help = run_cli("compute", "--help").stdout
    assert "--json" in compute_help and "--out" in compute_help


def test_default_scenario_json_has_every_metric_key():
    from tcoapp.engine.pipeline.compute import METRIC_KEYS
    done = run_cli("compute", "--json")
    assert done.returncode == 0, done.stderr
    plans = json.loads(done.stdout)["plans"]
    assert len(plans) >= 3
    for plan in plans:
        assert set(METRIC_KEYS) <= set(plan)
