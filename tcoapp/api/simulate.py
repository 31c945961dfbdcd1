"""The notebook API of the Monte Carlo (docs/model.md, "Uncertainty"):

    sim = tcoapp.simulate("book.xlsx", draws=10_000, seed=0)   # a Scenario, a path or None
    sim.summary      # index (plan, metric): mean, p5, p10, p50, p90, p95, share_defined (`tcoapp simulate --json`)
    sim.plans        # index plan: prob_npv_positive
    sim.pairwise     # a, b, prob_a_higher_npv
    sim.draws        # one row per (plan, draw): the simulated metrics, `input.KEY` columns of the draws and a
                     # "model error: GROUP" column per shared error component that moves the plan (its standard
                     # normal draw; of the first 100,000 draws of a larger run; the summaries are over every draw)

Missing values (payback never reached) are NaN in `draws`; in `summary` a percentile on "never" is NaN.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..engine.pipeline.compute import compute_scenario
from ..engine.quantities.metrics import METRIC_BY_KEY
from ..engine.plan.scenario import Scenario, checked_plans
from ..engine.uncertainty.plan_draws import SIMULATED_METRICS
from ..engine.uncertainty.report import SUMMARY_METRICS, simulation_json
from ..engine.uncertainty.simulate import DEFAULT_DRAWS, DEFAULT_SEED, Simulation, simulate as engine_simulate


__all__ = ["simulate", "Simulated"]


@dataclass(frozen=True)
class Simulated:
    """What `simulate` returns.

    Attributes
    ----------
    summary : pandas.DataFrame
        Index (plan, metric) over the simulated metrics (`npv_usd` USD, `irr` fraction/yr,
        `payback_months` months, `cost_per_million_output_tokens_usd` USD/Mtok, ...); columns
        `mean`, `p5`, `p10`, `p50`, `p90`, `p95` (in the metric's unit, float64; NaN where a
        percentile falls on "never") and `share_defined` (fraction 0..1 of draws with a value).
        ``attrs["units"]`` maps each metric to its unit.
    plans : pandas.DataFrame
        Index plan; `prob_npv_positive` (fraction 0..1).
    pairwise : pandas.DataFrame
        `a`, `b` (plan names), `prob_a_higher_npv` (fraction 0..1).
    draws : pandas.DataFrame
        One row per (plan, draw): `plan`, `draw`, the simulated metrics, an ``input.KEY``
        column per drawn input (in the key's unit) and a ``model error: GROUP`` column per model-error
        stream that moves the plan (its standard normal draw z; docs/model.md, "How the model's errors
        correlate").
    simulation : tcoapp.engine.uncertainty.simulate.Simulation
        The engine's record.
    """

    summary: pd.DataFrame
    plans: pd.DataFrame
    pairwise: pd.DataFrame
    draws: pd.DataFrame
    simulation: Simulation


def simulate(scenario: Scenario | str | None = None, draws: int = DEFAULT_DRAWS, seed: int = DEFAULT_SEED,
             model_error: bool = True) -> Simulated:
    """Monte Carlo over the scenario's Uncertainty rows and the model's own error (the engine function
    `tcoapp simulate` calls).

    Parameters
    ----------
    scenario : Scenario or str or os.PathLike or None, default None
        A scenario from `tcoapp.load_scenario`, a workbook path, or None for the built-in default.
    draws : int, default 2000
        Number of Monte Carlo draws.
    seed : int, default 0
        Seed of the numpy Generator: the same seed gives the same draws.
    model_error : bool, default True
        Draw the model's own error in each generated plan's throughput, shared by plans of one
        architecture and stack and of one configuration (docs/model.md, "How the model's errors
        correlate"); False draws the Uncertainty rows alone (`tcoapp simulate --no-model-error`).

    Returns
    -------
    Simulated
        `summary` (percentiles per plan and metric), `plans` (probability NPV > 0), `pairwise`
        (probability one plan's NPV beats another's) and `draws` (every draw).

    Examples
    --------
    Without the model's error, a scenario without Uncertainty rows has one outcome: every percentile
    is the computed value. With it (the default), the NPV spreads about that value.

    >>> import tcoapp
    >>> fixed = tcoapp.simulate(None, draws=20, seed=0, model_error=False)
    >>> npv = fixed.summary.loc[("H200", "npv_usd")]
    >>> bool(npv["p5"] == npv["p95"] == tcoapp.compute().plans.loc["H200", "npv_usd"])
    True
    >>> sim = tcoapp.simulate(None, draws=200, seed=0)
    >>> npv = sim.summary.loc[("H200", "npv_usd")]
    >>> bool(npv["p5"] < tcoapp.compute().plans.loc["H200", "npv_usd"] < npv["p95"])
    True
    >>> list(sim.summary.columns)
    ['mean', 'p5', 'p10', 'p50', 'p90', 'p95', 'share_defined']
    """
    if not isinstance(scenario, Scenario):
        from .scenario import load_scenario
        scenario = load_scenario(scenario)
    else:
        scenario = checked_plans(scenario)   # a scenario built or changed in Python: validated as a workbook is
    sim = engine_simulate(scenario, draws, seed, results=compute_scenario(scenario), model_error=model_error)
    data = simulation_json(sim)
    summary = pd.DataFrame([{"plan": p["name"], "metric": key, **p[key]} for p in data["plans"] for key in SUMMARY_METRICS])
    summary = summary.set_index(["plan", "metric"]).astype(float)
    summary.attrs["units"] = {key: METRIC_BY_KEY[key].unit for key in SUMMARY_METRICS}
    plans = pd.DataFrame({"prob_npv_positive": [p["prob_npv_positive"] for p in data["plans"]]},
                         index=pd.Index([p["name"] for p in data["plans"]], name="plan"))
    pairwise = pd.DataFrame(data["pairwise"], columns=["a", "b", "prob_a_higher_npv"])
    frames = []
    for p in sim.plans:
        frame = pd.DataFrame({key: p.metric(key) for key in SIMULATED_METRICS})
        for d in p.inputs:
            frame[f"input.{d.row.key}"] = d.values
        for name, z in p.model_error:
            frame[name] = z[:sim.kept]
        frame.insert(0, "draw", range(sim.kept))
        frame.insert(0, "plan", p.name)
        frames.append(frame)
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["plan", "draw"])
    table.attrs["units"] = {key: METRIC_BY_KEY[key].unit for key in SIMULATED_METRICS}
    return Simulated(summary, plans, pairwise, table, sim)
