"""`short_sum` is np.sum, bit for bit, over the axes and layouts the finance layer sums: a plan's pools and its
years (numpy adds fewer than 8 values in order to 0, more pairwise: those go to np.sum itself). Over any memory
layout it is np.sum of the values in C order (numpy sums 8 values or more pairwise only along the axis innermost
in memory): a Monte Carlo run's year rows with the draws innermost (quantities/wide_ops.py) sum as in C order."""
import numpy as np
import pytest

from tcoapp.engine.quantities import short_sum as module
from tcoapp.engine.quantities.short_sum import short_sum


@pytest.fixture(autouse=True)
def every_size(monkeypatch):
    """The chain of adds at every size (a run's arrays take it from MIN_SIZE values on)."""
    monkeypatch.setattr(module, "MIN_SIZE", 0)

SPECIAL = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1.5, -2.25, 1e308, -1e308, 1e-17, 3.0])


def _same(a, b) -> bool:
    """Equal shapes and bits, any NaN equal to any NaN (numpy's own loops differ in a NaN's sign)."""
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and (
        np.where(np.isnan(a), np.nan, a).tobytes() == np.where(np.isnan(b), np.nan, b).tobytes())


def _layouts(x):
    """(layout, whether numpy's own sum is the C order's: the layouts with the last axis innermost)."""
    return ((x, True), (x[..., ::-1], True), (np.asfortranarray(x), x.ndim == 1),
            (np.broadcast_to(x[:1], x.shape), True), (np.swapaxes(x.copy(), 0, -1).T.T, x.ndim == 1))


@pytest.mark.parametrize("n", range(1, 11))
@pytest.mark.parametrize("shape, axis", [((3000, "n"), -1), ((20000, "n"), -1), ((4000, 1, "n"), -1), ((800, "n", 5), -2), ((1, "n"), -1),
                                         (("n",), -1), ((3, 4, "n"), -1), ((400, "n", 1), -2), ((1, "n", 6), -2)])
def test_short_sum_is_np_sum(n, shape, axis):
    rng = np.random.default_rng(n)
    shape = tuple(n if s == "n" else s for s in shape)
    with np.errstate(all="ignore"):
        special = rng.choice(SPECIAL, size=shape) * rng.choice([1.0, 3.3, 1e-5], size=shape)
        ordinary = rng.normal(size=shape) * 10.0 ** rng.integers(-8, 8, size=shape)
        for x in (special, ordinary):
            for values, c_order in _layouts(x):
                got = short_sum(values, axis)
                assert _same(got, np.sum(np.ascontiguousarray(values), axis=axis)), (values.strides, axis)
                if c_order:
                    assert _same(got, np.sum(values, axis=axis)), (values.strides, axis)


def test_short_sum_leaves_other_types_and_empty_axes_to_np_sum():
    for values, axis in ((np.ones((4, 3), bool), -1), (np.arange(12).reshape(4, 3), -1), (np.ones((4, 0)), -1),
                         (np.float64(2.5), None)):
        expected = np.sum(values, axis=axis)
        got = short_sum(values, axis) if axis is not None else np.sum(values)
        assert np.asarray(got).dtype == np.asarray(expected).dtype and np.array_equal(got, expected)
