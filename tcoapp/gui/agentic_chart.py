"""Agentic sessions (docs/model.md, "Agentic sessions and KV tiers"): the prefix hit rate and tokens/s per
device against the concurrent sessions per replica, for the plan chosen in the plan editor (else the first
plan with an agentic request class): a solid line with the plan's KV offload, a dashed one the other way
(HBM only, or the server's host memory), the HBM knee as a dotted vertical line and the plan's own sessions
as a marker. Drawn from the `agentic` block of the plan's result (engine/pipeline/agentic_block.py); hidden
where no plan has one. One plan at a time: the curves of nine plans, each with its contrast, would hide the
knee the chart is there to show."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from ..present.agentic_text import agentic_sentence
from .plotting import ItemPool, make_plot, pen, pg

HIT, RATE = "achieved_prefix_hit_rate", "tokens_per_s_per_device"


def _xy(curve: list[dict], key: str) -> tuple[list[float], list[float]]:
    return [p["sessions_per_replica"] for p in curve], [p[key] for p in curve]


class AgenticChart(QWidget):
    """Two plots side by side (`p_hit`, `p_rate`), one set of items per agentic plan."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.p_hit = make_plot("Prefix hit rate vs sessions", "Concurrent sessions per replica",
                               "Prefix hit rate [0..1]", log_x=True)
        self.p_rate = make_plot("Throughput vs sessions", "Concurrent sessions per replica",
                                "Tokens/s per device [tokens/s]", log_x=True)
        self.p_hit.getPlotItem().setYRange(0.0, 1.05, padding=0)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        layout = QHBoxLayout()
        layout.addWidget(self.p_hit)
        layout.addWidget(self.p_rate)
        outer.addLayout(layout, 1)
        self.answer = QLabel()             # each agentic plan's answer in words: agents per MW, cost per agent-hour
        self.answer.setWordWrap(True)
        self.answer.setTextInteractionFlags(Qt.TextSelectableByMouse)
        outer.addWidget(self.answer)
        self.pools = {}
        for name, plot in (("hit", self.p_hit), ("rate", self.p_rate)):
            item = plot.getPlotItem()
            item.addLegend(offset=(-10, 10) if name == "rate" else (10, -10))
            self.pools[name] = (
                ItemPool(item, lambda i: pg.PlotDataItem(), lambda line, color: line.setPen(pen(color))),
                ItemPool(item, lambda i: pg.PlotDataItem(), lambda line, color: line.setPen(pen(color, 2, Qt.DashLine))),
                ItemPool(item, lambda i: pg.InfiniteLine(angle=90),
                         lambda line, color: line.setPen(pen(color, 1.5, Qt.DotLine))),
                ItemPool(item, lambda i: pg.PlotDataItem(pen=None, symbol="o", symbolSize=11, symbolPen="k"),
                         lambda mark, color: mark.setSymbolBrush(color)),
            )
        self.names: list[str] = []

    def charts(self) -> dict[str, pg.PlotItem]:
        return {"Prefix hit rate vs sessions": self.p_hit.getPlotItem(),
                "Throughput vs sessions": self.p_rate.getPlotItem()}

    def draw(self, results, colors, current: int = 0) -> None:
        """One solid line (the plan's offload), one dashed (the contrast), the knee and the plan's point of the
        current plan (else the first agentic one); the widget hides where no plan is agentic."""
        agentic = [(r, colors[i]) for i, r in enumerate(results) if getattr(r, "agentic", None)]
        chosen = [(r, colors[i]) for i, r in enumerate(results) if i == current and getattr(r, "agentic", None)]
        shown = chosen or agentic[:1]
        self.names = [r.name for r, _ in shown]
        self.setVisible(bool(shown))
        self.answer.setText("\n".join(f"{r.name}: {agentic_sentence(r.agentic)}" for r, _ in shown)
                            + (f"\n(one plan at a time: choose another of the {len(agentic)} agentic plans in the plan "
                               "editor)" if len(agentic) > 1 else ""))
        palette = [c for _, c in shown]
        for name, key in (("hit", HIT), ("rate", RATE)):
            solid, dashed, knees, marks = self.pools[name]
            legend = (self.p_hit if name == "hit" else self.p_rate).getPlotItem().legend
            legend.clear()
            for (r, _), line, other, knee, mark in zip(shown, solid.ensure(len(shown), palette),
                                                       dashed.ensure(len(shown), palette),
                                                       knees.ensure(len(shown), palette),
                                                       marks.ensure(len(shown), palette)):
                a = r.agentic
                line.setData(*_xy(a["session_curve"], key))
                legend.addItem(line, f"kv_offload {a['kv_offload']} (this plan)")
                if a.get("contrast"):
                    other.setData(*_xy(a["contrast"]["session_curve"], key))
                    legend.addItem(other, f"kv_offload {a['contrast']['kv_offload']}")
                else:
                    other.setData([], [])
                knee.setValue(_log10(a["hbm_knee_sessions_per_replica"]))
                value = a["achieved_prefix_hit_rate"] if key == HIT else a[RATE]
                mark.setData([a["sessions_per_replica"]], [value])


def _log10(x: float) -> float:
    """An InfiniteLine on a log x axis sits at log10 of its value."""
    import math
    return math.log10(max(x, 1e-12))
