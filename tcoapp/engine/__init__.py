"""The engine: pure computation (numpy; no Qt, no file I/O). Its few entry points, loaded lazily:

- `compute_scenario(scenario)` -> one `PlanResult` per plan (docs/model.md)
- `Scenario`, `EfficiencyFactors`, `DEFAULT_FACTORS`
- `generate_curve(device, model, serving, workload, batch, factors)`: the roofline curve
- `make_measured_curve(...)`, `evaluate_measured(curve, batch, ...)`: measured curves
- `calibrate(points, devices, models, ...)`, `fit_curve(curve, devices, models, ...)`: calibration
"""
_EXPORTS = {
    "compute_scenario": ".compute", "PlanResult": ".plan_result", "Scenario": ".scenario",
    "EfficiencyFactors": ".performance.factors", "DEFAULT_FACTORS": ".performance.factors",
    "generate_curve": ".performance.generated", "make_measured_curve": ".performance.measured",
    "evaluate_measured": ".performance.measured", "calibrate": ".performance.calibration",
    "fit_curve": ".performance.curve_fit",
}
__all__ = list(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        from importlib import import_module
        return getattr(import_module(_EXPORTS[name], __name__), name)
    raise AttributeError(f"module 'tcoapp.engine' has no attribute {name!r}")
