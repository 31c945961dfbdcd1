"""`np.sum` over a short axis (a plan's pools, its years), the same numbers, as elementwise adds.

Over an axis of fewer than 8 values numpy's float sum adds them in order to 0 (0 + v0 + v1 + ..., so -0.0
alone gives 0.0; from 8 values on it sums pairwise, so those are left to np.sum). Written as that chain
of adds it takes a few elementwise operations, where numpy's reduction over a short axis runs several times
slower on the (draws, pools, years) arrays of a Monte Carlo run's finance (docs/benchmarks.md, "Monte Carlo").
tests/engine/test_short_sum.py holds it equal to np.sum, bit for bit, on every layout the engine uses.
"""
from __future__ import annotations

import numpy as np

SHORT = 8   # numpy sums 8 values or more pairwise
MIN_SIZE = 16384   # below, numpy's one call is as fast as the chain of adds (a compute's arrays, not a run's draws)
_add_reduce = np.add.reduce   # what np.sum(values, axis) calls for an ndarray (numpy's _wrapreduction)


def short_sum(values, axis: int) -> np.ndarray:
    """np.sum(values, axis=axis), bit for bit: the chain of adds over a float axis of 1..7 values of an array of
    MIN_SIZE values or more."""
    values = np.asarray(values)
    if values.ndim and values.shape[axis] >= SHORT and not values.flags.c_contiguous:
        values = np.ascontiguousarray(values)   # pairwise as over the C order (module docstring)
    if (values.size < MIN_SIZE or values.dtype != np.float64 or values.ndim == 0
            or not 1 <= values.shape[axis] < SHORT):
        return _add_reduce(values, axis)   # np.sum's own call for an ndarray, without its wrapper
    parts = np.moveaxis(values, axis, 0)
    total = 0.0 + parts[0]
    for part in parts[1:]:
        total = total + part
    return total
