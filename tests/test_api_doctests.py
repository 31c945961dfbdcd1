"""The notebook API's examples run as written (doctest): tcoapp, tcoapp.api.scenario, tcoapp.api.simulate."""
from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize("module", ["tcoapp", "tcoapp.api.scenario", "tcoapp.api.simulate", "tcoapp.engine.plan.scenario",
                                    "tcoapp.engine.quantities.record_types"])
def test_examples_run(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_dir_shows_the_api_and_every_public_function_documents_parameters_and_returns():
    import tcoapp
    from tcoapp.api import scenario as api, simulate as api_simulate
    assert {"compute", "load_scenario", "read_curves", "simulate", "Computed", "Simulated"} <= set(dir(tcoapp))
    assert set(tcoapp.__all__) >= {"compute", "load_scenario", "read_curves", "simulate"}
    for function in (api.load_scenario, api.compute, api.read_curves, api_simulate.simulate):
        doc = function.__doc__
        assert "Parameters\n    ----------" in doc and "Returns\n    -------" in doc and "Examples" in doc, function


def test_read_curves_gives_one_dtype_per_column_whatever_the_file():
    from pathlib import Path

    import tcoapp
    data = Path(__file__).resolve().parent / "data" / "curves"
    dtypes = {name: tcoapp.read_curves(data / name).dtypes.astype(str).to_dict()
              for name in ("aiconfigurator_llama70b_fp8_h200_agg_pareto.csv",
                           "aiconfigurator_llama70b_fp8_h200_disagg_pareto.csv",
                           "inferencex_dsr1_gb300_current_headers.csv")}
    first = next(iter(dtypes.values()))
    assert all(d == first for d in dtypes.values())
    assert first["tensor_parallel"] == "Int64" and first["batch"] == "float64" and first["curve"] == "object"
