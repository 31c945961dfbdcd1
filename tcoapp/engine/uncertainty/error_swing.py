"""The model's own error as a bar of the sensitivity tornado (docs/model.md, "Sensitivity").

Beside the inputs swung by +-fraction (`finance/sensitivity.tornado`), the bar `model_error` moves every
generated pool's tokens/s per device to the 10th and 90th percentiles of its drawn model error,
exp(-+1.2816 sd) of the figure (`model_error.band_factors`: the band's width, centred on the figure as
the Monte Carlo draws are; an unmeasured architecture's wider sd), every pool at once, with the device
count held as bought, like every other bar. A plan of measured curves has no such bar.
"""
from __future__ import annotations

from ..finance.sensitivity import Swing, scaled_swing, tornado
from .model_error import band_factors

MODEL_ERROR_INPUT = "model_error"


def model_error_swing(base, metric: str = "npv_usd") -> Swing | None:
    """The model error's bar for a computed plan (module docstring); None without a generated pool."""
    if base.inputs is None:
        return None
    factors = band_factors(base)
    if factors is None:
        return None
    return scaled_swing(base.inputs, MODEL_ERROR_INPUT, "tokens_per_s_per_device", factors[0], factors[1], metric)


def tornado_with_model_error(base, metric: str = "npv_usd", fraction: float = 0.2) -> list[Swing]:
    """The plan's tornado (`tornado` over its finance inputs) with the model error's bar, widest first."""
    factors = band_factors(base) if base.inputs is not None else None
    scaled = (MODEL_ERROR_INPUT, "tokens_per_s_per_device", factors[0], factors[1]) if factors is not None else None
    return tornado(base.inputs, metric, fraction, scaled=scaled)   # the bar's two variants in the same call
