"""`wide_ops`: a year row's operations over many draws with the draws innermost in memory give numpy's own
numbers, shapes and types, bit for bit (quantities/wide_ops.py); only the memory order differs."""
import numpy as np
import pytest

from tcoapp.engine.quantities import wide_ops, year_where
from tcoapp.engine.quantities.expr import _COMPARE, _NUMPY

SPECIAL = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, 5e-324, 1.5, -2.25, 1e308, -1e308, 1e-17, 3.0])
# (left, right): the draws alone against the years alone, against a pool's row, rows of every draw, a plan's row
SHAPES = [((900, 1, 1), (1, 1, 7)), ((1, 1, 7), (900, 1, 1)), ((900, 2, 1), (1, 2, 7)), ((900, 1, 7), (1, 1, 7)),
          ((900, 1, 7), (900, 1, 1)), ((900, 7), (900, 7)), ((900, 1), (1, 7)), ((), (900, 1, 7)), ((1, 1, 7), ()),
          ((3, 1, 1), (1, 1, 7)), ((900, 1, 1), (1, 1, 1))]


@pytest.fixture(autouse=True)
def every_size(monkeypatch):
    """The draws-innermost results at every size (a run's arrays take them from MIN_SIZE values on)."""
    monkeypatch.setattr(wide_ops, "MIN_SIZE", 0)


def _same(a, b) -> bool:
    """Equal shapes, types and bits, any NaN equal to any NaN (numpy's loops differ in a NaN's sign)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == np.float64:
        a, b = np.where(np.isnan(a), np.nan, a), np.where(np.isnan(b), np.nan, b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def _values(shape, seed, layout="C"):
    rng = np.random.default_rng(seed)
    with np.errstate(over="ignore"):
        values = rng.choice(SPECIAL, size=shape) * rng.choice([1.0, 3.3, 1e-5], size=shape) if shape else 2.5
    return np.asfortranarray(values) if layout == "F" else values


@pytest.mark.parametrize("left, right", SHAPES)
@pytest.mark.parametrize("op", sorted(set(_NUMPY) - {"^"}) + ["min", "max"])
@pytest.mark.parametrize("layout", ["C", "F"])
def test_arithmetic_is_numpys(left, right, op, layout):
    ufunc = {"min": np.minimum, "max": np.maximum}.get(op) or _NUMPY[op]
    a, b = _values(left, 1, layout), _values(right, 2)
    with np.errstate(all="ignore"):
        got, expected = wide_ops.binary(ufunc)(a, b), ufunc(a, b)
    assert _same(got, expected)
    if len(left) == len(right) == 3 and got.shape not in (left, right) and wide_ops.wide_shape(got.shape):
        assert got.flags.f_contiguous   # the draws innermost


@pytest.mark.parametrize("left, right", SHAPES)
@pytest.mark.parametrize("op", sorted(_COMPARE))
def test_comparisons_and_logic_are_numpys(left, right, op):
    a, b = _values(left, 3), _values(right, 4)
    with np.errstate(all="ignore"):
        assert _same(wide_ops.binary(_COMPARE[op], logical=True)(a, b), _COMPARE[op](a, b))
    for ufunc in (np.logical_and, np.logical_or):
        assert _same(wide_ops.binary(ufunc, logical=True)(a > 1, b > 1), ufunc(a > 1, b > 1))


def test_other_types_are_left_to_numpy():
    a, b = np.arange(900).reshape(900, 1, 1), np.arange(7).reshape(1, 1, 7)
    with np.errstate(all="ignore"):
        for ufunc in (np.add, np.true_divide, np.multiply):
            assert _same(wide_ops.binary(ufunc)(a, b), ufunc(a, b))


@pytest.mark.parametrize("test_shape, then_shape, otherwise_shape",
                         [((1, 1, 7), (900, 1, 1), ()), ((1, 1, 7), (900, 1, 7), ()), ((900, 1, 1), (1, 1, 7), (1, 1, 7)),
                          ((1, 7), (900, 1), (900, 7)), ((1, 1, 1), (900, 1, 7), (900, 1, 1))])
def test_where_is_np_where(test_shape, then_shape, otherwise_shape):
    rng = np.random.default_rng(5)
    test = rng.random(test_shape) > 0.4
    then, otherwise = _values(then_shape, 6), _values(otherwise_shape, 7)
    assert _same(wide_ops.where(test, then, otherwise), np.where(test, then, otherwise))
    assert _same(year_where.where(test, then, otherwise, wide=True), np.where(test, then, otherwise))
    for layout in ("C", "F"):
        then = _values(then_shape, 8, layout)
        for other in (0.0, -0.0, np.nan):
            assert _same(year_where.where(test, then, other, wide=True), np.where(test, then, other))


@pytest.mark.parametrize("shape", [(900, 1, 7), (900, 7), (900, 2, 1), (7,), (900, 1, 12)])
@pytest.mark.parametrize("layout", ["C", "F"])
def test_cumsum_is_np_cumsum(shape, layout):
    values = _values(shape, 9, layout)
    with np.errstate(all="ignore"):
        assert _same(wide_ops.cumsum(values, axis=-1), np.cumsum(values, axis=-1))
    assert _same(wide_ops.cumsum(np.arange(12.0).reshape(3, 4), axis=0), np.cumsum(np.arange(12.0).reshape(3, 4), axis=0))


@pytest.mark.parametrize("shape, axis", [((900, 1, 12), -1), ((900, 9, 5), -2), ((900, 1, 5), -1), ((900, 12), -1)])
def test_sums_are_those_of_the_c_order(shape, axis):
    values = _values(shape, 10)
    with np.errstate(all="ignore"):
        expected = np.sum(values, axis=axis)   # numpy's own sum over the C order
        for layout in (values, np.asfortranarray(values)):
            assert _same(wide_ops.sum_c_order(layout, axis), expected)
