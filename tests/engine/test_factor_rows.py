"""Efficiency factors are defined once (tcoapp/engine/quantities/factor_rows.py): default, allowed range,
fit scope and bounds, label, help and provenance in one row; the record, the Calibration fields, the
fittable factors of each fit and the architecture ratios are views of the rows, so a new factor is one row."""
from __future__ import annotations

import math
import sys
from dataclasses import fields, replace
from pathlib import Path

import pytest

from tcoapp.engine.performance import calibration, factor_fit
from tcoapp.engine.performance.factors import ARCHITECTURE_COMPUTE, compute_ratio
from tcoapp.engine.performance.measurement_rows import STACK_FACTOR
from tcoapp.engine.quantities.factor_rows import FACTOR_ROWS
from tcoapp.engine.quantities.factor_types import EfficiencyFactors
from tcoapp.engine.quantities.factors import (
    DEFAULT_FACTORS, FACTOR_FIELD_BY_NAME, FACTOR_FIELDS, FACTOR_NAMES, architecture_factors, curve_fit_bounds,
    fit_bounds, global_fit, stack_factors,
)
from tcoapp.engine.quantities.row import CURVE, FIT_SCOPES, GLOBAL, HELD, Factor, scoped

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from tools.gen_records import factor_types_py  # noqa: E402


def test_every_row_is_complete():
    assert len({r.key for r in FACTOR_ROWS}) == len(FACTOR_ROWS)
    for r in FACTOR_ROWS:
        assert r.unit and r.label and r.help and r.provenance, r.key
        assert r.fit in FIT_SCOPES, r.key
        assert r.min is not None and r.max is not None and r.min <= r.default <= r.max, r.key
        if r.fit in (GLOBAL, CURVE):
            assert r.fit_bounds is not None, f"{r.key}: a fitted factor needs fit bounds"
        if r.fit_bounds is not None:
            low, high = r.fit_bounds
            # a fit runs in log space: a lower bound of 0 leaves the factor unbounded below (spec_draft_cost_fraction)
            assert 0 <= low < high <= r.max and low >= r.min, f"{r.key}: fit bounds inside the allowed range"
        if r.fit in (GLOBAL, CURVE):
            assert r.fit_bounds[0] <= r.default <= r.fit_bounds[1], f"{r.key}: the default inside its fit bounds"


def test_the_record_is_the_rows():
    """The generated record has one field per row, in the rows' order, with the row's default."""
    assert tuple(f.name for f in fields(EfficiencyFactors)) == FACTOR_NAMES == tuple(r.key for r in FACTOR_ROWS)
    assert DEFAULT_FACTORS.as_dict() == {r.key: r.default for r in FACTOR_ROWS}
    assert (ROOT / "tcoapp/engine/quantities/factor_types.py").read_text(encoding="utf-8") == factor_types_py()


def test_every_view_reads_the_rows():
    assert FACTOR_FIELDS == scoped("factor", FACTOR_ROWS) and all(f.scope == "factor" for f in FACTOR_FIELDS)
    assert calibration.BOUNDS == {r.key: r.fit_bounds for r in FACTOR_ROWS if r.fit in (GLOBAL, CURVE)}
    assert factor_fit.FIT == tuple(r.key for r in FACTOR_ROWS if r.fit == GLOBAL)
    assert factor_fit.FIT_BOUNDS == {r.key: r.fit_bounds for r in FACTOR_ROWS if r.fit_bounds}
    assert ARCHITECTURE_COMPUTE == {r.architecture: r.key for r in FACTOR_ROWS if r.architecture}
    assert factor_fit.STACK_FACTORS == {r.stack: r.key for r in FACTOR_ROWS if r.stack}
    assert STACK_FACTOR == {"SGLang": "stack_step_sglang", "vLLM": "stack_step_vllm"}   # ROCm: in the kernel, by vendor
    # what the shipped set holds: the physical factors are held by the global fit, the compute ratios fitted
    assert "eta_mem" in calibration.BOUNDS and "eta_mem" not in factor_fit.FIT
    assert "model_error" not in calibration.BOUNDS and "model_error" not in factor_fit.FIT_BOUNDS
    assert ARCHITECTURE_COMPUTE["Hopper"] == "arch_compute_hopper" and "arch_compute_hopper" in factor_fit.FIT


NEW = Factor(key="arch_compute_rubin", unit="ratio", default=1.2, min=0.0, max=100.0, min_exclusive=True,
             fit=GLOBAL, fit_bounds=(0.2, 5.0), architecture="Rubin", label="Compute ratio, Rubin",
             help="Achieved fraction of peak tensor FLOPS on Rubin devices, relative to eta_compute.",
             provenance="ESTIMATE for the test: a factor added as one row")


def test_a_new_factor_is_one_row():
    """One row added reaches the record (its field and default), the Calibration fields (label, unit,
    range), both fits with their bounds and the architecture lookup."""
    rows = (*FACTOR_ROWS, NEW)
    namespace: dict = {}
    source = factor_types_py(rows).replace("from .record_base import Record",
                                           "from tcoapp.engine.quantities.record_base import Record")
    exec(compile(source, "factor_types.py", "exec"), namespace)
    record = namespace["EfficiencyFactors"]()
    assert record.arch_compute_rubin == 1.2 and record.eta_mem == DEFAULT_FACTORS.eta_mem
    assert record.with_(arch_compute_rubin=2.0).as_dict()["arch_compute_rubin"] == 2.0
    field = {f.key: f for f in scoped("factor", rows)}["arch_compute_rubin"]
    assert (field.label, field.unit, field.range_text()) == ("Compute ratio, Rubin", "ratio", "a number > 0 and <= 100")
    assert curve_fit_bounds(rows)["arch_compute_rubin"] == (0.2, 5.0)
    assert global_fit(rows)[-1] == "arch_compute_rubin" and fit_bounds(rows)["arch_compute_rubin"] == (0.2, 5.0)
    assert architecture_factors(rows)["Rubin"] == "arch_compute_rubin"
    stack = replace(NEW, key="stack_step_tgi", architecture="", stack="TGI", label="TGI stack step scale")
    assert stack_factors((*FACTOR_ROWS, stack))["TGI"] == "stack_step_tgi"
    held = replace(NEW, fit=HELD, fit_bounds=None)
    assert "arch_compute_rubin" not in curve_fit_bounds((*FACTOR_ROWS, held))
    assert "arch_compute_rubin" not in global_fit((*FACTOR_ROWS, held))


def test_a_fitted_factor_without_bounds_is_refused():
    broken = replace(NEW, fit_bounds=None)
    with pytest.raises(ValueError, match="arch_compute_rubin has fit scope 'global' but no fit bounds"):
        curve_fit_bounds((*FACTOR_ROWS, broken))


def test_the_defaults_are_the_shipped_numbers():
    """The numbers the model computes with (unchanged by moving them into rows)."""
    assert DEFAULT_FACTORS.eta_mem == 0.8 and DEFAULT_FACTORS.eta_kv == 0.4675 and DEFAULT_FACTORS.spec_acceptance_realised == 0.8599
    assert DEFAULT_FACTORS.arch_compute_cdna4 == 2.181 and math.isclose(compute_ratio(DEFAULT_FACTORS, "CDNA 4"), 2.181)
    assert FACTOR_FIELD_BY_NAME["power_gamma"].min_exclusive
