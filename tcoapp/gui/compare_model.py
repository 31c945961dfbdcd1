"""Qt table model of the plans side by side: one column per plan, one row per metric or input.

Rows are the metric keys (results, read-only) then a notes row, then every plan input of the
field table (editable: an edit goes through the document, so it is validated and undoable).
DisplayRole is formatted text with units in the row header; UserRole is the raw number (sort
role); the best value of each metric with a preferred direction is bold on a green background.
"""
from __future__ import annotations

import math
import textwrap

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPixmap

from ..engine.decision.summary import fleet_text, name_mismatch
from ..engine.core.number_format import number
from ..engine.quantities.inputs import PLAN_FIELDS
from ..engine.quantities.metrics import METRIC_BY_KEY, METRIC_KEYS
from .document import Document
from .labels import better, format_field, format_metric, format_metric_with_unit, label_with_unit, metric_label

NOTES_ROW = "__notes__"


_SWATCHES: dict[str, QPixmap] = {}


def swatch(color: str) -> QPixmap:
    """A small square of `color` for a header (made once per colour)."""
    if color not in _SWATCHES:
        pixmap = QPixmap(12, 12)
        pixmap.fill(QColor(color))
        _SWATCHES[color] = pixmap
    return _SWATCHES[color]


def _count(value) -> str:
    return "n/a" if value is None else f"{value:,.0f}"
HEADER_WRAP = 20  # characters per line of a plan name in the column header
BEST_BRUSH = QBrush(QColor(198, 239, 206))
INPUT_BRUSH = QBrush(QColor(255, 253, 231))
SECTION_BRUSH = QBrush(QColor(235, 235, 235))


