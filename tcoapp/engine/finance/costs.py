"""Token and price arithmetic the finance layer shares (docs/model.md section 3); the capex, packing, power and
opex equations are rows of the quantity table (quantities/finance.py, `expr=`). Vectorized; names carry units."""
from __future__ import annotations

import numpy as np

from ..quantities.constants import HOURS_PER_YEAR, SECONDS_PER_YEAR  # noqa: F401 (read through this module too)


def per_device_hour(usd_per_year, device_count):
    """USD/yr over device_count x 8760 h [USD/device/h]; NaN without a device."""
    count = np.asarray(device_count, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > 0, np.asarray(usd_per_year, float) / (count * HOURS_PER_YEAR), np.nan)


def output_tokens_per_year(tokens_per_s_per_device, device_count, utilization):
    """tokens_per_s_per_device * device_count * utilization * 8760 * 3600  [tokens/yr]."""
    return np.asarray(tokens_per_s_per_device, float) * device_count * utilization * SECONDS_PER_YEAR


def input_tokens_per_year(output_tokens, input_tokens, output_tokens_per_request):
    """output_tokens_per_year * input_tokens / output_tokens  [tokens/yr]."""
    return output_tokens * np.asarray(input_tokens, float) / np.asarray(output_tokens_per_request, float)


def input_price_usd_per_million(input_price, cached_input_price, prefix_cache_hit_rate):
    """The price an average input token pays [USD/Mtok]: (1 - h) x input price + h x cached input price, h the
    prefix-cache hit rate; the input price itself where the cached price is empty (NaN), so a plan without a
    cached price computes exactly as one priced by input tokens alone (docs/model.md, "Three token prices")."""
    price = np.asarray(input_price, float)
    cached = np.asarray(cached_input_price, float)
    hit = np.asarray(prefix_cache_hit_rate, float)
    return np.where(np.isnan(cached), price, (1.0 - hit) * price + hit * cached)


def per_million(usd_per_year, tokens_per_year):
    """USD per million tokens; NaN where no tokens are made (a cost per nothing does not exist)."""
    tokens = np.asarray(tokens_per_year, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.asarray(usd_per_year, float) / tokens * 1e6
    return np.where(tokens > 0, value, np.nan)

