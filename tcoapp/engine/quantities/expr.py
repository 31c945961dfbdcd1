"""A quantity's equation written once (docs/workbook_format.md, "Results" and "CashFlow"): a small expression
over the table's keys, its year rows and the named constants, compiled both to the numpy computation of the
engine and to the live Excel formula of the Results or CashFlow sheet.

    cost = when_positive(K("output_tokens_per_year"),
                         (K("capex_usd_per_year") + K("opex_usd_per_year")) / K("output_tokens_per_year")
                         * C("TOKENS_PER_MILLION"))
    software_usd = gated(SERVES, K("device_count") * K("software_usd_per_device_year") * Y("cost_index") * Y("active"))

- `K(key)`: a row of the table (the engine's value of that key; in the workbook the cell of its row; in a
  pool's expression the pool's row where it has one, else the plan's input);
- `Y(key)`: this year's value of a year row (a pool's expression: the pool's own row where it has one);
  `Year()` the year t; `to_date(key)` the year row summed from year 0 to this year (SUM over the columns);
- `C(name)`: a named constant (constants.py; the workbook's Constants sheet names the same cell);
- `+ - * / **` (^) and unary minus, `minimum`/`maximum` (MIN/MAX), `round_up`/`round_down` (ROUNDUP/ROUNDDOWN
  to a whole number), `when(test, a, b)` (IF), `gated(test, a)` (a row's gate: a where the test holds, else
  0, the test deciding first), `when_positive(test, value)` (the value where test > 0, else n/a), and the
  tests `compare(a, op, b)` (an arithmetic operand parenthesized), `all_of`, `any_of` (OR), `negation`,
  `is_blank(key)` (an empty input: NaN), `is_number(x)`, `is_choice(key, choice)` (the engine compares the
  choice's code, the workbook its text);
- over pools: `pools_sum(x)` (numpy sums the pool axis; the workbook adds the pools' cells), `pools_total(x)`
  (x evaluated in each pool, its keys and year rows the pool's, then summed: one term per pool), and in a
  pool's expression `plan_row(key)` (the plan's year row, not the pool's own);
- `pools_min(key)` / `pools_max(key)`: the smallest / largest of the pools' values (MIN / MAX of their cells);
- over years: `over_years(a, b)` (the sum over every year of row a x row b: SUMPRODUCT of the two rows).

`.numpy(value)` evaluates the tree with numpy, operation for operation in the order written, so an
expression gives the same floating-point numbers as the same equation typed as numpy code;
`.excel(ref, na)` writes the formula text with the fewest parentheses that keep that order. The surface
resolves the names (`value`/`ref`): finance/year_rows.py for the engine's years, io/xlsx_cashflow.py and
io/xlsx_results.py for the workbook.

Written as expressions (quantities/finance.py; docs/workbook_format.md lists each): per pool the packing
(servers, nameplate, servers per rack, racks), hardware capex and capex, the server capex a budget buys by
(SERVER_CAPEX), power, every opex line per year, the output and input tokens and the revenue per year; per plan
the cost per million tokens and its components, the revenue per rack, the net per year and the token-type rows;
per year (CashFlow) the price, electricity, cost and hardware price indices, the utilization and the discount
factor, each pool's `active`, utilization (its tranche ramp), output tokens, revenue, opex lines, capex paid,
replacements and residual value, and the plan's input tokens and input-token revenue by type (sums over pools
of each pool's terms, `pools_total`), staff, contracted colocation, opex, the replacements' value, residual
value, depreciation (its pools' and the replacements'), taxable income, cash flow, debt drawn, taxable income
after interest and the equity cash flow (the other plan rows are their pools' sum). A new opex line is one year
row with `pool_expr=` (or `expr=`) and `opex_part=`; a new itemized capex item one plan field in the "capex"
group (USD/device or USD/server).

Signs: the engine keeps every cost positive; the CashFlow sheet shows outflows (`outflow=True`: capex paid,
replacements, opex) negative. An expression reads an outflow's cell negated ("-cell"): `a - Y(outflow)` is
written a+cell, `a + Y(outflow)` a-cell (exact: IEEE negation), so one tree is both sides' sum.

Written by hand: quantities/hand_written.py names every such CashFlow and Results row with its reason (tax with
losses carried forward, depreciation schedules, the debt annuity, NPV/IRR/payback and their running helpers, the
levelized rows, the throughput index's demand cap, choices over pools, lookups of inputs), and
tests/io/test_formula_sources.py fails on a formula row that is neither the table's nor named there.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, fields
from typing import Callable

import numpy as np

from .constants import CONSTANT_VALUES
from .inputs import PLAN_FIELD_BY_NAME
from . import year_where
from .short_sum import short_sum

Value = Callable[[str], np.ndarray]
Ref = Callable[[str], str]

_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "^": 3}
_NUMPY = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.true_divide, "^": np.power}


class Expr:
    """An expression node; Python's operators build the tree."""

    precedence = 9  # an atom: never parenthesized

    def __add__(self, other): return Bin("+", self, _wrap(other))
    def __radd__(self, other): return Bin("+", _wrap(other), self)
    def __sub__(self, other): return Bin("-", self, _wrap(other))
    def __rsub__(self, other): return Bin("-", _wrap(other), self)
    def __mul__(self, other): return Bin("*", self, _wrap(other))
    def __rmul__(self, other): return Bin("*", _wrap(other), self)
    def __truediv__(self, other): return Bin("/", self, _wrap(other))
    def __rtruediv__(self, other): return Bin("/", _wrap(other), self)
    def __pow__(self, other): return Bin("^", self, _wrap(other))
    def __neg__(self): return Neg(self)

    def numpy(self, value: Value) -> np.ndarray:
        """The expression's value per element, in the unit of its row; `value(key)` gives a key's array."""
        raise NotImplementedError

    def excel(self, ref: Ref, na: str) -> str:
        """The live Excel formula text (no '='); `ref(key)` gives a key's cell and `na` the n/a text."""
        raise NotImplementedError

    def keys(self) -> tuple[str, ...]:
        """The table keys the expression reads, in the order written (each once)."""
        return ()

    def year_rows(self) -> tuple[str, ...]:
        """The year rows the expression reads (YEAR + key; a pools' sum POOLS + YEAR + key), each once: what
        must be computed before it."""
        found: list[str] = []
        for field in fields(self):  # type: ignore[arg-type]
            value = getattr(self, field.name)  # (every node is a dataclass: its fields are its operands)
            for child in value if isinstance(value, tuple) else (value,):
                if isinstance(child, Expr):
                    found += child.year_rows()
        return tuple(dict.fromkeys(found))


