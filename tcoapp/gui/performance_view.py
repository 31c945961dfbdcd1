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

from ..engine.decision import target_text
from .document import Document
from .labels import label_with_unit
from ..engine.serving_freeze import frozen_plan
from .perf_data import curve_for, has_frontier, shown_point, sweep_for_plan, sweep_key
from .bar_chart import nice_ceiling
from .log_axes import LogAxes
from .plotting import ItemPool, brush, legend_entry, make_plot, pen, pg, set_title, wants_log
from .target_lines import TargetLines, targets_of
from .when_shown import WhenShown
from .worker import TaskRunner

CONFIG_TEXT = {"tensor_parallel": "TP", "expert_parallel": "EP", "attention_dp": "attention DP",
               "weight_precision": "weights", "kv_precision": "KV", "spec_decode_draft_tokens": "draft tokens"}


def legend_label() -> QLabel:
    """A wrapping rich-text label for the plan colour legend (never widens the window)."""
    label = QLabel()
    label.setTextFormat(Qt.RichText)
    label.setWordWrap(True)
    label.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
    return label


def set_text_if_changed(label: QLabel, text: str) -> None:
    if label.text() != text:
        label.setText(text)


def legend_html(names: list[str], colors) -> str:
    """The plan colour legend (each plan in its own colour): it wraps between plans, never inside a name."""
    return " ".join(legend_entry(c, n) for c, n in zip(colors, names))


def paint_marker(item, color: str) -> None:
    item.setSymbolBrush(color)


HOVER_HINT = "Hover a swept point to see its configuration; click it to make it the current plan's operating point."
POOLS_FRONTIER = ("The frontier sweeps one device serving whole requests; a plan with Pools rows runs pools of their "
                  "own devices and roles, so it has no frontier here. The batch charts show its first serve or "
                  "decode pool.")


