"""The Decision view's ranking: the plans ranked by the chosen objective, each with its ratios
against the reference plan, the reason in words and its breakevens, as a Qt table model (one row
per plan; DisplayRole text, UserRole the raw number for sorting, DecorationRole the plan's colour)
and as the rich text the view shows (`ranking_html`). All content comes from `engine.decision`
over the document's results.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtGui import QColor

from ..engine.decision.summary import (
    OBJECTIVES, PlanSummary, breakeven_price_text, breakeven_utilization_text, frontier_text, ranked, ratios_text,
    summarize,
)
from ..present.agentic_text import agent_hour_text, agents_line, agents_per_mw_text
from .document import Document

if TYPE_CHECKING:
    from ..engine.decision.choice import Decision

COLUMNS = ("rank", "plan", "value", "ratios", "breakeven_price", "breakeven_utilization", "reason")
HEADERS = {"rank": "#", "plan": "Plan", "value": "", "ratios": "Against the reference",
           "breakeven_price": "Breaks even at price", "breakeven_utilization": "Breaks even at utilization",
           "reason": "Why"}


def objective_text(objective: str, value: float) -> str:
    from ..present.decision_text import objective_value   # with computed results (not at start-up)
    return objective_value(objective, value)


class DecisionModel(QAbstractTableModel):
    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self._doc = document
        self.chosen: str | None = None    # the objective the user picked in Rank by (None: the plans' default)
        self.decision: Decision | None = None
        self.reference = 0          # index of the reference plan in the scenario
        self.rows: list[PlanSummary] = []
        self.summaries: list[PlanSummary] = []
        self._ratios: list[str] = []   # empty until refresh() (the view refreshes it once it is built)

    @property
    def plan_colors(self) -> tuple[str, ...]:
        return self._doc.plan_colors

    @property
    def objective(self) -> str:
        """The objective ranked by: the user's choice, else the one that fits the plans' constraint
        (engine/decision/choice.py)."""
        if self.decision is not None:
            return self.decision.objective
        return self.chosen or "cost_per_million_output_tokens_usd"

    def set_objective(self, objective: str | None) -> None:
        self.chosen = objective
        self.refresh()

    def set_reference(self, index: int) -> None:
        self.reference = index
        self.refresh()

    def refresh(self) -> None:
        doc = self._doc
        self.beginResetModel()
        if doc.computing:
            self.decision = None
        else:
            from ..engine.decision.choice import decide   # the draws' modules, once there are results
            self.decision = decide(doc.scenario, doc.results, self.chosen)
        if self.decision is None:
            names = doc.scenario.all_device_names()
            self.summaries = summarize(doc.scenario.plans, doc.results, self.objective, names)
            self.rows = ranked(self.summaries, self.objective)
        else:
            self.rows = list(self.decision.summaries)
            self.summaries = sorted(self.rows, key=lambda s: s.index)
        self.reference = min(max(self.reference, 0), len(self.summaries) - 1)
        ref = self.summaries[self.reference] if self.summaries else None
        self._ratios = [ratios_text(s, ref, doc.results) for s in self.rows] if ref else []
        self.endResetModel()

    # --- Qt model ----------------------------------------------------------------------------
    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation != Qt.Horizontal or role not in (Qt.DisplayRole, Qt.ToolTipRole):
            return None
        key = COLUMNS[section]
        if key == "value":
            return OBJECTIVES[self.objective][0]
        return HEADERS[key]

    def text(self, row: int, key: str) -> str:
        s = self.rows[row]
        if key == "rank":
            return str(row + 1) if s.exists else "–"
        if key == "plan":
            return s.name if not s.fleet or s.fleet == s.device else f"{s.name} ({s.fleet})"
        if key == "value":
            return objective_text(self.objective, s.value)
        if key == "ratios":
            return self._ratios[row]
        if key == "breakeven_price":
            return breakeven_price_text(s)
        if key == "breakeven_utilization":
            return breakeven_utilization_text(s)
        notes = "".join(f" \u26a0 {n}." for n in s.notes)
        return s.reason + notes

    def agentic(self, row: int) -> dict | None:
        """The agentic answer of the plan on `row` (None: the plan has no agentic request class)."""
        results = self._doc.results
        index = self.rows[row].index
        return getattr(results[index], "agentic", None) if index < len(results) else None

    def any_agentic(self) -> bool:
        return any(self.agentic(row) is not None for row in range(len(self.rows)))

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        key = COLUMNS[index.column()]
        s = self.rows[index.row()]
        if role in (Qt.DisplayRole, Qt.ToolTipRole):
            return self.text(index.row(), key)
        if role == Qt.UserRole:
            return {"rank": index.row(), "value": s.value, "breakeven_price": s.breakeven_price_usd_per_million,
                    "breakeven_utilization": s.breakeven_utilization}.get(key, self.text(index.row(), key))
        if role == Qt.DecorationRole and key == "plan":
            return QColor(self.plan_colors[s.index])
        if role == Qt.ForegroundRole and key == "reason" and s.notes:
            return QColor("#8a4b00")
        if role == Qt.TextAlignmentRole:
            return int((Qt.AlignRight if key in ("rank", "value") else Qt.AlignLeft) | Qt.AlignVCenter)
        return None


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def summary_html(model: DecisionModel) -> str:
    """Every plan on one line, best first (the ranking at a glance, above the reasons): rank, name,
    value, breakeven output price and utilization."""
    agentic = model.any_agentic()   # agents per MW and per agent-hour, where a plan has an agentic class
    head = "".join(f"<th align='left'>{_esc(t)}</th>" for t in (
        "#", "Plan", OBJECTIVES[model.objective][0], "Breakeven price", "Breakeven utilization",
        *(("Agents per MW", "Cost per agent-hour") if agentic else ())))
    rows = []
    for row, s in enumerate(model.rows):
        color = model.plan_colors[s.index]
        agents = (f"<td>{_esc(agents_per_mw_text(model.agentic(row)))}</td>"
                  f"<td>{_esc(agent_hour_text(model.agentic(row)))}</td>") if agentic else ""
        rows.append(f"<tr><td>{model.text(row, 'rank')}</td><td><a href='plan:{s.index}' style='text-decoration:none; "
                    f"color:{color}'>&#9632; <b>{_esc(s.name)}</b></a>{_fleet(s)}</td>"
                    f"<td><b>{_esc(model.text(row, 'value'))}</b>"
                    f"</td><td>{_esc(model.text(row, 'breakeven_price'))}</td>"
                    f"<td>{_esc(model.text(row, 'breakeven_utilization'))}</td>{agents}</tr>")
    return (f"<table cellspacing='0' cellpadding='2' style='margin-bottom:6px'><tr>{head}</tr>{''.join(rows)}</table>"
            "<div style='color:#555'>Each plan in full, best first:</div>")


def ranking_html(model: DecisionModel) -> str:
    """The summary lines, then one block per plan, best first: rank, name (in its colour), value,
    ratios, breakevens, why."""
    objective = OBJECTIVES[model.objective][0]
    blocks = []
    for row, s in enumerate(model.rows):
        rank = model.text(row, "rank")
        color = model.plan_colors[s.index]
        notes = "".join(f"<div style='color:#8a4b00'>&#9888; {_esc(n)}.</div>" for n in s.notes)
        frontier = _esc(frontier_text(s))
        if s.can_search:
            frontier = (f"<div style='color:#8a4b00'>&#9888; Far below its frontier: {frontier}. "
                        f"<a href='search:{s.index}'>Search this plan at its best</a> (serving search over every "
                        "precision and draft tokens its device runs; Ctrl+Z undoes it)</div>")
        elif s.far_below_frontier:
            frontier = f"<div style='color:#8a4b00'>&#9888; Searched, still below its frontier: {_esc(s.why_below())}.</div>"
        else:
            frontier = f"<div style='color:#555'>Frontier: {frontier}.</div>"
        blocks.append(
            f"<tr><td valign='top' style='font-size:14pt; color:#555'>{rank}</td><td>"
            f"<a href='plan:{s.index}' style='text-decoration:none; color:{color}'>"
            f"<span style='font-size:13pt'>&#9632;</span> <b>{_esc(s.name)}</b></a>"
            + _fleet(s) +
            f" &nbsp; {_esc(objective)}: <b>{_esc(model.text(row, 'value'))}</b>"
            f"<div>Against the reference: {_esc(model.text(row, 'ratios'))}.</div>"
            f"<div>Breaks even at: {'device-hour' if s.sells_hours else 'output'} price "
            f"{_esc(model.text(row, 'breakeven_price'))}; "
            f"utilization {_esc(model.text(row, 'breakeven_utilization'))}.</div>"
            f"<div style='color:#333'>Why: {_esc(s.reason)}</div>{_agents(model, row)}{frontier}{notes}</td></tr>")
    return summary_html(model) + "<table cellspacing='0' cellpadding='4' width='100%'>" + "".join(blocks) + "</table>"


def _agents(model: DecisionModel, row: int) -> str:
    """The plan's agents (docs/model.md, "A plan's agentic answer"), for a plan with an agentic class."""
    answer = model.agentic(row)
    return "" if answer is None else f"<div>{_esc(agents_line(answer))}.</div>"


def _fleet(s: PlanSummary) -> str:
    """' (H100-SXM prefill 48 + Corsair-SRAM decode 160)' for a fleet plan; empty for one device."""
    return f" <span style='color:#555'>({_esc(s.fleet)})</span>" if s.fleet and s.fleet != s.device else ""
