"""The request classes of the current plan as an editable table (one row per class, its Workloads sheet row): add,
remove, and every key of a class. An empty price, hit rate or percentile takes the plan's value, shown in grey
italics; an empty target is no target. Every edit goes through `workload_edits` (validated, undoable).

A plan's shares must add to 1, so a share edit that leaves them off 1 is held here (shown in red, the sum on the
line below the table and on the window's problem bar, naming the plan) until the shares add to 1 again: then the
held edits go in as one undoable step. A rejected value is named beside the table and changes nothing.
"""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout,
    QWidget,
)

from ..engine.quantities.inputs import CLASS_PLAN_VALUE_KEYS, REQUEST_CLASS_FIELDS
from .document import Document
from .labels import format_field
from .pools_editor import WideDialog, error_label, field_header, table_item, wide_button
from .redraw import Signatures
from .workload_edits import add_class, apply_classes, class_values, classes_problem, edited_class, remove_class

COLUMNS = tuple(f.name for f in REQUEST_CLASS_FIELDS if f.name != "plan")
FIELDS = {f.name: f for f in REQUEST_CLASS_FIELDS}
PLAN_VALUE = frozenset(CLASS_PLAN_VALUE_KEYS)
NO_TARGET = frozenset(("min_tokens_per_s_per_user", "max_ttft_s"))
RED = QBrush(QColor("#c62828"))
PROBLEM_TITLE = "Workloads"


class WorkloadsEditor(QWidget):
    problem = Signal(str)   # the held shares' problem (naming the plan and the sum); "" once they add to 1

    def __init__(self, document: Document, parent=None, wide: bool = False):
        super().__init__(parent)
        self._doc = document
        self._held = None          # (plan index, its classes then, the classes held) until the shares add to 1
        self._shown = Signatures()   # what the table shows: an edit of another plan leaves it alone (gui/redraw.py)
        self.table = _classes_table()
        self.table.itemChanged.connect(self._on_item_changed)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet("color: #555;")
        self.shares = QLabel()
        self.shares.setWordWrap(True)
        self.add_button = QPushButton("Add class")
        self.add_button.setToolTip("Add a class of requests (a copy of the selected class, taking half its share; "
                                   "on a plan without classes: its requests as two classes of half the share each)")
        self.add_button.clicked.connect(self._add)
        self.remove_button = QPushButton("Remove class")
        self.remove_button.setToolTip("Remove the selected class; its share goes to the others in proportion")
        self.remove_button.clicked.connect(self._remove)
        self.wide_button = wide_button("classes", self.open_wide, wide)
        self._dialog = None
        self.error = error_label()
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addWidget(self.wide_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.hint)
        layout.addWidget(self.table)
        layout.addWidget(self.shares)
        layout.addLayout(buttons)
        layout.addWidget(self.error)
        self.refresh()

    def classes(self):
        """The classes shown: the held ones while their shares are off 1, else the plan's."""
        if self._held is not None:
            return self._held[2]
        plan = self._doc.current_plan()
        return plan.workloads if plan is not None else ()

    def refresh(self) -> None:
        plan = self._doc.current_plan()
        if plan is None:
            return
        if self._held is not None and self._held[:2] != (self._doc.current_index, plan.workloads):
            self._note_dropped()   # another plan, or its classes changed under the held edits (an undo)
        classes = self.classes()
        cells = tuple(tuple(_cell(plan, rc, key) for key in COLUMNS) for rc in classes)
        shown = (self._doc.current_index, plan.name, cells, classes_problem(plan, classes))
        if not self._shown.changed("table", shown):
            return   # the same rows, texts and shares' problem as shown
        self.hint.setText(
            "One row per class of requests; shares add to 1. Empty price, hit rate or percentile: the plan's "
            "(grey); empty target: none; a Turns per session makes a class agentic (its prompts follow from its sessions)." if classes else
            "No classes: the plan serves one kind of request, its own input/output tokens and targets. "
            "Add class to serve a mix (chat, reasoning, batch...).")
        self.table.blockSignals(True)
        self.table.setRowCount(len(classes))
        for row, row_cells in enumerate(cells):
            for col, cell in enumerate(row_cells):
                self.table.setItem(row, col, table_item(cell))
        self.table.blockSignals(False)
        self.remove_button.setEnabled(bool(classes))
        self._show_shares(plan, classes)

    def open_wide(self) -> WideDialog:
        """The same classes in a window of their own, wide enough for every column (non-modal)."""
        if self._dialog is None:
            self._dialog = WideDialog("Request classes of the current plan", self._doc,
                                      lambda parent: WorkloadsEditor(self._doc, parent, wide=True), self.window())
            self._dialog.editor.problem.connect(self.problem)
        self._dialog.show()
        self._dialog.raise_()
        return self._dialog

    def _show_shares(self, plan, classes) -> None:
        shares, _other = classes_problem(plan, classes)
        if not classes:
            self.shares.setText("")
        elif shares:
            self.shares.setText(f"{shares} (the share edits are held until they do)")
        else:
            self.shares.setText(f"Shares add to 1 ({len(classes)} classes).")
        self.shares.setStyleSheet("color: #c62828;" if shares else "color: #2e7d32;")
        if shares:
            share_col = COLUMNS.index("share")
            self.table.blockSignals(True)
            for row in range(len(classes)):
                self.table.item(row, share_col).setForeground(RED)
            self.table.blockSignals(False)
        self.problem.emit(f"{shares} (edit the shares in the plan editor's Workloads table)" if shares else "")

    def _on_item_changed(self, item: QTableWidgetItem) -> None:
        self._shown.forget()   # the cell shows what was typed: the next refresh writes the table again
        key = COLUMNS[item.column()]
        index, plan = self._doc.current_index, self._doc.current_plan()
        classes = list(self.classes())
        changed, error = edited_class(classes[item.row()], key, item.text())
        if error is None:
            classes[item.row()] = changed
            shares, error = classes_problem(plan, classes)
            if error is None and shares:
                self._held = (index, plan.workloads, tuple(classes))
                self._show_error(None)
                self.refresh()
                return
        if error is None:
            self._held = None
            error = apply_classes(self._doc, index, classes, f"Set {FIELDS[key].label} of class "
                                                             f"{classes[item.row()].class_!r} of {plan.name!r}")
        self._show_error(error)
        if error:
            self.table.blockSignals(True)
            item.setForeground(RED)
            self.table.blockSignals(False)
        else:
            self.refresh()

    def _add(self) -> None:
        self._drop_held()
        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        self._show_error(add_class(self._doc, self._doc.current_index, rows[0] if rows else None))

    def _remove(self) -> None:
        self._drop_held()
        rows = sorted({i.row() for i in self.table.selectedIndexes()}) or [self.table.rowCount() - 1]
        self._show_error(remove_class(self._doc, self._doc.current_index, rows[0]))

    def _drop_held(self) -> None:
        """Held share edits are dropped before a class is added or removed (the plan's classes are the base)."""
        if self._held is not None:
            self._note_dropped()
            self.refresh()

    def _note_dropped(self) -> None:
        """Held share edits are not applied: say so (nothing goes without a word)."""
        name = self._doc.scenario.plans[self._held[0]].name if self._held[0] < len(self._doc.scenario.plans) else ""
        self._held = None
        self._show_error(f"The share edits held for plan {name!r} were not applied (their shares did not add to 1).")

    def _show_error(self, error: str | None) -> None:
        self.error.setText(error or "")
        self.error.setVisible(bool(error))


