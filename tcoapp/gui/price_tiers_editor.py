"""Price-tier tables (the workbook's PriceTiers sheet), editable: pick a table, edit its tiers'
thresholds (tokens/s per user) and output prices, add or remove tiers and tables. Every edit goes
through `table_edits` (validated, undoable); a refused value is shown in red under the table."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox, QHBoxLayout, QHeaderView, QInputDialog, QLabel, QPushButton, QTableWidget, QTableWidgetItem,
    QVBoxLayout, QWidget,
)

from .document import Document
from .inline_error import InlineError
from .table_edits import TIER_FIELD, TIER_KEYS, add_table, add_tier, delete_table, remove_tier, set_tier_value


class PriceTiersEditor(QWidget):
    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self._doc = document
        self.tables = QComboBox()
        self.tables.setObjectName("price_tier_table")
        self.tables.activated.connect(lambda _: self.refresh())
        self.table = QTableWidget(0, len(TIER_KEYS))
        self.table.setHorizontalHeaderLabels([f"{TIER_FIELD[k].label} [{TIER_FIELD[k].unit}]" for k in TIER_KEYS])
        for col, key in enumerate(TIER_KEYS):
            f = TIER_FIELD[key]
            self.table.horizontalHeaderItem(col).setToolTip(f"{f.label} ({f.name}): {f.help}\nAllowed: {f.range_text()}.")
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        self.table.itemChanged.connect(self._changed)
        self.source = QLabel()
        self.source.setWordWrap(True)
        self.source.setStyleSheet("color: #444;")
        self.users = QLabel()
        self.users.setWordWrap(True)
        self.users.setStyleSheet("color: #444;")
        self.error = InlineError()
        buttons = QHBoxLayout()
        for text, slot in (("Add tier", self._add_tier), ("Remove tier", self._remove_tier),
                           ("New table…", self._new_table), ("Delete table", self._delete_table)):
            button = QPushButton(text)
            button.clicked.connect(slot)
            buttons.addWidget(button)
        buttons.addStretch(1)
        top = QHBoxLayout()
        top.addWidget(QLabel("Price table:"))
        top.addWidget(self.tables, 1)
        hint = QLabel("A plan whose Price tiers names a table earns the price of the fastest tier its tokens/s per "
                      "user reaches (below the slowest tier: no price). Saved on the workbook's PriceTiers sheet.")
        hint.setWordWrap(True)
        hint.setStyleSheet("color: #444;")
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(hint)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.users)
        layout.addWidget(self.source)
        layout.addWidget(self.error)
        layout.addLayout(buttons)
        document.scenario_changed.connect(self.refresh)
        self.refresh()

    def current(self) -> str | None:
        return self.tables.currentText() or None

    def refresh(self) -> None:
        names = list(self._doc.scenario.price_tiers)
        chosen = self.current()
        self.tables.blockSignals(True)
        self.tables.clear()
        self.tables.addItems(names)
        if chosen in names:
            self.tables.setCurrentText(chosen)
        self.tables.blockSignals(False)
        name = self.current()
        self.table.blockSignals(True)
        table = self._doc.scenario.price_tiers.get(name) if name else None
        rows = list(zip(table.min_tokens_per_s_per_user, table.price_usd_per_million_output_tokens)) if table else []
        self.table.setRowCount(len(rows))
        for r, values in enumerate(rows):
            for c, value in enumerate(values):
                item = QTableWidgetItem(f"{value:g}")
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.table.setItem(r, c, item)
        self.table.blockSignals(False)
        self.source.setText(f"Source: {table.source}" if table and table.source else "")
        users = [p.name for p in self._doc.scenario.plans if name and p.price_tiers == name]
        self.users.setText(("Used by: " + ", ".join(users)) if users else ("Used by no plan." if name else
                           "No price tables: New table… makes one."))

    def _show(self, error: str | None) -> None:
        if self.error.show_error(error):
            self.refresh()      # put the refused cell back to the scenario's value

    def _changed(self, item: QTableWidgetItem) -> None:
        self._show(set_tier_value(self._doc, self.current(), item.row(), TIER_KEYS[item.column()], item.text()))

    def _add_tier(self) -> None:
        if self.current():
            self._show(add_tier(self._doc, self.current()))

    def _remove_tier(self) -> None:
        if self.current():
            row = self.table.currentRow()
            self._show(remove_tier(self._doc, self.current(), row if row >= 0 else self.table.rowCount() - 1))

    def _new_table(self) -> None:
        name, ok = QInputDialog.getText(self, "New price table", "Name of the table:")
        if ok:
            error = add_table(self._doc, name)
            self._show(error)
            if error is None:
                self.tables.setCurrentText(name.strip())
                self.refresh()

    def _delete_table(self) -> None:
        if self.current():
            self._show(delete_table(self._doc, self.current()))
