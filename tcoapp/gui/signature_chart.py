"""The field's signature chart: tokens/s per MW of facility power (or per device) against tokens/s
per user, one frontier per device on one chart, every plan's operating point (a star in its colour)
and each interactivity target (a dashed vertical line). Axes turn logarithmic where the values span
more than 10x. The legend sits above the plot, one unbroken entry per plan and per device. A device
whose configurations could not be swept says why, in red under the chart (its line is then only its
plans' own curves and points). A hollow diamond in a plan's colour marks its published anchor, the nearest
shipped measurement (engine/pipeline/anchor.py), as on the Performance tab's frontier chart."""
from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from .inline_error import InlineError
from .labels import label_with_unit
from ..present.anchor import anchor_points, anchor_sentence
from .performance_view import ANCHOR_HINT, legend_label
from .log_axes import LogAxes
from .plotting import ItemPool, NumberAxis, brush, legend_entry, make_plot, pen, pg
from .prediction_band import PredictionBands, band_note
from .redraw import Redraw
from .signature_data import frontiers, plan_points
from .target_lines import TargetLines

MODES = {"per_mw": "Tokens/s per MW [tokens/s/MW]",
         "per_device": label_with_unit("tokens_per_s_per_device")}


def frontier_color(frontier, colors) -> str:
    """A device's frontier in the colour of its first plan, so a star sits under its own line."""
    return colors[frontier.plans[0]]