def _wrap(x) -> Expr:
    return x if isinstance(x, Expr) else Num(float(x))


@dataclass(frozen=True, eq=False)
class K(Expr):
    """The value of a table key."""
    key: str

    def numpy(self, value): return np.asarray(value(self.key), float)
    def excel(self, ref, na): return ref(self.key)
    def keys(self): return (self.key,)


@dataclass(frozen=True, eq=False)
class C(Expr):
    """A named constant (constants.py): its value in numpy, its name in the workbook."""
    name: str

    def __post_init__(self):
        if self.name not in CONSTANT_VALUES:
            raise KeyError(f"unknown constant {self.name!r}")

    def numpy(self, value): return CONSTANT_VALUES[self.name]
    def excel(self, ref, na): return self.name


@dataclass(frozen=True, eq=False)
class Num(Expr):
    """A plain number (0, 1: a number with a name belongs in constants.py)."""
    value: float

    def numpy(self, value): return self.value
    def excel(self, ref, na): return f"{self.value:g}"


@dataclass(frozen=True, eq=False)
class NotAvailable(Expr):
    """A value that does not exist (numpy: NaN; the workbook: its n/a text)."""

    def numpy(self, value): return np.nan
    def excel(self, ref, na): return na


@dataclass(frozen=True, eq=False)
class Neg(Expr):
    arg: Expr
    precedence = 3

    def numpy(self, value): return -self.arg.numpy(value)
    def excel(self, ref, na): return "-" + _operand(self.arg, ref, na, self.precedence, False, "-")
    def keys(self): return self.arg.keys()


