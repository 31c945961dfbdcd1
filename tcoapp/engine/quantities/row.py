"""The one row type of the quantity table: every row is a `Row`, with the same base columns (key,
scope, unit, label, help). A row kind adds only its own columns: an input `Field`
its type, default, allowed range and group; a finance `Quantity` its array axis and the lists it
flows into; a result `Metric` its preferred direction and the lists it is in. A row's scope is the
table it is a row of (an input of a plan, pool, device...; a finance input, a pool or plan quantity,
a year row, a metric, a factor): `scoped` sets it where that table is defined (docs/workbook_format.md,
"Results")."""
from __future__ import annotations

import keyword
from dataclasses import dataclass, fields as dc_fields, replace
from typing import Any, TypeVar


@dataclass(frozen=True, kw_only=True)
class Row:
    """The columns every row of the quantity table has."""
    key: str
    scope: str = ""  # the table the row is a row of (table.py, SCOPES); set by `scoped`
    unit: str
    label: str = ""  # the readable name beside the key ("": a finance quantity the sheets name themselves)
    help: str


R = TypeVar("R", bound=Row)


def scoped(scope: str, rows: tuple[R, ...]) -> tuple[R, ...]:
    """`rows` as rows of the table `scope` (a row already in another table is an error)."""
    wrong = [r.key for r in rows if r.scope not in ("", scope)]
    if wrong:
        raise ValueError(f"rows of another table than {scope!r}: {', '.join(wrong)}")
    return tuple(r if r.scope == scope else replace(r, scope=scope) for r in rows)


BASE_COLUMNS: tuple[str, ...] = tuple(f.name for f in dc_fields(Row))


@dataclass(frozen=True, kw_only=True)
class Field(Row):
    """An input (inputs.py, factors.py): a key of a workbook sheet, validated against its type and range."""
    type: str  # "float" | "int" | "str" | "bool" | "choice"
    default: Any
    min: float | None
    max: float | None
    group: str
    choices: tuple[str, ...] = ()
    required: bool = False
    min_exclusive: bool = False
    zero_text: str = ""  # how a 0 reads where 0 means "not entered" (a cost left out), not "free"
    # where the key flows
    economics: int = 0   # a device field the finance layer reads per pool: its position (DEVICE_ECONOMICS_KEYS)
    checks: str = ""     # "": the workbook Checks snapshot it; "doc": documentation; "identity": the name a row
                         # is found by; "live": the workbook's own formulas follow it (an edit is recomputed)
    sizing: tuple[str, ...] = ()  # the sizing modes that read it (facility_power, capex_budget, demand)
    replaced: bool = False  # an itemized capex item per device that a failed device's replacement pays too
    per_device_year: bool = False  # an itemized opex line (USD/device/yr): the field is the line, its year row made
                                   # from it (quantities/finance.py, _device_line)

    @property
    def name(self) -> str:
        """The field's key (the name its sheet and its record know it by)."""
        return self.key

    @property
    def fraction(self) -> bool:
        """Whether the field holds a fraction (0..1, `fraction` or a rate `fraction/yr`): `8%` typed as
        text is 0.08."""
        return self.unit == "fraction" or self.unit.startswith("fraction/")

    def range_text(self) -> str:
        """Human text of the allowed values, used in every error message."""
        if self.type == "choice":
            return "one of " + ", ".join(self.choices)
        if self.type == "bool":
            return "TRUE or FALSE"
        if self.type == "str":
            return "text"
        kind = "a whole number" if self.type == "int" else "a number"
        low = None
        if self.min is not None:
            low = f"{'>' if self.min_exclusive else '>='} {_fmt(self.min)}"
        high = None if self.max is None else f"<= {_fmt(self.max)}"
        if self.min is not None and self.max is not None and not self.min_exclusive:
            return f"{kind} between {_fmt(self.min)} and {_fmt(self.max)}"
        bounds = " and ".join(b for b in (low, high) if b)
        return f"{kind} {bounds}" if bounds else kind


# The fit scope of an efficiency factor (`Factor.fit`): which fits may move it.
GLOBAL = "global"  # the shipped global fit to the public measurements (tools/refit_factors.py), and a user's curve fit
CURVE = "curve"    # a user's fit to a measured curve (`tcoapp calibrate`); the global fit holds it at its default
HELD = ""          # no fit moves it unless named by hand (a maturity rate) or at all (no fit bounds)
FIT_SCOPES = (GLOBAL, CURVE, HELD)


@dataclass(frozen=True, kw_only=True)
class Factor(Field):
    """An efficiency factor of the generated (roofline) curve (factor_rows.py): a Calibration sheet key
    whose one row holds its default, allowed range, fit scope and fit bounds, label, help and where the
    default comes from."""
    type: str = "float"
    group: str = "factor"
    provenance: str          # where the default comes from: the fit, a rule of thumb with its reason
    fit: str = HELD          # which fits may move it (GLOBAL, CURVE, HELD)
    fit_bounds: tuple[float, float] | None = None  # the physical bounds of a fit, (low, high) > 0: it fits in log space
    architecture: str = ""   # a compute ratio: the device architecture (catalog `architecture`) it applies to
    layer_architecture: str = ""  # a per-layer overhead ratio: the device architecture it applies to
    stack: str = ""          # a stack's step factor: the serving stack it applies to (a measurement row's)
    prior: float | None = None  # a GLOBAL factor: the anchor the shipped fit pulls it toward (factor_fit.PRIOR_SD)


