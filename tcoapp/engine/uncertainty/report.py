"""The simulation as `tcoapp simulate --json` prints it (DESIGN section 14)."""
from __future__ import annotations

from typing import Any

from .simulate import Simulation
from .statistics import prob_higher, prob_positive, summary

SUMMARY_METRICS = ("npv_usd", "irr", "payback_months", "cost_per_million_output_tokens_usd",
                   "revenue_usd_per_rack_per_year", "roi")


def simulation_json(sim: Simulation) -> dict[str, Any]:
    """{"draws", "seed", "plans": [{"name", METRIC: {mean, p5..p95, share_defined}, ..., "prob_npv_positive",
    "notes"}], "pairwise": [{"a", "b", "prob_a_higher_npv"}]} (every ordered pair of distinct plans)."""
    plans = []
    for p in sim.plans:
        entry: dict[str, Any] = {"name": p.name}
        entry.update({key: summary(p.metric(key), key) for key in SUMMARY_METRICS})
        entry["prob_npv_positive"] = prob_positive(p.metric("npv_usd"))
        entry["uncertain_inputs"] = [d.row.key for d in p.inputs]
        entry["notes"] = list(p.notes)
        plans.append(entry)
    pairwise = [{"a": a.name, "b": b.name, "prob_a_higher_npv": prob_higher(a.metric("npv_usd"), b.metric("npv_usd"))}
                for a in sim.plans for b in sim.plans if a is not b]
    return {"draws": sim.draws, "seed": sim.seed, "plans": plans, "pairwise": pairwise}
