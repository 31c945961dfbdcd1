"""How the performance model reads the efficiency factors (their defaults, bounds and reasons: one row
each in `quantities/factor_rows.py`): the achieved-compute ratio per device architecture."""
from __future__ import annotations

import numpy as np

from ..quantities.factors import (  # noqa: F401 (read through this module too)
    DEFAULT_FACTORS, FACTOR_NAMES, EfficiencyFactors, architecture_factors, architecture_layer_factors,
)

# a device's `architecture` (catalog) -> its achieved-compute factor (the factor rows' `architecture`);
# any other architecture: eta_compute
ARCHITECTURE_COMPUTE = architecture_factors()
# a device's `architecture` -> its per-layer overhead ratio (any other architecture: layer_overhead_s)
ARCHITECTURE_LAYER = architecture_layer_factors()


REFERENCE_ARCHITECTURE = "Blackwell"  # runs at eta_compute itself


def _key(name: str) -> str:
    return "".join(str(name or "").split()).casefold()


_RATIO_BY_KEY = {_key(arch): factor for arch, factor in ARCHITECTURE_COMPUTE.items()}
_LAYER_BY_KEY = {_key(arch): factor for arch, factor in ARCHITECTURE_LAYER.items()}


def layer_ratio_name(architecture: str) -> str | None:
    """The factor of `architecture`'s per-layer overhead ratio (case and spaces ignored), or None."""
    return _LAYER_BY_KEY.get(_key(architecture))


def layer_ratio(factors: EfficiencyFactors, architecture: str):
    """`architecture`'s per-layer overhead over layer_overhead_s (1 where it has none)."""
    name = layer_ratio_name(architecture)
    return 1.0 if name is None else getattr(factors, name)


def architecture_ratio_name(architecture: str) -> str | None:
    """The factor of `architecture`'s compute ratio (case and spaces ignored: "cdna3" is "CDNA 3"), or None."""
    return _RATIO_BY_KEY.get(_key(architecture))


def known_architecture(architecture: str) -> bool:
    """True where `architecture` has a fitted ratio or is the reference (Blackwell)."""
    return architecture_ratio_name(architecture) is not None or _key(architecture) == _key(REFERENCE_ARCHITECTURE)


def compute_ratio(factors: EfficiencyFactors, architecture: str):
    """`architecture`'s ratio of achieved compute over eta_compute (1 where it has none); an array where
    the factor holds Monte Carlo draws."""
    name = architecture_ratio_name(architecture)
    return 1.0 if name is None else getattr(factors, name)


def compute_efficiency(factors: EfficiencyFactors, architecture: str):
    """Achieved / peak tensor FLOPS of decode math on `architecture` (the catalog's name):
    eta_compute times the architecture's ratio (ARCHITECTURE_COMPUTE; 1 for any other), never above 1
    (no device computes faster than its peak). A float, or an array where a factor holds Monte Carlo
    draws."""
    value = np.minimum(1.0, np.asarray(factors.eta_compute, float) * np.asarray(compute_ratio(factors, architecture), float))
    return float(value) if value.ndim == 0 else value
