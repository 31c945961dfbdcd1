"""The Python API for notebooks: scenarios in, pandas DataFrames out.

    import tcoapp
    scenario = tcoapp.load_scenario("book.xlsx")      # or None: the built-in default scenario
    result = tcoapp.compute(scenario)                  # or a path
    result.plans                                       # one row per plan, the metric keys (docs/workbook_format.md)
    result.pools                                       # one row per plan and pool: devices, servers, racks, capex
    result.years                                       # one row per plan and year: the timeline (docs/model.md)
    curves = tcoapp.read_curves("pareto.csv")          # InferenceX / aiconfigurator / plain CSV, one row per point

Column names are the project's keys, which carry their units (`capex_usd`, `ttft_s`, `power_w`);
`DataFrame.attrs["units"]` maps every column to its unit as well. Missing values (payback never
reached, TTFT not measured) are NaN. The same engine functions as the CLI and the GUI compute
every number.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .engine.compute import METRIC_KEYS, PlanResult, compute_scenario
from .engine.metric_table import METRICS
from .engine.performance.measured import config_text
from .engine.scenario import Scenario

POINT_UNITS = {"batch": "sequences", "tokens_per_s_per_device": "tokens/s", "tokens_per_s_per_user": "tokens/s",
               "ttft_s": "s", "power_w": "W"}


def load_scenario(path=None) -> Scenario:
    """A scenario workbook (.xlsx), validated; None: the built-in default scenario."""
    from .io.load import load_scenario as load
    return load(None if path is None else str(path))


@dataclass(frozen=True)
class Computed:
    """What `compute` returns: DataFrames, and the engine's own result records."""

    plans: pd.DataFrame        # index: plan name; columns: METRIC_KEYS, curve_source, limited_by, warnings
    years: pd.DataFrame        # plan, year (0 = the start), the per-year rows of `tcoapp compute --json`
    results: tuple[PlanResult, ...]
    pools: pd.DataFrame | None = None  # plan, pool, role, device, device_count, servers, racks, capex_usd, ...


def compute(scenario: Scenario | str | None = None) -> Computed:
    """Compute every plan of `scenario` (a Scenario, a workbook path, or None for the default)."""
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario)
    results = compute_scenario(scenario)
    return Computed(_plans_frame(results), _years_frame(results), results, _pools_frame(results))


def _plans_frame(results) -> pd.DataFrame:
    rows = []
    for r in results:
        row = {key: r.metrics[key] for key in METRIC_KEYS}
        row.update(curve_source=r.point.source, limited_by=(r.fleet.limited_by or None) if r.fleet else None,
                   warnings="; ".join(r.warnings))
        rows.append(row)
    frame = pd.DataFrame(rows, index=pd.Index([r.name for r in results], name="plan"))
    frame.attrs["units"] = {m.key: m.unit for m in METRICS}
    return frame


YEAR_UNITS = {"year": "years", "utilization": "fraction", "price_usd_per_million_output_tokens": "USD/Mtok",
              "output_tokens": "tokens", "revenue_usd": "USD", "opex_usd": "USD", "capex_usd": "USD",
              "residual_value_usd": "USD", "depreciation_usd": "USD", "disposal_gain_usd": "USD", "taxable_income_usd": "USD", "tax_usd": "USD",
              "cash_flow_usd": "USD", "cumulative_cash_flow_usd": "USD"}
POOL_UNITS = {"device_count": "devices", "servers": "servers", "servers_per_rack": "servers", "racks": "racks",
              "capex_usd": "USD", "it_avg_kw": "kW", "it_provisioned_kw": "kW", "requests_per_s": "requests/s",
              "batch": "sequences", "tokens_per_s_per_device": "tokens/s", "tokens_per_s_per_user": "tokens/s",
              "ttft_s": "s", "power_w": "W"}


def _years_frame(results) -> pd.DataFrame:
    rows = [{"plan": r.name, **row} for r in results for row in r.year_rows()]
    frame = pd.DataFrame(rows, columns=["plan", *YEAR_UNITS]).astype({k: float for k in YEAR_UNITS if k != "year"})
    frame.attrs["units"] = dict(YEAR_UNITS)
    return frame


def _pools_frame(results) -> pd.DataFrame:
    rows = []
    for r in results:
        for row in r.pool_rows():
            serving = row.pop("serving")
            rows.append({"plan": r.name, **row, **{f"serving.{k}": v for k, v in serving.items()}})
    frame = pd.DataFrame(rows)
    frame.attrs["units"] = dict(POOL_UNITS)
    return frame


def read_curves(path, fmt: str = "auto") -> pd.DataFrame:
    """The curves of a measured-curve file, one row per point (the same reader as `tcoapp curves`).

    Columns: curve, device, model, batch, tokens_per_s_per_device, tokens_per_s_per_user, ttft_s,
    power_w, precision, tensor_parallel, config (key=value; ...), source, row (the file row).
    attrs: format, warnings, configs ({curve: {key: value}}), units.
    """
    from .io.curve_files import read_curve_file

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
    frame.attrs.update(format=result.format, warnings=list(result.warnings), units=dict(POINT_UNITS),
                       configs={c.name: dict(c.config) for c in result.curves})
    return frame
