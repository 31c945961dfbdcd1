"""An expression compiled once (tcoapp/engine/quantities/expr_compiled.py) gives `Expr.numpy`'s numbers bit for bit:
every expression of the quantity table (pool and plan quantities, pool and plan year rows, the server capex), over
values that reach every branch (NaN, zeros, negatives), names read under pools sums prefixed as the walk prefixes
them, and a node kind the compiler does not know walked by its own `numpy`."""
import zlib
from dataclasses import dataclass

import numpy as np
import pytest

from tcoapp.engine.finance.year_rows import PLAN_YEAR_EXPRESSIONS, POOL_YEAR_EXPRESSIONS
from tcoapp.engine.quantities import expr as E
from tcoapp.engine.quantities.expr_compiled import numpy_function
from tcoapp.engine.quantities.finance import PLAN_EXPRESSIONS, POOL_EXPRESSIONS, SERVER_CAPEX

EXPRESSIONS = PLAN_EXPRESSIONS + POOL_EXPRESSIONS + POOL_YEAR_EXPRESSIONS + PLAN_YEAR_EXPRESSIONS + (("server capex", SERVER_CAPEX),)


def _values(seed: int, shape=(6,), pool_axis: int = -1):
    """A surface: every name an array of its own (NaN, 0 and negative values among them), the pools on `pool_axis`."""
    read: list[str] = []

    def value(name: str):
        read.append(name)
        if name.endswith(E.POOL_AXIS):
            return np.asarray(pool_axis)
        rng = np.random.default_rng(zlib.crc32(name.encode()) + seed)
        out = rng.choice([np.nan, 0.0, -1.5, 1.0, 2.0, 3.0], size=shape) * rng.uniform(0.5, 2.0, shape)
        return out
    return value, read


def _bits(x) -> bytes:
    x = np.asarray(x)
    return str((x.shape, x.dtype)).encode() + x.tobytes()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_table_expression_compiles_to_the_same_numbers(seed):
    assert len(EXPRESSIONS) > 50
    for key, expr in EXPRESSIONS:
        walk, walked = _values(seed)
        compiled, read = _values(seed)
        with np.errstate(all="ignore"):
            assert _bits(numpy_function(expr)(compiled)) == _bits(expr.numpy(walk)), key
        assert sorted(set(read)) == sorted(set(walked)), key   # the same names, pools prefixes included


def test_large_arrays_take_the_same_short_sums():
    """Arrays of MIN_SIZE values or more, pools on a short axis: the sums over pools take short_sum's chain of adds
    in both."""
    for key, expr in EXPRESSIONS:
        walk, _ = _values(3, (5, 4096), 0)
        compiled, _ = _values(3, (5, 4096), 0)
        with np.errstate(all="ignore"):
            assert _bits(numpy_function(expr)(compiled)) == _bits(expr.numpy(walk)), key


def test_names_under_pools_sums_carry_the_walks_prefixes():
    expr = E.pools_sum(E.pools_total(E.K("a") * E.Y("b"))) + E.pools_max("c")
    walk, walked = _values(0)
    compiled, read = _values(0)
    assert _bits(numpy_function(expr)(compiled)) == _bits(expr.numpy(walk))
    assert read == walked and E.POOLS + E.IN_POOL + "a" in read and E.POOLS + E.POOL_AXIS in read


@dataclass(frozen=True, eq=False)
class _Twice(E.Expr):
    """A node kind the compiler does not know."""
    arg: E.Expr

    def numpy(self, value):
        return 2.0 * self.arg.numpy(value)


def test_a_node_kind_it_does_not_know_is_walked_by_its_own_numpy():
    expr = E.pools_sum(_Twice(E.K("a"))) + 1
    walk, walked = _values(0)
    compiled, read = _values(0)
    assert _bits(numpy_function(expr)(compiled)) == _bits(expr.numpy(walk))
    assert read == walked == [E.POOLS + "a"]
