"""The finance layer's per-pool inputs (the quantity table's finance inputs of axis "pool"), assembled in
one place for the plan's computation (pipeline/compute.py) and the serving search's cost objective
(serving/objective.py): the device's economics, the pool's own keys, its operating point and its price."""
from __future__ import annotations

import numpy as np

from ..quantities.finance import DEVICE_ECONOMICS_KEYS, POOL_FIELD_INPUTS, POOL_INPUT_KEYS


def pool_finance_inputs(pools, devices, device_count, tokens_per_s_per_device, power_w, price_usd_per_million_output_tokens,
                        prefill_share=None, ones=1.0, whole_plan=False) -> dict[str, np.ndarray]:
    """{key: array over the pools (last axis)} of every pool-axis finance input: each device's economics
    (DEVICE_ECONOMICS_KEYS), the pool's own keys, `owned`, the count, operating point and price given.
    `ones` broadcasts the pool values over leading axes (variants of an operating point); `whole_plan`:
    the pool is evaluated as a plan of its own, bought at the start (purchase year 0)."""
    values = {k: [float(getattr(d, k)) for d in devices] for k in DEVICE_ECONOMICS_KEYS}
    values.update({k: [getattr(p, k) for p in pools] for k in POOL_FIELD_INPUTS})
    if whole_plan:
        values["purchase_year"] = [0.0 for _ in pools]
    values.update(owned=[1.0 if p.owned else 0.0 for p in pools], device_count=device_count,
                  tokens_per_s_per_device=tokens_per_s_per_device, power_w=power_w,
                  price_usd_per_million_output_tokens=price_usd_per_million_output_tokens)
    if prefill_share is not None:
        values["prefill_share"] = prefill_share
    return {k: ones * np.asarray(values[k], float) for k in POOL_INPUT_KEYS if k in values}
