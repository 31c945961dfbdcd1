"""The physical bounds a measured number cannot pass (docs/curves.md, "Plausible numbers").

A measured rate, power or latency past these is a unit or separator slip (a `;`-file read with the
wrong decimal separator reads 45.125 tok/s as 45,125; a power in mW), never a measurement. Each bound
is far outside what any shipped accelerator does, so a real measurement is never refused:

- output tokens/s per device: 1e7. The fastest accelerator's dense FP4 peak (~20 PFLOP/s) on a
  1B-parameter model (2 GFLOP per token) is 1e7 tokens/s; every measured LLM is slower.
- output tokens/s per user: 1e5. The fastest published single-stream decode is a few thousand tokens/s.
- power per device: 1e4 W. The highest accelerator TDP in the catalog is 1,400 W.
- time to first token: 1e5 s (a day): no serving run waits that long.
"""
from __future__ import annotations

TOKENS_PER_S_PER_DEVICE_MAX = 1e7
TOKENS_PER_S_PER_USER_MAX = 1e5
POWER_PER_DEVICE_MAX_W = 1e4
TTFT_MAX_S = 1e5

# quantity -> (largest physical value, what it is, in words)
BOUNDS = {
    "tokens_per_s_per_device": (TOKENS_PER_S_PER_DEVICE_MAX, "output tokens/s per device"),
    "tokens_per_s_per_user": (TOKENS_PER_S_PER_USER_MAX, "output tokens/s per user"),
    "power_w": (POWER_PER_DEVICE_MAX_W, "W per device"),
    "ttft_s": (TTFT_MAX_S, "s to first token"),
}


def past_bound(quantity: str, value: float) -> str | None:
    """Why `value` of `quantity` cannot be a measurement (past its physical bound), or None."""
    bound = BOUNDS.get(quantity)
    if bound is None or not value > bound[0]:
        return None
    return f"{value:.6g} {bound[1]} is past the physical bound of {bound[0]:.0e} (a unit or separator slip?)"

# A fleet's results past these are a compounding rate run for decades, never a plan:
# - output tokens a year: 1e23. A hundred million accelerators (several times every AI accelerator
#   ever shipped), each at the physical bound of 1e7 tokens/s all year, make 3e22.
# - USD per million output tokens: 1e6 at most (a dollar a token) and 1e-6 at least (a millionth of a
#   dollar per million tokens: below the electricity of any accelerator).
TOKENS_PER_YEAR_MAX = 1e23
USD_PER_MTOK_MAX = 1e6
USD_PER_MTOK_MIN = 1e-6
