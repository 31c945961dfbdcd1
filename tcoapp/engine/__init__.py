"""The engine: pure computation (numpy; no Qt, no file I/O). Its sub-packages, in the order data flows
(each imports only those before it; the import contract in pyproject.toml holds them to it):

- `core`: errors, typed numbers, number formatting;
- `quantities`: the quantity table (every key, unit, label), the typed records and their validation;
- `performance`: the roofline and measured curves, calibration and the model's accuracy;
- `finance` (beside `plan`): capex, opex, cash flows, NPV / IRR, sizing, sensitivity;
- `plan`: the scenario and its pools;
- `serving`: the serving search, the operating point, the fleet;
- `pipeline`: one compute of a scenario into one `PlanResult` per plan;
- `uncertainty`: Monte Carlo over the inputs;
- `decision`: the ranking, its reason and its confidence.

Its few entry points, loaded lazily:

- `compute_scenario(scenario)` -> one `PlanResult` per plan (docs/model.md)
- `Scenario`, `EfficiencyFactors`, `DEFAULT_FACTORS`
- `generate_curve(device, model, serving, workload, batch, factors)`: the roofline curve
- `make_measured_curve(...)`, `evaluate_measured(curve, batch, ...)`: measured curves
- `calibrate(points, devices, models, ...)`, `fit_curve(curve, devices, models, ...)`: calibration
"""
_EXPORTS = {
    "compute_scenario": ".pipeline.compute", "PlanResult": ".pipeline.plan_result", "Scenario": ".plan.scenario",
    "EfficiencyFactors": ".quantities.factor_types", "DEFAULT_FACTORS": ".quantities.factors",
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
