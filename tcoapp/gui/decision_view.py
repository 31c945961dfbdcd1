"""The Decision view, the first tab: which plan wins by the chosen objective and why, in words.

A headline names the best plan and its ratios against the reference plan; the ranking lists every
plan best first (value, ratios, breakeven output price and utilization, the reason: target,
configuration and what limits it, and any implausible size or misleading name; click a name to
make it the current plan); the signature chart shows the devices' frontiers with the plans'
operating points and targets. Redrawn only while visible.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QSplitter, QTextBrowser, QVBoxLayout, QWidget,
)

from ..engine.decision.summary import OBJECTIVES, comparability_note, frontier_headline, names_config
from .decision_model import DecisionModel, ranking_html
from .document import Document
from .redraw import Redraw
from .soon import call_soon


DECISION_CHART = "Decision: throughput against interactivity"


class DecisionView(QWidget):
    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self._doc = document
        self.model = DecisionModel(document, self)
        self.objective = QComboBox()
        for key, (label, _, _) in OBJECTIVES.items():
            self.objective.addItem(label, key)
        self.objective.setToolTip("What the plans are ranked by")
        self.objective.activated.connect(self._objective_chosen)
        self.reference = QComboBox()
        self.reference.setToolTip("The plan every other plan is compared with")
        self.reference.activated.connect(self._reference_chosen)
        self.headline = QLabel()
        self.headline.setObjectName("decision_headline")
        self.headline.setWordWrap(True)
        self.headline.setTextFormat(Qt.RichText)
        self.headline.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.headline.setOpenExternalLinks(False)
        self.headline.linkActivated.connect(self._rename_clicked)
        self.headline.setStyleSheet("QLabel { font-size: 12pt; padding: 4px; background: #eef5ff; "
                                    "border: 1px solid #bcd4f6; }")
        self.search_button = QPushButton()
        self.search_button.setObjectName("decision_search_far_below")
        self.search_button.setToolTip("Set Serving search to Auto over every precision and draft tokens the device runs "
                                      "on each plan far below its frontier, in one undoable step")
        self.search_button.clicked.connect(self._search_far_below)
        self.search_button.hide()
        self.ranking = QTextBrowser()
        self.ranking.setObjectName("decision_ranking")
        self.ranking.setOpenLinks(False)
        self.ranking.anchorClicked.connect(self._plan_clicked)
        self._chart = None        # built just after the window first shows (it loads pyqtgraph)
        self._chart_slot = QLabel("Drawing the chart…")
        self._chart_slot.setAlignment(Qt.AlignCenter)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Rank by:"))
        bar.addWidget(self.objective)
        bar.addSpacing(16)
        bar.addWidget(QLabel("Reference plan:"))
        bar.addWidget(self.reference, 1)
        split = QSplitter(Qt.Vertical)
        split.addWidget(self.ranking)
        split.addWidget(self._chart_slot)
        self._split = split
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        self.ranking.setMinimumHeight(60)
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.headline)
        layout.addWidget(self.search_button, 0, Qt.AlignLeft)
        layout.addWidget(split, 1)
        self.redraw = Redraw(self, document.scenario_changed)
        self.redraw.part("ranking", lambda: (document.scenario.plans, document.results), self._draw_ranking)
        self.refresh()

    def showEvent(self, event):
        super().showEvent(event)
        if self._chart is None:   # two turns of the event loop: the window is on screen first (the view
            # deleted meanwhile builds nothing: a chart built then would keep the document alive)
            call_soon(self, lambda: call_soon(self, lambda: self.chart))

    @property
    def chart(self):
        """The signature chart, built on first use."""
        if self._chart is None:
            from .signature_chart import SignatureChart
            self._chart = SignatureChart(self._doc, self)
            self._split.replaceWidget(1, self._chart)
            self._chart_slot.deleteLater()
            height = self._split.height()
            if height > 0:    # the ranking 40 %, the chart 60 % (the text browser would take more)
                self._split.setSizes([int(height * 0.4), height - int(height * 0.4)])
            self._chart.refresh()
        return self._chart

    def charts(self) -> dict:
        """The Decision tab's chart by name, for File > Export chart (built on first use)."""
        return {DECISION_CHART: self.chart.plot.getPlotItem()}

    def _objective_chosen(self, _i: int) -> None:
        self.model.set_objective(self.objective.currentData())
        self._after_model()

    def _show_objective(self) -> None:
        """Rank by shows the objective the ranking uses (the plans' default until one is picked)."""
        i = self.objective.findData(self.model.objective)
        if i >= 0 and i != self.objective.currentIndex():
            self.objective.blockSignals(True)
            self.objective.setCurrentIndex(i)
            self.objective.blockSignals(False)

    def _reference_chosen(self, i: int) -> None:
        self.model.set_reference(i)
        self._after_model()

    def _plan_clicked(self, url) -> None:
        text = url.toString()
        if text.startswith("plan:"):
            self._doc.set_current_index(int(text[5:]))
        elif text.startswith("search:"):
            self._doc.search_widest([int(text[7:])])

    def far_below(self) -> list[int]:
        """Plans (scenario indices) far below their frontier that a search can still raise (not searched yet)."""
        return [s.index for s in self.model.summaries if s.can_search]

    def renames(self) -> list[tuple[int, str]]:
        """(plan index, suggested name) of searched plans whose names describe a configuration they no
        longer run ('H200 FP8 TP2 batch 1' now searched to batch 4)."""
        out = []
        for s in self.model.summaries:
            if s.searched and s.config_name and names_config(s.name) and s.config_name != s.name:
                out.append((s.index, s.config_name))
        return out

    def _rename_clicked(self, link: str) -> None:
        if link.startswith("rename:"):
            index = int(link[len("rename:"):])
            suggested = dict(self.renames()).get(index)
            if suggested:
                self._doc.rename_plan(index, self._doc.unique_name(suggested))

    def _search_far_below(self) -> None:
        self._doc.search_widest(self.far_below())

    def refresh(self) -> list[str]:
        """Redraw the parts whose inputs changed (the signature chart has its own)."""
        return self.redraw.update()

    def _draw_ranking(self, plans, _results) -> None:
        names = [p.name for p in plans]
        ref_name = self.reference.currentText()
        self.reference.blockSignals(True)
        self.reference.clear()
        self.reference.addItems(names)
        self.reference.setCurrentIndex(names.index(ref_name) if ref_name in names else
                                       min(self.model.reference, len(names) - 1))
        self.reference.blockSignals(False)
        self.model.reference = self.reference.currentIndex()
        self.model.refresh()
        self._after_model()

    def _after_model(self) -> None:
        self._show_objective()
        self.headline.setText(self.headline_text())
        low = self.far_below()
        self.search_button.setVisible(bool(low))
        if low:
            names = self._doc.scenario.plans
            self.search_button.setText(f"Search {names[low[0]].name!r} at its best" if len(low) == 1 else
                                       f"Search the {len(low)} plans far below their frontier at their best")
        scroll = self.ranking.verticalScrollBar().value()
        self.ranking.setHtml(ranking_html(self.model))
        self.ranking.verticalScrollBar().setValue(scroll)

    def headline_text(self) -> str:
        text = self._headline()
        for note in (comparability_note(self._doc.scenario.plans), frontier_headline(self.model.summaries)):
            if note:
                text += f"<div style='color:#8a4b00'>&#9888; {_html(note)}.</div>"
        offers = self.renames()
        if offers:
            names = self._doc.scenario.plans
            links = ", ".join(f"<a href='rename:{i}'>{_html(names[i].name)} &rarr; {_html(new)}</a>" for i, new in offers)
            text += (f"<div>These names describe a configuration the search changed; rename (Ctrl+Z undoes it): "
                     f"{links}</div>")
        return text

    def _headline(self) -> str:
        """The decision in words (present/decision_text.py: the same words as the command line and the
        report), then the best plan against the reference where the reference is another plan."""
        rows, objective, d = self.model.rows, self.model.objective, self.model.decision
        if self._doc.computing or d is None:
            return "Computing the plans (each runs its serving search)…"
        from ..present.decision_text import decision_text, market_text   # with computed results (not at start-up)
        text = _html(decision_text(d))
        if d.first is not None:
            text = text.replace(_html(d.first.name), f"<b>{_html(d.first.name)}</b>", 1)
        if d.too_close:
            text = f"<span style='color:#8a4b00'>&#9888;</span> {text}"
        market = market_text(d)
        if market:   # (reason() says the same in one paragraph; here a line of its own, amber where it warns)
            color = "#8a4b00" if d.market_warning else "#333"
            text += f"<div style='color:{color}'>{_html(market)}</div>"
        ref = self.model.summaries[self.model.reference]
        if rows and rows[0].exists and rows[0].index != ref.index:
            text += f"<div>Against {_html(ref.name)}: {_html(self.model.text(0, 'ratios'))}.</div>"
        return text



def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