class SignatureChart(QWidget):
    def __init__(self, document, parent=None):
        super().__init__(parent)
        self._doc = document
        self.mode = QComboBox()
        self.mode.addItem("per MW of facility power", "per_mw")
        self.mode.addItem("per device", "per_device")
        self.mode.setToolTip("Facility power = servers at nameplate x PUE: what a power-limited site must hold")

        self.x_axis, self.y_axis = NumberAxis("bottom"), NumberAxis("left")
        self.plot = make_plot("Throughput against interactivity", label_with_unit("tokens_per_s_per_user"),
                              MODES["per_mw"], x_axis=self.x_axis, y_axis=self.y_axis, grid="both")
        self.plot.setMinimumSize(320, 160)
        item = self.plot.getPlotItem()
        self.lines = ItemPool(item, lambda i: pg.PlotDataItem(pen=pen("#222", 2.5)))
        self.targets = TargetLines(item, vertical=True)   # labels staggered, kept inside the chart
        self.points = pg.ScatterPlotItem(size=16, symbol="star", pen=pg.mkPen("k", width=1.2), hoverable=True,
                                         tip=self._tip)
        self.points.setZValue(20)
        item.addItem(self.points)
        self.anchors = pg.ScatterPlotItem(size=13, brush=None, symbol="d", hoverable=True, tip=self._anchor_tip)
        self.anchors.setZValue(19)
        item.addItem(self.anchors)
        self.shown_anchors: list = []
        self.bands = PredictionBands(item)
        self.legend = legend_label()
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #444;")
        self.problem = InlineError()
        self.problem.setObjectName("signature_sweep_problem")
        top = QHBoxLayout()
        top.addWidget(QLabel("Throughput:"))
        top.addWidget(self.mode)
        top.addWidget(self.legend, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.note)
        layout.addWidget(self.problem)
        self.shown_frontiers = []
        self.shown_points = []
        self.axes = LogAxes(self.x_axis, self.y_axis)
        self.redraw = Redraw(self, document.scenario_changed, self.mode.activated)
        self.redraw.part("chart", lambda: (document.scenario, document.results, document.plan_colors,
                                           self.mode.currentData()), self._draw)

    @property
    def log(self) -> tuple[bool, bool]:
        return self.axes.log

    def refresh(self) -> list[str]:
        """Redraw if the document or the mode changed since the chart was drawn."""
        return self.redraw.update()

    def _draw(self, scenario, results, colors, mode) -> None:
        fronts = frontiers(scenario, results)
        points = plan_points(scenario, results)
        per_mw = mode == "per_mw"
        ykey = "tokens_per_s_per_mw" if per_mw else "tokens_per_s_per_device"
        xs = np.concatenate([f.tokens_per_s_per_user for f in fronts] + [[p.tokens_per_s_per_user for p in points]])
        ys = np.concatenate([getattr(f, ykey) for f in fronts] + [[getattr(p, ykey) for p in points]])
        self.axes.choose(xs, ys)
        lx, ly = self.axes.x, self.axes.y
        ok = self._draw_lines_and_stars(fronts, points, ykey, colors)
        self._draw_anchors(results, ok, ykey, colors)
        wanted = sorted({p.target for p in points if p.target is not None})
        self.targets.update([(t, [scenario.plans[p.index].name for p in points if p.target == t]) for t in wanted],
                            to_axis=lambda v: float(lx([v])[0]))
        self.plot.getPlotItem().setLabel("left", MODES["per_mw" if per_mw else "per_device"], color="#222",
                                         **{"font-size": "10pt"})
        self._fit_range(lx(xs), ly(ys), lx(wanted) if wanted else np.empty(0))
        self.shown_frontiers, self.shown_points = fronts, ok
        self.bands.update([(p.index, results[p.index], p.tokens_per_s_per_user, getattr(p, ykey)) for p in ok],
                          colors, lx, ly)
        self._draw_texts(fronts, points, ok, results)

    def _draw_lines_and_stars(self, fronts, points, ykey: str, colors) -> list:
        """Each frontier's line and each plan's star (on the chosen axes); the plans drawn (a finite point)."""
        lx, ly = self.axes.x, self.axes.y
        for line, f in zip(self.lines.ensure(len(fronts)), fronts):
            line.setData(lx(f.tokens_per_s_per_user), ly(getattr(f, ykey)), connect="finite")
            line.setPen(pen(frontier_color(f, colors), 2.5))
        ok = [p for p in points if np.isfinite(p.tokens_per_s_per_user) and np.isfinite(getattr(p, ykey))]
        self.points.setData(lx([p.tokens_per_s_per_user for p in ok]), ly([getattr(p, ykey) for p in ok]),
                            data=[p.index for p in ok], brush=[brush(colors[p.index]) for p in ok])
        return ok

    def _draw_anchors(self, results, ok, ykey: str, colors) -> None:
        """Each drawn plan's published anchor (a hollow diamond): per MW at the plan's own tokens/s per MW
        over its tokens/s per device (the same fleet, the measurement's throughput)."""
        scale = {p.index: (p.tokens_per_s_per_mw / p.tokens_per_s_per_device if ykey == "tokens_per_s_per_mw"
                           and p.tokens_per_s_per_device > 0 else 1.0) for p in ok}
        anchors = [(i, x, y * scale[i]) for i, x, y in anchor_points(results, [p.index for p in ok])
                   if np.isfinite(scale[i])]
        self.shown_anchors = anchors
        lx, ly = self.axes.x, self.axes.y
        self.anchors.setData(lx([a[1] for a in anchors]), ly([a[2] for a in anchors]), data=[a[0] for a in anchors],
                             pen=[pg.mkPen(colors[a[0]], width=2.5) for a in anchors])

    def _anchor_tip(self, x, y, data):
        if data is None or int(data) >= len(self._doc.results):
            return ""
        anchor = self._doc.results[int(data)].published_anchor
        return f"Published anchor of {self._doc.scenario.plans[int(data)].name}:\n{anchor_sentence(anchor)}" if anchor else ""

    def _draw_texts(self, fronts, points, ok, results) -> None:
        colors = self._doc.plan_colors
        entries = [legend_entry(colors[p.index], p.name, "&#9733;") for p in points]
        entries += [legend_entry(frontier_color(f, colors), f"{f.label} frontier", "&#9473;") for f in fronts]
        if self.redraw.changed("legend", entries):
            self.legend.setText(" ".join(entries))
        missing = [p.name for p in points if p not in ok]
        text = ("Lines: the best configuration of each device at every interactivity (swept batch x parallelism x "
                "precision x speculative decoding, and the plans' own curves and points). Stars: the plans. Dashed: targets.")
        if missing:
            text += " Not drawn (no operating point): " + ", ".join(missing) + "."
        if self.shown_anchors:
            text += " " + ANCHOR_HINT[0].upper() + ANCHOR_HINT[1:]
        text += " " + band_note([results[p.index] for p in ok])
        if self.redraw.changed("note", text):
            self.note.setText(text)
        problems = [f"{f.label}: the configurations could not be swept ({f.problem}); its line shows only its plans' "
                    "own curves and points." for f in fronts if f.problem]
        if "\n".join(problems) != self.problem.text():
            self.problem.show_error("\n".join(problems))

    def _fit_range(self, xs, ys, targets) -> None:
        item = self.plot.getPlotItem()
        x = np.concatenate([xs[np.isfinite(xs)], targets])
        y = ys[np.isfinite(ys)]
        if x.size == 0 or y.size == 0:
            item.setXRange(0, 1)
            item.setYRange(0, 1)
            return
        x_pad = 0.1 if self.log[0] else 0.05 * (x.max() - x.min() or 1.0)
        y_pad = 0.1 if self.log[1] else 0.05 * (y.max() or 1.0)
        item.setXRange(x.min() - x_pad if self.log[0] else 0.0, x.max() + x_pad, padding=0)
        item.setYRange(y.min() - y_pad if self.log[1] else 0.0, y.max() + y_pad, padding=0)

    def _tip(self, x, y, data):
        if data is None or int(data) >= len(self._doc.results):
            return ""
        i = int(data)
        m = self._doc.results[i].metrics
        per_mw = next((p.tokens_per_s_per_mw for p in self.shown_points if p.index == i), np.nan)
        return (f"{self._doc.scenario.plans[i].name}\n{m.tokens_per_s_per_user:.3g} tokens/s per user, "
                f"{m.tokens_per_s_per_device:,.0f} tokens/s per device, {per_mw:,.0f} tokens/s per MW")