def _cell(plan, rc, key) -> tuple:
    """(kind, text, tooltip) of a class's cell: "own", or "inherited" (grey: what an empty cell means)."""
    field = FIELDS[key]
    value = class_values(rc)[key]
    if value is not None:
        return "own", format_field(field, value), f"{field.label}: {field.help}"
    if key in PLAN_VALUE and getattr(plan, key, None) is not None:
        return "inherited", format_field(field, getattr(plan, key)), (
            f"{field.label}: the plan's value (type a value to set it for this class only)")
    if key == "price_usd_per_million_cached_input_tokens":   # neither the class nor the plan sets one
        price = rc.price_usd_per_million_input_tokens
        price = plan.price_usd_per_million_input_tokens if price is None else price
        return "inherited", format_field(field, price), (f"{field.label}: empty here and on the plan, so cached input "
                                                         "tokens pay the input price (type a price to set one)")
    if key in NO_TARGET:
        return "inherited", "none", f"{field.label}: no target for this class (type one to set it)"
    if key.endswith("_p90"):
        return "inherited", "fixed", f"{field.label}: empty, so every request has the mean length (type a p90 above " \
                                     "the mean for a long tail)"
    if key == "input_tokens" and rc.session_turns is not None:
        return "inherited", "sessions", f"{field.label}: an agentic class's prompts follow from its sessions"
    return "own", "", f"{field.label}: {field.help}"


def _classes_table() -> QTableWidget:
    """One column per class key (the plan is the current plan), each header's tooltip its field's help and range."""
    table = QTableWidget(0, len(COLUMNS))
    table.setHorizontalHeaderLabels([field_header(FIELDS[k]) for k in COLUMNS])
    for col, key in enumerate(COLUMNS):
        f = FIELDS[key]
        table.horizontalHeaderItem(col).setToolTip(f"{f.label} ({f.name}): {f.help}\nAllowed: {f.range_text()}.")
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
    table.setSelectionBehavior(QAbstractItemView.SelectRows)
    table.setMinimumHeight(110)
    table.setTabKeyNavigation(False)
    return table
