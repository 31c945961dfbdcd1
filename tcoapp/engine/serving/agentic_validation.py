"""The agentic session model against public agentic measurements (docs/model.md, "Agentic sessions and
KV tiers", its validation): each row states a replica (device, model, TP, precisions), its concurrent
sessions, KV offload and host memory, and the session shape of its trace; the model
(`session_curve`) predicts the achieved prefix hit rate and tokens/s per device, and the errors form
their own cell of `tcoapp accuracy`.

Nothing here is fitted: the session model has no fitted parameter, and the rows enter no factor fit,
so every prediction is out of sample for the session model (the roofline under it runs at the shipped
efficiency factors). The figures: the median absolute error of the hit rate (points, 0..1), the median
absolute percent error of tokens/s per device, the share of rows on the right side of the HBM knee
(measured hit rate above or below one half as predicted), and the offload gain (tokens/s with host
offload over without, at the same sessions) measured and predicted.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..performance.kv_residency import SessionShape
from ..quantities.records import ServingConfig
from .agentic import KvTiers, session_curve


@dataclass(frozen=True)
class AgenticRow:
    """One measured operating point of an agentic run (a row of resources/measurements/agentic_public.csv)."""

    source: str
    device: str
    model: str
    tensor_parallel: int
    weight_precision: str
    kv_precision: str
    sessions_per_replica: float
    kv_offload: str
    host_gb_per_device: float
    host_link_gb_s: float
    shape: SessionShape
    measured_prefix_hit_rate: float
    measured_tokens_per_s_per_device: float


@dataclass(frozen=True)
class AgenticPrediction:
    row: AgenticRow
    prefix_hit_rate: float
    tokens_per_s_per_device: float

    @property
    def hit_error(self) -> float:
        """Predicted - measured hit rate (0..1 points)."""
        return self.prefix_hit_rate - self.row.measured_prefix_hit_rate

    @property
    def tokens_error_pct(self) -> float:
        """(predicted / measured - 1) x 100 of tokens/s per device."""
        return (self.tokens_per_s_per_device / self.row.measured_tokens_per_s_per_device - 1.0) * 100.0


def predict(rows, catalog) -> list[AgenticPrediction]:
    """The model's hit rate and tokens/s per device for every row (rows of one replica and offload are
    solved together, one session curve over their session counts)."""
    groups: dict[tuple, list[AgenticRow]] = {}
    for row in rows:
        key = (row.device, row.model, row.tensor_parallel, row.weight_precision, row.kv_precision, row.kv_offload,
               row.host_gb_per_device, row.host_link_gb_s, row.shape)
        groups.setdefault(key, []).append(row)
    out = []
    for key, members in groups.items():
        device, model = catalog.devices[key[0]], catalog.models[key[1]]
        serving = ServingConfig(tensor_parallel=key[2], expert_parallel=1, weight_precision=key[3], kv_precision=key[4])
        tiers = KvTiers(key[5], host_gb=key[6], host_link_gb_s=key[7])
        curve = session_curve(device, model, serving, key[8], tiers, [r.sessions_per_replica for r in members])
        out += [AgenticPrediction(r, float(h), float(t)) for r, h, t in
                zip(members, curve.achieved_prefix_hit_rate, curve.tokens_per_s_per_device)]
    return out


def summary(predictions: list[AgenticPrediction]) -> dict:
    """The cell's figures (see the module docstring); None where no row gives one."""
    if not predictions:
        return {"rows": 0}
    hit = np.array([abs(p.hit_error) for p in predictions])
    ape = np.array([abs(p.tokens_error_pct) for p in predictions])
    side = np.mean([(p.prefix_hit_rate > 0.5) == (p.row.measured_prefix_hit_rate > 0.5) for p in predictions])
    return {"rows": len(predictions), "median_abs_hit_error": float(np.median(hit)),
            "p90_abs_hit_error": float(np.percentile(hit, 90)), "median_tokens_ape_pct": float(np.median(ape)),
            "p90_tokens_ape_pct": float(np.percentile(ape, 90)), "knee_side_agreement": float(side),
            "offload_gains": offload_gains(predictions)}


def offload_gains(predictions: list[AgenticPrediction]) -> list[dict]:
    """At each session count measured both with host offload and without (same replica and shape): tokens/s
    per device with over without, measured and predicted."""
    by = {(p.row.device, p.row.model, p.row.tensor_parallel, p.row.shape, p.row.sessions_per_replica,
           p.row.kv_offload): p for p in predictions}
    gains = []
    for (device, model, tp, shape, n, offload), with_host in sorted(by.items(), key=lambda kv: kv[0][4]):
        bare = by.get((device, model, tp, shape, n, "none"))
        if offload == "none" or bare is None:
            continue
        gains.append({"device": device, "model": model, "sessions_per_replica": n,
                      "measured": with_host.row.measured_tokens_per_s_per_device / bare.row.measured_tokens_per_s_per_device,
                      "predicted": with_host.tokens_per_s_per_device / bare.tokens_per_s_per_device})
    return gains
