"""The pools of the current plan as an editable table (one row per pool): add, remove, role,
device, count, per-pool serving and rack keys, ownership. An empty cell takes the plan's value,
shown in grey italics. Every edit goes through `pool_edits` (validated, undoable); a rejected value
is shown beside the table and the scenario is left unchanged."""
from __future__ import annotations

import textwrap

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView, QDialog, QHBoxLayout, QHeaderView, QLabel, QPushButton, QTableWidget, QTableWidgetItem,
    QVBoxLayout, QWidget,
)

from ..engine.quantities.inputs import POOL_FIELDS
from .document import Document
from .labels import format_field
from .pool_edits import (
    add_pool, can_merge, can_split, explicit_pools, merge_plan, remove_pool, set_pool_value, split_plan,
)

EDIT_KEYS = ("pool", "role", "device", "device_count", "tensor_parallel", "expert_parallel", "attention_dp",
             "weight_precision", "kv_precision", "batch", "spec_decode_draft_tokens", "curve",
             "rack_power_cap_kw", "servers_per_rack_max", "ownership", "rent_usd_per_device_hour", "purchase_year")
FIELDS = {f.name: f for f in POOL_FIELDS}
INHERITED = QBrush(QColor("#888"))
HEADER_WRAP = 10   # characters per header line
USED_BRUSH = QBrush(QColor("#eeeeee"))
# read-only columns: what the engine used, next to the input it replaces (sizing, a target's batch)
USED = {"device_count": ("Devices used\n[devices]", "device_count"), "batch": ("Batch used\n[sequences]", "batch")}
COLUMNS = tuple(c for key in EDIT_KEYS for c in ((key,) + ((f"used:{key}",) if key in USED else ())))


class PoolsEditor(QWidget):
    def __init__(self, document: Document, parent=None, wide: bool = False):
        super().__init__(parent)
        self._doc = document
        self.table = _pools_table()
        self.table.itemChanged.connect(self._on_item_changed)
        self.add_button = QPushButton("Add pool")
        self.add_button.setToolTip("Add a pool (a copy of the last one): a fleet of several device types")
        self.add_button.clicked.connect(self._add)
        self.remove_button = QPushButton("Remove pool")
        self.remove_button.clicked.connect(self._remove)
        self.split_button = QPushButton("Split into prefill + decode")
        self.split_button.setToolTip("Make the serve pool a prefill pool and a decode pool of the same device (1:3 "
                                     "devices; the plan's notes give the balanced ratio), in one undoable step")
        self.split_button.clicked.connect(lambda: self._show(split_plan(self._doc, self._doc.current_index)))
        self.merge_button = QPushButton("Merge into one pool")
        self.merge_button.setToolTip("Turn the prefill/decode pair back into one serve pool, in one undoable step")
        self.merge_button.clicked.connect(lambda: self._show(merge_plan(self._doc, self._doc.current_index)))
        self.wide_button = wide_button("pools", self.open_wide, wide)
        self._dialog = None
        self.error = error_label()
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet("color: #555;")
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addWidget(self.wide_button)
        buttons.addStretch(1)
        fleet = QHBoxLayout()
        fleet.addWidget(self.split_button)
        fleet.addWidget(self.merge_button)
        fleet.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.hint)
        layout.addWidget(self.table)
        layout.addLayout(buttons)
        layout.addLayout(fleet)
        layout.addWidget(self.error)
        self._shown = None
        self._cells: dict[tuple[int, int], tuple] = {}   # (row, column) -> the cell shown
        self.refresh()

    def refresh(self) -> None:
        plan = self._doc.current_plan()
        if plan is None:
            return
        pools = explicit_pools(plan)
        self.split_button.setEnabled(can_split(plan))
        self.merge_button.setEnabled(can_merge(plan))
        self.hint.setText("Pools rows of this plan (empty cells: the plan's value)." if plan.pools else
                          "No Pools rows: the plan is the pool(s) below, derived from its own keys. "
                          "Edit a cell or add a pool to make them rows of their own.")
        rows = self._doc.results[self._doc.current_index].pool_rows()
        shown = (plan.pools, tuple(pools), tuple(getattr(plan, key, None) for key in COLUMNS),
                 tuple(tuple(r.get(key[5:]) for key in COLUMNS if key.startswith("used:")) for r in rows))
        if shown == self._shown:
            return      # the table would be rebuilt identical (an edit of a key it does not show)
        self._shown = shown
        self.table.blockSignals(True)
        self.table.setRowCount(len(pools))
        for row, pool in enumerate(pools):
            for col, key in enumerate(COLUMNS):
                cell = (_used_cell(rows[row] if row < len(rows) else {}, key[5:]) if key.startswith("used:")
                        else _cell(plan, pool, key))
                if self._cells.get((row, col)) != cell or self.table.item(row, col) is None:
                    self._cells[(row, col)] = cell   # a new item re-measures its column: only where it changed
                    self.table.setItem(row, col, table_item(cell))
        self.table.blockSignals(False)
        self.remove_button.setEnabled(bool(plan.pools))

    def open_wide(self) -> "PoolsDialog":
        """The same pools in a window of their own, wide enough for every column (non-modal)."""
        if self._dialog is None:
            self._dialog = PoolsDialog(self._doc, self.window())
        self._dialog.show()
        self._dialog.raise_()
        return self._dialog

    def _on_item_changed(self, item: QTableWidgetItem) -> None:
        key = COLUMNS[item.column()]
        if key.startswith("used:"):
            return
        self._cells.pop((item.row(), item.column()), None)   # typed over: set again on the next refresh
        text = item.text().strip()
        error = set_pool_value(self._doc, self._doc.current_index, item.row(), key, text or None)
        self._show(error)
        if error:
            self.table.blockSignals(True)
            item.setForeground(QBrush(QColor("#c62828")))
            self.table.blockSignals(False)

    def _add(self) -> None:
        self._show(add_pool(self._doc, self._doc.current_index))

    def _remove(self) -> None:
        rows = sorted({i.row() for i in self.table.selectedIndexes()}) or [self.table.rowCount() - 1]
        self._show(remove_pool(self._doc, self._doc.current_index, rows[0]))

    def _show(self, error: str | None) -> None:
        self.error.setText(error or "")
        self.error.setVisible(bool(error))


