"""`np.where` with a test that holds one value per year, the same numbers, as a copy and a column assignment.

A year row's gate (`If`/`Gate` in expr.py: "from year 1 on", "in the horizon") tests the years alone, a row
of shape (1, ..., years), while the row it gates holds every draw of a Monte Carlo run: np.where then
broadcasts the test over every draw, several times slower than copying the row and setting the years where
the test fails (docs/benchmarks.md, "Monte Carlo"). tests/engine/test_year_where.py holds it equal to np.where.
"""
from __future__ import annotations

import numpy as np

from . import wide_ops


MIN_SIZE = 16384   # below, numpy's one call is as fast (a compute's arrays, not a run's draws)


def where(test, then, otherwise, wide: bool = False) -> np.ndarray:
    """np.where(test, then, otherwise), bit for bit: for a boolean test varying along the last axis alone and
    float `then` (of MIN_SIZE values or more) and `otherwise` (a single value), `then` copied to the result's
    shape with `otherwise` in the years where the test fails. `wide`: the result with the draws innermost
    where its shape is wide (`wide_ops`: a year row's expression over many draws)."""
    test, then, otherwise = np.asarray(test), np.asarray(then), np.asarray(otherwise)
    plain = wide_ops.where if wide else np.where
    if not (then.size >= MIN_SIZE and test.dtype == bool and test.ndim and test.size == test.shape[-1]
            and otherwise.ndim == 0 and then.dtype == np.float64 and otherwise.dtype == np.float64):
        return plain(test, then, otherwise)
    shape = np.broadcast_shapes(test.shape, then.shape)
    if shape[-1] != test.shape[-1]:
        return plain(test, then, otherwise)
    if wide and wide_ops.wide_shape(shape):   # the draws innermost: each year a block of its own
        out = np.array(np.broadcast_to(then, shape), order="F")
        for year in np.flatnonzero(~test.reshape(-1)):
            out[..., year] = otherwise
        return out
    out = np.array(np.broadcast_to(then, shape))
    out[..., ~test.reshape(-1)] = otherwise
    return out