class PerformanceView(QWidget):
    message = Signal(str)

    def __init__(self, document: Document, runner: TaskRunner, parent=None):
        super().__init__(parent)
        self._doc, self._runner = document, runner
        self.sweep = None
        self._sweep_key = None
        self._shown_points: tuple = ()
        self._emphasized: tuple = ()
        self._front_title = ""
        self._front_range = None
        self.log_y: dict[str, bool] = {}     # metric -> its batch chart has a log y axis
        self.p_device = make_plot("Throughput per device", "Batch [sequences]",
                                  label_with_unit("tokens_per_s_per_device"), log_x=True)
        self.p_user = make_plot("Interactivity", "Batch [sequences]", label_with_unit("tokens_per_s_per_user"),
                                log_x=True)
        self.p_joule = make_plot("Energy efficiency", "Batch [sequences]", label_with_unit("tokens_per_joule"),
                                 log_x=True)
        self.p_front = make_plot("Frontier", label_with_unit("tokens_per_s_per_user"),
                                 label_with_unit("tokens_per_s_per_device"))
        self._line_pools = []
        for widget in (self.p_device, self.p_user, self.p_joule):
            item = widget.getPlotItem()
            lines = ItemPool(item, lambda i: pg.PlotDataItem(connect="finite"))   # pens: _emphasize_current
            marks = ItemPool(item, lambda i: pg.PlotDataItem(pen=None, symbol="o", symbolSize=11, symbolPen="k"),
                             paint_marker)
            self._line_pools.append((lines, marks))
        front = self.p_front.getPlotItem()
        self.cloud = pg.ScatterPlotItem(size=5, pen=None, brush=pg.mkBrush(120, 120, 120, 90), hoverable=True,
                                        hoverBrush=pg.mkBrush("#ff9800"), hoverSize=9, tip=self._tip)
        self.pareto = pg.PlotDataItem(pen=pen("#111", 2.5), symbol="o", symbolSize=5, symbolBrush="#111")
        self.points = pg.ScatterPlotItem(size=14, pen=pg.mkPen("k", width=1.5), symbol="star", tip=self._plan_tip,
                                         hoverable=True)
        for item in (self.cloud, self.pareto, self.points):
            front.addItem(item)
        self.cloud.sigClicked.connect(self._clicked)
        self.pareto.sigPointsClicked.connect(self._clicked)   # the frontier's markers sit on top of the cloud
        self.points.sigClicked.connect(self._plan_clicked)
        self.cloud.sigHovered.connect(self._hovered)
        self.user_targets = TargetLines(self.p_user.getPlotItem(), vertical=False)
        self.front_targets = TargetLines(front, vertical=True)
        self.front_axes = LogAxes(front.getAxis("bottom"), front.getAxis("left"))   # log where values span >10x
        self._drawn_sweep = None

        self.legend = legend_label()
        self.info = QLabel(HOVER_HINT)
        self.info.setStyleSheet("color: #444;")
        self.info.setWordWrap(True)
        self.info.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.sweep_button = QPushButton("Sweep frontier")
        self.sweep_button.setToolTip("Sweep batch x tensor/expert parallel x precision x speculative decoding "
                                     "for the current plan's device and model (runs in the background)")
        self.sweep_button.clicked.connect(self.run_sweep)
        top = QHBoxLayout()
        top.addWidget(self.legend, 1)
        top.addWidget(self.sweep_button)
        grid = QGridLayout()
        grid.addWidget(self.p_device, 0, 0)
        grid.addWidget(self.p_user, 0, 1)
        grid.addWidget(self.p_joule, 1, 0)
        grid.addWidget(self.p_front, 1, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(grid, 1)
        layout.addWidget(self.info)
        self._auto = QTimer(self, singleShot=True, interval=300)
        self._auto.timeout.connect(self._auto_sweep)
        self.when_shown = WhenShown(self)
        document.scenario_changed.connect(self.when_shown.changed)
        document.current_changed.connect(self.when_shown.changed)
        self.refresh()

    def charts(self) -> dict[str, pg.PlotItem]:
        return {"Throughput per device vs batch": self.p_device.getPlotItem(),
                "Interactivity vs batch": self.p_user.getPlotItem(),
                "Tokens per joule vs batch": self.p_joule.getPlotItem(),
                "Frontier": self.p_front.getPlotItem()}

    # --- drawing -----------------------------------------------------------------------------
    def refresh(self, *_):
        self.when_shown.stale = False
        scenario, results = self._doc.scenario, self._doc.results
        n = len(scenario.plans)
        colors = self._doc.plan_colors
        set_text_if_changed(self.legend, legend_html([p.name for p in scenario.plans], colors))
        # a searched plan draws the curve of the configuration the serving search chose (its star sits on it)
        curves = [curve_for(scenario, frozen_plan(plan, results[i].searches) if i < len(results) else plan)
                  for i, plan in enumerate(scenario.plans)]
        keys = ("tokens_per_s_per_device", "tokens_per_s_per_user", "tokens_per_joule")
        points = [shown_point(plan, results[i]) for i, plan in enumerate(scenario.plans[:len(results)])]
        for widget, (lines, marks), key in zip((self.p_device, self.p_user, self.p_joule), self._line_pools, keys):
            log = wants_log(np.concatenate([c[1][key] for c in curves])) if curves else False
            if self.log_y.get(key) != log:     # values spanning more than 10x: a log axis
                self.log_y[key] = log
                widget.getPlotItem().setLogMode(x=True, y=log)
            for i, (line, mark) in enumerate(zip(lines.ensure(n), marks.ensure(n, colors))):
                batch, values = curves[i][0], curves[i][1][key]
                if lines.changed(i, (batch, values)):
                    line.setData(batch, values)
                x, y = points[i]["batch"], points[i][key]
                ok = bool(np.isfinite(x) and np.isfinite(y))
                if marks.changed(i, (x, y) if ok else ("none",)):
                    mark.setData([x] if ok else [], [y] if ok else [])
        self._emphasize_current(n, colors)
        xs = [r.metrics.tokens_per_s_per_user for r in results]
        ys = [r.metrics.tokens_per_s_per_device for r in results]
        current = self._doc.current_plan()
        # the frontier is of the current plan's device and model, aggregated serving: plans with Pools
        # rows (pools of their own devices and roles) are not points of it, nor is it theirs
        same = [current is not None and has_frontier(current) and has_frontier(p)
                and (p.device, p.model) == (current.device, current.model) for p in scenario.plans]
        ok = [i for i in range(n) if same[i] and np.isfinite(xs[i]) and np.isfinite(ys[i])]
        user_log = self.log_y.get("tokens_per_s_per_user", False)
        self.user_targets.update(targets_of(scenario.plans), lambda v: float(np.log10(v)) if user_log else v)
        px, py = [xs[i] for i in ok], [ys[i] for i in ok]
        front_targets = targets_of(scenario.plans, only={i for i in range(n) if same[i]})
        self._check_sweep(current)
        self._draw_front(ok, px, py, colors, front_targets)

    def _check_sweep(self, plan) -> None:
        """Title the frontier after the current plan's device and model; drop a sweep of another one."""
        if plan is None:
            return
        title = (f"Frontier: {plan.device} / {plan.model}" if has_frontier(plan) else
                 "Frontier: n/a (a plan with Pools rows)")
        if title != self._front_title:
            self._front_title = title
            set_title(self.p_front.getPlotItem(), title)
        self.sweep_button.setEnabled(has_frontier(plan))
        if not has_frontier(plan):    # (see POOLS_FRONTIER): drop a sweep of the plan-level device
            self._auto.stop()
            if self.sweep is not None:
                self._clear_sweep()
            set_text_if_changed(self.info, POOLS_FRONTIER)
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
        axes.choose(np.concatenate([sweep_x, px, [t for t, _ in targets]]), np.concatenate([sweep_y, py]))
        if self.sweep is not None and self._drawn_sweep != (id(self.sweep), axes.log):
            self._drawn_sweep = (id(self.sweep), axes.log)
            self._draw_sweep()
        points = (tuple(zip(ok, px, py, colors)), axes.log)
        if points != self._shown_points:
            self._shown_points = points
            self.points.setData(axes.x(px), axes.y(py), data=list(ok), brush=[brush(colors[i]) for i in ok])
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

    def _clear_sweep(self):
        self.sweep = None
        self._sweep_key = None
        self._drawn_sweep = None
        self.cloud.setData([], [])
        self.pareto.setData([], [])
        self.p_front.getPlotItem().enableAutoRange()
        self._front_range = None

    def _fit_front(self, xs, ys) -> None:
        """Before a sweep: a range from zero that holds the plans' points and the targets (a lone
        point would otherwise get a range so narrow that every tick reads the same number); on a
        log axis, the decades that hold them."""
        axes = self.front_axes
        xs = list(xs) + self.front_targets.shown
        x = axes.log_span(axes.x(xs)) if axes.log[0] else (0, nice_ceiling(max(xs + [1.0]) * 1.3))
        y = axes.log_span(axes.y(ys)) if axes.log[1] else (0, nice_ceiling(max(list(ys) + [1.0]) * 1.3))
        if (x, y) != self._front_range:
            self._front_range = (x, y)
            self.p_front.getPlotItem().setRange(xRange=x, yRange=y, padding=0)

    def showEvent(self, event):
        super().showEvent(event)
        self.when_shown.shown()
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
        self._front_range = None
        self.refresh()           # redraws the frontier chart on the axes the sweep's values want
        if self.sweep is not result:   # the current plan changed while it ran: the refresh dropped it
            return
        ok = np.nonzero(result.feasible & np.isfinite(result.tokens_per_s_per_user))[0]
        idx = result.pareto_indices
        self.info.setText(f"{ok.size:,} feasible configurations swept ({result.size:,} points), "
                          f"{idx.size} on the Pareto frontier (black). Stars: the operating points of the plans on this device "
                          f"and model.")

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

    def _emphasize_current(self, n: int, colors) -> None:
        """Each plan's curves in its colour, the current plan's drawn thicker, so the frontier's plan stands out."""
        current = self._doc.current_index
        if (current, n, colors) == self._emphasized:
            return
        self._emphasized = (current, n, colors)
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
