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

import os as _os
import sys as _sys

# A notebook or shell started at the repository root imports this folder, not an installed tcoapp; the
# installed layout's tcoapp.resources and tcoapp.samples are then the repository's resources/ and
# samples/ (pyproject.toml maps them with package-dir): a finder after the standard ones maps those two.
_ROOT = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
_CHECKOUT = ("resources", "samples")


class _CheckoutFolders:
    """Finds tcoapp.resources and tcoapp.samples in a source checkout's resources/ and samples/ folders."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        package, _, sub = name.partition(".")
        if package != __name__ or sub not in _CHECKOUT:
            return None
        import importlib.util
        folder = _os.path.join(_ROOT, sub)
        return importlib.util.spec_from_file_location(name, _os.path.join(folder, "__init__.py"),
                                                      submodule_search_locations=[folder])


if not _os.path.isdir(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "resources")) and _os.path.isfile(
        _os.path.join(_ROOT, "resources", "__init__.py")) and not any(
        isinstance(f, type) and f.__name__ == "_CheckoutFolders" for f in _sys.meta_path):
    _sys.meta_path.append(_CheckoutFolders)

_API = ("load_scenario", "compute", "read_curves", "Computed", "WorkbookNote")
_SIMULATE_API = ("simulate", "Simulated")
__all__ = ["__version__", "SCHEMA_VERSION", *_API, *_SIMULATE_API]


def __getattr__(name):
    if name in ("__version__", "SCHEMA_VERSION"):  # the release and the workbook schema (tcoapp.io.versions)
        from .io import versions
        return versions.APP_VERSION if name == "__version__" else versions.SCHEMA_VERSION
    if name in _SIMULATE_API or name in _API:
        try:
            import importlib
            module = importlib.import_module(".api.simulate" if name in _SIMULATE_API else ".api.scenario", __name__)
        except ModuleNotFoundError as error:   # pandas is the api extra: the app and the CLI run without it
            if error.name != "pandas":
                raise
            raise ModuleNotFoundError(f"tcoapp.{name} is the notebook API, which needs pandas: "
                                      f"pip install 'tcoapp[api]' (or pip install pandas)", name="pandas") from None
        return getattr(module, name)
    raise AttributeError(f"module 'tcoapp' has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *__all__})
