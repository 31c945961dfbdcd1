"""Device prices anchored on SemiAnalysis' AI Cloud TCO (docs/catalog.md, "Device prices and their anchors").

Press prices of accelerators are not like for like (a GPU's street price, a rack's ASP, a DGX list price with
support), come from 2024-2026 and spread +-20-40 %. SemiAnalysis' AI Cloud TCO model prices every NVIDIA and
AMD device the same way (an owner's cost per GPU-hour over a 4-year life). This tool keeps one absolute level, the
B200 (street price and server estimate of the catalog), and sets each other SemiAnalysis-covered device's price so
that its cost per GPU-hour / B200's under the comparison finance below equals SemiAnalysis' hyperscaler TCO
ratio; the server price (the non-GPU content estimate) is kept. Cost per device-hour is affine in price_usd, so
two evaluations give the price exactly.

    python tools/anchor_prices.py          # the table: before, derived, cost per GPU-hour vs B200
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tcoapp.engine.finance.metrics import finance_metrics  # noqa: E402
from tcoapp.engine.serving.objective import plan_finance_inputs  # noqa: E402
from tcoapp.io.catalog import load_catalog  # noqa: E402
from tcoapp.io.default_scenario import default_scenario  # noqa: E402

# SemiAnalysis InferenceX-app packages/app/src/lib/constants.ts @77ca49a6 (2026-04), "TCO $/GPU/hr" from the
# SemiAnalysis AI Cloud TCO Model, hyperscaler owner, 4-year economic life (shared/reference REFERENCES.md A.2).
# B300 and GB300: SemiAnalysis' temporary 1.2 x B200 / GB200 (code comment: until official pricing is available).
SA_TCO_USD_PER_GPU_HOUR = {"H100-SXM": 1.30, "H200-SXM": 1.41, "B200": 1.95, "B300": 2.34, "GB200-NVL72": 2.21,
                           "GB300-NVL72": 2.652, "MI300X": 1.12, "MI325X": 1.28, "MI355X": 1.48}
ANCHOR = "B200"
# the comparison finance: SemiAnalysis' 4-year life, the catalog's default cost of capital, utilization, PUE,
# electricity and other capex; no colocation, maintenance, software or staff (the same for every device)
FINANCE = dict(years=4, discount_rate=0.10, utilization=0.7, pue=1.3, electricity_usd_per_kwh=0.0895,
               other_capex_fraction=0.15, colocation_usd_per_kw_month=0.0, maintenance_fraction_per_year=0.0,
               software_usd_per_device_year=0.0, staff_usd_per_year=0.0)


def cost_per_gpu_hour(device, price_usd) -> float:
    """Cost per device-hour (USD) of 10 servers of `device` at `price_usd` under FINANCE, power at TDP."""
    x = dict(plan_finance_inputs(default_scenario().plans[0]), **FINANCE)
    x.update(price_usd=price_usd, devices_per_server=device.devices_per_server, server_price_usd=device.server_price_usd,
             tdp_w=device.tdp_w, idle_w=device.idle_w, server_overhead_w=device.server_overhead_w,
             device_count=10 * device.devices_per_server, rack_power_cap_kw=200.0, servers_per_rack_max=64,
             tokens_per_s_per_device=1000.0, power_w=device.tdp_w, price_usd_per_million_output_tokens=0.0,
             prefill_share=np.nan)
    return float(finance_metrics(x, with_irr=False)["cost_per_device_hour_usd"])


def derived_price_usd(device, target_usd_per_hour: float) -> float:
    """The price_usd at which the device costs `target_usd_per_hour` (affine: two evaluations)."""
    a, b = cost_per_gpu_hour(device, 0.0), cost_per_gpu_hour(device, 10_000.0)
    return (target_usd_per_hour - a) / ((b - a) / 10_000.0)


def main() -> None:
    devices = load_catalog().devices
    anchor = cost_per_gpu_hour(devices[ANCHOR], devices[ANCHOR].price_usd)
    print(f"{'device':12s} {'price now':>10s} {'$/GPU-h':>8s} {'vs B200':>8s} {'SA ratio':>8s} {'anchored price':>14s}")
    for name, device in devices.items():
        hour = cost_per_gpu_hour(device, device.price_usd)
        sa = SA_TCO_USD_PER_GPU_HOUR.get(name)
        ratio = sa / SA_TCO_USD_PER_GPU_HOUR[ANCHOR] if sa else float("nan")
        price = derived_price_usd(device, ratio * anchor) if sa else float("nan")
        print(f"{name:12s} {device.price_usd:10,.0f} {hour:8.3f} {hour / anchor - 1:+8.1%} {ratio - 1:+8.1%} {price:14,.0f}")


if __name__ == "__main__":
    main()
