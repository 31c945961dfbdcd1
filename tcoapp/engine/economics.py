"""Device economics of a plan: one device, or the averaged device of a disaggregated pool pair."""
from __future__ import annotations

from .finance.metrics import DEVICE_ECONOMICS_KEYS
from .records import Plan
from .scenario import Scenario


def plan_device_economics(scenario: Scenario, plan: Plan, prefill_share: float) -> tuple[dict[str, float], tuple[str, ...]]:
    """Per-device price/power/server figures for the finance layer, and warnings.

    A disaggregated plan whose pools use different devices is priced per device as the average of
    the two pools weighted by their device shares; servers and racks are then counted for an
    averaged server. That is an approximation and the plan says so.
    """
    if not plan.is_disaggregated:
        device = scenario.device(plan.device)
        return {k: float(getattr(device, k)) for k in DEVICE_ECONOMICS_KEYS}, ()
    prefill = scenario.device(plan.prefill_device or plan.device)
    decode = scenario.device(plan.decode_device or plan.device)
    if prefill.name == decode.name:
        return {k: float(getattr(decode, k)) for k in DEVICE_ECONOMICS_KEYS}, ()
    share = prefill_share
    mix = lambda key: share * getattr(prefill, key) + (1 - share) * getattr(decode, key)  # noqa: E731
    per_server = lambda dev, key: getattr(dev, key) / dev.devices_per_server  # noqa: E731
    dps = max(1, round(mix("devices_per_server")))
    economics = {
        "price_usd": mix("price_usd"), "tdp_w": mix("tdp_w"), "idle_w": mix("idle_w"),
        "devices_per_server": float(dps),
        "server_price_usd": dps * (share * per_server(prefill, "server_price_usd") + (1 - share) * per_server(decode, "server_price_usd")),
        "server_overhead_w": dps * (share * per_server(prefill, "server_overhead_w") + (1 - share) * per_server(decode, "server_overhead_w")),
    }
    note = (f"two device types ({prefill.name} prefill {share:.0%}, {decode.name} decode {1 - share:.0%}): "
            f"price, power and servers use the device-share-weighted average server of {dps} devices")
    return economics, (note,)
