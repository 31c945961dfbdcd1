"""An expression's numpy evaluation compiled once into one Python function (quantities/expr.py).

`Expr.numpy(value)` walks the tree on every call: one method call, one operator lookup and one closure per
node. The finance layer evaluates the same few hundred nodes on every call (a serving search prices its
candidates this way, docs/model.md "Serving search"), so `numpy_function(expr)` writes the tree once as the
straight-line code of one function, node by node in the order `Expr.numpy` evaluates them (children before
their parent, left before right) with the same numpy functions on the same operands: the same floating-point
numbers, without the walk. A name read under `pools_sum` / `pools_total` is the name `Expr.numpy` would pass
its surface (the prefixes POOLS, IN_POOL stacked outermost first), fixed when the function is written.
"""
from __future__ import annotations

import functools
from typing import Callable, cast

import numpy as np

from . import expr as E
from . import wide_ops, year_where
from .short_sum import short_sum

Value = Callable[[str], np.ndarray]

_BINARY = {op: f"_bin_{i}" for i, op in enumerate(E._NUMPY)}
_COMPARE = {op: f"_cmp_{i}" for i, op in enumerate(E._COMPARE)}
_GLOBALS = {"_asarray": np.asarray, "_float": float, "_int": int, "_where": np.where, "_year_where": year_where.where,
            "_short_sum": short_sum,
            "_cumsum": np.cumsum, "_minimum": np.minimum, "_maximum": np.maximum, "_and": np.logical_and,
            "_or": np.logical_or, "_not": np.logical_not, "_isnan": np.isnan, "_isfinite": np.isfinite,
            "_ceil": np.ceil, "_floor": np.floor,
            **{name: E._NUMPY[op] for op, name in _BINARY.items()},
            **{name: E._COMPARE[op] for op, name in _COMPARE.items()}}
# `numpy_function(expr, wide=True)`: the same operations with the draws innermost where a result is wide
# (wide_ops.py); np.power keeps numpy's own loop
_WIDE_GLOBALS = {**_GLOBALS,
                 **{name: wide_ops.binary(E._NUMPY[op]) for op, name in _BINARY.items() if op != "^"},
                 **{name: wide_ops.binary(E._COMPARE[op], logical=True) for op, name in _COMPARE.items()},
                 "_minimum": wide_ops.binary(np.minimum), "_maximum": wide_ops.binary(np.maximum),
                 "_and": wide_ops.binary(np.logical_and, logical=True),
                 "_or": wide_ops.binary(np.logical_or, logical=True),
                 "_where": wide_ops.where, "_year_where": functools.partial(year_where.where, wide=True),
                 "_short_sum": wide_ops.sum_c_order, "_cumsum": wide_ops.cumsum}


@functools.lru_cache(maxsize=None)
def numpy_function(expr: E.Expr, wide: bool = False) -> Callable[[Value], np.ndarray]:
    """f(value) = `expr.numpy(value)`: the same numbers, the tree compiled once (module docstring). Kept per
    expression (the quantity table's are built once). `wide`: its operations those of `wide_ops` (the same
    numbers, the draws innermost in memory: a Monte Carlo run's year rows)."""
    writer = _Writer()
    result = writer.node(expr, "")
    source = "def f(value):\n" + "".join(f"    {line}\n" for line in writer.lines) + f"    return {result}\n"
    namespace = dict(_WIDE_GLOBALS if wide else _GLOBALS, **writer.constants)
    exec(compile(source, f"<compiled {type(expr).__name__} expression>", "exec"), namespace)  # noqa: S102 (our own text)
    return cast(Callable[[Value], np.ndarray], namespace["f"])


class _Writer:
    """Writes a tree as assignments to locals t0, t1, ... (one per node, children first)."""

    def __init__(self):
        self.lines: list[str] = []
        self.constants: dict[str, object] = {}

    def constant(self, value) -> str:
        name = f"_k{len(self.constants)}"
        self.constants[name] = value
        return name

    def assign(self, text: str) -> str:
        name = f"t{len(self.lines)}"
        self.lines.append(f"{name} = {text}")
        return name

    def read(self, name: str, prefix: str) -> str:
        return f"value({prefix + name!r})"

    def node(self, x: E.Expr, prefix: str) -> str:
        """The local holding x's value (`prefix`: what the enclosing pools sums add to a name)."""
        write = _WRITERS.get(type(x))
        if write is None:  # a node kind written after this module: its own walk, under the same names
            walked = self.constant(x)
            return self.assign(f"{walked}.numpy(lambda name: value({prefix!r} + name))")
        return write(self, x, prefix)


