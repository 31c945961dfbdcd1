"""`year_where.where` is np.where, bit for bit: a year row's gate tested by year alone over every draw, and every
other case handed to np.where."""
import numpy as np
import pytest

from tcoapp.engine.quantities import year_where
from tcoapp.engine.quantities.year_where import where


@pytest.fixture(autouse=True)
def every_size(monkeypatch):
    """The column assignment at every size (a run's arrays take it from MIN_SIZE values on)."""
    monkeypatch.setattr(year_where, "MIN_SIZE", 0)


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("test_shape, then_shape", [((1, 1, 5), (900, 1, 5)), ((1, 1, 5), (4000, 1, 5)), ((1, 5), (900, 5)), ((5,), (900, 5)),
                                                    ((1, 1, 5), (900, 1, 1)), ((1, 1, 5), (1, 1, 5)),
                                                    ((1, 5), (900, 1)), ((1, 1, 7), (30, 2, 7))])
@pytest.mark.parametrize("otherwise", [0.0, np.nan, -0.0, np.float64(2.5), np.asarray(-1.0)])
def test_where_by_year_is_np_where(test_shape, then_shape, otherwise):
    rng = np.random.default_rng(sum(test_shape) + sum(then_shape))
    test = rng.random(test_shape) > 0.4
    then = rng.choice([-0.0, np.nan, np.inf, 1.5, -3.25], size=then_shape) * rng.random(then_shape)
    assert _same(where(test, then, otherwise), np.where(test, then, otherwise))
    assert _same(where(np.ones(test_shape, bool), then, otherwise), np.where(np.ones(test_shape, bool), then, otherwise))


@pytest.mark.parametrize("test, then, otherwise", [
    (np.array([[True], [False]]), np.ones((2, 3)), 0.0),              # a test over draws, not years
    (np.array([True, False, True]), np.ones((4, 3)), np.zeros((4, 3))),   # `otherwise` an array
    (np.array([True, False, True]), np.ones((4, 3), int), 0.0),       # integer values
    (np.array([1.0, 0.0, 2.0]), np.ones((4, 3)), 0.0),                 # a float test
    (np.array([True]), np.ones((4, 3)), 0.0),                         # one test for every year
    (True, np.ones((4, 3)), 0.0),
])
def test_other_cases_are_np_where(test, then, otherwise):
    assert _same(where(test, then, otherwise), np.where(test, then, otherwise))
