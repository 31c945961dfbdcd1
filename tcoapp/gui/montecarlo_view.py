"""The Uncertainty tab: runs the Monte Carlo of the scenario's Uncertainty rows in the worker (with
progress and Cancel) and shows its charts, the probabilities per plan and the uncertain inputs,
editable below the charts (the workbook's Uncertainty sheet, docs/workbook_format.md).

The charts of a simulation stay until the next run, but always wear the plans' current colours, by
plan name: a plan deleted (or renamed) since the run is drawn in light grey and named so in the
legend, so a colour never stands for two plans (a new plan may take a deleted plan's colour)."""
from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QSpinBox, QVBoxLayout, QWidget

from ..engine.uncertainty.sampling import MAX_DRAWS
from ..engine.uncertainty.simulate import DEFAULT_DRAWS, DEFAULT_SEED, simulate
from .document import Document
from .montecarlo_charts import MonteCarloCharts
from .performance_view import legend_html, legend_label
from .plotting import money_text
from .redraw import Redraw
from .uncertainty_table import UncertaintyTable

GONE_COLOR = "#d4d4d4"   # not in the plan palette (colors.PLAN_COLORS)
NO_ROWS = ("This scenario has no uncertain inputs: a simulation draws the model's own error in each generated "
           "plan's throughput alone. Add rows below (or on the workbook's Uncertainty sheet): plan or *, key, "
           "distribution and its parameters, source.")


def pairwise_html(sim) -> str:
    """P(A beats B): for every pair of plans, the share of the same draws where the row plan's NPV is higher
    than the column plan's (simulate's pairwise results)."""
    from ..engine.uncertainty.report import simulation_json
    pairs = {(d["a"], d["b"]): d["prob_a_higher_npv"] for d in simulation_json(sim)["pairwise"]}
    names = [p.name for p in sim.plans]
    if len(names) < 2:
        return ""
    head = "".join(f"<th>{escape(n)}</th>" for n in names)
    rows = []
    for a in names:
        cells = "".join("<td align='center'>–</td>" if a == b else f"<td align='center'>{pairs[(a, b)]:.0%}</td>"
                        for b in names)
        rows.append(f"<tr><th align='left'>{escape(a)}</th>{cells}</tr>")
    return ("<b>P(row beats column)</b>: the share of draws in which the row plan's NPV is higher than the column "
            "plan's (the same draws for every plan)<table cellspacing='0' cellpadding='3' border='1' "
            f"style='border-collapse:collapse'><tr><th></th>{head}</tr>{''.join(rows)}</table>")


def _equity_text(equity: dict, dscr: dict) -> str:
    """A financed plan's risk (its draws have a DSCR): equity NPV P10-P90 and the P10 of min DSCR; '' without debt."""
    if not dscr.get("share_defined"):
        return ""
    band = ("n/a" if equity["p10"] is None or equity["p90"] is None
            else f"{money_text(equity['p10'])} to {money_text(equity['p90'])}")
    worst = "n/a" if dscr["p10"] is None else f"{dscr['p10']:.2f}"
    return f", equity NPV P10-P90 {band}, min DSCR P10 {worst}"


