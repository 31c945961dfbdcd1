"""`tcoapp compute FILE` text (not --json) through the real CLI: readable labels, units, thousands
separators, percentages, dollars in fixed notation, no line over 100 columns."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tcoapp.engine.quantities.metrics import Metrics

SAMPLES = sorted(str(p) for p in (Path(__file__).resolve().parents[2] / "samples").glob("*.xlsx"))


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "tcoapp", *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("path", [None] + SAMPLES, ids=lambda p: "default" if p is None else Path(p).stem)
def test_compute_text_is_readable_within_100_columns(path):
    args = ("compute",) if path is None else ("compute", path)
    done = run_cli(*args)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    too_wide = [line for line in text.splitlines() if len(line) > 100]
    assert not too_wide, too_wide[:3]
    metrics = "\n".join(block.split("\nNotes")[0] for block in text.split("\n== "))   # the engine's notes aside
    assert not re.search(r"\d\.\d+e[+-]\d\d", metrics), "scientific notation in the metrics"
    plans = json.loads(run_cli(*args, "--json").stdout)["plans"]
    for plan in plans:
        assert f"== {plan['name'][:90]}" in text
    assert "Cost per million output tokens" in text and "per Mtok" in text
    assert "cost_per_million_output_tokens_usd" not in metrics      # labels, not raw keys


def test_compute_text_values_match_the_json():
    text = run_cli("compute").stdout
    plan = json.loads(run_cli("compute", "--json").stdout)["plans"][1]
    block = text.split(f"== {plan['name']} ")[1].split("\n== ")[0]
    assert f"${plan['capex_usd']:,.0f}" in block                      # thousands separators, whole dollars
    irr = re.search(r"IRR\s+(-?[\d.,]+) %", block)
    assert irr and float(irr.group(1).replace(",", "")) == pytest.approx(plan["irr"] * 100, rel=5e-3)   # printed to 3 significant digits
    devices = re.search(r"Devices\s+([\d,]+) devices", block)
    assert devices and int(devices.group(1).replace(",", "")) == plan["device_count"]


def test_value_text_formats():
    from tcoapp.present.values import metric_value, significant
    assert metric_value("capex_usd", 26737500.0) == "$26,737,500"
    assert metric_value("npv_usd", -11624158.4) == "-$11,624,158"
    assert metric_value("irr", 0.5449) == "54.5 % per year"
    assert metric_value("roi", 10.93) == "1,093 %"
    assert metric_value("cost_per_million_output_tokens_usd", 0.15561) == "$0.156 per Mtok"
    assert metric_value("payback_months", None, Metrics.nan().with_(npv_usd=-1.0)) == "never"
    assert metric_value("payback_months", None, Metrics.nan()) == "n/a"
    assert significant(0.000012345) == "0.0000123" and significant(123456.0) == "123,456"


def test_compute_text_says_when_the_ranking_is_not_like_with_like():
    import dataclasses
    from tcoapp.cli.text import compute_text
    from tcoapp.engine.pipeline.compute import compute_scenario
    from tcoapp.io.default_scenario import default_scenario
    scenario = default_scenario()
    assert "Not like with like" not in compute_text(scenario, compute_scenario(scenario))
    plans = list(scenario.plans)
    plans[0] = dataclasses.replace(plans[0], model="Llama-3.1-8B")
    scenario = dataclasses.replace(scenario, plans=tuple(plans))
    text = compute_text(scenario, compute_scenario(scenario))
    assert "Not like with like" in text.split("\n #")[0] and "Llama-3.1-8B 1,024 in / 1,024 out" in text
    assert max(len(line) for line in text.splitlines()) <= 100


_SAMPLE_PATHS = [None] + sorted(str(p) for p in (Path(__file__).resolve().parents[2] / "samples").glob("*.xlsx"))


@pytest.mark.parametrize("path", _SAMPLE_PATHS, ids=lambda p: "default" if p is None else Path(p).stem)
def test_compute_text_has_no_raw_key_and_no_scientific_notation(path):
    """Every sample's text: labels, not keys; numbers in fixed notation; no line over 100 columns."""
    import re
    from tcoapp.cli.text import compute_text
    from tcoapp.engine.pipeline.compute import compute_scenario
    from tcoapp.io.default_scenario import default_scenario
    from tcoapp.io.load import load_scenario
    scenario = default_scenario() if path is None else load_scenario(path)
    text = compute_text(scenario, compute_scenario(scenario))
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", text), re.search(r".{30}\b[a-z]+_[a-z_]+\b.{30}", text)
    assert not re.search(r"\d\.?\d*e[+-]?\d", text)
    assert all(len(line) <= 100 for line in text.splitlines())
    assert text.startswith("Decision: ")