@dataclass(frozen=True, eq=False)
class Bin(Expr):
    op: str
    left: Expr
    right: Expr

    @property
    def precedence(self):
        """How tightly the operator binds (higher binds tighter), as Excel and Python group it."""
        return _PRECEDENCE[self.op]

    def numpy(self, value): return _NUMPY[self.op](self.left.numpy(value), self.right.numpy(value))

    def excel(self, ref, na):
        left = _operand(self.left, ref, na, self.precedence, False, self.op)
        right = _operand(self.right, ref, na, self.precedence, True, self.op)
        if self.op in "+-" and _negated(self.right, right):  # a - (-x) is a + x, a + (-x) is a - x: exact in IEEE
            return left + ("+" if self.op == "-" else "-") + right[1:]
        return left + self.op + right

    def keys(self): return tuple(dict.fromkeys(self.left.keys() + self.right.keys()))


def _negated(child: Expr, text: str) -> bool:
    """A year row the surface shows negated (a CashFlow outflow: its cell holds -value), written "-cell"."""
    return isinstance(child, Y) and text.startswith("-")


def _operand(child: Expr, ref, na, parent: int, right: bool, op: str) -> str:
    """A child's text, parenthesized where the formula would otherwise group it differently from the tree (a
    right operand of the same precedence too: floating-point a * (b * c) is not (a * b) * c); a negated cell
    (an outflow row, "-cell") outside a sum too: Excel's unary minus binds tighter than ^."""
    text = child.excel(ref, na)
    tight = child.precedence < parent or (right and child.precedence == parent)
    if _negated(child, text) and op not in "+-":
        tight = True
    return f"({text})" if tight else text


@dataclass(frozen=True, eq=False)
class Call(Expr):
    """MIN / MAX of its arguments (numpy: minimum / maximum, NaN propagating as the workbook's n/a)."""
    name: str
    args: tuple[Expr, ...]

    def numpy(self, value):
        fn = np.minimum if self.name == "MIN" else np.maximum
        out = self.args[0].numpy(value)
        for arg in self.args[1:]:
            out = fn(out, arg.numpy(value))
        return out

    def excel(self, ref, na): return f"{self.name}(" + ",".join(a.excel(ref, na) for a in self.args) + ")"
    def keys(self): return tuple(dict.fromkeys(k for a in self.args for k in a.keys()))


@dataclass(frozen=True, eq=False)
class WhenPositive(Expr):
    """`value` where `test` > 0; else it does not exist (NaN; the workbook: n/a)."""
    test: Expr
    value: Expr

    def numpy(self, value): return np.where(self.test.numpy(value) > 0, self.value.numpy(value), np.nan)
    def excel(self, ref, na): return f"IF({self.test.excel(ref, na)}>0,{self.value.excel(ref, na)},{na})"
    def keys(self): return tuple(dict.fromkeys(self.test.keys() + self.value.keys()))


# the year axis: a name the surface resolves (the engine: an array with a trailing year axis; the CashFlow
# sheet: a cell of this year's column, or a range from year 0 to it)
YEAR = "year."          # YEAR + key: this year's value of a year row (a pool's expression: the pool's own row)
TO_DATE = "to_date."    # TO_DATE + key: the year row from year 0 to this year (a running sum)
ALL_YEARS = "all_years."  # ALL_YEARS + key: the year row over every year (a whole row; an outflow's "-row")
PLAN_YEAR = "plan_year."  # PLAN_YEAR + key: this year's value of the plan's year row (in a pool's expression too)
IN_POOL = "in_pool."    # IN_POOL + name: a name read in each pool's scope (a pools_total's term)
POOL_COUNT = "pool_count"  # the number of the plan's pools (the workbook writes one term each)
POOL_AXIS = "pool_axis"    # where the surface keeps the pools (numpy: -2 in a year row, -1 in a quantity)
POOLS_MIN, POOLS_MAX = "pools_min.", "pools_max."  # + key: the smallest / largest of the pools' values
POOLS = "pools."        # POOLS + name: the name's values over the plan's pools (a sum, a choice)
YEAR_NUMBER = YEAR + "t"  # the year t itself (0 = the start)