def _fmt(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() and abs(x) >= 1000 else f"{x:g}"


def _f(name, type_, unit, default, lo, hi, group, label, help_, **kw) -> Field:
    return Field(key=name, type=type_, unit=unit, default=default, min=lo, max=hi, group=group, label=label,
                 help=help_, **kw)


def attribute(key: str) -> str:
    """A record's attribute for a field key: the key, '_' appended where it is a Python keyword (the
    Workloads sheet's `class` column is the attribute `class_`)."""
    return f"{key}_" if keyword.iskeyword(key) else key


def by_name(fields: tuple[Field, ...]) -> dict[str, Field]:
    """The fields keyed by their name."""
    return {f.name: f for f in fields}


@dataclass(frozen=True, kw_only=True)
class Quantity(Row):
    """A finance quantity (finance.py): an input of the finance layer or what it computes, per pool,
    per plan or per year, with the columns saying where it flows."""
    axis: str  # "pool": the last array axis is the pool axis; "plan": per plan (a year row: trailing year axis)
    field: str = ""          # a finance input that is an input field: the field's key (its unit, help and default are the field's)
    default: float | None = None  # a finance input a caller may leave out: its "no change" value (None: required)
    opex_part: str = ""      # a year row that is one part of opex: the part's name (cost per token, bridge)
    rate_input: str = ""     # an opex part that is this finance input (a fraction per year) x the capex still held
    device_input: str = ""   # an opex part that is this finance input (USD per device-year) x the serving devices
    bar: str = ""            # the cost bar's segment the part is drawn in ("other": summed into one segment)
    bridge: int = 0          # position of the part in the cost bridge (0: capex first)
    cashflow: str = ""       # a year row: the CashFlow block part it is a row of ("years"; "financing": after the IRR rows)
    cached: bool = True      # a CashFlow row whose engine value is cached in the file (False: left to the formula)
    pool_year: int = 0       # a year row also kept per pool: its position among the pool rows (YearRows.pool_*, CashFlow)
    carried: bool = False    # past a plan's horizon the CashFlow row keeps its last value (a running total)
    levelized: bool = False  # a year row whose levelized value is a plan's "per year" quantity
    json: bool = False       # a year row written per year by `tcoapp compute --json`
    swing: int = 0           # an input the tornado swings: its position
    summed: bool = False     # a pool quantity whose plan value is the pools' sum
    pool_json: int = 0       # position among a pool's `compute --json` economics
    expr: Any = None         # a plan quantity's equation (expr.py): the engine's numpy and the Results formula
                             # (a year row: the plan's row over its year; one kept per pool: by default the pools' sum)
    pool_expr: Any = None    # a year row kept per pool: each pool's equation over its year (the CashFlow pool row)
    outflow: bool = False    # a year row the CashFlow sheet shows as a cash outflow (its expression negated)

    @property
    def annual_key(self) -> str:
        """A year row's plan (and pool) quantity per year: its levelized value (the one place this name is made)."""
        return f"{self.key}_per_year"


@dataclass(frozen=True, kw_only=True)
class Metric(Row):
    """A result metric (metrics.py): one field of the typed `Metrics` record, a JSON key of every plan,
    a Results row; the columns say which other lists it is in (0: not in it, else its position)."""
    better: str  # "high", "low" or "" (no preferred direction)
    source: str = "finance"  # "point": read from the operating point; "finance": from the finance layer
    pool_point: bool = False  # also reported per pool (each pool's operating point, JSON pool rows)
    text_group: str = ""     # the block of the text report it is printed in
    simulated: int = 0       # position among the metrics every Monte Carlo draw keeps
    summary: int = 0         # position among the metrics a Monte Carlo run summarizes (percentiles)
    draws_sheet: int = 0     # position among the MonteCarlo sheet's draw columns
    tornado: int = 0         # position among the GUI tornado's metrics (a swing of each input)
    cashflow_cell: int = 0   # position among the metrics computed on the CashFlow sheet (engine value cached)
    expr: Any = None         # its equation (expr.py): the engine's numpy and the Results formula, written once
    summary_sheet: int = 0   # position among the workbook Summary sheet's key metrics
    objective: int = 0       # position among the Decision view's objectives (the plans ranked by it)
    objective_label: str = ""  # how the Decision view names it ("": its label)


ROW_KINDS: tuple[type[Row], ...] = (Field, Factor, Quantity, Metric)


def ranked(rows, column: str) -> tuple[str, ...]:
    """The keys of the rows whose `column` is a position (> 0), in that order."""
    return tuple(r.key for r in sorted((r for r in rows if getattr(r, column)), key=lambda r: getattr(r, column)))
