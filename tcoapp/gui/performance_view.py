"""Performance charts: tokens/s per device and per user and tokens per joule against batch (log x)
for every plan, and the frontier chart of the current plan's device and model: the swept cloud,
the Pareto set and each plan's operating point. Hovering a swept point shows its configuration;
clicking it makes it the current plan's operating point. Sweeps run in the worker thread."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QGridLayout, QHBoxLayout, QLabel, QMessageBox, QPushButton, QSizePolicy, QVBoxLayout, QWidget,
)

from ..engine.decision.summary import target_text
from ..present.anchor import anchor_points, anchor_sentence
from .document import Document
from .labels import label_with_unit
from ..engine.serving.freeze import frozen_plan
from .perf_data import curve_for, has_frontier, shown_point, sweep_for_plan, sweep_key
from .bar_chart import nice_ceiling
from .log_axes import LogAxes
from .agentic_chart import AgenticChart
from .plotting import ItemPool, brush, legend_entry, make_plot, pen, pg, set_title, wants_log
from .prediction_band import PredictionBands, band_note
from .redraw import Redraw
from .target_lines import TargetLines, targets_of
from .worker import TaskRunner

BATCH_KEYS = ("tokens_per_s_per_device", "tokens_per_s_per_user", "tokens_per_joule")
CONFIG_TEXT = {"tensor_parallel": "TP", "expert_parallel": "EP", "attention_dp": "attention DP",
               "weight_precision": "weights", "kv_precision": "KV", "spec_decode_draft_tokens": "draft tokens"}


def legend_label() -> QLabel:
    """A wrapping rich-text label for the plan colour legend (never widens the window)."""
    label = QLabel()
    label.setTextFormat(Qt.RichText)
    label.setWordWrap(True)
    label.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
    return label


def legend_html(names: list[str], colors) -> str:
    """The plan colour legend (each plan in its own colour): it wraps between plans, never inside a name."""
    return " ".join(legend_entry(c, n) for c, n in zip(colors, names))


def _note(text: str) -> QLabel:
    """A grey wrapping line under the charts (never widens the window)."""
    label = QLabel(text)
    label.setStyleSheet("color: #444;")
    label.setWordWrap(True)
    label.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
    return label


def paint_marker(item, color: str) -> None:
    item.setSymbolBrush(color)


ANCHOR_HINT = "hollow diamonds: each plan's published anchor, the nearest shipped measurement (hover it)."
HOVER_HINT = "Hover a swept point to see its configuration; click it to make it the current plan's operating point."
POOLS_FRONTIER = ("The frontier sweeps one device serving whole requests; a plan with Pools rows or a "
                  "prefill:decode split runs pools of their own devices and roles, so it has no frontier here. "
                  "The batch charts show its first serve or decode pool.")


class PerformanceView(QWidget):
    message = Signal(str)

    def __init__(self, document: Document, runner: TaskRunner, parent=None):
        super().__init__(parent)
        self._doc, self._runner = document, runner
        self.sweep = None
        self._sweep_key = None
        self.front_title = ""
        self.log_y: dict[str, bool] = {}     # metric -> its batch chart has a log y axis
        self._build_batch_charts()
        self._build_frontier()
        self.legend = legend_label()
        self.info = _note(HOVER_HINT)
        self.band_note = _note("")
        self.sweep_button = QPushButton("Sweep frontier")
        self.sweep_button.setToolTip("Sweep batch x tensor/expert parallel x precision x speculative decoding "
                                     "for the current plan's device and model (runs in the background)")
        self.sweep_button.clicked.connect(self.run_sweep)
        top = QHBoxLayout()
        top.addWidget(self.legend, 1)
        top.addWidget(self.sweep_button)
        grid = QGridLayout()
        for k, widget in enumerate((self.p_device, self.p_user, self.p_joule, self.p_front)):
            grid.addWidget(widget, k // 2, k % 2)
        self.agentic = AgenticChart()          # shown only where a plan has an agentic request class
        grid.addWidget(self.agentic, 2, 0, 1, 2)
        for row in range(2):   # the rows share the height alike; the agentic row's share only while it shows
            grid.setRowStretch(row, 1)
        self._grid = grid
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(grid, 1)
        layout.addWidget(self.info)
        layout.addWidget(self.band_note)
        self._auto = QTimer(self, singleShot=True, interval=300)
        self._auto.timeout.connect(self._auto_sweep)
        self.redraw = Redraw(self, document.scenario_changed, document.current_changed)
        self._declare_parts()
        self.refresh()

    def _draw_agentic(self, results, colors, current: int = 0) -> None:
        """The agentic charts (hidden where no plan is agentic), their grid row sharing the height only while shown."""
        self.agentic.draw(results, colors, current)
        self._grid.setRowStretch(2, 0 if self.agentic.isHidden() else 1)

    def _build_batch_charts(self) -> None:
        """Tokens/s per device, per user and tokens per joule against batch: a line and a marker per plan."""
        self.p_device = make_plot("Throughput per device", "Batch [sequences]",
                                  label_with_unit("tokens_per_s_per_device"), log_x=True)
        self.p_user = make_plot("Interactivity", "Batch [sequences]", label_with_unit("tokens_per_s_per_user"),
                                log_x=True)
        self.p_joule = make_plot("Energy efficiency", "Batch [sequences]", label_with_unit("tokens_per_joule"),
                                 log_x=True)
        self._line_pools = []
        for widget in (self.p_device, self.p_user, self.p_joule):
            item = widget.getPlotItem()
            lines = ItemPool(item, lambda i: pg.PlotDataItem(connect="finite"))   # pens: _emphasize_current
            marks = ItemPool(item, lambda i: pg.PlotDataItem(pen=None, symbol="o", symbolSize=11, symbolPen="k"),
                             paint_marker)
            self._line_pools.append((lines, marks))
        self.user_targets = TargetLines(self.p_user.getPlotItem(), vertical=False)

    def _build_frontier(self) -> None:
        """The frontier chart: the swept cloud, its Pareto line, the plans' stars, targets and interval bars."""
        self.p_front = make_plot("Frontier", label_with_unit("tokens_per_s_per_user"),
                                 label_with_unit("tokens_per_s_per_device"))
        front = self.p_front.getPlotItem()
        self.cloud = pg.ScatterPlotItem(size=5, pen=None, brush=pg.mkBrush(120, 120, 120, 90), hoverable=True,
                                        hoverBrush=pg.mkBrush("#ff9800"), hoverSize=9, tip=self._tip)
        self.pareto = pg.PlotDataItem(pen=pen("#111", 2.5), symbol="o", symbolSize=5, symbolBrush="#111")
        self.points = pg.ScatterPlotItem(size=14, pen=pg.mkPen("k", width=1.5), symbol="star", tip=self._plan_tip,
                                         hoverable=True)
        # each plan's published anchor (pipeline/anchor.py): the nearest shipped measurement, a hollow diamond
        self.anchors = pg.ScatterPlotItem(size=13, brush=None, symbol="d", tip=self._anchor_tip, hoverable=True)
        for item in (self.cloud, self.pareto, self.anchors, self.points):
            front.addItem(item)
        self.cloud.sigClicked.connect(self._clicked)
        self.pareto.sigPointsClicked.connect(self._clicked)   # the frontier's markers sit on top of the cloud
        self.points.sigClicked.connect(self._plan_clicked)
        self.cloud.sigHovered.connect(self._hovered)
        self.front_targets = TargetLines(front, vertical=True)
        self.front_axes = LogAxes(front.getAxis("bottom"), front.getAxis("left"))   # log where values span >10x
        self.bands = PredictionBands(front)

    def charts(self) -> dict[str, pg.PlotItem]:
        return {"Throughput per device vs batch": self.p_device.getPlotItem(),
                "Interactivity vs batch": self.p_user.getPlotItem(),
                "Tokens per joule vs batch": self.p_joule.getPlotItem(),
                "Frontier": self.p_front.getPlotItem(), **self.agentic.charts()}

    # --- drawing (parts of one Redraw: each draws only when what it is drawn from changed) --------
    def _declare_parts(self) -> None:
        doc, parts = self._doc, self.redraw
        parts.part("legend", lambda: (tuple(p.name for p in doc.scenario.plans), doc.plan_colors), self._draw_legend)
        parts.part("agentic", lambda: (doc.results, doc.plan_colors, doc.current_index), self._draw_agentic)
        parts.part("batch", self._batch_inputs, self._draw_batch)
        parts.part("emphasis", lambda: (doc.current_index, len(doc.scenario.plans), doc.plan_colors),
                   self._emphasize_current)
        parts.part("frontier", lambda: (doc.scenario.plans, doc.results, doc.current_index, self.sweep,
                                        doc.plan_colors, self.log_y.get("tokens_per_s_per_user", False)),
                   self._draw_frontier)

    def refresh(self, *_) -> list[str]:
        """Redraw the parts whose inputs changed (all of them the first time); the names of those drawn."""
        return self.redraw.update()

    def _draw_legend(self, names, colors) -> None:
        self.legend.setText(legend_html(list(names), colors))

    def _batch_inputs(self) -> tuple:
        """Each plan's curve (a searched plan's: the configuration the serving search chose, so its
        marker sits on it; a plan of pools: its shown pool's) and its marker on it, the plans' targets and
        colours."""
        scenario, results = self._doc.scenario, self._doc.results
        shown = scenario.plans[:len(results)]
        drawn = [frozen_plan(getattr(results[i], "searched_plan", None) or plan, results[i].searches)
                 for i, plan in enumerate(shown)]   # (a search that chose a prefill/decode pair: those pools)
        curves = tuple(curve_for(scenario, plan) for plan in drawn)
        points = tuple(tuple(shown_point(plan, results[i])[k] for k in ("batch",) + BATCH_KEYS)
                       for i, plan in enumerate(drawn))
        return curves, points, tuple(targets_of(scenario.plans)), self._doc.plan_colors

    def _draw_batch(self, curves, points, targets, colors) -> None:
        """The three batch charts: a line per plan (redrawn where its curve changed) and its marker."""
        n = len(curves)
        for k, (widget, (lines, marks), key) in enumerate(zip((self.p_device, self.p_user, self.p_joule),
                                                             self._line_pools, BATCH_KEYS)):
            log = wants_log(np.concatenate([c[1][key] for c in curves])) if curves else False
            if self.redraw.changed(("log_y", key), log):     # values spanning more than 10x: a log axis
                self.log_y[key] = log
                widget.getPlotItem().setLogMode(x=True, y=log)
            for i, (line, mark) in enumerate(zip(lines.ensure(n), marks.ensure(n, colors))):
                batch, values = curves[i][0], curves[i][1][key]
                if self.redraw.changed(("line", key, i), (batch, values)):
                    line.setData(batch, values)
                x, y = points[i][0], points[i][1 + k]
                ok = bool(np.isfinite(x) and np.isfinite(y))
                if self.redraw.changed(("mark", key, i), (x, y)):
                    mark.setData([x] if ok else [], [y] if ok else [])
        user_log = self.log_y.get("tokens_per_s_per_user", False)
        self.user_targets.update(list(targets), lambda v: float(np.log10(v)) if user_log else v)

    def _draw_frontier(self, plans, results, current_index, sweep, colors, _user_log) -> None:
        """The frontier chart of the current plan's device and model, aggregated serving: plans with
        Pools rows (pools of their own devices and roles) are not points of it, nor is it theirs."""
        n = len(results)
        current = plans[current_index] if 0 <= current_index < len(plans) else None
        xs = [r.metrics.tokens_per_s_per_user for r in results]
        ys = [r.metrics.tokens_per_s_per_device for r in results]
        same = [current is not None and has_frontier(current) and has_frontier(p)
                and (p.device, p.model) == (current.device, current.model) for p in plans[:n]]
        ok = [i for i in range(n) if same[i] and np.isfinite(xs[i]) and np.isfinite(ys[i])]
        self._check_sweep(current)
        front_targets = targets_of(plans, only={i for i in range(n) if same[i]})
        self._anchor_points = anchor_points(results, ok)
        self._draw_front(ok, [xs[i] for i in ok], [ys[i] for i in ok], colors, front_targets)
        self.bands.update([(i, results[i], xs[i], ys[i]) for i in ok], colors, self.front_axes.x, self.front_axes.y)
        self.band_note.setText(band_note([results[i] for i in ok]) if ok else "")

    def _check_sweep(self, plan) -> None:
        """Title the frontier after the current plan's device and model; drop a sweep of another one."""
        if plan is None:
            return
        title = (f"Frontier: {plan.device} / {plan.model}" if has_frontier(plan) else
                 "Frontier: n/a (a plan of pools)")
        self.front_title = title
        if self.redraw.changed("title", title):
            set_title(self.p_front.getPlotItem(), title)
        self.sweep_button.setEnabled(has_frontier(plan))
        if not has_frontier(plan):    # (see POOLS_FRONTIER): drop a sweep of the plan-level device
            self._auto.stop()
            if self.sweep is not None:
                self._clear_sweep()
            self.info.setText(POOLS_FRONTIER)
            return
        if self.info.text() == POOLS_FRONTIER:
            self.info.setText(HOVER_HINT)
        if sweep_key(plan) != self._sweep_key:
            if self.sweep is not None:    # nothing to clear (and no range to reset) on every edit before a sweep
                self._clear_sweep()
            if self.isVisible():
                self._auto.start()

    def _draw_front(self, ok, px, py, colors, targets) -> None:
        """The frontier chart: the sweep's cloud and Pareto line, the plans' stars and the targets,
        on axes that turn logarithmic where the values (swept, plans and targets) span more than 10x."""
        sweep_x = sweep_y = np.empty(0)
        if self.sweep is not None:
            feasible = self.sweep.feasible & np.isfinite(self.sweep.tokens_per_s_per_user)
            sweep_x, sweep_y = self.sweep.tokens_per_s_per_user[feasible], self.sweep.tokens_per_s_per_device[feasible]
        axes = self.front_axes
        anchors = self._anchor_points
        ax, ay = [a[1] for a in anchors], [a[2] for a in anchors]
        axes.choose(np.concatenate([sweep_x, px, ax, [t for t, _ in targets]]), np.concatenate([sweep_y, py, ay]))
        if self.sweep is not None and self.redraw.changed("sweep", (self.sweep, axes.log)):
            self._draw_sweep()
        points = (tuple(zip(ok, px, py, colors)), axes.log)
        if self.redraw.changed("stars", points):
            self.points.setData(axes.x(px), axes.y(py), data=list(ok), brush=[brush(colors[i]) for i in ok])
        if self.redraw.changed("anchors", (tuple(anchors), axes.log, tuple(colors))):
            self.anchors.setData(axes.x(ax), axes.y(ay), data=[a[0] for a in anchors],
                                 pen=[pg.mkPen(colors[a[0]], width=2.5) for a in anchors])
        self.front_targets.update(targets, lambda v: float(axes.x([v])[0]))
        if self.sweep is None:
            self._fit_front(px, py)

    def _draw_sweep(self) -> None:
        result, axes = self.sweep, self.front_axes
        ok = np.nonzero(result.feasible & np.isfinite(result.tokens_per_s_per_user))[0]
        self.cloud.setData(axes.x(result.tokens_per_s_per_user[ok]), axes.y(result.tokens_per_s_per_device[ok]), data=ok)
        idx = result.pareto_indices
        self.pareto.setData(axes.x(result.tokens_per_s_per_user[idx]), axes.y(result.tokens_per_s_per_device[idx]),
                            data=idx)

    _anchor_points: list = []

    def _clear_sweep(self):
        self.sweep = None
        self._sweep_key = None
        self.redraw.signatures.forget("sweep")
        self.cloud.setData([], [])
        self.pareto.setData([], [])
        self.p_front.getPlotItem().enableAutoRange()
        self.redraw.signatures.forget("front_range")

    def _fit_front(self, xs, ys) -> None:
        """Before a sweep: a range from zero that holds the plans' points and the targets (a lone
        point would otherwise get a range so narrow that every tick reads the same number); on a
        log axis, the decades that hold them."""
        axes = self.front_axes
        xs = list(xs) + self.front_targets.shown
        x = axes.log_span(axes.x(xs)) if axes.log[0] else (0, nice_ceiling(max(xs + [1.0]) * 1.3))
        y = axes.log_span(axes.y(ys)) if axes.log[1] else (0, nice_ceiling(max(list(ys) + [1.0]) * 1.3))
        if self.redraw.changed("front_range", (x, y)):
            self.p_front.getPlotItem().setRange(xRange=x, yRange=y, padding=0)

    def showEvent(self, event):
        super().showEvent(event)
        plan = self._doc.current_plan()
        if plan is not None and sweep_key(plan) != self._sweep_key:
            self._auto.start()    # _auto_sweep skips a plan without a frontier

    # --- the sweep ---------------------------------------------------------------------------
    def _auto_sweep(self):
        plan = self._doc.current_plan()
        if self.isVisible() and not self._runner.running and plan is not None and has_frontier(plan):
            self.run_sweep()

    def stop(self) -> None:
        """The window is closing: no new sweep."""
        self._auto.stop()

    def run_sweep(self):
        plan = self._doc.current_plan()
        if plan is None:
            return
        if not has_frontier(plan):
            self.message.emit(POOLS_FRONTIER)
            return
        key = sweep_key(plan)
        job = sweep_for_plan(self._doc.scenario, plan)
        if isinstance(job, str):
            self.message.emit(job)
            return
        self._runner.start(f"Sweeping {plan.device} / {plan.model}…", job,
                           on_success=lambda result: self.show_sweep(result, key), kind="sweep")

    def show_sweep(self, result, key=None):
        self.sweep, self._sweep_key = result, key
        self.p_front.getPlotItem().enableAutoRange()
        self.redraw.signatures.forget("front_range")
        self.refresh()           # redraws the frontier chart on the axes the sweep's values want
        if self.sweep is not result:   # the current plan changed while it ran: the refresh dropped it
            return
        ok = np.nonzero(result.feasible & np.isfinite(result.tokens_per_s_per_user))[0]
        idx = result.pareto_indices
        self.info.setText(f"{ok.size:,} feasible configurations swept ({result.size:,} points), "
                          f"{idx.size} on the Pareto frontier (black). Stars: the operating points of the plans on this device "
                          f"and model; {ANCHOR_HINT}")

    def config_text(self, i: int) -> str:
        c = self.sweep.config(int(i))
        parts = [f"batch {c['batch']:g}"] + [f"{CONFIG_TEXT[k]} {v}" for k, v in c.items() if k in CONFIG_TEXT
                                             and not (k == "attention_dp" and not v)]
        s = self.sweep
        return (", ".join(parts) + f"\n{s.tokens_per_s_per_device[i]:,.0f} tokens/s per device, "
                f"{s.tokens_per_s_per_user[i]:.3g} tokens/s per user, TTFT {s.ttft_s[i]:.3g} s")

    def _tip(self, x, y, data):
        return self.config_text(data) if self.sweep is not None and data is not None else ""

    def _plan_tip(self, x, y, data):
        plan = self._doc.scenario.plans[int(data)] if data is not None and int(data) < len(self._doc.scenario.plans) else None
        if plan is None:
            return ""
        m = self._doc.results[int(data)].metrics   # x and y are axis coordinates (log10 on a log axis)
        text = (f"{plan.name}\n{m.tokens_per_s_per_device:,.0f} tokens/s per device at "
                f"{m.tokens_per_s_per_user:.3g} tokens/s per user")
        searched = self._doc.results[int(data)].serving_text()
        return text + (f"\nserving search chose {searched}" if searched else "")

    def _anchor_tip(self, x, y, data):
        results = self._doc.results
        if data is None or int(data) >= len(results):
            return ""
        anchor = results[int(data)].published_anchor
        return f"Published anchor of {self._doc.scenario.plans[int(data)].name}:\n{anchor_sentence(anchor)}" if anchor else ""

    def _plan_clicked(self, _item, points, _ev):
        if len(points) and points[0].data() is not None:
            self._doc.set_current_index(int(points[0].data()))

    def confirm_replace_target(self, plan, config) -> bool:
        answer = QMessageBox.question(
            self, "Replace the target?",
            f"{plan.name} runs at the largest batch that meets {target_text(plan)}.\n\nUsing this point sets "
            f"batch {config['batch']:g} and its configuration and removes the target (Undo brings it back). "
            "Use this point?", QMessageBox.Yes | QMessageBox.No, QMessageBox.No)
        return answer == QMessageBox.Yes

    def _emphasize_current(self, current: int, n: int, colors) -> None:
        """Each plan's curves in its colour, the current plan's drawn thicker, so the frontier's plan stands out."""
        for lines, _ in self._line_pools:
            for i, line in enumerate(lines.items[:n]):
                line.setPen(pen(colors[i], 3.5 if i == current else 1.8))
                line.setZValue(10 if i == current else 0)   # on top of plans that share its curve

    def _hovered(self, _item, points, _ev):
        if len(points) and self.sweep is not None:
            self.info.setText(self.config_text(points[0].data()))

    def _clicked(self, _item, points, _ev):
        if len(points) and self.sweep is not None:
            self.use_point(int(points[0].data()))

    def use_point(self, i: int) -> None:
        """Make swept point i the current plan's operating point (undoable); a plan with an
        interactivity target is asked first, since the point replaces the target."""
        c = self.sweep.config(i)
        plan = self._doc.current_plan()
        if plan is not None and plan.has_target and not self.confirm_replace_target(plan, c):
            return
        changes = {k: c[k] for k in ("batch", "tensor_parallel", "expert_parallel", "attention_dp",
                                     "weight_precision", "kv_precision", "spec_decode_draft_tokens")}
        changes["batch"] = int(round(changes["batch"]))
        changes.update(min_tokens_per_s_per_user=None, max_ttft_s=None, curve="",
                       serving_search="off")   # the point clicked is the configuration: no search replaces it
        plan = self._doc.current_plan()
        error = self._doc.set_plan_values(self._doc.current_index, changes,
                                          f"Operating point of {plan.name!r} from the frontier")
        if error:
            self.message.emit(error)