@dataclass(frozen=True, eq=False)
class Y(Expr):
    """This year's value of a year row `key` (in a pool's expression the pool's own row where it has one; with
    `plan` the plan's row even there)."""
    key: str
    plan: bool = False

    @property
    def name(self) -> str:
        """The name the row is looked up by: the year row's key, marked as the plan's where `plan`."""
        return (PLAN_YEAR if self.plan else YEAR) + self.key

    def numpy(self, value): return np.asarray(value(self.name), float)
    def excel(self, ref, na): return ref(self.name)
    def year_rows(self): return (self.name,)


@dataclass(frozen=True, eq=False)
class PoolsTotal(Expr):
    """The sum over the plan's pools of an expression evaluated in each pool's scope (its `K` and `Y` the pool's):
    numpy sums the pool axis of the pools' values; the workbook adds one term per pool (the surface names the
    pool count, POOL_COUNT, and each pool's names, IN_POOL + "k." + name)."""
    of: Expr
    precedence = 1  # written as a sum of terms

    def numpy(self, value):
        return short_sum(self.of.numpy(lambda name: value(IN_POOL + name)), axis=int(value(POOL_AXIS)))

    def excel(self, ref, na):
        count = ref(POOL_COUNT)
        if not count.isdigit():  # a surface without pools (the docs): the term once, its names a pool's
            return f"SUM_OVER_POOLS({self.of.excel(ref, na)})"
        return "+".join(self.pool_term(ref, k, na) for k in range(1, int(count) + 1))

    def pool_term(self, ref, k: int, na: str, of: Expr | None = None) -> str:
        """Pool k's term (or that of `of`, a part of it), its names pool k's."""
        return (of or self.of).excel(lambda name: ref(f"{IN_POOL}{k}.{name}"), na)

    def keys(self): return self.of.keys()
    def year_rows(self): return tuple(IN_POOL + name for name in self.of.year_rows())


@dataclass(frozen=True, eq=False)
class Year(Expr):
    """The year t (0 = the start; the CashFlow sheet: its column's year)."""

    def numpy(self, value): return value(YEAR_NUMBER)
    def excel(self, ref, na): return ref(YEAR_NUMBER)


@dataclass(frozen=True, eq=False)
class ToDate(Expr):
    """The year row `key` summed from year 0 to this year (numpy: a cumulative sum over the year axis)."""
    key: str

    def numpy(self, value): return np.cumsum(np.asarray(value(YEAR + self.key), float), axis=-1)
    def excel(self, ref, na): return f"SUM({ref(TO_DATE + self.key)})"
    def year_rows(self): return (YEAR + self.key,)


@dataclass(frozen=True, eq=False)
class OverYears(Expr):
    """The sum over every year of the product of two year rows (numpy: over the year axis, kept as a year axis
    of one; the workbook: SUMPRODUCT of their whole rows, "-SUMPRODUCT" where the first is shown negated)."""
    first: str
    second: str

    def numpy(self, value):
        return short_sum(np.asarray(value(YEAR + self.first), float) * np.asarray(value(YEAR + self.second), float),
                         axis=-1)[..., None]

    def excel(self, ref, na):
        first, second = ref(ALL_YEARS + self.first), ref(ALL_YEARS + self.second)
        sign, first = ("-", first[1:]) if first.startswith("-") else ("", first)
        return f"{sign}SUMPRODUCT({first},{second})"

    def year_rows(self): return (YEAR + self.first, YEAR + self.second)


@dataclass(frozen=True, eq=False)
class Pools(Expr):
    """The sum over the plan's pools of a row (`Y(key)` or `K(key)`): numpy sums the pool axis, the workbook
    adds the pools' cells (the surface's resolver does both: it knows where the pool axis is)."""
    of: Expr
    precedence = 1  # written as a sum of cells: parenthesized where a sum would be

    def numpy(self, value): return self.of.numpy(lambda name: value(POOLS + name))
    def excel(self, ref, na): return self.of.excel(lambda name: ref(POOLS + name), na)
    def year_rows(self): return tuple(POOLS + name for name in self.of.year_rows())


_COMPARE = {"=": np.equal, "<>": np.not_equal, ">": np.greater, ">=": np.greater_equal, "<=": np.less_equal}


