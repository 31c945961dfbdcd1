"""The Python API for notebooks: scenarios in, pandas DataFrames out.

    import tcoapp
    scenario = tcoapp.load_scenario("book.xlsx")      # or None: the built-in default scenario
    result = tcoapp.compute(scenario)                  # or a path
    result.plans                                       # one row per plan, the metric keys (docs/workbook_format.md)
    result.pools                                       # one row per plan and pool: devices, servers, racks, capex
    result.years                                       # one row per plan and year: the timeline (docs/model.md)
    result.decision()                                  # ranking, P(first beats second), too close, reason
    curves = tcoapp.read_curves("pareto.csv")          # InferenceX / aiconfigurator / plain CSV, one row per point

Column names are the project's keys, which carry their units (`capex_usd`, `ttft_s`, `power_w`);
`DataFrame.attrs["units"]` maps every column to its unit as well, and `attrs["labels"]` to the name
the workbook, the GUI and the report show for it (one name per key). Missing values (payback never
reached, TTFT not measured) are NaN. The same engine functions as the CLI and the GUI compute
every number. Every function has a numpydoc docstring with its parameters, returns and units, and
examples that run as doctests (tests/test_api_doctests.py).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..engine.pipeline.compute import METRIC_KEYS, PlanResult, compute_scenario
from ..engine.quantities.finance import (
    INPUT_BY_KEY, POOL_JSON_KEYS, POOL_QUANTITY_BY_KEY, YEAR_JSON_KEYS, YEAR_QUANTITY_BY_KEY,
)
from ..engine.quantities.metrics import METRIC_BY_KEY, METRICS, POOL_POINT_METRICS
from ..engine.quantities import names
from ..engine.performance.measured import config_text
from ..engine.plan.scenario import Scenario, checked_plans

__all__ = ["load_scenario", "compute", "read_curves", "Computed", "WorkbookNote", "POINT_UNITS", "YEAR_UNITS", "POOL_UNITS"]

# every column's unit, from the quantity table (the rows each column is)
POINT_UNITS = {k: METRIC_BY_KEY[k].unit for k in POOL_POINT_METRICS}


def load_scenario(path=None) -> Scenario:
    """Read and validate a scenario workbook.

    Parameters
    ----------
    path : str or os.PathLike or None, default None
        The scenario workbook (.xlsx; docs/workbook_format.md). None: the built-in default scenario.

    Returns
    -------
    tcoapp.engine.plan.scenario.Scenario
        The plans with the devices, models, measured curves, price tiers and calibrated factors they
        name (the workbook's own entries added to the shipped catalog).

    Raises
    ------
    tcoapp.engine.core.errors.ValidationError
        Every problem of the workbook at once, each naming its sheet, cell and the allowed range.

    Examples
    --------
    >>> import tcoapp
    >>> scenario = tcoapp.load_scenario()
    >>> [plan.name for plan in scenario.plans][:2]
    ['H100', 'H200']
    >>> scenario.plan("H200").device
    'H200-SXM'
    """
    from ..io.kept_work import kept_notes
    from ..io.load import load_scenario as load
    scenario = load(None if path is None else str(path))
    for note in kept_notes(scenario):   # what the command line prints as `note: ...`
        warnings.warn(note, WorkbookNote, stacklevel=2)
    return scenario


class WorkbookNote(UserWarning):
    """How a workbook was read: a sheet or row of the analyst's kept but not read, a renamed input sheet read as
    its table (the `note:` lines of the command line)."""


@dataclass(frozen=True)
class Computed:
    """What `compute` returns: DataFrames, and the engine's own result records.

    Attributes
    ----------
    plans : pandas.DataFrame
        One row per plan (index: plan name). Columns: the metric keys of docs/workbook_format.md
        ("Results"), whose names carry their units (`capex_usd` USD, `tokens_per_s_per_device`
        tokens/s, `payback_months` months, fractions 0..1), then `curve_source`, `limited_by` and
        `warnings` (text). float64 throughout the metrics; NaN where a value does not exist
        (payback never reached). ``attrs["units"]`` maps every metric to its unit, ``attrs["labels"]``
        to its name.
    years : pandas.DataFrame
        One row per plan and year (year 0 = the start): `plan`, `year` (int), utilization
        (fraction), price (USD/Mtok), output tokens, revenue, opex, capex, residual value,
        depreciation, taxable income, tax, cash flow and cumulative cash flow (USD, float64).
    results : tuple of tcoapp.engine.pipeline.compute.PlanResult
        The engine's records, as the CLI and the GUI use them.
    pools : pandas.DataFrame or None
        One row per plan and pool: `plan`, `pool`, `role`, `device`, `device_count` (devices),
        `servers`, `racks`, `capex_usd` (USD), `it_avg_kw` / `it_provisioned_kw` (kW), the pool's
        operating point and its serving configuration as `serving.*` columns.
    scenario : tcoapp.engine.plan.scenario.Scenario or None
        The scenario computed (what `decision()` ranks).
    workloads : pandas.DataFrame or None
        One row per plan and request class (docs/model.md, "Request classes"; empty where no plan has
        classes): `plan`, `class`, `share` (fraction), mean `input_tokens` / `output_tokens`, the class's
        targets, `tokens_per_s_per_user` and `ttft_s` at its `latency_percentile`, `meets_target`,
        `requests_per_s`, `achieved_prefix_hit_rate` (fraction), its three prices (USD/Mtok),
        `cost_per_million_output_tokens_usd` and `revenue_usd_per_year` (USD/yr).
    """

    plans: pd.DataFrame
    years: pd.DataFrame
    results: tuple[PlanResult, ...]
    pools: pd.DataFrame | None = None
    scenario: Scenario | None = None
    workloads: pd.DataFrame | None = None

    def decision(self, rank_by: str | None = None) -> dict:
        """The decision, as `tcoapp compute --json` prints it and the desktop app shows it.

        Parameters
        ----------
        rank_by : str or None, default None
            The objective by key, label or an unambiguous start of either ("npv", "equity", "cost");
            None: the one that fits the plans' constraint (docs/user_guide.md, "Decision").

        Returns
        -------
        dict
            `objective` (key), `ranked` (plan names, best first), `p_first_beats_second` (0..1, or
            None without a second plan), `too_close` (bool), `reason` (the headline in words), `basis`
            (why this objective), `hurdle_rate` (equity NPV's common rate, fraction/yr, or None),
            `first_value_per_mw` (NPV per MW of facility power for plans sized by a site, else None) and
            `other_view` (the first plan by cost per token or NPV where it differs, else None).

        Raises
        ------
        ValueError
            `rank_by` names no objective or more than one.

        Examples
        --------
        >>> import tcoapp
        >>> d = tcoapp.compute().decision()
        >>> d["objective"], d["ranked"][0]
        ('npv_usd', 'GB200 NVL72')
        >>> tcoapp.compute().decision("cost")["ranked"][0]
        'B200'
        """
        from ..engine.decision.choice import decide
        from ..present.decision_text import decision_json
        if self.scenario is None:
            raise ValueError("this result has no scenario to decide over: compute it with tcoapp.compute")
        return decision_json(decide(self.scenario, self.results, rank_by))


def compute(scenario: Scenario | str | None = None) -> Computed:
    """Compute every plan of a scenario (the engine function `tcoapp compute` calls).

    Parameters
    ----------
    scenario : Scenario or str or os.PathLike or None, default None
        A scenario from `load_scenario`, the path of a scenario workbook (.xlsx), or None for the
        built-in default scenario.

    Returns
    -------
    Computed
        `plans` (one row per plan, metric columns with units in their names), `years` (the cash
        flow timeline, USD), `pools` (devices, servers, racks, capex per pool), the engine's records and
        `decision()`: the ranking, how sure and why.

    Raises
    ------
    tcoapp.engine.core.errors.ValidationError
        A plan built or changed in Python (`dataclasses.replace`, `Scenario(plans=...)`) is
        validated as a workbook's Plans column is: every problem at once, naming the plan, the
        field and its allowed range.

    See Also
    --------
    load_scenario : read and validate a workbook.
    tcoapp.simulate : the Monte Carlo over the scenario's Uncertainty rows.

    Examples
    --------
    >>> import tcoapp
    >>> result = tcoapp.compute()                       # the built-in default scenario
    >>> list(result.plans.index)
    ['H100', 'H200', 'B200', 'GB200 NVL72', 'MI355X']
    >>> result.plans.attrs["units"]["cost_per_million_output_tokens_usd"]
    'USD/Mtok'
    >>> str(result.plans["npv_usd"].dtype), str(result.years["year"].dtype)
    ('float64', 'int64')
    """
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario)
    else:
        scenario = checked_plans(scenario)   # a scenario built or changed in Python: validated as a workbook is
    results = compute_scenario(scenario)
    return Computed(_plans_frame(results), _years_frame(results), results, _pools_frame(results), scenario,
                    _workloads_frame(results))


def _workloads_frame(results) -> pd.DataFrame:
    """One row per plan and request class (`Computed.workloads`)."""
    from ..engine.pipeline.class_results import ClassResult
    rows = [{"plan": r.name, **c.as_json()} for r in results for c in getattr(r, "workloads", ())]
    return pd.DataFrame(rows, columns=["plan", *ClassResult.json_keys()])


def _plans_frame(results) -> pd.DataFrame:
    rows = []
    for r in results:
        row = {key: getattr(r.metrics, key) for key in METRIC_KEYS}
        row.update(curve_source=r.point.source, limited_by=(r.fleet.limited_by or None) if r.fleet else None,
                   warnings="; ".join(r.warnings))
        rows.append(row)
    frame = pd.DataFrame(rows, index=pd.Index([r.name for r in results], name="plan"))
    frame.attrs["units"] = {m.key: m.unit for m in METRICS}
    frame.attrs["labels"] = _labels(frame.columns)
    return frame


YEAR_UNITS = {"year": "years", "utilization": YEAR_QUANTITY_BY_KEY["utilization"].unit,
              "price_usd_per_million_output_tokens": INPUT_BY_KEY["price_usd_per_million_output_tokens"].unit,
              **{k: YEAR_QUANTITY_BY_KEY[k].unit for k in YEAR_JSON_KEYS}}
POOL_UNITS = {**{k: POOL_QUANTITY_BY_KEY[k].unit for k in POOL_JSON_KEYS}, "requests_per_s": "requests/s", **POINT_UNITS}


def _labels(columns) -> dict[str, str]:
    """Each column that is a key of the quantity table by its one label (tcoapp/engine/quantities/names.py)."""
    return {str(c): names.label(str(c)) for c in columns if names.label(str(c))}


def _years_frame(results) -> pd.DataFrame:
    rows = [{"plan": r.name, **row} for r in results for row in r.year_rows()]
    frame = pd.DataFrame(rows, columns=["plan", *YEAR_UNITS]).astype({k: float for k in YEAR_UNITS if k != "year"})
    frame.attrs["units"] = dict(YEAR_UNITS)
    frame.attrs["labels"] = _labels(frame.columns)
    return frame


def _pools_frame(results) -> pd.DataFrame:
    rows = []
    for r in results:
        for row in r.pool_rows():
            serving = row.pop("serving")
            rows.append({"plan": r.name, **row, **{f"serving.{k}": v for k, v in serving.items()}})
    frame = pd.DataFrame(rows)
    frame.attrs["units"] = dict(POOL_UNITS)
    frame.attrs["labels"] = _labels(frame.columns)
    return frame


def read_curves(path, fmt: str = "auto") -> pd.DataFrame:
    """Read a measured-curve file, one row per point (the same reader as `tcoapp curves`).

    Parameters
    ----------
    path : str or os.PathLike
        An InferenceX export, an aiconfigurator ``pareto.csv`` / ``best_config_topn.csv`` or a plain
        CSV (docs/curves.md), as any spreadsheet saves it (comma, semicolon or tab; UTF-8, UTF-16 or
        Windows-1252; decimal commas in a semicolon file).
    fmt : {"auto", "inferencex", "aiconfigurator", "plain"}, default "auto"
        The file's format; "auto" recognizes it from the header.

    Returns
    -------
    pandas.DataFrame
        One row per point, the same dtypes for every file:

        - `curve`, `device`, `model`, `precision`, `config` (``key=value; ...``), `source`,
          `row` (``file:row N``): str (object)
        - `batch` (sequences), `tokens_per_s_per_device` (tokens/s), `tokens_per_s_per_user`
          (tokens/s), `ttft_s` (s), `power_w` (W per device): float64, NaN where not in the file
        - `tensor_parallel` (devices per replica): Int64, <NA> where the file does not say

        ``attrs``: `format`, `warnings` (list of str), `configs` ({curve: {key: value}}), `units`
        ({column: unit}).

    Raises
    ------
    tcoapp.engine.core.errors.ValidationError
        Every bad cell at once, each naming the file, row and column (and one line saying how to
        fix a file that cannot be read).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import tcoapp
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "sweep.csv"
    >>> _ = path.write_text("curve,device,model,batch,tokens_per_s_per_device,ttft_s,tensor_parallel\\n"
    ...                     "mine,H200-SXM,Llama-3.1-70B,1,60.5,0.21,2\\n"
    ...                     "mine,H200-SXM,Llama-3.1-70B,64,1500,,2\\n")
    >>> curves = tcoapp.read_curves(path)
    >>> curves[["curve", "batch", "tokens_per_s_per_device", "ttft_s", "tensor_parallel"]]
      curve  batch  tokens_per_s_per_device  ttft_s  tensor_parallel
    0  mine    1.0                     60.5    0.21                2
    1  mine   64.0                   1500.0     NaN                2
    >>> curves.attrs["units"]["ttft_s"], str(curves["tensor_parallel"].dtype)
    ('s', 'Int64')
    >>> curves.attrs["warnings"]
    ["sweep.csv: 'ttft_s' is empty in 1 of 2 row(s) (row 3): TTFT is unknown at those points"]
    """
    from ..io.curve_files import read_curve_file

    result = read_curve_file(path, fmt)
    rows = []
    for curve in result.curves:
        for i in range(curve.batch.size):
            row = {"curve": curve.name, "device": curve.device, "model": curve.model}
            row.update({key: float(getattr(curve, key)[i]) for key in POINT_UNITS})
            row.update(precision=curve.precision, tensor_parallel=curve.tensor_parallel,
                       config=config_text(curve.config), source=curve.source,
                       row=curve.point_sources[i] if i < len(curve.point_sources) else "")
            rows.append(row)
    frame = pd.DataFrame(rows, columns=["curve", "device", "model", *POINT_UNITS, "precision", "tensor_parallel",
                                        "config", "source", "row"])
    frame = frame.astype({**{k: "float64" for k in POINT_UNITS}, "tensor_parallel": "Int64",
                          **{k: object for k in ("curve", "device", "model", "precision", "config", "source", "row")}})
    frame.attrs.update(format=result.format, warnings=list(result.warnings), units=dict(POINT_UNITS),
                       configs={c.name: dict(c.config) for c in result.curves})
    return frame
