"""The 80 % prediction interval of each plan's operating point, drawn as error bars through the
point (docs/model.md, "How sure it is"): tokens/s per user across, the chart's throughput up. The
engine gives `prediction_interval` per plan on a generated curve, from leave-one-family-out published
measurements (engine/performance/prediction_interval.py); a plan on a measured curve has none, and
nothing is drawn for it."""
from __future__ import annotations

import functools
import math

import numpy as np

from .plotting import pg


BAND_TEXT = "80 % prediction interval from measurements of source families held out of the fit"
BAND_ALPHA = 150   # of 255: the star and the lines under the bars stay readable


@functools.lru_cache(maxsize=64)
def band_color(color: str):
    """The plan's colour, translucent."""
    c = pg.mkColor(color)
    c.setAlpha(BAND_ALPHA)
    return c


def band_of(result, x: float, y: float) -> tuple[float, float, float, float] | None:
    """(x low, x high, y low, y high) of the plan's 80 % interval around its point (x, y) on a chart
    whose x is tokens/s per user and whose y is proportional to tokens/s per device (per device, per
    MW); None where the engine gives no interval (a measured curve, no operating point)."""
    interval = getattr(result, "prediction_interval", None)
    if not interval or not (math.isfinite(x) and math.isfinite(y)):
        return None
    m = result.metrics
    device, user = m.tokens_per_s_per_device, m.tokens_per_s_per_user
    dev = interval.get("tokens_per_s_per_device")
    if not dev or not (math.isfinite(device) and device > 0):
        return None
    ys = (y * dev[0] / device, y * dev[1] / device)
    per_user = interval.get("tokens_per_s_per_user")
    xs = (x * per_user[0] / user, x * per_user[1] / user) if per_user and math.isfinite(user) and user > 0 else (x, x)
    return xs[0], xs[1], ys[0], ys[1]


class PredictionBands:
    """Per plan that has an interval, error bars in the plan's colour through its point: up and down
    to the throughput interval, left and right to the per-user one (under the plans' stars)."""

    def __init__(self, item: pg.PlotItem):
        self._item = item
        self.bars: list[pg.ErrorBarItem] = []
        self.shown: dict[int, tuple[float, float, float, float]] = {}   # plan index -> (x lo, x hi, y lo, y hi)

    def _bar(self, k: int) -> pg.ErrorBarItem:
        while len(self.bars) <= k:
            bar = pg.ErrorBarItem(x=np.zeros(1), y=np.zeros(1), beam=0.0)   # no caps: they would be in data units
            bar.setZValue(5)
            self._item.addItem(bar)
            self.bars.append(bar)
        return self.bars[k]

    def update(self, entries, colors, to_x, to_y) -> None:
        """`entries`: (plan index, result, x, y) of the points on the chart (data values); `to_x`,
        `to_y` turn data values into axis coordinates (log10 on a log axis)."""
        boxes = {i: (band_of(r, x, y), x, y) for i, r, x, y in entries}
        self.shown = {i: b for i, (b, _, _) in boxes.items() if b is not None}
        without = sum(b is None for b, _, _ in boxes.values())
        tip = tooltip(len(self.shown), without)
        for k, (i, box) in enumerate(self.shown.items()):
            x, y = boxes[i][1], boxes[i][2]
            (cx,), (cy,) = to_x([x]), to_y([y])
            (x0, x1), (y0, y1) = to_x(box[:2]), to_y(box[2:])
            bar = self._bar(k)
            bar.setData(x=np.array([cx]), y=np.array([cy]), left=np.array([cx - x0]), right=np.array([x1 - cx]),
                        bottom=np.array([cy - y0]), top=np.array([y1 - cy]),
                        pen=pg.mkPen(band_color(colors[i]), width=3))
            bar.setToolTip(tip)
            bar.setVisible(True)
        for bar in self.bars[len(self.shown):]:
            bar.setVisible(False)


def tooltip(drawn: int, without: int) -> str:
    text = (f"Bars through a plan's star: the {BAND_TEXT} (tokens/s per user across, throughput up), for each plan "
            "on a generated curve")
    if without:
        text += (f"; {without} plan(s) on a measured curve (or with no operating point) have none, so nothing is "
                 "drawn for them")
    return text + "."


def band_note(results) -> str:
    """The sentence under a chart: what the boxes are and which plans have none (measured curves)."""
    measured = [r.name for r in results if getattr(r, "prediction_interval", None) is None]
    text = f"Bars through the stars: {BAND_TEXT}."
    if measured:
        text += " None for " + ", ".join(measured) + " (a measured curve or no operating point)."
    return text
