"""Efficiency factors of the generated (roofline) curve: documented defaults, calibrated by fit.

These are the only tunable numbers of the physics model. Defaults are set once for all devices
and models (never per measurement row); `calibration.py` fits them to measured points by least
squares, and the fitted set is part of the scenario (saved in the workbook).
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace


@dataclass(frozen=True)
class EfficiencyFactors:
    eta_mem: float = 0.75            # achieved / peak memory bandwidth in decode
    eta_compute: float = 0.5         # achieved / peak tensor FLOPS in decode
    eta_prefill: float = 0.6         # achieved / peak tensor FLOPS in prefill
    eta_comm: float = 0.7            # achieved / peak scale-up bandwidth
    step_overhead_s: float = 0.002   # fixed per decode step: scheduling, kernel launches
    seq_overhead_s: float = 2e-6     # per sequence per decode step: sampling, bookkeeping (host and device)
    comm_latency_s: float = 5e-6     # per collective (all-reduce / all-to-all)
    usable_memory_fraction: float = 0.9  # of device memory for weights + KV cache
    power_gamma: float = 1.0         # power_w = idle + (tdp - idle) * u^gamma
    power_mem_activity: float = 0.6  # busy-fraction weight of memory-bound time
    spec_draft_cost_fraction: float = 0.05  # a draft token's cost, as a fraction of a target step

    def as_dict(self) -> dict[str, float]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def with_(self, **changes) -> "EfficiencyFactors":
        return replace(self, **changes)


DEFAULT_FACTORS = EfficiencyFactors()
FACTOR_NAMES = tuple(f.name for f in fields(EfficiencyFactors))
