"""The elementwise operations of a year row's expression over many draws, the same numbers, with the draws
innermost in memory.

A Monte Carlo run's year rows are [draws, pools, years] with a few years: an operation between a row of the
draws alone ([draws, P, 1], an input) and a row of the years alone ([1, 1, years], `active`, an index) has
no operand that orders both axes, so numpy keeps the result's C order and runs its inner loop over the few
years, once per draw (some ten times slower than over the draws). Written into a result allocated in
Fortran order (the draws innermost) the same operation runs its inner loop over the draws, and every
operation on that result keeps the order (numpy's order "K"). The numbers are those of the plain
operation: the same ufunc on the same operands, elementwise and correctly rounded (+, -, *, /, minimum,
maximum, comparisons, logic; np.power is left to numpy's own choice of loop); a sum over the years of eight
or more values, which numpy adds pairwise along a C-ordered axis, is taken over a C-ordered copy.
`expr_compiled.numpy_function(expr, wide=True)` evaluates with these (finance/year_rows.py chooses it for
arrays of MIN_SIZE values or more); tests/engine/test_wide_ops.py holds each equal to its numpy operation.
"""
from __future__ import annotations

import math

import numpy as np

from .short_sum import SHORT, short_sum

MIN_SIZE = 16384   # below, numpy's own order costs no more (a compute's arrays, not a run's draws)


def wide_shape(shape: tuple) -> bool:
    """Whether a result of this shape runs faster with its first axis innermost: many values over 2+ axes
    whose first (the draws) and last (the years) both have more than one."""
    return len(shape) >= 2 and shape[0] > 1 and shape[-1] > 1 and math.prod(shape) >= MIN_SIZE


def fortran(values):
    """`values` with its first axis innermost where `wide_shape` (the same array elsewhere)."""
    if isinstance(values, np.ndarray) and wide_shape(values.shape) and not values.flags.f_contiguous:
        return np.asfortranarray(values)
    return values


def _ambiguous(*shapes) -> tuple | None:
    """The result's shape where no operand has it (numpy would then order it C) and it is wide, else None (also
    where the shapes do not broadcast: numpy's own operation then says so). Written out: np.broadcast_shapes
    costs more than most of a run's operations on its rows of the years alone."""
    if math.prod(map(math.prod, shapes)) < MIN_SIZE:   # the result holds at most the product of their sizes
        return None
    ndim = max(map(len, shapes))
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    shape = tuple(max(sizes) for sizes in zip(*padded))
    if any(n not in (1, m) for s in padded for n, m in zip(s, shape)) or shape in padded or not wide_shape(shape):
        return None
    return shape


def _shape(x) -> tuple:
    return getattr(x, "shape", ())


def binary(ufunc, logical: bool = False):
    """`ufunc(a, b)` as the same ufunc into a Fortran-ordered result where the shapes leave numpy's order
    open (`logical`: a comparison or a logical operation, a boolean result)."""
    def op(a, b):
        shape_a, shape_b = getattr(a, "shape", ()), getattr(b, "shape", ())
        if shape_a == shape_b or not shape_a or not shape_b:   # the same shape, or a single value: never open
            return ufunc(a, b)
        shape = _ambiguous(shape_a, shape_b)
        if shape is None:
            return ufunc(a, b)
        if logical:
            return ufunc(a, b, out=np.empty(shape, bool, order="F"))
        if np.result_type(a, b) != np.float64:
            return ufunc(a, b)
        return ufunc(a, b, out=np.empty(shape, float, order="F"))
    return op


def where(test, then, otherwise):
    """np.where(test, then, otherwise), bit for bit, into a Fortran-ordered result where the shapes leave
    numpy's order open (a boolean test, float values)."""
    test = np.asarray(test)
    shape = _ambiguous(test.shape, _shape(then), _shape(otherwise))
    if shape is None or test.dtype != bool or np.result_type(then, otherwise) != np.float64:
        return np.where(test, then, otherwise)
    out = np.empty(shape, float, order="F")
    np.copyto(out, otherwise)
    np.copyto(out, then, where=test)
    return out


def cumsum(values, axis: int = -1):
    """np.cumsum(values, axis=axis), bit for bit (numpy adds in order: each value to the sum before it), over
    the years of a wide float array as one elementwise add per year into a Fortran-ordered result."""
    values = np.asarray(values)
    if axis != -1 or values.dtype != np.float64 or not wide_shape(values.shape):
        return np.cumsum(values, axis=axis)
    out = np.empty(values.shape, float, order="F")
    out[..., 0] = values[..., 0]
    for year in range(1, values.shape[-1]):
        np.add(out[..., year - 1], values[..., year], out=out[..., year])
    return out


def sum_c_order(values, axis: int):
    """short_sum(values, axis) as over the values in C order: an axis of SHORT values or more, which numpy
    sums pairwise where it is the innermost, summed over a C-ordered copy."""
    values = np.asarray(values)
    if values.ndim and values.shape[axis] >= SHORT and not values.flags.c_contiguous:
        values = np.ascontiguousarray(values)
    return short_sum(values, axis)
