"""The x and y axes of a scatter chart that turn logarithmic where the values span more than 10x
(`plotting.wants_log`), for charts whose items pyqtgraph does not log-transform itself (scatter
items, infinite lines): the chart passes its data through `x()` / `y()` (log10 on a log axis)."""
from __future__ import annotations

import numpy as np

from .plotting import to_axis, wants_log

LOG_PAD_DECADES = 0.1


class LogAxes:
    def __init__(self, x_axis, y_axis):
        self._axes = (x_axis, y_axis)
        self.log = (False, False)

    def choose(self, xs, ys) -> bool:
        """Pick linear or log per axis for these values; True when either axis changed."""
        log = (wants_log(xs), wants_log(ys))
        changed = log != self.log
        self.log = log
        for axis, on in zip(self._axes, log):
            if axis.logMode != on:
                axis.setLogMode(on)
        return changed

    def x(self, values) -> np.ndarray:
        return to_axis(values, self.log[0])

    def y(self, values) -> np.ndarray:
        return to_axis(values, self.log[1])

    def log_span(self, axis_values) -> tuple[float, float] | None:
        """(low, high) of finite axis coordinates padded by a tenth of a decade; None when empty."""
        v = np.asarray(axis_values, float)
        v = v[np.isfinite(v)]
        return (float(v.min()) - LOG_PAD_DECADES, float(v.max()) + LOG_PAD_DECADES) if v.size else None
