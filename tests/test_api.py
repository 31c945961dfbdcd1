"""The notebook API: tcoapp.load_scenario / compute / read_curves return DataFrames of the same
numbers the CLI prints; `import tcoapp` stays light (pandas loads only when the API is used)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tcoapp
from tcoapp import engine
from tcoapp.io.curve_files import read_curve_file

DATA = Path(__file__).resolve().parent / "data" / "curves"


def test_compute_frames_match_the_cli_json():
    result = tcoapp.compute(tcoapp.load_scenario())
    done = subprocess.run([sys.executable, "-m", "tcoapp", "compute", "--json"], capture_output=True, text=True, timeout=120)
    plans = json.loads(done.stdout)["plans"]
    assert list(result.plans.index) == [p["name"] for p in plans]
    for p in plans:
        row = result.plans.loc[p["name"]]
        for key in ("tokens_per_s_per_device", "npv_usd", "cost_per_million_output_tokens_usd", "payback_months"):
            assert (np.isnan(row[key]) and p[key] is None) or row[key] == pytest.approx(p[key], rel=1e-11), key   # the JSON keeps 12 significant digits
    assert result.plans.attrs["units"]["capex_usd"] == "USD"
    # one name per key: the workbook's, the GUI's and the API's (the quantity table's)
    assert result.plans.attrs["labels"]["capex_usd"] == "Capex" == result.years.attrs["labels"]["capex_usd"]
    first = result.years[result.years.plan == plans[0]["name"]]
    assert first.year.tolist() == list(range(len(first))) and first.cash_flow_usd.iloc[0] == pytest.approx(-plans[0]["capex_usd"], rel=1e-11)
    assert first.cumulative_cash_flow_usd.iloc[-1] == pytest.approx(first.cash_flow_usd.sum())


def test_read_curves_one_row_per_point_with_configs_and_warnings():
    path = DATA / "aiconfigurator_llama70b_fp8_h200_agg_pareto.csv"
    frame, curves = tcoapp.read_curves(path), read_curve_file(path)
    assert len(frame) == sum(c.batch.size for c in curves.curves) == 43
    tp4 = frame[frame.curve.str.endswith("tp4pp1dp1etp1ep1")]
    np.testing.assert_array_equal(tp4.tokens_per_s_per_device, next(c for c in curves.curves if c.tensor_parallel == 4).tokens_per_s_per_device)
    assert frame.attrs["format"] == "aiconfigurator" and frame.attrs["warnings"] == list(curves.warnings)
    assert frame.attrs["configs"][tp4.curve.iloc[0]]["tensor_parallel"] == "4" and frame.attrs["units"]["ttft_s"] == "s"
    assert frame.power_w.isna().all()


def test_engine_reexports_its_entry_points():
    from tcoapp.engine.pipeline.compute import compute_scenario
    assert engine.compute_scenario is compute_scenario and callable(engine.fit_curve)
    with pytest.raises(AttributeError):
        engine.no_such_thing  # noqa: B018


def test_import_tcoapp_does_not_load_pandas():
    code = "import sys, tcoapp; print('pandas' in sys.modules); tcoapp.read_curves; print('pandas' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["False", "True"]


def test_pools_and_years_frames():
    from tcoapp.io.workbook_read import read_scenario

    scenario = read_scenario(Path(__file__).resolve().parents[1] / "samples" / "years_price_decline.xlsx")
    result = tcoapp.compute(scenario)
    fleet = result.pools[result.pools.plan == "64 H200 + 64 B200 in year 2, prices -30%/yr"]
    assert fleet.device.tolist() == ["H200-SXM", "B200"] and fleet.attrs["units"]["racks"] == "racks"
    years = result.years[result.years.plan == "... + first-year ramp and 21% tax"]
    assert years.year.tolist() == list(range(6)) and years.tax_usd.sum() > 0
    assert years.cumulative_cash_flow_usd.iloc[-1] == pytest.approx(years.cash_flow_usd.sum())


def test_simulate_frames_match_the_cli_json():
    sample = Path(__file__).resolve().parents[1] / "samples" / "uncertainty_llama70b.xlsx"
    sim = tcoapp.simulate(str(sample), draws=500, seed=3)
    done = subprocess.run([sys.executable, "-m", "tcoapp", "simulate", str(sample), "--draws", "500", "--seed", "3",
                           "--json"], capture_output=True, text=True, timeout=120)
    data = json.loads(done.stdout)
    for plan in data["plans"]:
        for key in ("npv_usd", "payback_months"):
            for stat, value in plan[key].items():
                got = sim.summary.loc[(plan["name"], key), stat]
                assert (value is None and np.isnan(got)) or got == pytest.approx(value, rel=1e-11), (key, stat)
        assert sim.plans.loc[plan["name"], "prob_npv_positive"] == plan["prob_npv_positive"]
    first = sim.draws[sim.draws.plan == data["plans"][0]["name"]]
    assert len(first) == 500 and "input.utilization" in first and first.draw.tolist() == list(range(500))
    assert len(sim.pairwise) == len(data["pairwise"])


def test_reading_a_workbook_does_not_load_scipy():
    """scipy (and pandas) stay out of `tcoapp compute` start-up: they load where they are used."""
    sample = Path(__file__).resolve().parents[1] / "samples" / "years_price_decline.xlsx"
    code = f"import sys; from tcoapp.io.load import load_scenario; load_scenario({str(sample)!r}); " \
           "print('scipy' in sys.modules, 'pandas' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["False", "False"], done.stderr


_NO_PANDAS = "import sys; sys.modules['pandas'] = None\n"   # as an install without the api extra


def test_the_command_line_and_the_app_run_without_pandas(tmp_path):
    """pandas is the notebook API's extra: `tcoapp compute`, `simulate` and the desktop app never import it."""
    sample = Path(__file__).resolve().parents[1] / "samples" / "uncertainty_llama70b.xlsx"
    for args in (["compute", "--json"], ["simulate", str(sample), "--draws", "200", "--json"]):
        code = _NO_PANDAS + f"from tcoapp.cli import main; raise SystemExit(main({args!r}))"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and json.loads(done.stdout)["plans"], done.stderr
    code = _NO_PANDAS + ("import os; os.environ['QT_QPA_PLATFORM'] = 'offscreen'; os.environ['TCOAPP_SMOKE_EXIT_MS'] = '0'\n"
                         "from tcoapp.gui.app import run_app; raise SystemExit(run_app())")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0 and "TCOAPP_SHOWN" in done.stdout, done.stderr


def test_the_notebook_api_without_pandas_says_how_to_install_it():
    code = _NO_PANDAS + "import tcoapp\ntry:\n    tcoapp.compute\nexcept ModuleNotFoundError as e:\n    print(e)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == ("tcoapp.compute is the notebook API, which needs pandas: "
                                   "pip install 'tcoapp[api]' (or pip install pandas)"), done.stderr
