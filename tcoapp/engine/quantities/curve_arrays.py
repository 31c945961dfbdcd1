"""A measured curve point's values, in the order of the Curves sheet's columns: the `float` fields of
CURVE_POINT_FIELDS (inputs.py, which checks it on import). A module of its own so that reading a curve
file (`tcoapp curves`) does not build the input tables (about 20 ms of rows at start-up)."""
from __future__ import annotations

CURVE_ARRAYS = ("batch", "tokens_per_s_per_device", "tokens_per_s_per_user", "power_w", "ttft_s")
