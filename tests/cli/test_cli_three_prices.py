"""The real CLI (subprocess) on a workbook with a cached input price: the JSON carries revenue and cost per
million tokens by token type and blended, and the year rows split the input revenue (docs/cli.md)."""
import json
import math
import subprocess
import sys

from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_write import write_scenario

KEYS = ("revenue_per_million_output_tokens_usd", "revenue_per_million_uncached_input_tokens_usd",
        "revenue_per_million_cached_input_tokens_usd", "revenue_per_million_total_tokens_usd",
        "cost_per_million_uncached_input_tokens_usd", "cost_per_million_cached_input_tokens_usd")


def test_compute_json_carries_the_three_prices(tmp_path):
    base = default_scenario().plans[2].with_(serving_search="off", min_tokens_per_s_per_user=None, batch=64,
                                             sizing_mode="devices", device_count=64, prefix_cache_hit_rate=0.9)
    tenth = base.price_usd_per_million_input_tokens / 10
    scenario = default_scenario().with_plans((base.with_(name="cached", price_usd_per_million_cached_input_tokens=tenth),
                                              base.with_(name="empty")))
    path = tmp_path / "cached.xlsx"
    write_scenario(scenario, path, compute_scenario(scenario))
    done = subprocess.run([sys.executable, "-m", "tcoapp", "compute", str(path), "--json"], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    cached, empty = json.loads(done.stdout)["plans"]
    for key in KEYS:
        assert key in cached and key in empty, key
    assert math.isclose(cached["revenue_per_million_cached_input_tokens_usd"], tenth, rel_tol=1e-9)
    assert math.isclose(empty["revenue_per_million_cached_input_tokens_usd"], base.price_usd_per_million_input_tokens,
                        rel_tol=1e-9)
    year = cached["years"][1]
    assert math.isclose(year["cached_input_revenue_usd"] / year["uncached_input_revenue_usd"], 0.9 * 0.1 / 0.1,
                        rel_tol=1e-9)
    assert cached["revenue_usd_per_year"] < empty["revenue_usd_per_year"]
    text = subprocess.run([sys.executable, "-m", "tcoapp", "compute", str(path)], capture_output=True, text=True,
                          timeout=300).stdout
    assert "Revenue per M cached input tokens" in text and "Revenue per M tokens, blended" in text


def test_the_report_states_the_hit_rate_and_the_cached_price():
    """The report's assumptions table names the cached input price, and an empty one as the input price."""
    from tcoapp.present.report_html import report_html
    base = default_scenario().plans[2].with_(serving_search="off", min_tokens_per_s_per_user=None, batch=64,
                                             sizing_mode="devices", device_count=64, prefix_cache_hit_rate=0.9)
    scenario = default_scenario().with_plans((base.with_(name="cached", price_usd_per_million_cached_input_tokens=0.088),
                                              base.with_(name="empty")))
    html = report_html(scenario, compute_scenario(scenario), "three prices")
    assert "Cached input price" in html and "the input price" in html and "$0.088" in html
