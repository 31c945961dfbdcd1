"""Recalculate exported workbooks with LibreOffice Calc (headless) and compare every Results and
CashFlow number with the engine.

One soffice process converts a whole batch of files (each start costs seconds). A private profile
directory avoids clashing with another soffice, and forces "always recalculate on load".
"""
from __future__ import annotations

import math
import os
import pathlib
import shutil
import subprocess

import numpy as np
import openpyxl

from tcoapp.engine.pipeline.compute import not_entered
from tcoapp.engine.quantities.metrics import METRIC_BY_KEY
from tcoapp.io import sheets as S
from tcoapp.io.xlsx_inputs import plan_rows
from tcoapp.io.xlsx_agentic import AGENTIC_KEYS
from tcoapp.io.xlsx_layout import Layout, cashflow_years
from tcoapp.io.xlsx_results import ENGINE_ROWS, result_rows

SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
REL_TOL = 1e-9
# LibreOffice's IRR() stops when a Newton step is below 1e-7 in absolute terms, which a double
# cannot resolve for rates above ~1e8 (10^10 %): such an IRR reads "n/a" in the workbook.
IRR_RESOLVABLE = 1e8
NOT_A_NUMBER = ("n/a", "never")

_RECALC_ALWAYS = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""


SECONDS_PER_FILE = 20   # the timeout's share per file (a loaded 2-core machine took over 240 s for 45 files)


