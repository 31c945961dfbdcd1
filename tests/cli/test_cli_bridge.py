"""`tcoapp compute --bridge A,B` through the real CLI (subprocess): the bridge JSON adds up, names and
numbers pick the plans, a bad pair is a clear error (docs/model.md, "Cost bridge")."""
import json
import math
import subprocess
import sys


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "tcoapp", *args], capture_output=True, text=True, timeout=300)


def test_bridge_json_by_number_and_by_name():
    done = run_cli("compute", "--json", "--bridge", "1,3")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    plans = {p["name"]: p for p in out["plans"]}
    bridge = out["bridge"]
    a, b = out["plans"][0], out["plans"][2]
    assert (bridge["a"], bridge["b"]) == (a["name"], b["name"])
    assert bridge["a_usd_per_million"] == plans[a["name"]]["cost_per_million_output_tokens_usd"]
    steps = [p["difference"] for p in bridge["parts"]]
    assert math.isclose(math.fsum([bridge["a_usd_per_million"], *steps]), bridge["b_usd_per_million"], rel_tol=1e-11)  # JSON keeps 12 significant digits
    by_name = json.loads(run_cli("compute", "--json", "--bridge", f"{a['name']},{b['name']}").stdout)["bridge"]
    assert by_name == bridge


def test_a_bad_bridge_pair_is_a_clear_error():
    done = run_cli("compute", "--json", "--bridge", "nothing,7")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "--bridge" in done.stderr and "plan names or numbers" in done.stderr
