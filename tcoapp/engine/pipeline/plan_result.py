"""The result of one plan (`compute.compute_plan`): its operating point, every metric, the finance
quantities per plan, pool and year, its pools and fleet, what its serving search chose and its
frontier share; `as_json` is what `tcoapp compute --json` writes (docs/model.md, "Metric keys").

It imports only the light tables, so a view can hold "computing…" results before the engine's
compute modules are loaded (the desktop app shows its window first: gui/first_compute.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..performance.curve import OperatingPoint
from ..plan.pools import POOL_SERVING_KEYS, ResolvedPool, sells_output
from ..quantities.metrics import POOL_POINT_METRICS, Metrics, metric_values

if TYPE_CHECKING:
    from ..serving.fleet import FleetPoint
    from ..serving.frontier_share import Frontier
    from ..quantities.finance import FinanceInputs, FinanceResult
    from ..serving.search import SearchOutcome


@dataclass(frozen=True)
class PlanResult:
    name: str
    point: OperatingPoint
    metrics: Metrics                        # every metric of the metric table; NaN = does not exist
    finance: FinanceResult | None = None    # every finance quantity, per plan and (in .pools) per pool
    inputs: FinanceInputs | None = None     # what the finance layer computed from
    pools: tuple[ResolvedPool, ...] = ()
    fleet: FleetPoint | None = None
    warnings: tuple[str, ...] = field(default=())
    serving_search: str = "off"
    searches: tuple[SearchOutcome | None, ...] = ()   # per pool: what serving_search = auto chose
    prediction_interval: dict | None = None           # 80 % band of a generated plan point (None: measured)
    pool_intervals: tuple[dict | None, ...] = ()      # per pool, the same
    frontier: Frontier | None = None        # the best its device reaches at the target (serving/frontier_share.py)
    frontier_share: float = float("nan")    # tokens/s per device over the frontier's; NaN: no frontier
    published_anchor: dict | None = None    # the nearest shipped measurement (pipeline/anchor.py); None: none
    workloads: tuple = ()                   # per request class (pipeline/class_results.ClassResult); () : none
    workloads_blended: dict | None = None   # the mix's equivalent request and its batch limits; None: no classes
    agentic: dict | None = None             # an agentic class's answer (pipeline/agentic_block.py); None: none
    configuration_gains: dict | None = None  # validated base x each configuration gain (pipeline/config_gains.py)
    disaggregation: dict | None = None      # the search's prefill/decode option (pipeline/disagg_search.py); None: not priced
    searched_plan: Any = None               # the plan as the search settled it where it changed its pools (a
                                            # prefill/decode pair); None: the plan as typed

    def metric_or_none(self, key: str) -> float | None:
        """The metric `key` in its unit (METRIC_KEYS, docs/model.md "Metric keys"); None where it does not exist."""
        value = getattr(self.metrics, key)
        return None if value is None or not np.isfinite(value) else float(value)

    def pool_rows(self) -> list[dict[str, Any]]:
        """One dict per pool: its identity, serving configuration, operating point and economics."""
        rows = []
        for i, pool in enumerate(self.pools):
            point = self.fleet.pool_points[i] if self.fleet else None
            row: dict[str, Any] = {"pool": pool.name, "role": pool.role, "device": pool.device,
                                   "ownership": "buy" if pool.owned else "rent"}
            for key in _finance_tables().POOL_JSON_KEYS:
                row[key] = _finite(self.finance.pools[key][..., i]) if self.finance is not None else None
            row["requests_per_s"] = _finite(self.fleet.requests_per_s[i]) if self.fleet else None
            for key in POOL_POINT_METRICS:
                row[key] = _finite(getattr(point, key)) if point is not None else None
            row["serving"] = {k: getattr(pool.serving, k) for k in POOL_SERVING_KEYS}
            row["serving"]["searched"] = self.pool_search(i) is not None
            row["prediction_interval"] = self.pool_intervals[i] if i < len(self.pool_intervals) else None
            rows.append(row)
        return rows

    def pool_search(self, i: int) -> SearchOutcome | None:
        """What serving_search = auto chose for pool `i` (None: not searched)."""
        return self.searches[i] if i < len(self.searches) else None

    def serving_json(self) -> dict[str, Any]:
        """The plan's serving search: its mode and, per searched pool, what was chosen (docs/model.md, "Serving search")."""
        chosen = {pool.name: dict({k: getattr(s.serving, k) for k in POOL_SERVING_KEYS}, objective=s.objective,
                                  objective_value=_finite(s.objective_value), configurations=s.configurations,
                                  points=s.points)
                  for i, pool in enumerate(self.pools) if (s := self.pool_search(i)) is not None}
        out = {"serving_search": self.serving_search, "pools": chosen}
        if self.disaggregation is not None:
            out["disaggregation"] = self.disaggregation
        return out

    def serving_text(self) -> str:
        """One line per searched pool (Results sheet, GUI); empty when nothing was searched."""
        lines = [(f"{pool.name}: " if len(self.pools) > 1 else "") + s.text()
                 for i, pool in enumerate(self.pools) if (s := self.pool_search(i)) is not None]
        return "; ".join(lines)

    def output_price_usd_per_million(self) -> float:
        """The output price charged [USD per million output tokens]: the pools' prices weighted by the
        output tokens each pool delivers. A prefill pool sells no output tokens, so its price (0) does
        not dilute a prefill/decode plan's; without a token rate, the selling pools' device-weighted
        mean. NaN without finance inputs."""
        if self.inputs is None:
            return float("nan")
        prices = np.asarray(self.inputs.price_usd_per_million_output_tokens, float).reshape(-1)
        counts = np.asarray(self.inputs.device_count, float).reshape(-1) * np.ones_like(prices)
        tokens = np.asarray(self.inputs.tokens_per_s_per_device, float).reshape(-1) * np.ones_like(prices)
        sells = np.array([sells_output(p) for p in self.pools] or [True] * prices.size)[:prices.size]
        for weights in (np.where(sells, np.nan_to_num(tokens * counts), 0.0), np.where(sells, counts, 0.0),
                        sells.astype(float)):
            if np.sum(weights) > 0:
                return float(np.sum(prices * weights) / np.sum(weights))
        return float(prices[0]) if prices.size else float("nan")

    def year_rows(self) -> list[dict[str, Any]]:
        """One dict per year 0..years: the timeline of docs/model.md ("Years")."""
        if self.finance is None or self.inputs is None:
            return []
        y = self.finance.years
        horizon = int(np.asarray(self.inputs.years, float))
        base_price = self.output_price_usd_per_million()
        rows = []
        for t in range(horizon + 1):
            row = {"year": t, "utilization": _finite(y.utilization[..., t]),
                   "price_usd_per_million_output_tokens": _finite(base_price * y.price_index[..., t]) if t else None}
            for key in _finance_tables().YEAR_JSON_KEYS:
                row[key] = _finite(y[key][..., t])
            rows.append(row)
        return rows

    def as_json(self) -> dict[str, Any]:
        """The plan's result as `tcoapp compute --json` writes it: metrics (None: does not exist), operating point
        flags, pools, serving search, years and warnings, every number in the unit its key names."""
        data: dict[str, Any] = {"name": self.name}
        data.update({key: _finite(value) for key, value in metric_values(self.metrics)})
        data["curve_source"] = self.point.source
        data["extrapolated"] = self.point.extrapolated
        data["queued"] = self.point.queued
        data["limited_by"] = (self.fleet.limited_by or None) if self.fleet else None
        data["prediction_interval"] = self.prediction_interval
        data["pools"] = self.pool_rows()
        data["serving"] = self.serving_json()
        data["frontier_share"] = _finite(self.frontier_share)
        data["published_anchor"] = self.published_anchor
        data["configuration_gains"] = self.configuration_gains
        if self.workloads:
            data["workloads"] = [c.as_json() for c in self.workloads]
            data["workloads_blended"] = self.workloads_blended
        data["years"] = self.year_rows()
        data["warnings"] = list(self.warnings)
        if self.agentic is not None:          # only a plan with an agentic class has the block
            data["agentic"] = self.agentic
        return data


def _finance_tables():
    """The finance table module, imported where a result is written out (not when one is held)."""
    from ..quantities import finance
    return finance


def _finite(value) -> float | None:
    value = float(np.asarray(value, float))
    return value if np.isfinite(value) else None


