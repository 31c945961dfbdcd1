"""Views of the efficiency-factor rows (factor_rows.py, one row a factor; docs/model.md, "Efficiency
factors"): the factors as fields of the quantity table (the Calibration sheet, the GUI and the docs read
them), their defaults, the factors each fit may move with its bounds, and the architecture each compute
ratio applies to. Each view is a function of the rows, so a new row reaches every one of them."""
from __future__ import annotations

from typing import Sequence

from ..core.errors import shown
from .factor_rows import FACTOR_ROWS, MIN_EFFICIENCY  # noqa: F401 (MIN_EFFICIENCY read through this module too)
from .factor_types import EfficiencyFactors
from .row import CURVE, GLOBAL, Factor, Field, by_name, scoped

FACTOR_FIELDS: tuple[Factor, ...] = scoped("factor", FACTOR_ROWS)
FACTOR_FIELD_BY_NAME: dict[str, Field] = by_name(FACTOR_FIELDS)
FACTOR_NAMES: tuple[str, ...] = tuple(f.key for f in FACTOR_FIELDS)
DEFAULT_FACTORS = EfficiencyFactors()


def curve_fit_bounds(rows: Sequence[Factor] = FACTOR_ROWS) -> dict[str, tuple[float, float]]:
    """{factor: (low, high)} of every factor a fit to a measured curve may move (fit scope GLOBAL or CURVE)."""
    return {r.key: _bounds(r) for r in rows if r.fit in (GLOBAL, CURVE)}


def global_fit(rows: Sequence[Factor] = FACTOR_ROWS) -> tuple[str, ...]:
    """The factors the shipped global fit moves (fit scope GLOBAL), in the rows' order."""
    return tuple(r.key for r in rows if r.fit == GLOBAL)


def fit_bounds(rows: Sequence[Factor] = FACTOR_ROWS) -> dict[str, tuple[float, float]]:
    """{factor: (low, high)} of every factor with fit bounds: a global fit may be asked to move any of them."""
    return {r.key: _bounds(r) for r in rows if r.fit_bounds is not None}


def prior_anchors(rows: Sequence[Factor] = FACTOR_ROWS) -> dict[str, float]:
    """{factor: the anchor the shipped global fit pulls it toward} of every factor that states one."""
    return {r.key: float(r.prior) for r in rows if r.prior is not None}


def architecture_factors(rows: Sequence[Factor] = FACTOR_ROWS) -> dict[str, str]:
    """{device architecture (the catalog's name): its compute-ratio factor}."""
    return {r.architecture: r.key for r in rows if r.architecture}


def architecture_layer_factors(rows: Sequence[Factor] = FACTOR_ROWS) -> dict[str, str]:
    """{device architecture (the catalog's name): its per-layer overhead ratio}."""
    return {r.layer_architecture: r.key for r in rows if r.layer_architecture}


# a serving stack -> the factor of its fixed overheads (its kernels: `stack_factors`)
STACK_OVERHEAD_FACTORS = {"ROCm": "stack_overhead_rocm", "SGLang": "stack_overhead_sglang", "vLLM": "stack_overhead_vllm"}


def stack_factors(rows: Sequence[Factor] = FACTOR_ROWS) -> dict[str, str]:
    """{serving stack (a measurement row's): its decode-step factor}."""
    return {r.stack: r.key for r in rows if r.stack}


def _bounds(row: Factor) -> tuple[float, float]:
    if row.fit_bounds is None:
        raise ValueError(f"factor {row.key} has fit scope {row.fit!r} but no fit bounds")
    return row.fit_bounds


def factor_problem(name: str, value) -> str | None:
    """None if `value` is allowed for factor `name`, else the message with the allowed range."""
    if name not in FACTOR_FIELD_BY_NAME:
        return f"unknown factor (allowed: {', '.join(FACTOR_NAMES)})"
    field = FACTOR_FIELD_BY_NAME[name]
    low, high, exclusive = field.min, field.max, field.min_exclusive
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value == value
    ok = ok and (value > low if exclusive else value >= low) and value <= high
    if ok:
        return None
    bound = f"> {low:g}" if exclusive else f">= {low:g}"
    return f"= {shown(value)}: must be a number {bound} and <= {high:g}"
