"""The Bridge tab: why plan B's cost per million output tokens differs from plan A's, as a waterfall
(docs/model.md, "Cost bridge"). The numbers are the engine's (`engine.finance.bridge.cost_bridge`, the
same as `tcoapp compute --bridge A,B` and the workbook's Bridge sheet): a bar at A's cost, one floating
step per part (green lowers the cost, red raises it), a bar at B's cost. Under it, each plan's tokens/s per
device as its validated base times each configuration gain (speculative decoding, FP4 KV cache,
disaggregation: engine/pipeline/config_gains.py), the part of the cost's denominator that rests on them."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from ..engine.finance.bridge import cost_bridge
from ..engine.quantities.finance import YEAR_QUANTITIES
from ..present.config_gains import gains_sentence
from .document import Document
from .redraw import Redraw
from .plotting import NumberAxis, brush, category_ticks, make_plot, pen, pg

LOWER, HIGHER, TOTAL, NONE = "#2ca02c", "#d62728", "#4c72b0", "#9a9a9a"
PART_TEXT = {"capex": "capex per token", "other": "other",
             **{q.opex_part: q.label.lower() for q in YEAR_QUANTITIES if q.opex_part and q.label}}


ROUNDING = 1e-9   # a step below this share of the costs is the sum's rounding, not a difference


def signed_usd(value: float) -> str:
    """'-$0.0072', '+$0.0103' (never 1e-17: see ROUNDING)."""
    return f"{'-' if value < 0 else '+'}${abs(value):.3g}"


def waterfall(bridge) -> tuple[list[str], list[float], list[float], list[str]]:
    """(names, bottoms, heights, colours) of the bars: A's total, each step from the running total, B's total."""
    names, bottoms, heights, colors = [bridge["a"]], [0.0], [bridge["a_usd_per_million"]], [TOTAL]
    level = bridge["a_usd_per_million"]
    scale = max(abs(bridge["a_usd_per_million"]), abs(bridge["b_usd_per_million"]), 1e-12)
    for part in bridge["parts"]:
        step = part["difference"] if abs(part["difference"]) > ROUNDING * scale else 0.0
        names.append(PART_TEXT.get(part["part"], part["part"]))
        bottoms.append(min(level, level + step))
        heights.append(abs(step))
        colors.append(LOWER if step < 0 else HIGHER if step > 0 else NONE)
        level += step
    names.append(bridge["b"])
    bottoms.append(0.0)
    heights.append(bridge["b_usd_per_million"])
    colors.append(TOTAL)
    return names, bottoms, heights, colors


class BridgeView(QWidget):
    message = Signal(str)

    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self.document = document
        self.plan_a, self.plan_b = QComboBox(), QComboBox()
        pick = QHBoxLayout()
        for text, combo in (("From plan A", self.plan_a), ("to plan B", self.plan_b)):
            pick.addWidget(QLabel(text))
            pick.addWidget(combo, 1)
        self.plot = make_plot("Plan A to plan B", "", "USD per million output tokens", y_axis=NumberAxis("left", money=True))
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.6, y0=[])
        self.plot.addItem(self.bars)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.gains = QLabel()
        self.gains.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addLayout(pick)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.summary)
        layout.addWidget(self.gains)
        self.redraw = Redraw(self, document.scenario_changed, self.plan_a.currentIndexChanged,
                             self.plan_b.currentIndexChanged)
        self.redraw.part("choices", lambda: (tuple(p.name for p in document.scenario.plans),), self._fill_choices)
        self.redraw.part("bridge", lambda: self._chosen(), self._draw_bridge)
        self.refresh()

    def _fill_choices(self, names) -> None:
        """Plans A and B: the same plans by name as before, where they still exist."""
        for combo, default in ((self.plan_a, 0), (self.plan_b, 1)):
            keep = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(list(names))
            combo.setCurrentIndex(names.index(keep) if keep in names else min(default, len(names) - 1))
            combo.blockSignals(False)

    def _chosen(self) -> tuple:
        """(plan A's result, plan B's result); None for one that is not chosen."""
        results = self.document.results
        a, b = self.plan_a.currentIndex(), self.plan_b.currentIndex()
        return tuple(results[i] if 0 <= i < len(results) else None for i in (a, b))

    def bridge(self):
        ra, rb = self._chosen()
        if ra is None or rb is None or ra.finance is None or rb.finance is None:
            return None
        return cost_bridge(ra.name, ra.finance, rb.name, rb.finance)

    def refresh(self) -> list[str]:
        """Redraw the parts whose inputs changed; the names of those drawn."""
        return self.redraw.update()

    def _draw_bridge(self, a, b) -> None:
        self.gains.setText(gains_text(a, b))
        bridge = self.bridge()
        if bridge is None:
            self.bars.setOpts(x=[], height=[], y0=[], brushes=[])
            self.summary.setText("n/a: a plan has no cost per million output tokens (see its notes)")
            return
        names, bottoms, heights, colors = waterfall(bridge)
        self.bars.setOpts(x=list(range(len(names))), height=heights, y0=bottoms, width=0.6,
                          brushes=[brush(c) for c in colors], pens=[pen(c, 1.0) for c in colors])
        category_ticks(self.plot.getPlotItem().getAxis("bottom"), names)
        self.plot.getPlotItem().enableAutoRange()
        scale = max(abs(bridge["a_usd_per_million"]), abs(bridge["b_usd_per_million"]), 1e-12)
        steps = "; ".join(f"{PART_TEXT.get(p['part'], p['part'])} {signed_usd(p['difference'])}"
                          for p in bridge["parts"] if abs(p["difference"]) > ROUNDING * scale)
        self.summary.setText(f"{bridge['a']}: ${bridge['a_usd_per_million']:.4g} -> {bridge['b']}: "
                             f"${bridge['b_usd_per_million']:.4g} per million output tokens "
                             f"({signed_usd(bridge['difference_usd_per_million'])}); steps: {steps or 'none'}. "
                             "Green lowers the cost, red raises it; the steps add up to the difference.")


def gains_text(*results) -> str:
    """Each chosen plan's configuration gains in one line (a plan without them: why not), or empty."""
    lines, seen = [], set()
    for result in results:
        if result is None or id(result) in seen:
            continue
        seen.add(id(result))
        gains = getattr(result, "configuration_gains", None)
        lines.append(f"{result.name}: " + (gains_sentence(gains) if gains else
                                          "no configuration gains (a measured curve, several serve pools, or no "
                                          "operating point)"))
    return "\n".join(["Throughput = validated base x each configuration gain:"] + lines) if lines else ""