class MonteCarloView(QWidget):
    message = Signal(str)

    def __init__(self, document: Document, runner, parent=None):
        super().__init__(parent)
        self._doc, self._runner = document, runner
        self.simulation = None
        self.colors: list[str] = []
        self._running = False
        self.draws_box = QSpinBox()
        self.draws_box.setRange(100, MAX_DRAWS)   # memory is bounded: chunks of draws (docs/model.md)
        self.draws_box.setSingleStep(1000)
        self.draws_box.setValue(DEFAULT_DRAWS)
        self.seed_box = QSpinBox()
        self.seed_box.setRange(0, 2_147_483_647)
        self.seed_box.setValue(DEFAULT_SEED)
        self.run_button = QPushButton("Run simulation")
        self.run_button.clicked.connect(self.run)
        self.status = QLabel()
        self.status.setTextFormat(Qt.RichText)
        self.status.setWordWrap(True)
        self.status.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        controls = QHBoxLayout()
        for widget in (QLabel("Draws"), self.draws_box, QLabel("Seed"), self.seed_box, self.run_button):
            controls.addWidget(widget)
        controls.addStretch(1)
        self.charts_view = MonteCarloCharts()
        self.empty_note = QLabel()      # in place of the charts until there is a simulation to draw
        self.empty_note.setObjectName("uncertainty_empty")
        self.empty_note.setWordWrap(True)
        self.empty_note.setAlignment(Qt.AlignCenter)
        self.empty_note.setStyleSheet("QLabel { font-size: 12pt; color: #444; padding: 24px; }")
        self.empty_note.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Expanding)
        self.pairwise = QLabel()        # P(A beats B) for every pair of plans
        self.pairwise.setObjectName("uncertainty_pairwise")
        self.pairwise.setTextFormat(Qt.RichText)
        self.pairwise.setWordWrap(True)
        self.pairwise.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.legend = legend_label()
        self.rows = UncertaintyTable(document)
        self.rows.setMaximumHeight(190)
        self.rows.message.connect(self.message)
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(self.status)
        layout.addWidget(self.pairwise)
        layout.addWidget(self.charts_view, 1)
        layout.addWidget(self.empty_note, 1)
        layout.addWidget(self.legend)
        layout.addWidget(self.rows)
        document.scenario_changed.connect(self._scenario_changed)
        self.redraw = Redraw(self, document.scenario_changed, document.current_changed)
        self.redraw.part("colors", lambda: (self.simulation, self._plan_colors(self.simulation)), self._recolor)
        self.redraw.part("tornado", lambda: (self.simulation, self._current_in(self.simulation)), self._draw_tornado)
        runner.cancelled.connect(self._cancelled)
        runner.failed.connect(self._failed)
        self._scenario_changed()
        if document.scenario.uncertainty:
            self.run()

    def charts(self) -> dict:
        return self.charts_view.charts()

    def run(self) -> None:
        scenario, results = self._doc.scenario, self._doc.results
        draws, seed = self.draws_box.value(), self.seed_box.value()

        def job(progress, should_cancel):
            return simulate(scenario, draws, seed, results=results, progress=lambda done, total: progress(done / total),
                            should_cancel=should_cancel)

        self._running = True
        self.status.setText(f"Simulating {draws:,} draws…")
        self._runner.start(f"Monte Carlo: {draws:,} draws", job, on_success=self.show_simulation,
                           kind="simulation")

    def show_simulation(self, sim) -> None:
        self._running = False
        self.simulation = sim
        self.redraw.update()   # its charts in the plans' colours, the current plan's tornado
        self.status.setText(self._summary_text(sim))
        self.pairwise.setText(pairwise_html(sim))
        self._show_empty_state()

    def _plan_colors(self, sim) -> tuple[str, ...]:
        """Each simulated plan's current colour, by name; GONE_COLOR for a plan no longer in the scenario."""
        return tuple(self._doc.color_of(p.name, GONE_COLOR) for p in sim.plans) if sim is not None else ()

    def _current_in(self, sim) -> int:
        """The current plan's place in `sim` (found by name: plans may have moved since), or -1."""
        plan = self._doc.current_plan()
        if sim is None:
            return -1
        names = [p.name for p in sim.plans]
        return names.index(plan.name) if plan is not None and plan.name in names else -1

    def _show_legend(self, sim) -> None:
        names = [p.name if c != GONE_COLOR else f"{p.name} (no longer in the scenario)"
                 for p, c in zip(sim.plans, self.colors)]
        self.legend.setText(legend_html(names, self.colors))

    def _recolor(self, sim, colors) -> None:
        """The simulation in the plans' current colours (after plans were added, deleted or renamed too)."""
        self.colors = list(colors)
        if sim is not None:
            self.charts_view.show_simulation(sim, self._current_in(sim), self.colors)
            self._show_legend(sim)

    def _draw_tornado(self, sim, current: int) -> None:
        if sim is not None:
            self.charts_view.show_tornado(sim.plans[current] if current >= 0 else None)

    def _summary_text(self, sim) -> str:
        charts = f" (charts: the first {sim.kept:,})" if sim.kept < sim.draws else ""
        drawn = (" Drawn with the model's error in each generated plan's throughput (shared by architecture and "
                 "configuration)." if any(p.model_error for p in sim.plans) else "")
        parts = [f"<b>{sim.draws:,} draws, seed {sim.seed}{charts}.</b>{drawn}"]
        for p in sim.plans:
            s = sim.summary(p.name, "npv_usd")
            band = "n/a" if s["p10"] is None or s["p90"] is None else f"{money_text(s['p10'])} to {money_text(s['p90'])}"
            parts.append(f"<b>{escape(p.name)}</b>: P(NPV &gt; 0) {sim.prob_positive(p.name):.0%}, "
                         f"NPV P10-P90 {band}" + _equity_text(sim.summary(p.name, "equity_npv_usd"),
                                                              sim.summary(p.name, "min_dscr")))
        notes = sorted({n for p in sim.plans for n in p.notes})
        return " &nbsp; ".join(parts) + ("<br>Notes: " + escape("; ".join(notes)) if notes else "")

    def _show_empty_state(self) -> None:
        """No simulation yet: a sentence in place of the charts (no empty axes), saying why and what to do."""
        empty = self.simulation is None
        self.charts_view.setVisible(not empty)
        self.legend.setVisible(not empty)
        self.pairwise.setVisible(not empty)
        self.empty_note.setVisible(empty)
        if not empty:
            return
        if not self._doc.scenario.uncertainty:
            self.empty_note.setText(
                "No uncertain inputs yet: Run simulation draws the model's own error alone (each generated plan's "
                "throughput within its prediction interval, shared by plans of one architecture and configuration; "
                "docs/model.md, \"How the model's errors correlate\").\n\nAdd an uncertain input in the table below (Add uncertain input: a range around the "
                "current plan's utilization, output price or electricity price) or on the workbook's Uncertainty "
                "sheet, then press Run simulation. The NPV distributions, the cash-flow fan, the probability of "
                "payback, which input drives NPV most and the probability that one plan beats another appear here.")
        else:
            self.empty_note.setText(
                f"{len(self._doc.scenario.uncertainty)} uncertain input(s) below. Press Run simulation to draw them: "
                "the NPV distributions, the cash-flow fan, the probability of payback, which input drives NPV most "
                "and the probability that one plan beats another appear here.")

    def _scenario_changed(self) -> None:
        self._show_empty_state()
        rows = self._doc.scenario.uncertainty
        if not rows:
            self.status.setText(NO_ROWS)
        elif self.simulation is not None:
            self.status.setText("The scenario changed: run the simulation again to update the charts.")

    def _cancelled(self) -> None:
        if self._running:
            self._running = False
            self.status.setText("Simulation cancelled.")

    def _failed(self, text: str) -> None:
        if self._running:
            self._running = False
            self.status.setText(f"Simulation failed: {text}")  # the main window shows the message too
