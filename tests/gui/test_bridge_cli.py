"""The Bridge tab's waterfall is `tcoapp compute --bridge A,B`'s bridge (docs/model.md, "Cost bridge"): the GUI
loads the same workbook, its bridge is the CLI's JSON number for number, and its bars add up from A's cost to
B's. A plan whose hardware gets cheaper and whose software gets faster (docs/model.md, "Finance over time")
moves the capex and the per-token parts."""
import json
import math
import subprocess
import sys

from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.engine.core.number_format import json_rounded
from tcoapp.gui.bridge_view import BridgeView, waterfall
from tcoapp.gui.document import Document
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.load import load_scenario
from tcoapp.io.workbook_write import write_scenario


def test_the_gui_waterfall_is_the_cli_bridge(qtbot, tmp_path):
    base = default_scenario()
    plans = list(base.plans[:2])
    plans[1] = plans[1].with_(hardware_price_change_per_year=-0.2, throughput_change_per_year=0.3,
                              insurance_fraction_per_year=0.01)
    scenario = base.with_plans(plans)
    path = tmp_path / "bridge.xlsx"
    write_scenario(scenario, path, compute_scenario(scenario))
    done = subprocess.run([sys.executable, "-m", "tcoapp", "compute", str(path), "--json", "--bridge", "1,2"],
                          capture_output=True, text=True, check=True)
    cli = json.loads(done.stdout)["bridge"]
    view = BridgeView(Document(load_scenario(path)))
    qtbot.addWidget(view)
    gui = view.bridge()
    assert json.dumps(json_rounded(gui), sort_keys=True) == json.dumps(cli, sort_keys=True)   # JSON: 12 digits
    names, bottoms, heights, _ = waterfall(gui)
    assert [float(h) for h in view.bars.opts["height"]] == heights
    level = heights[0]
    for bottom, height in zip(bottoms[1:-1], heights[1:-1]):
        level = bottom + height if math.isclose(bottom, level, rel_tol=1e-12, abs_tol=1e-15) else bottom
    assert math.isclose(level, heights[-1], rel_tol=1e-9)
    assert any(p["part"] == "insurance" and p["difference"] > 0 for p in gui["parts"])
