"""tcoapp: TCO and ROI of AI inference hardware.

Notebook API (pandas DataFrames; see tcoapp.api): `tcoapp.load_scenario(path)`,
`tcoapp.compute(scenario)`, `tcoapp.read_curves(path)`, `tcoapp.simulate(scenario, draws, seed)`
(Monte Carlo; see tcoapp.api_simulate). They load lazily, so `import tcoapp` stays
as fast as the command line needs.
"""
__version__ = "0.1.0"
SCHEMA_VERSION = 2

_API = ("load_scenario", "compute", "read_curves", "Computed")
__all__ = ["__version__", *_API]


_SIMULATE_API = ("simulate", "Simulated")
__all__ += list(_SIMULATE_API)


def __getattr__(name):
    if name in _SIMULATE_API:
        from . import api_simulate
        return getattr(api_simulate, name)
    if name in _API:
        from . import api
        return getattr(api, name)
    raise AttributeError(f"module 'tcoapp' has no attribute {name!r}")