@dataclass(frozen=True, eq=False)
class Cmp(Expr):
    """A comparison (a test of IF / AND): 1 where it holds."""
    op: str
    left: Expr
    right: Expr
    precedence = 0  # binds loosest (Excel and Python alike)

    def numpy(self, value): return _COMPARE[self.op](self.left.numpy(value), self.right.numpy(value))

    def excel(self, ref, na):
        return _compared(self.left, ref, na) + self.op + _compared(self.right, ref, na)
    def keys(self): return tuple(dict.fromkeys(self.left.keys() + self.right.keys()))


def _compared(child: Expr, ref, na) -> str:
    """An operand of a comparison: an arithmetic one parenthesized, (a-b)>=c, as a reader groups it."""
    text = child.excel(ref, na)
    return f"({text})" if isinstance(child, (Bin, Neg)) else text


@dataclass(frozen=True, eq=False)
class Test(Expr):
    """AND(...) / OR(...) of tests, NOT(test), ISBLANK(key) (numpy: NaN, a field left empty), ISNUMBER(x) (numpy: finite;
    the workbook: not its n/a text), or key = "choice" (a choice field: numpy compares its code, the workbook its
    text)."""
    name: str
    args: tuple[Expr, ...]
    choice: str = ""

    def numpy(self, value):
        if self.name in ("AND", "OR"):
            both = np.logical_and if self.name == "AND" else np.logical_or
            return functools.reduce(both, (a.numpy(value) for a in self.args))
        arg = self.args[0].numpy(value)
        if self.name == "NOT":
            return np.logical_not(arg)
        if self.name == "ISBLANK":
            return np.isnan(arg)
        if self.name == "ISNUMBER":
            return np.isfinite(arg)
        return arg == float(PLAN_FIELD_BY_NAME[self.args[0].keys()[0]].choices.index(self.choice))

    def excel(self, ref, na):
        if self.choice:
            return f'{self.args[0].excel(ref, na)}="{self.choice}"'
        return f"{self.name}(" + ",".join(a.excel(ref, na) for a in self.args) + ")"

    def keys(self): return tuple(dict.fromkeys(k for a in self.args for k in a.keys()))


@dataclass(frozen=True, eq=False)
class If(Expr):
    """`then` where `test` holds, else `otherwise` (IF; numpy: where)."""
    test: Expr
    then: Expr
    otherwise: Expr

    def numpy(self, value):
        return year_where.where(self.test.numpy(value), self.then.numpy(value), self.otherwise.numpy(value))

    def excel(self, ref, na):
        return f"IF({self.test.excel(ref, na)},{self.then.excel(ref, na)},{self.otherwise.excel(ref, na)})"

    def keys(self): return tuple(dict.fromkeys(self.test.keys() + self.then.keys() + self.otherwise.keys()))


@dataclass(frozen=True, eq=False)
class Gate(If):
    """A row's gate: `then` where `test` holds, else 0, the test deciding first. At the top of a row the workbook
    guards only `then` against n/a (a pool that does not serve costs 0 even where its numbers are n/a)."""


@dataclass(frozen=True, eq=False)
class Round(Expr):
    """ROUNDUP(x,0) / ROUNDDOWN(x,0) of a quantity >= 0 (numpy: ceil / floor): whole servers and racks."""
    name: str
    arg: Expr

    def numpy(self, value): return (np.ceil if self.name == "ROUNDUP" else np.floor)(self.arg.numpy(value))
    def excel(self, ref, na): return f"{self.name}({self.arg.excel(ref, na)},0)"
    def keys(self): return self.arg.keys()


def when(test, then, otherwise=0) -> Expr:
    """`then` where `test` holds, else `otherwise` (Excel IF)."""
    return If(_wrap(test), _wrap(then), _wrap(otherwise))


def gated(test, then) -> Expr:
    """A row's gate: `then` where `test` holds, else 0 (the test over values that always exist decides first)."""
    return Gate(_wrap(test), _wrap(then), Num(0.0))


def compare(left, op: str, right) -> Expr:
    """The test `left op right`, op one of = <> > >= <=."""
    if op not in _COMPARE:
        raise KeyError(f"unknown comparison {op!r}")
    return Cmp(op, _wrap(left), _wrap(right))