def _atom(w: _Writer, x, p: str) -> str:
    if isinstance(x, E.K):
        return w.assign(f"_asarray({w.read(x.key, p)}, _float)")
    if isinstance(x, E.Y):
        return w.assign(f"_asarray({w.read(x.name, p)}, _float)")
    if isinstance(x, E.PoolsExtreme):
        return w.assign(f"_asarray({w.read(x.prefix + x.key, p)}, _float)")
    if isinstance(x, E.Year):
        return w.assign(w.read(E.YEAR_NUMBER, p))
    if isinstance(x, E.C):
        return w.constant(E.CONSTANT_VALUES[x.name])
    if isinstance(x, E.Num):
        return w.constant(x.value)
    return w.constant(np.nan)  # NotAvailable


def _arithmetic(w: _Writer, x, p: str) -> str:
    if isinstance(x, E.Neg):
        return w.assign(f"-{w.node(x.arg, p)}")
    if isinstance(x, E.Bin):
        left = w.node(x.left, p)
        return w.assign(f"{_BINARY[x.op]}({left}, {w.node(x.right, p)})")
    if isinstance(x, E.Call):
        out = w.node(x.args[0], p)
        for arg in x.args[1:]:
            out = w.assign(f"{'_minimum' if x.name == 'MIN' else '_maximum'}({out}, {w.node(arg, p)})")
        return out
    return w.assign(f"{'_ceil' if x.name == 'ROUNDUP' else '_floor'}({w.node(x.arg, p)})")  # Round


def _choices(w: _Writer, x, p: str) -> str:
    if isinstance(x, E.WhenPositive):
        test = w.node(x.test, p)
        return w.assign(f"_where({test} > 0, {w.node(x.value, p)}, {w.constant(np.nan)})")
    if isinstance(x, E.If):  # Gate too
        test, then = w.node(x.test, p), w.node(x.then, p)
        return w.assign(f"_year_where({test}, {then}, {w.node(x.otherwise, p)})")
    if isinstance(x, E.Cmp):
        left = w.node(x.left, p)
        return w.assign(f"{_COMPARE[x.op]}({left}, {w.node(x.right, p)})")
    return _test(w, x, p)


def _test(w: _Writer, x: E.Test, p: str) -> str:
    if x.name in ("AND", "OR"):   # functools.reduce over the arguments: one argument is itself
        out = w.node(x.args[0], p)
        for term in x.args[1:]:
            out = w.assign(f"{'_and' if x.name == 'AND' else '_or'}({out}, {w.node(term, p)})")
        return out
    arg = w.node(x.args[0], p)
    if x.name in ("NOT", "ISBLANK", "ISNUMBER"):
        return w.assign(f"{dict(NOT='_not', ISBLANK='_isnan', ISNUMBER='_isfinite')[x.name]}({arg})")
    code = float(E.PLAN_FIELD_BY_NAME[x.args[0].keys()[0]].choices.index(x.choice))
    return w.assign(f"{arg} == {w.constant(code)}")


def _over(w: _Writer, x, p: str) -> str:
    if isinstance(x, E.Pools):
        return w.node(x.of, p + E.POOLS)
    if isinstance(x, E.PoolsTotal):
        terms = w.node(x.of, p + E.IN_POOL)
        return w.assign(f"_short_sum({terms}, axis=_int({w.read(E.POOL_AXIS, p)}))")
    if isinstance(x, E.ToDate):
        return w.assign(f"_cumsum(_asarray({w.read(E.YEAR + x.key, p)}, _float), axis=-1)")
    first = f"_asarray({w.read(E.YEAR + x.first, p)}, _float)"   # OverYears
    return w.assign(f"_short_sum({first} * _asarray({w.read(E.YEAR + x.second, p)}, _float), axis=-1)[..., None]")


_WRITERS = {**dict.fromkeys((E.K, E.Y, E.PoolsExtreme, E.Year, E.C, E.Num, E.NotAvailable), _atom),
            **dict.fromkeys((E.Neg, E.Bin, E.Call, E.Round), _arithmetic),
            **dict.fromkeys((E.WhenPositive, E.If, E.Gate, E.Cmp, E.Test), _choices),
            **dict.fromkeys((E.Pools, E.PoolsTotal, E.ToDate, E.OverYears), _over)}
