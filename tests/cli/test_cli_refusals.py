"""Smallest reproducers of refusals through the real CLI (subprocess): each input gets one clear line
and exit 2 (never exit 0 with null numbers, never an internal error), and Ctrl+C no traceback."""
import io
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import openpyxl

from tcoapp.cli.simulate import progress_printer
from tcoapp.engine.uncertainty.inputs import UncertainInput
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_write import write_scenario

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"


def run_cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "tcoapp", *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, **kw)


def _errors(done) -> list[str]:
    lines = done.stderr.strip().splitlines()
    assert lines and all(line.startswith("error: ") for line in lines), done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    return lines


def test_attention_weight_precision_on_a_dense_model_is_refused_at_its_cell(tmp_path):
    base = default_scenario()
    plan = base.plans[0].with_(attention_weight_precision="fp8")   # Llama-3.3-70B: dense
    path = tmp_path / "dense.xlsx"
    write_scenario(base.replace_plan(0, plan), path)
    done = run_cli("compute", str(path), "--json")
    assert done.returncode == 2 and not done.stdout.strip()
    (line,) = _errors(done)
    assert line.startswith("error: Plans!C") and "attention_weight_precision" in line and "dense" in line


def test_a_flipped_byte_in_the_zip_directory_is_one_line_and_exit_2(tmp_path):
    data = bytearray((SAMPLES / "batch_tradeoff.xlsx").read_bytes())
    entry = data.find(b"PK\x01\x02")
    data[entry + 6] = 0x94          # "version needed to extract" of the first member: 14.8
    path = tmp_path / "flipped.xlsx"
    path.write_bytes(bytes(data))
    done = run_cli("compute", str(path), "--json")
    assert done.returncode == 2
    (line,) = _errors(done)
    assert "flipped.xlsx" in line and "damaged workbook" in line


def test_an_invalid_cell_of_a_plan_with_pools_rows_does_not_orphan_its_pools(tmp_path):
    path = tmp_path / "pools.xlsx"
    book = openpyxl.load_workbook(SAMPLES / "heterogeneous_disaggregated.xlsx")
    pooled = {row[0].value for row in book["Pools"].iter_rows(min_row=3) if row[0].value}
    plans = book["Plans"]
    column = next(c for c in range(3, plans.max_column + 1) if plans.cell(1, c).value in pooled)
    row = next(r for r in range(2, plans.max_row + 1) if plans.cell(r, 1).value == "utilization")
    plans.cell(row, column).value = 7   # utilization is a fraction 0..1
    book.save(path)
    done = run_cli("compute", str(path), "--json")
    assert done.returncode == 2
    lines = _errors(done)
    assert not any("no plan of that name" in line for line in lines), lines
    assert any(plans.cell(row, column).coordinate in line and "utilization" in line for line in lines), lines


def test_compute_refuses_the_uncertainty_rows_simulate_refuses(tmp_path):
    """A `*` row of a device field over plans on different devices: one validation for both commands."""
    rows = (UncertainInput("*", "device.price_usd", "uniform", low=20000.0, high=30000.0),)
    path = tmp_path / "star.xlsx"
    write_scenario(replace(default_scenario(), uncertainty=rows), path)
    computed, simulated = run_cli("compute", str(path), "--json"), run_cli("simulate", str(path), "--draws", "100")
    assert computed.returncode == simulated.returncode == 2
    assert _errors(computed) == _errors(simulated)
    assert "the plans run different devices" in computed.stderr and "Uncertainty!" in computed.stderr


def _interrupted(args, after_s: float, env=None):
    proc = subprocess.Popen([sys.executable, "-m", "tcoapp", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(after_s)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    return proc.returncode, err


def test_ctrl_c_during_desktop_start_up_prints_no_traceback(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_CONFIG_HOME=str(tmp_path / "config"))
    for after_s in (0.8, 1.5, 3.0):   # while loading Qt, building the window, at the event loop
        status, err = _interrupted([], after_s, env)
        assert "Traceback" not in err, (after_s, err)
        assert status in (130, -signal.SIGINT), (after_s, status, err)


def test_ctrl_c_during_a_long_simulation_is_one_line_and_exit_130():
    """Interrupted once the simulation reports progress (not after a fixed wait: on a loaded machine 4 s could
    still be start-up, which is another test's case)."""
    proc = subprocess.Popen([sys.executable, "-m", "tcoapp", "simulate", str(SAMPLES / "uncertainty_llama70b.xlsx"),
                             "--draws", "5000000"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = []
    for line in proc.stderr:   # progress goes to stderr at most once a second
        seen.append(line)
        if line.startswith("simulate:"):
            break
    assert seen and seen[-1].startswith("simulate:"), ("no progress before the end", proc.wait(), seen)
    proc.send_signal(signal.SIGINT)
    out, rest = proc.communicate(timeout=120)
    err = "".join(seen) + rest
    assert proc.returncode == 130 and "Traceback" not in err, (proc.returncode, err)
    assert err.strip().splitlines()[-1] == "tcoapp: interrupted"


def test_simulation_progress_goes_to_stderr_at_most_once_a_second():
    now = [0.0]
    out = io.StringIO()
    progress = progress_printer(10_000_000, stream=out, clock=lambda: now[0])
    for step in range(1, 41):
        now[0] = step * 0.25
        progress(step, 40)
    lines = out.getvalue().splitlines()
    assert len(lines) == 10 and lines[0] == "simulate: 10% of 10,000,000 draws (1 s)"
    assert lines[-1] == "simulate: 100% of 10,000,000 draws (10 s)"


def test_attention_weight_precision_of_a_pool_of_a_dense_model_is_refused_at_its_cell():
    from tcoapp.engine.plan.scenario import reference_problems
    from tcoapp.io.load import load_scenario

    scenario = load_scenario(str(SAMPLES / "heterogeneous_disaggregated.xlsx"))
    index, plan = next((i, p) for i, p in enumerate(scenario.plans) if p.pools)
    assert scenario.model(plan.model).n_experts == 0
    pools = (plan.pools[0].with_(attention_weight_precision="fp8"),) + plan.pools[1:]
    (problem,) = reference_problems(scenario.replace_plan(index, plan.with_(pools=pools)))
    assert problem.field == "attention_weight_precision" and "dense" in problem.message
    assert problem.where.startswith(f"Plan {plan.name!r} pool")