def recalc(paths, outdir, timeout: float | None = None) -> list[pathlib.Path]:
    """Open each file in LibreOffice Calc, recalculate, save as .xlsx in outdir; return the new paths. The
    timeout (a hung soffice) is 120 s plus SECONDS_PER_FILE for each file unless given."""
    paths = list(paths)
    timeout = 120 + SECONDS_PER_FILE * len(paths) if timeout is None else timeout
    outdir = pathlib.Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    profile = outdir / f"lo_profile_{os.getpid()}"
    (profile / "user").mkdir(parents=True, exist_ok=True)
    (profile / "user" / "registrymodifications.xcu").write_text(_RECALC_ALWAYS)
    cmd = [SOFFICE, f"-env:UserInstallation={profile.resolve().as_uri()}", "--headless", "--norestore",
           "--calc", "--convert-to", "xlsx", "--outdir", str(outdir), *map(str, paths)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    out = [outdir / pathlib.Path(p).name for p in paths]
    missing = [str(p) for p in out if not p.exists()]
    if missing:
        raise RuntimeError(f"soffice did not convert {missing}: {done.stdout} {done.stderr}")
    return out


def _close(got, want, scale: float, key: str = "") -> bool:
    if key == "irr" and want is not None and abs(want) > IRR_RESOLVABLE and got == "n/a":
        return True
    if want is None or (isinstance(want, float) and math.isnan(want)):
        return got in NOT_A_NUMBER
    if not isinstance(got, (int, float)) or isinstance(got, bool):
        return False
    return math.isclose(got, want, rel_tol=REL_TOL, abs_tol=REL_TOL * scale)


def _pool_value(result, k: int, key: str):
    if key in ("pool", "role", "device"):
        return None
    if key == "tokens_per_s_per_user":
        return float(result.fleet.pool_points[k - 1].tokens_per_s_per_user)
    pools = result.finance.pools
    source = pools if key in pools else result.inputs
    return float(np.asarray(source[key], float)[..., k - 1])


def expected_results(result, plan, max_pools: int = 1) -> dict[str, float]:
    """Every numeric Results key of one plan, from the engine (text rows and absent pools left out)."""
    want = {}
    for key, _ in ENGINE_ROWS:
        want[key] = getattr(result.metrics, key)
    for key in result_rows(max_pools):
        if key in want or key in ("warnings", "serving", "prediction_interval", "costs_not_entered", "plan_check"):
            continue
        if key.startswith("pool"):
            k, base = int(key[4:key.index(".")]), key.split(".", 1)[1]
            if k <= len(result.pools) and base not in ("pool", "role", "device"):
                want[key] = _pool_value(result, k, base)
            continue
        if key in METRIC_BY_KEY:
            want[key] = getattr(result.metrics, key)
        elif key == "frontier_share":       # an engine value (n/a where no frontier exists)
            want[key] = result.frontier_share
        else:
            want[key] = float(np.asarray(result.finance[key], float))
    return want


CF_NEGATIVE = {"opex_usd", "capex_usd", "replacement_capex_usd"}  # outflows, written as negative numbers
CF_FROM_ENGINE = ("price_index", "electricity_index", "cost_index", "throughput_index", "hardware_price_index", "utilization", "output_tokens", "input_tokens",
                  "revenue_usd", "energy_usd", "colocation_usd", "maintenance_usd", "software_usd", "rent_usd",
                  "staff_usd", "opex_usd", "capex_usd", "replacement_capex_usd", "replacement_value_fraction", "replacement_residual_value_usd", "residual_value_usd",
                  "depreciation_rate_by_age", "replacement_depreciation_usd", "depreciation_usd", "disposal_gain_usd",
                  "taxable_income_usd",
                  "loss_carried_usd", "tax_usd", "cash_flow_usd", "cumulative_cash_flow_usd", "discount_factor",
                  "debt_drawn_usd", "interest_usd", "principal_usd", "balloon_usd", "debt_service_usd", "levered_taxable_income_usd",
                  "levered_loss_carried_usd", "levered_tax_usd", "equity_cash_flow_usd")


def expected_cashflow(result, plan, max_years: int) -> dict[str, list]:
    """Every CashFlow year row of one plan (and each pool's capex row), from the engine's year rows."""
    years = result.finance.years
    want = {}
    for key in CF_FROM_ENGINE:
        values = np.zeros(max_years + 1)
        row = np.asarray(years[key], float)
        values[: row.shape[-1]] = row
        if key in ("cumulative_cash_flow_usd", "loss_carried_usd", "levered_loss_carried_usd"):  # past the horizon: carried unchanged
            values[row.shape[-1]:] = row[-1]
        if key == "discount_factor":  # every column of the sheet, past the horizon too; mid-year: t - 0.5
            t = np.arange(max_years + 1, dtype=float)
            values = 1.0 / (1.0 + plan.discount_rate) ** np.where((plan.discounting == "mid_year") & (t >= 1), t - 0.5, t)
        want[key] = list(-values if key in CF_NEGATIVE else values)
    for k in range(len(result.pools)):
        values = np.zeros(max_years + 1)
        row = np.asarray(years.pool_capex_usd, float)[k]
        values[: row.shape[-1]] = row
        want[f"pool{k + 1}.capex_usd"] = list(-values)
        for key, sign in (("utilization", 1.0), ("replacement_capex_usd", -1.0)):  # the ramp and the replacements
            values = np.zeros(max_years + 1)
            row = np.asarray(years[f"pool_{key}"], float)[k]
            values[: row.shape[-1]] = row
            want[f"pool{k + 1}.{key}"] = list(sign * values)
    return want


def compare(path, scenario, results, max_years: int | None = None) -> list[str]:
    """Mismatches between a recalculated workbook and the engine (empty: all agree).

    max_years: the CashFlow width the file was written with (default: the scenario's longest horizon)."""
    wb = openpyxl.load_workbook(path, data_only=True)
    res, cash = wb[S.RESULTS], wb[S.CASH_FLOW]
    counts = tuple(len(r.pools) for r in results)
    layout = Layout(plan_rows(), result_rows(max(max(counts, default=1), 1)),
                    max_years or cashflow_years(p.years for p in scenario.plans), counts)
    bad = []
    if wb[S.CHECKS]["B1"].value != 0:
        bad.append(f"{path.name} master_check = {wb[S.CHECKS]['B1'].value!r}, want 0")
    for index, (plan, result) in enumerate(zip(scenario.plans, results)):
        col = S.FIRST_PLAN_COLUMN + index
        d = result.finance
        scale = abs(float(d["capex_usd"])) + abs(float(d["revenue_usd_per_year"]) * plan.years) + 1.0
        for key, want in expected_results(result, plan, layout.max_pools).items():
            got = res.cell(layout.result_rows[key], col).value
            tol_scale = scale if key in ("npv_usd", "net_usd_per_year") else (
                scale / max(abs(float(d["capex_usd"])), 1e-300) if key == "roi" else 0.0)
            if not _close(got, want, tol_scale if math.isfinite(tol_scale) else 0.0, key):
                bad.append(f"{path.name} Results {key} plan {index}: workbook {got!r} engine {want!r}")
        for key, values in expected_cashflow(result, plan, layout.max_years).items():
            for year, want in enumerate(values):
                got = cash.cell(layout.cf_row(index, key), S.FIRST_PLAN_COLUMN + year).value
                if want is None:
                    ok = got in (None, "")
                elif isinstance(want, float) and math.isnan(want):
                    ok = got in NOT_A_NUMBER
                else:
                    ok = _close(got, want, scale if abs(want) > 1e3 or key.endswith("_usd") else 0.0)
                if not ok:
                    bad.append(f"{path.name} CashFlow {key} plan {index} year {year}: workbook {got!r} engine {want!r}")
        for key in ("npv_usd", "irr", "payback_months", "equity_npv_usd", "equity_irr", "min_dscr"):
            got = cash.cell(layout.cf_row(index, key), S.FIRST_PLAN_COLUMN).value
            if not _close(got, getattr(result.metrics, key), scale if key.endswith("npv_usd") else 0.0, key):
                bad.append(f"{path.name} CashFlow {key} plan {index}: workbook {got!r} engine {getattr(result.metrics, key)!r}")
        text = res.cell(layout.result_rows["costs_not_entered"], col).value
        missing = not_entered(plan)
        if text != ("none" if not missing else "not entered (0): " + "".join(f"{m}; " for m in missing)):
            bad.append(f"{path.name} costs_not_entered plan {index}: {text!r}, engine {missing}")
        bad += _agentic_mismatches(path, res, index, result)
        flows_exist = bool(np.all(np.isfinite(d["cash_flows_usd"])))
        payback = res.cell(layout.result_rows["payback_months"], col).value
        if math.isnan(result.metrics.payback_months) and payback != ("never" if flows_exist else "n/a"):
            bad.append(f"{path.name} payback plan {index}: {payback!r}, want {'never' if flows_exist else 'n/a'}")
    return bad


def _agentic_mismatches(path, res, index: int, result) -> list[str]:
    """The agentic rows of Results (a workbook where a plan has an agentic class) against the plan's `agentic` block:
    n/a for a plan without one; rows missing where a plan has one are a mismatch."""
    rows = {res.cell(r, 1).value: r for r in range(1, res.max_row + 1)}
    if not any(key in rows for key in AGENTIC_KEYS):
        return [f"{path.name} Results: no agentic rows, plan {index} has an agentic answer"] if result.agentic else []
    bad = []
    for key in AGENTIC_KEYS:
        got = res.cell(rows[key], S.FIRST_PLAN_COLUMN + index).value
        want = None if result.agentic is None else result.agentic[key]
        if not _close(got, want, 0.0, key):
            bad.append(f"{path.name} Results {key} plan {index}: workbook {got!r} engine {want!r}")
    return bad
