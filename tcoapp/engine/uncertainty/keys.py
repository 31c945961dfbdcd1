"""Where each uncertain key enters the engine (docs/model.md, "Uncertainty"): the finance inputs of
the plan or of its pools, the sizing of the device count, or the operating point."""
from __future__ import annotations

from ..finance import sizing
from ..quantities.finance import DEVICE_ECONOMICS_KEYS, PLAN_INPUT_KEYS
from ..quantities.inputs import DEVICE_FIELDS

# Plan keys
PLAN_FINANCE = frozenset(PLAN_INPUT_KEYS)                       # plan-scope finance inputs
POOL_FINANCE = frozenset({"price_usd_per_million_output_tokens", "rack_power_cap_kw"})  # per pool
PERFORMANCE = frozenset({"prefix_cache_hit_rate", "spec_decode_acceptance", "min_tokens_per_s_per_user", "max_ttft_s"})
SIZING_INPUT = sizing.SIZING_INPUT                             # each sizing mode's own input
# device fields
DEVICE_FINANCE = frozenset(DEVICE_ECONOMICS_KEYS) - {"devices_per_server"}  # a whole number: never uncertain
# the accelerator's own power fields (W): also the generated power model and a limit's clock (the server's
# overhead is finance only)
DEVICE_POWER = frozenset(f.name for f in DEVICE_FIELDS if f.unit == "W") - {"server_overhead_w"}
# what a sizing mode reads (keys as on the Uncertainty sheet): `finance/sizing.py`'s own list, device
# fields as `device.FIELD`
SIZING_READS = {mode: frozenset(f"device.{k}" if k in DEVICE_ECONOMICS_KEYS else k for k in reads)
                for mode, reads in sizing.SIZING_READS.items()}


def moves_operating_point(key: str) -> bool:
    """True for keys that change a generated pool's throughput or power."""
    if key.startswith("factor."):
        return True
    if key.startswith("device."):
        name = key[len("device."):]
        return name in DEVICE_POWER or name not in DEVICE_FINANCE  # scale_out_gb_s: the prefill -> decode link
    return key in PERFORMANCE