def all_of(*tests) -> Expr:
    """Every test holds (Excel AND)."""
    return Test("AND", tuple(_wrap(t) for t in tests))


def any_of(*tests) -> Expr:
    """At least one test holds (Excel OR)."""
    return Test("OR", tuple(_wrap(t) for t in tests))


def negation(test) -> Expr:
    """The test does not hold (Excel NOT)."""
    return Test("NOT", (_wrap(test),))


def is_blank(key: str) -> Expr:
    """The input field `key` is left empty (numpy: NaN)."""
    return Test("ISBLANK", (K(key),))


def is_number(x) -> Expr:
    """x exists (numpy: finite; the workbook: a number, not n/a)."""
    return Test("ISNUMBER", (_wrap(x),))


def not_available() -> Expr:
    """A value that does not exist (NaN; the workbook's n/a)."""
    return NotAvailable()


def is_choice(key: str, choice: str) -> Expr:
    """The choice field `key` (a plan input) is `choice`."""
    if choice not in PLAN_FIELD_BY_NAME[key].choices:
        raise KeyError(f"{choice!r} is not a choice of {key}")
    return Test("=", (K(key),), choice)


def to_date(key: str) -> Expr:
    """The year row `key` summed from year 0 to this year."""
    return ToDate(key)


def over_years(first: str, second: str) -> Expr:
    """The sum over every year of year row `first` x year row `second` (Excel SUMPRODUCT of the two rows)."""
    return OverYears(first, second)


@dataclass(frozen=True, eq=False)
class PoolsExtreme(Expr):
    """The smallest or largest over the plan's pools of a pool quantity (the surface reduces its pool axis; the
    workbook: MIN / MAX of the pools' cells)."""
    prefix: str
    key: str

    def numpy(self, value): return np.asarray(value(self.prefix + self.key), float)
    def excel(self, ref, na): return ref(self.prefix + self.key)
    def keys(self): return (self.key,)


def pools_min(key: str) -> Expr:
    """The smallest over the plan's pools of pool quantity `key` (Excel MIN of the pools' cells)."""
    return PoolsExtreme(POOLS_MIN, key)


def pools_max(key: str) -> Expr:
    """The largest over the plan's pools of pool quantity `key` (Excel MAX of the pools' cells)."""
    return PoolsExtreme(POOLS_MAX, key)


def pools_total(x) -> Expr:
    """The sum over the plan's pools of x evaluated in each pool (its keys and year rows the pool's)."""
    return PoolsTotal(_wrap(x))


def plan_row(key: str) -> Expr:
    """This year's value of the plan's year row `key` (in a pool's expression: not the pool's own row)."""
    return Y(key, plan=True)


def round_up(x) -> Expr:
    """The whole number at or above x >= 0 (Excel ROUNDUP(x,0))."""
    return Round("ROUNDUP", _wrap(x))


def round_down(x) -> Expr:
    """The whole number at or below x >= 0 (Excel ROUNDDOWN(x,0))."""
    return Round("ROUNDDOWN", _wrap(x))


def pools_sum(x) -> Expr:
    """The sum over the plan's pools of a row (`Y(key)`: a year row's; `K(key)`: a pool quantity's)."""
    return Pools(_wrap(x))


def serving() -> Expr:
    """The years 1..n of the plan's horizon (n = years)."""
    return all_of(compare(Year(), ">=", 1), compare(Year(), "<=", K("years")))


def minimum(*args) -> Expr:
    """The smallest of the arguments (Excel MIN)."""
    return Call("MIN", tuple(_wrap(a) for a in args))


def maximum(*args) -> Expr:
    """The largest of the arguments (Excel MAX)."""
    return Call("MAX", tuple(_wrap(a) for a in args))


def when_positive(test, value) -> Expr:
    """`value` where `test` > 0, else it does not exist (NaN in numpy, n/a in the workbook)."""
    return WhenPositive(_wrap(test), _wrap(value))


def per_million(usd, tokens) -> Expr:
    """USD per million tokens; does not exist where no tokens are made (costs.per_million's equation)."""
    return when_positive(tokens, usd / tokens * C("TOKENS_PER_MILLION"))