class CompareModel(QAbstractTableModel):
    edit_failed = Signal(str)

    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self._doc = document
        self._rows: list[tuple[str, str]] = self._make_rows()
        self._fields = {f.name: f for f in PLAN_FIELDS}
        self._best: dict[str, set[int]] = {}
        self._n_plans = len(document.scenario.plans)
        self._mismatches: dict[int, tuple] = {}
        self.header_wrap = HEADER_WRAP      # characters per header line (the view sets it from the column width)
        self._update_best()
        document.scenario_changed.connect(self._on_changed)

    def _make_rows(self) -> list[tuple[str, str]]:
        pools = max((len(r.pools) for r in self._doc.results), default=1)
        pool_rows = [("pool", str(k)) for k in range(pools)] if pools > 1 else []
        return ([("metric", k) for k in METRIC_KEYS] + [("notes", NOTES_ROW)] + pool_rows
                + [("input", f.name) for f in PLAN_FIELDS])

    # --- structure ---------------------------------------------------------------------------
    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self._n_plans

    def plan_names(self) -> list[str]:
        """The names of the plan columns shown, in column order, as their headers print them (the
        warning sign of a name that does not match the plan's device or model included)."""
        plans = self._doc.scenario.plans[:self._shown_plans()]
        return [("\u26a0 " if self._mismatch(i, p) else "") + p.name for i, p in enumerate(plans)]

    def _shown_plans(self) -> int:
        """The plan columns that exist both in the model and in the document (a view may ask between a
        plan's removal and the model's reset)."""
        return min(self._n_plans, len(self._doc.scenario.plans))

    def row_key(self, row: int) -> tuple[str, str]:
        return self._rows[row]

    def row_of(self, key: str) -> int:
        for i, (_, k) in enumerate(self._rows):
            if k == key:
                return i
        raise KeyError(key)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation == Qt.Horizontal:
            return self._plan_header(section, role)
        if section >= len(self._rows):
            return None
        kind, key = self._rows[section]
        if role == Qt.DisplayRole:
            if kind == "notes":
                return "Notes"
            if kind == "pool":
                return f"  Pool {int(key) + 1}"
            if kind == "metric":
                return label_with_unit(key)
            f = self._fields[key]
            return f"{f.label} [{f.unit}]" if f.unit else f.label
        if role == Qt.ToolTipRole:
            if kind == "input":
                f = self._fields[key]
                return f"{f.label} ({f.name}): {f.help} Allowed: {f.range_text()}."
            if kind == "pool":
                return "One pool of each plan: role, devices x device, servers, racks, capex, provisioned power"
            if kind == "metric":
                return f"{metric_label(key)} ({key}): {METRIC_BY_KEY[key].help}"
            return "Warnings of the engine for each plan"
        if role == Qt.FontRole and kind == "metric" and better(key):
            font = QFont()
            font.setBold(True)
            return font
        return None

    def _plan_header(self, section, role):
        """A plan's column header: its name (a warning sign where it mismatches), colour swatch and tooltip."""
        if section >= self._shown_plans():
            return None
        plan = self._doc.scenario.plans[section]
        mismatch = self._mismatch(section, plan)
        if role == Qt.DisplayRole:
            text = textwrap.fill(plan.name, self.header_wrap, break_long_words=False) or plan.name
            return f"\u26a0 {text}" if mismatch else text
        if role == Qt.DecorationRole:   # the plan's chart colour, so the table names the charts' colours
            return swatch(self._doc.plan_colors[section])
        if role == Qt.ToolTipRole:
            return f"{plan.name}: {plan.device} / {plan.model}" + (f"\n\u26a0 {mismatch}" if mismatch else "")
        return None

    def flags(self, index):
        if not index.isValid():
            return Qt.NoItemFlags
        base = Qt.ItemIsEnabled | Qt.ItemIsSelectable
        if self._rows[index.row()][0] == "input":
            base |= Qt.ItemIsEditable
        return base

    # --- data --------------------------------------------------------------------------------
    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid() or index.column() >= self._shown_plans():
            return None
        kind, key = self._rows[index.row()]
        col = index.column()
        if kind == "metric":
            return self._metric_data(key, col, role)
        if kind == "pool":
            return self._pool_data(int(key), col, role)
        if kind == "notes":
            warnings = self._doc.results[col].warnings
            if role == Qt.DisplayRole:
                more = f" (+{len(warnings) - 1} more)" if len(warnings) > 1 else ""
                return warnings[0] + more if warnings else ""
            if role == Qt.ToolTipRole:
                return "\n".join(warnings) or None
            return None
        return self._input_data(key, col, role)

    def _metric_data(self, key, col, role):
        metrics = self._doc.results[col].metrics
        value = getattr(metrics, key)
        if role == Qt.DisplayRole:
            return format_metric(key, value, metrics)
        if role == Qt.UserRole:
            return float(value) if value is not None and math.isfinite(value) else None
        if role == Qt.TextAlignmentRole:
            return int(Qt.AlignRight | Qt.AlignVCenter)
        best = col in self._best.get(key, ())
        if role == Qt.BackgroundRole and best:
            return BEST_BRUSH
        if role == Qt.FontRole and best:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ToolTipRole:
            tip = f"{metric_label(key)}: {format_metric_with_unit(key, value, metrics)}"
            return tip + ("  (best)" if best else "")
        return None

    def _pool_data(self, k: int, col: int, role):
        rows = self._doc.results[col].pool_rows()
        if k >= len(rows):
            return None
        row = rows[k]
        if role == Qt.DisplayRole:
            return (f"{row['role']}: {_count(row['device_count'])} x {row['device']}, {_count(row['servers'])} servers, "
                    f"{_count(row['racks'])} racks")
        if role == Qt.ToolTipRole:
            capex = "n/a" if row["capex_usd"] is None else f"${row['capex_usd']:,.0f}"
            power = "n/a" if row["it_provisioned_kw"] is None else f"{row['it_provisioned_kw']:,.1f} kW"
            rate = "n/a" if row["requests_per_s"] is None else f"{number(row['requests_per_s'], 4)} requests/s"
            serving = ", ".join(f"{k} {v}" for k, v in row["serving"].items())
            return (f"pool {row['pool']!r} ({row['ownership']}): capex {capex}, provisioned IT {power}, "
                    f"{_count(row['servers_per_rack'])} servers per rack, {rate}\n{serving}")
        if role == Qt.BackgroundRole:
            return SECTION_BRUSH
        return None

    def _input_data(self, key, col, role):
        field = self._fields[key]
        value = getattr(self._doc.scenario.plans[col], key)
        if role == Qt.DisplayRole and field.zero_text and value == 0:
            return f"0 ({field.zero_text})"
        if role == Qt.DisplayRole and key == "device" and len(self._doc.results[col].pools) > 1:
            return fleet_text(self._doc.scenario.plans[col], self._doc.results[col])   # a fleet, not its first device
        if role in (Qt.DisplayRole, Qt.EditRole):
            return format_field(field, value)
        if role == Qt.UserRole:
            return value
        if role == Qt.BackgroundRole:
            return INPUT_BRUSH
        if role == Qt.TextAlignmentRole and field.type in ("int", "float"):
            return int(Qt.AlignRight | Qt.AlignVCenter)
        if role == Qt.ToolTipRole:
            return f"{field.help} Allowed: {field.range_text()}."
        return None

    def setData(self, index, value, role=Qt.EditRole):
        if role != Qt.EditRole or not index.isValid():
            return False
        kind, key = self._rows[index.row()]
        if kind != "input":
            return False
        error = self._doc.set_plan_value(index.column(), key, value)
        if error:
            self.edit_failed.emit(f"{self._doc.scenario.plans[index.column()].name}: {error}")
            return False
        return True

    # --- updates -----------------------------------------------------------------------------
    def _update_best(self) -> None:
        self._best = {}
        results = self._doc.results
        for key in METRIC_KEYS:
            direction = better(key)
            if not direction or len(results) < 2:
                continue
            values = [getattr(r.metrics, key) for r in results]
            finite = [v for v in values if v is not None and math.isfinite(v)]
            if not finite:
                continue
            target = max(finite) if direction == "high" else min(finite)
            best = {i for i, v in enumerate(values) if v == target}
            if len(best) < len(values):   # every plan alike (a price no plan charges: 0.00 each) is no one's best
                self._best[key] = best

    def _mismatch(self, section: int, plan) -> str | None:
        """The note of a plan whose name names another device (cached per plan object)."""
        cached = self._mismatches.get(section)
        if cached is None or cached[0] is not plan:
            cached = (plan, name_mismatch(plan, self._doc.scenario.all_device_names()))
            self._mismatches[section] = cached
        return cached[1]

    def _on_changed(self) -> None:
        n = len(self._doc.scenario.plans)
        self._update_best()
        rows = self._make_rows()
        if n != self._n_plans or rows != self._rows:
            self.beginResetModel()
            self._n_plans, self._rows = n, rows
            self.endResetModel()
            return
        if n:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._rows) - 1, n - 1))
            self.headerDataChanged.emit(Qt.Horizontal, 0, n - 1)

    def is_best(self, key: str, col: int) -> bool:
        return col in self._best.get(key, ())
