"""The inputs of the roofline kernel (roofline.py) beside the device (a catalog `Device`), the model (a
`memory.Architecture`) and the efficiency factors: how a replica serves and what it is asked. Every
field may be a scalar or a numpy array; they broadcast together, so a whole sweep is one call. Units
are in the names (bytes per value, FLOP/s, tokens); fractions are 0..1."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class ServingArrays:
    """A replica's serving configuration: its concurrency, parallelism, precisions (as bytes per stored
    value and the math peak they run at), speculative decoding and serving stack."""

    batch_sequences: Any               # concurrent sequences of the replica
    tensor_parallel: Any               # devices a layer is split over
    expert_parallel: Any               # devices the experts are spread over (replica: TP x EP devices)
    attention_dp: Any                  # attention data-parallel (each device its own sequences), bool
    weight_bytes_per_value: Any        # stored bytes per weight (the experts' where a checkpoint is mixed)
    kv_bytes_per_value: Any            # stored bytes per KV-cache value
    peak_flop_s: Any                   # dense math peak of the weights' GEMMs, per device [FLOP/s]
    attention_peak_flop_s: Any         # math peak of attention, at the KV cache's precision [FLOP/s]
    draft_tokens: Any = 0.0            # speculative draft tokens per step (k; 0: none)
    acceptance_fraction: Any = 0.0     # chance a draft token is accepted
    shared_weight_bytes_per_value: Any = None  # a mixed checkpoint's non-expert weights (None: as the experts)
    shared_peak_flop_s: Any = None     # their math peak [FLOP/s] (None: peak_flop_s)
    weight_only: Any = False           # 4-bit weights dequantized inside the GEMM (W4A16)
    stack_step_ratio: Any = 1.0        # a measurement's serving stack: multiplier of every decode step (plans: 1)
    stack_overhead_ratio: Any = 1.0    # a measurement's serving stack: multiplier of the step's fixed overheads
    spec_host_serial: Any = False      # the stack runs speculative steps without overlapping its host work
                                       # (a measurement of SGLang; plans: False), bool

    @property
    def devices(self) -> Any:
        """Devices of one replica: tensor_parallel x expert_parallel."""
        return np.asarray(self.tensor_parallel, float) * np.asarray(self.expert_parallel, float)


@dataclass(frozen=True)
class WorkloadArrays:
    """What each request asks: its prompt and output lengths, the prefix-cache hit fraction, the latency
    percentile its targets are read at and the speed its software date gives."""

    input_tokens: Any                  # prompt tokens per request
    output_tokens: Any                 # output tokens per request
    prefix_cache_hit_fraction: Any = 0.0   # share of the prompt read from the prefix cache (not prefilled)
    latency_percentile: str = "mean"   # the per-user rate and TTFT at this percentile (latency_tail.py)
    software_speed_ratio: Any = 1.0    # the software date's speed (software_maturity.py): divides every time
