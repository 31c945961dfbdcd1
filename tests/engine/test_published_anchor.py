"""The searched answer checked (docs/model.md, "Published anchor"): the nearest shipped measurement of
the same device, model and precision family, comparable lengths, near the target; in the JSON."""
import json
import subprocess
import sys

import pytest

from tcoapp.engine.pipeline.anchor import anchor_note, published_anchor, with_anchor
from tcoapp.engine.pipeline.compute import compute_plan
from tcoapp.io.catalog import load_catalog
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.measurements import read_measurements

B200 = load_catalog().devices["B200"]


def _row(**kw):
    row = {"model": "DeepSeek-R1-0528", "device": "NVIDIA B200", "precision": "FP8", "input_len": "1024",
           "output_len": "1024", "tokens_per_s_per_user": "60", "tokens_per_s_per_gpu": "500", "source": "s"}
    return {**row, **kw}


def test_the_nearest_qualifying_row_is_chosen():
    rows = [_row(tokens_per_s_per_user="80", source="far"), _row(tokens_per_s_per_user="62", source="near"),
            _row(precision="FP4 (NVFP4)", tokens_per_s_per_user="60", source="other family"),
            _row(input_len="8192", tokens_per_s_per_user="60", source="other lengths"),
            _row(device="NVIDIA H200", tokens_per_s_per_user="60", source="other device"),
            _row(tokens_per_s_per_user="60", invalid="line 9: bad", source="invalid")]
    a = published_anchor(rows, B200, "DeepSeek-R1", "fp8", 1024, 1024, 60.0, 1000.0)
    assert a["source"] == "near" and a["value"] == 500.0 and a["ratio"] == pytest.approx(2.0)


def test_a_row_run_below_the_devices_tdp_is_no_anchor():
    """A power-limited run (notes state a GPU power below the catalog TDP, e.g. an RTX PRO 6000 system
    at 450 W of 600 W) is not the catalog device's operating point; one at the TDP is."""
    rows = [_row(tokens_per_s_per_user="60", notes="system hw_notes: GPU 700W / 1000W (reduced)", source="capped"),
            _row(tokens_per_s_per_user="70", notes="system hw_notes: B200 TGP 1000W", source="at tdp")]
    assert published_anchor(rows, B200, "DeepSeek-R1", "fp8", 1024, 1024, 60.0, 1000.0)["source"] == "at tdp"


def test_no_row_near_the_target_is_null():
    rows = [_row(tokens_per_s_per_user="200"), _row(tokens_per_s_per_user="")]
    assert published_anchor(rows, B200, "DeepSeek-R1", "fp8", 1024, 1024, 60.0, 1000.0) is None
    assert published_anchor(rows, B200, "DeepSeek-R1", "fp8", 1024, 1024, None, 1000.0)["ratio"] == 2.0


def test_a_note_only_outside_the_band():
    a = {"value": 500.0, "tokens_per_s_per_user": 60.0, "source": "s; run", "ratio": 2.0}
    assert anchor_note(a, {"tokens_per_s_per_device": [400.0, 900.0]}) is None
    note = anchor_note(a, {"tokens_per_s_per_device": [800.0, 1500.0]})
    assert "below the plan's 80 % band" in note and "2.00x" in note


def test_a_searched_plan_carries_its_anchor_and_note():
    scenario = default_scenario()
    name = scenario.plans[2].name   # B200
    scenario = scenario.with_plan(name, model="DeepSeek-R1", min_tokens_per_s_per_user=60)
    rows = [r for _, r in read_measurements()]
    result = with_anchor(scenario, compute_plan(scenario, scenario.plan(name)), rows)
    anchor = result.as_json()["published_anchor"]
    assert anchor is not None and "InferenceX" in anchor["source"]
    assert anchor["ratio"] == pytest.approx(result.metric_or_none("tokens_per_s_per_device") / anchor["value"])
    low, high = result.prediction_interval["tokens_per_s_per_device"]
    outside = not low <= anchor["value"] <= high
    assert outside == any("nearest published measurement" in w for w in result.warnings)


def test_the_cli_json_has_the_key():
    out = subprocess.run([sys.executable, "-m", "tcoapp", "compute", "--json"], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    plans = json.loads(out.stdout)["plans"]
    assert all("published_anchor" in p for p in plans)
