"""tcoapp: TCO and ROI of AI inference hardware.

The notebook API (pandas DataFrames; every function documented with its parameters, returns and
units):

- ``tcoapp.load_scenario(path)``: a scenario workbook, validated (None: the built-in default)
- ``tcoapp.compute(scenario)``: every plan's metrics, cash-flow years and pools (`Computed`)
- ``tcoapp.read_curves(path)``: a measured-curve file, one row per point
- ``tcoapp.simulate(scenario, draws, seed)``: the Monte Carlo over the Uncertainty rows (`Simulated`)

They load lazily, so ``import tcoapp`` stays as fast as the command line needs; ``dir(tcoapp)``
and ``help(tcoapp.compute)`` show them.

>>> import tcoapp
>>> [name for name in ("compute", "load_scenario", "read_curves", "simulate") if name in dir(tcoapp)]
['compute', 'load_scenario', 'read_curves', 'simulate']
"""

_API = ("load_scenario", "compute", "read_curves", "Computed", "WorkbookNote")
_SIMULATE_API = ("simulate", "Simulated")
__all__ = ["__version__", "SCHEMA_VERSION", *_API, *_SIMULATE_API]


def __getattr__(name):
    if name in ("__version__", "SCHEMA_VERSION"):  # the release and the workbook schema (tcoapp.io.versions)
        from .io import versions
        return versions.APP_VERSION if name == "__version__" else versions.SCHEMA_VERSION
    if name in _SIMULATE_API:
        from .api import simulate
        return getattr(simulate, name)
    if name in _API:
        from .api import scenario
        return getattr(scenario, name)
    raise AttributeError(f"module 'tcoapp' has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *__all__})
