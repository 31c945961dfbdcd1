"""A metric's summary over draws that arrive chunk by chunk, exact (docs/model.md, "Uncertainty").

The same numbers as `statistics.summary` and `statistics.prob_positive` over the whole array: the
counts are exact, the percentiles exact (`exact_percentiles.py`); the mean is the sum of each chunk's
numpy sum over the defined draws, divided by their count (it can differ from one numpy mean over all
draws in the last bits of the float64 rounding, ~1e-15 relative).
"""
from __future__ import annotations

import numpy as np

from .exact_percentiles import ExactPercentiles, Interval, refine_step, sort_keys
from .statistics import NEVER_LATE, PERCENTILES


class MetricStream:
    def __init__(self, key: str, sample: np.ndarray):
        """`sample`: the first draws of the run (they place the percentile brackets; add them too)."""
        self.key = key
        self.draws = self.defined = self.positive = 0
        self.total = 0.0
        self.quantiles = ExactPercentiles(PERCENTILES, self.ordered(sample))
        self.found: dict[int, float] = {}
        self.targets: list[tuple[int, Interval]] = []

    def ordered(self, values: np.ndarray) -> np.ndarray:
        """The values percentiles run over: payback "never" (NaN) as +inf, else the defined draws only."""
        x = np.asarray(values, float)
        return np.where(np.isnan(x), np.inf, x) if self.key in NEVER_LATE else x[np.isfinite(x)]

    def add(self, values: np.ndarray) -> None:
        """One chunk of draws (the metric's unit; NaN: not defined) into the counts and percentiles."""
        x = np.asarray(values, float)
        defined = np.isfinite(x)
        self.draws += x.size
        self.defined += int(np.count_nonzero(defined))
        self.total += float(np.sum(x[defined]))
        self.positive += int(np.count_nonzero(np.nan_to_num(x, nan=-np.inf) > 0))
        self.quantiles.add(self.ordered(x))

    def finish_pass(self) -> bool:
        """After the first pass: True when every percentile was found (else `targets` wants another pass)."""
        self.found = self.quantiles.found()
        self.targets = self.quantiles.refinement(self.found)
        return not self.targets

    def refine(self, values: np.ndarray) -> None:
        """A further pass: the same draws again, for the ranks not yet found."""
        if self.targets:
            keys = sort_keys(self.ordered(values))
            for _, interval in self.targets:
                interval.add(keys)

    def finish_refinement(self) -> bool:
        """After a further pass: True when every percentile was found."""
        found, self.targets = refine_step(self.targets)
        self.found.update(found)
        return not self.targets

    def summary(self) -> dict[str, float | None]:
        """As `statistics.summary`: mean, p5..p95, share_defined."""
        out: dict[str, float | None] = {"mean": self.total / self.defined if self.defined else None}
        values = self.quantiles.values(self.found)
        for p in PERCENTILES:
            out[f"p{p}"] = values[p]
        out["share_defined"] = self.defined / self.draws if self.draws else 0.0
        return out

    def prob_positive(self) -> float:
        """Share of the draws with a value > 0 (a missing value is not > 0)."""
        return self.positive / self.draws if self.draws else 0.0
