"""Interactivity targets drawn on a chart: one dashed line per distinct target value
(`min_tokens_per_s_per_user`), labelled with the value and the plans that set it. Items are made
once and reused. Labels of vertical lines sit low on the line, below the plans' stars and their
interval bars (a plan at its target sits on the line, high on a throughput axis), and are staggered
in height (three levels), so targets close together on the axis do not print over each other."""
from __future__ import annotations

from PySide6.QtCore import Qt

from .plotting import ItemPool, pen, pg

TARGET_COLOR = "#c62828"
LOW_LABEL = 0.06   # a vertical line's label: this far up the plot (0 bottom, 1 top)


def targets_of(plans, only=None) -> list[tuple[float, list[str]]]:
    """[(target tokens/s per user, names of the plans with it)], ascending; `only`: plan indices."""
    found: dict[float, list[str]] = {}
    for i, plan in enumerate(plans):
        if (only is None or i in only) and plan.min_tokens_per_s_per_user is not None:
            found.setdefault(float(plan.min_tokens_per_s_per_user), []).append(plan.name)
    return sorted(found.items())


class TargetLines:
    def __init__(self, item: pg.PlotItem, vertical: bool):
        angle = 90 if vertical else 0
        position = LOW_LABEL if vertical else 0.92
        self._vertical = vertical
        self.pool = ItemPool(item, lambda i: pg.InfiniteLine(
            angle=angle, pen=pen(TARGET_COLOR, 1.5, Qt.DashLine), label="",
            labelOpts={"position": position, "color": TARGET_COLOR, "anchors": [(0, 1), (0, 1)] if vertical
                       else [(1, 1), (1, 1)]}))
        self.shown: list[float] = []
        self._view = item.getViewBox()
        if vertical:
            self._view.sigXRangeChanged.connect(self._anchor_labels)

    @property
    def items(self) -> list:
        """The lines made so far (the ones beyond the targets shown are hidden)."""
        return self.pool.items

    def update(self, targets: list[tuple[float, list[str]]], to_axis=lambda v: v) -> None:
        for i, (line, (value, names)) in enumerate(zip(self.pool.ensure(len(targets)), targets)):
            line.setValue(to_axis(value))
            if self._vertical:
                line.label.setPosition(LOW_LABEL + 0.08 * (i % 3))
            line.label.setFormat(f"target ≥ {value:g} tok/s/user")
            line.setToolTip(f"Target >= {value:g} tokens/s per user: " + ", ".join(names))
        self.shown = [v for v, _ in targets]
        if self._vertical:
            self._anchor_labels()

    def _anchor_labels(self, *_) -> None:
        """A label right of its line, or left of it where it would run off the chart's right edge (its
        bottom at its height on the line: it stands above it)."""
        high = self._view.viewRange()[0][1]
        per_pixel = self._view.viewPixelSize()[0]
        for line in self.pool.items:
            width = line.label.boundingRect().width() * per_pixel
            side = [(1, 1), (1, 1)] if line.value() + width > high else [(0, 1), (0, 1)]
            if line.label.anchors != side:
                line.label.anchors = side
                line.label.updatePosition()
