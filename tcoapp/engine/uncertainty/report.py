"""The simulation as `tcoapp simulate --json` prints it (docs/model.md, "Uncertainty: Monte Carlo")."""
from __future__ import annotations

from typing import Any

from .simulate import Simulation
from .statistics import SUMMARY_METRICS

__all__ = ["SUMMARY_METRICS", "simulation_json"]


def simulation_json(sim: Simulation) -> dict[str, Any]:
    """{"draws", "seed", "plans": [{"name", METRIC: {mean, p5..p95, share_defined}, ..., "prob_npv_positive",
    "notes"}], "pairwise": [{"a", "b", "prob_a_higher_npv"}]} (every ordered pair of distinct plans), over
    every draw of the run."""
    plans = []
    for p in sim.plans:
        entry: dict[str, Any] = {"name": p.name}
        entry.update({key: dict(sim.summary(p.name, key)) for key in SUMMARY_METRICS})
        entry["prob_npv_positive"] = sim.prob_positive(p.name)
        entry["uncertain_inputs"] = [d.row.key for d in p.inputs]
        entry["notes"] = list(p.notes)
        plans.append(entry)
    pairwise = [{"a": a.name, "b": b.name, "prob_a_higher_npv": sim.prob_higher(a.name, b.name)}
                for a in sim.plans for b in sim.plans if a is not b]
    return {"draws": sim.draws, "seed": sim.seed, "plans": plans, "pairwise": pairwise}
