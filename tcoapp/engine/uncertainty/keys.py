"""Where each uncertain key enters the engine (docs/model.md, "Uncertainty"): the finance inputs of
the plan or of its pools, the sizing of the device count, or the operating point."""
from __future__ import annotations

from ..quantities.finance import PLAN_INPUT_KEYS

# Plan keys
PLAN_FINANCE = frozenset(PLAN_INPUT_KEYS)                       # plan-scope finance inputs
POOL_FINANCE = frozenset({"price_usd_per_million_output_tokens", "rack_power_cap_kw"})  # per pool
PERFORMANCE = frozenset({"prefix_cache_hit_rate", "spec_decode_acceptance", "min_tokens_per_s_per_user", "max_ttft_s"})
SIZING_INPUT = {"facility_power": "facility_power_kw", "capex_budget": "capex_budget_usd",
                "demand": "demand_tokens_per_day"}
# device fields
DEVICE_FINANCE = frozenset({"price_usd", "server_price_usd", "tdp_w", "idle_w", "server_overhead_w"})
DEVICE_POWER = frozenset({"tdp_w", "idle_w"})                  # also the generated power model
# what a sizing mode reads besides its own input (keys as on the Uncertainty sheet)
SIZING_READS = {
    "facility_power": frozenset({"facility_power_kw", "pue", "device.tdp_w", "device.server_overhead_w"}),
    "capex_budget": frozenset({"capex_budget_usd", "other_capex_fraction", "device.price_usd",
                               "device.server_price_usd"}),
    "demand": frozenset({"demand_tokens_per_day", "utilization"}),
}


def moves_operating_point(key: str) -> bool:
    """True for keys that change a generated pool's throughput or power."""
    if key.startswith("factor."):
        return True
    if key.startswith("device."):
        name = key[len("device."):]
        return name in DEVICE_POWER or name not in DEVICE_FINANCE  # scale_out_gb_s: the prefill -> decode link
    return key in PERFORMANCE