def wide_button(what: str, open_wide, wide: bool) -> QPushButton:
    """The "Wide editor…" button of a table editor (hidden in the wide window itself)."""
    button = QPushButton("Wide editor…")
    button.setToolTip(f"Edit the {what} in a window wide enough to show every column")
    button.clicked.connect(open_wide)
    button.setVisible(not wide)
    return button


def error_label() -> QLabel:
    """The red line under a table editor naming a rejected value (hidden while there is none)."""
    label = QLabel()
    label.setStyleSheet("color: #c62828;")
    label.setWordWrap(True)
    label.hide()
    return label


def _cell(plan, pool, key) -> tuple:
    """(kind, text, tooltip) of an input cell: kind "own" (the pool's value) or "inherited" (the plan's)."""
    value = getattr(pool, key)
    field = FIELDS[key]
    inherited = value is None and hasattr(plan, key)
    text = format_field(field, getattr(plan, key) if inherited else value)
    if inherited:
        return "inherited", text, f"{field.label}: the plan's value (type a value to set it for this pool only)"
    if key == "device_count" and plan.sizing_mode != "devices":
        return "own", text, (f"{field.label}: this pool's share of the plan's devices (the plan is sized by "
                             f"{plan.sizing_mode}; Devices used shows the count bought)")
    return "own", text, f"{field.label}: {field.help}"


def _used_cell(row: dict, key: str) -> tuple:
    """(kind "used", text, tooltip) of a read-only cell: what the engine used."""
    value = row.get(USED[key][1])
    text = "n/a" if value is None else f"{value:,.0f}" if key == "device_count" else f"{value:g}"
    return "used", text, ("What the engine used for this pool" if value is not None else
                          "The engine found no operating point for this pool (see the plan's notes)")


def table_item(cell: tuple) -> QTableWidgetItem:
    """The item of a (kind, text, tooltip) cell: \"used\" read-only and shaded, \"inherited\" grey italics."""
    kind, text, tip = cell
    item = QTableWidgetItem(text)
    item.setToolTip(tip)
    if kind == "used":
        item.setFlags(Qt.ItemIsEnabled | Qt.ItemIsSelectable)
        item.setBackground(USED_BRUSH)
        return item
    item.setData(Qt.UserRole, kind == "inherited")
    if kind == "inherited":
        item.setForeground(INHERITED)
        font = QFont()
        font.setItalic(True)
        item.setFont(font)
    return item


def _header(key: str) -> str:
    """A column's label wrapped over short lines (the columns stay narrow), its unit below."""
    if key.startswith("used:"):
        label, unit = USED[key[5:]][0].split("\n")
        return "\n".join(textwrap.wrap(label, HEADER_WRAP) + [unit])
    return field_header(FIELDS[key])


def field_header(f) -> str:
    """A field's label wrapped over short lines (the columns stay narrow), its unit below."""
    return "\n".join(textwrap.wrap(f.label, HEADER_WRAP) + ([f"[{f.unit}]"] if f.unit else []))


def _pools_table() -> QTableWidget:
    """The pools table: one column per COLUMNS key, each header's tooltip its field's help and range."""
    table = QTableWidget(0, len(COLUMNS))
    table.setHorizontalHeaderLabels([_header(k) for k in COLUMNS])
    for col, key in enumerate(COLUMNS):
        if key.startswith("used:"):
            tip = "What the engine used (sizing derives the devices; a target chooses the batch)"
        else:
            f = FIELDS[key]
            tip = f"{f.label} ({f.name}): {f.help}\nAllowed: {f.range_text()}."
        table.horizontalHeaderItem(col).setToolTip(tip)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
    table.setSelectionBehavior(QAbstractItemView.SelectRows)
    table.setMinimumHeight(110)
    table.setTabKeyNavigation(False)   # Tab leaves the table (arrow keys move between cells)
    return table


class WideDialog(QDialog):
    """An editor of the current plan's rows (pools, request classes) in a wide window (every column visible),
    following the document; `make(parent)` builds the editor."""

    def __init__(self, title: str, document: Document, make, parent=None):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.editor = make(self)
        layout = QVBoxLayout(self)
        layout.addWidget(self.editor)
        document.scenario_changed.connect(self.editor.refresh)
        document.current_changed.connect(lambda _i: self.editor.refresh())
        header = self.editor.table.horizontalHeader()
        width = sum(header.sectionSize(i) for i in range(header.count())) + 60
        screen = parent.screen().availableGeometry().width() if parent is not None and parent.screen() else 1600
        self.resize(min(max(width, 900), int(screen * 0.95)), 380)


class PoolsDialog(WideDialog):
    """The current plan's pools editor in a wide window."""

    def __init__(self, document: Document, parent=None):
        super().__init__("Pools of the current plan", document, lambda p: PoolsEditor(document, p, wide=True), parent)
