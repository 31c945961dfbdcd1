"""The Uncertainty rows as an editable table (the workbook's Uncertainty sheet): edit a cell, add a
row, remove one; every change is validated by the engine (one message naming the row and column)
and undoable. Columns and their help come from the field table."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from ..engine.core.errors import Problem
from ..engine.uncertainty.fields import UNCERTAINTY_FIELDS
from ..engine.quantities.factors import FACTOR_FIELD_BY_NAME
from ..engine.quantities.inputs import PLAN_FIELD_BY_NAME
from ..engine.uncertainty.inputs import DEVICE_FIELD_BY_NAME, make_uncertain_input
from .document import Document
from ..present.labels import input_label
from ..engine.core.number_format import plain

NAMES = tuple(f.name for f in UNCERTAINTY_FIELDS)
_KEYS = tuple(sorted({f"device.{k}" for k in DEVICE_FIELD_BY_NAME} | {f"factor.{k}" for k in FACTOR_FIELD_BY_NAME}
                     | set(PLAN_FIELD_BY_NAME)))   # what a typed label may name
# a new row: the first key the current plan has no row for, triangular around the plan's value
TEMPLATE_KEYS = (("utilization", 0.7, 1.15), ("price_usd_per_million_output_tokens", 0.7, 1.3),
                 ("electricity_usd_per_kwh", 0.8, 1.3), ("price_usd_per_million_input_tokens", 0.7, 1.3))


def _text(value) -> str:
    if value is None:
        return ""
    return plain(value, 6) if isinstance(value, float) else str(value)


def _typed(item, name: str) -> str:
    """A cell's value as the engine reads it: the key column shows a label (the field table's) and
    keeps its key; a label typed there is read as its key."""
    if item is None:
        return ""
    text = item.text()
    if name != "key":
        return text
    key = item.data(Qt.UserRole) or ""
    if text == input_label(key):
        return key
    return next((k for k in _KEYS if input_label(k).lower() == text.strip().lower()), text)


def _row_of(*widgets) -> QHBoxLayout:
    """The widgets side by side, left-aligned."""
    row = QHBoxLayout()
    for widget in widgets:
        row.addWidget(widget)
    row.addStretch(1)
    return row


class UncertaintyTable(QWidget):
    message = Signal(str)

    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self._doc = document
        self._filling = False
        self.table = QTableWidget(0, len(NAMES))
        self.table.setHorizontalHeaderLabels(list(NAMES))
        for col, field in enumerate(UNCERTAINTY_FIELDS):
            self.table.horizontalHeaderItem(col).setToolTip(field.help)
        self.table.setWordWrap(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        for name, width in (("plan", 150), ("key", 250), ("distribution", 90), ("group", 110)):
            self.table.setColumnWidth(NAMES.index(name), width)
        for name in ("low", "mode", "high", "mean", "sd"):
            self.table.setColumnWidth(NAMES.index(name), 70)
        self.table.itemChanged.connect(self._edited)
        self.add_button = QPushButton("Add uncertain input")
        self.add_button.clicked.connect(self.add_row)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self.remove_row)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        layout.addLayout(_row_of(self.add_button, self.remove_button))
        document.scenario_changed.connect(self.fill)
        self.fill()

    def fill(self) -> None:
        rows = self._doc.scenario.uncertainty
        self._filling = True
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, name in enumerate(NAMES):
                value = getattr(row, name)
                item = QTableWidgetItem(input_label(value) if name == "key" else _text(value))
                item.setData(Qt.UserRole, _text(value))
                item.setToolTip(f"{item.text()} ({value})" if name == "key" else item.text())  # sources in full
                self.table.setItem(r, c, item)
        self._filling = False
        self.remove_button.setEnabled(bool(rows))

    def _edited(self, item: QTableWidgetItem) -> None:
        if self._filling:
            return
        r = item.row()
        raw = {name: _typed(self.table.item(r, c), name) for c, name in enumerate(NAMES)}
        problems: list[Problem] = []
        row = make_uncertain_input(raw, lambda key: f"Uncertainty row {r + 1}", problems)
        error = "\n".join(str(p) for p in problems) if problems else None
        if row is not None:
            rows = list(self._doc.scenario.uncertainty)
            rows[r] = row
            error = self._doc.set_uncertainty(rows, f"Edit uncertain input {row.key!r}")
        if error:
            self.message.emit(error)
            self.fill()  # back to the document's rows

    def add_row(self) -> None:
        plan = self._doc.current_plan()
        if plan is None:
            return
        taken = {(r.plan, r.key) for r in self._doc.scenario.uncertainty}
        for key, down, up in TEMPLATE_KEYS:
            value = float(getattr(plan, key))
            if (plan.name, key) in taken or value <= 0:
                continue
            high = min(value * up, 1.0) if key == "utilization" else value * up
            raw = {"plan": plan.name, "key": key, "distribution": "triangular", "low": value * down, "mode": value,
                   "high": high, "source": "ASSUMPTION: edit the range and its source"}
            row = make_uncertain_input(raw, lambda k: "new row", [])
            if row is not None and row.low < row.high:
                rows = self._doc.scenario.uncertainty + (row,)
                error = self._doc.set_uncertainty(rows, f"Add uncertain input {key!r} to {plan.name!r}")
                if error:
                    self.message.emit(error)
                return
        self.message.emit(f"plan {plan.name!r} already has rows for {', '.join(k for k, _, _ in TEMPLATE_KEYS)}: "
                          "edit a row's key to add another input")

    def remove_row(self) -> None:
        rows = list(self._doc.scenario.uncertainty)
        r = self.table.currentRow()
        if not 0 <= r < len(rows):
            r = len(rows) - 1
        if r < 0:
            return
        removed = rows.pop(r)
        self._doc.set_uncertainty(rows, f"Remove uncertain input {removed.key!r}")

