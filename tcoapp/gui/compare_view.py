"""Plans side by side: the compare table, plan actions and the normalization switch."""
from __future__ import annotations

import textwrap

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QInputDialog, QLabel, QLineEdit, QPushButton,
    QTableView, QVBoxLayout, QWidget,
)

from ..engine.quantities.inputs import PLAN_FIELD_BY_NAME
from ..engine.pipeline.normalize import LABELS, NORMALIZATIONS
from .compare_model import CompareModel
from .document import Document
from .inline_error import InlineError
from .labels import format_number

# (engine mode, text shown, field of the common value)
NORMALIZATION_CHOICES = tuple((mode, LABELS[mode], spec[1] if spec else None) for mode, spec in NORMALIZATIONS.items())


SWATCH_ROOM = 24   # px of a plan header the colour swatch and its gap take
MIN_COLUMN, MAX_COLUMN = 96, 420   # plan column widths: share the window (a wide window, wide columns)


class CompareView(QWidget):
    """Errors of edits in the table, of renames and of the normalization are shown inline, in red
    under the table (like the plan editor's), never in a pop-up."""

    message = Signal(str)   # kept for the main window's wiring; the view shows its own errors inline

    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self._doc = document
        self.model = CompareModel(document, self)
        self.model.edit_failed.connect(self.show_error)
        self.table = self._make_table()

        self.add_button = QPushButton("Add plan")
        self.duplicate_button = QPushButton("Duplicate")
        self.delete_button = QPushButton("Delete")
        self.rename_button = QPushButton("Rename…")
        self.add_button.clicked.connect(lambda: document.add_plan())
        self.duplicate_button.clicked.connect(lambda: document.add_plan(document.current_index))
        self.delete_button.clicked.connect(self._delete)
        self.rename_button.clicked.connect(lambda: self.rename_plan(document.current_index))

        self.normalization = QComboBox()
        for mode, text, _ in NORMALIZATION_CHOICES:
            self.normalization.addItem(text, mode)
        self.normalization.setToolTip("Re-size every plan to the same facility power, capex budget or token "
                                      "demand (sets each plan's sizing_mode); As entered restores the sizing")
        self.target = QLineEdit()
        self.target.setMaximumWidth(140)
        self.target.setToolTip("The common value all plans are sized to")
        self.target_unit = QLabel()
        self.normalization.activated.connect(self._normalize)
        self.target.editingFinished.connect(self._normalize)

        bar = QHBoxLayout()
        for w in (self.add_button, self.duplicate_button, self.delete_button, self.rename_button):
            bar.addWidget(w)
        bar.addStretch(1)
        bar.addWidget(QLabel("Normalization:"))
        bar.addWidget(self.normalization)
        bar.addWidget(self.target)
        bar.addWidget(self.target_unit)
        legend = QLabel("Green bold: best value in the row.  Yellow rows are inputs: double-click to edit.")
        legend.setStyleSheet("color: #555;")
        self.error = InlineError()
        self.error.setObjectName("compare_error")
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.error)
        layout.addWidget(legend)
        document.scenario_changed.connect(lambda: self.show_error(None))   # an edit went through
        document.scenario_changed.connect(self._sync)
        document.current_changed.connect(self._sync)
        self._sync()

    def _make_table(self) -> QTableView:
        """The plans-by-rows table: a header double-click renames a plan, a click selects it."""
        table = QTableView(self)
        table.setModel(self.model)
        table.setSelectionBehavior(QAbstractItemView.SelectItems)
        table.setAlternatingRowColors(False)
        table.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
        table.verticalHeader().setDefaultSectionSize(22)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.Interactive)
        table.horizontalHeader().setDefaultSectionSize(160)
        table.horizontalHeader().setDefaultAlignment(Qt.AlignCenter | Qt.TextWordWrap)
        table.horizontalHeader().sectionDoubleClicked.connect(self.rename_plan)
        table.viewport().installEventFilter(self)
        table.selectionModel().currentChanged.connect(lambda cur, _: self._select(cur.column()))
        table.setEditTriggers(QAbstractItemView.DoubleClicked | QAbstractItemView.EditKeyPressed
                              | QAbstractItemView.AnyKeyPressed)
        return table

    def _select(self, column: int) -> None:
        if column >= 0:
            self._doc.set_current_index(column)

    def _sync(self, *_):
        mode, value = self._doc.normalization()
        index = [m for m, _, _ in NORMALIZATION_CHOICES].index(mode)
        self.normalization.setCurrentIndex(index)
        key = NORMALIZATION_CHOICES[index][2]
        self.target.setEnabled(key is not None)
        self.target_unit.setText(PLAN_FIELD_BY_NAME[key].unit if key else "")
        if not self.target.hasFocus():
            self.target.setText(format_number(value) if value is not None else "")
        last = len(self._doc.scenario.plans) <= 1
        self.delete_button.setEnabled(not last)
        self.delete_button.setToolTip(self._doc.LAST_PLAN if last else "Delete the current plan (undoable)")
        self.fit_columns()

    def _normalize(self, *_):
        mode = self.normalization.currentData()
        current, value = self._doc.normalization()
        text = self.target.text().replace(",", "").strip()
        wanted = None
        if mode != "as_entered" and text and mode == current:
            try:
                wanted = float(text)
            except ValueError:
                self.show_error(f"Normalization: {text!r} is not a number")
                return
            if wanted == value:
                return
        if mode == current and wanted is None:
            return
        error = self._doc.normalize(mode, wanted)
        self.show_error(f"Normalization: {error}" if error else None)
        self._sync()

    def rename_plan(self, index: int) -> None:
        if index < 0:
            return
        old = self._doc.scenario.plans[index].name
        name, ok = QInputDialog.getText(self, "Rename plan", "Plan name:", text=old)
        if ok:
            error = self._doc.rename_plan(index, name)
            self.show_error(f"Rename: {error}" if error else None)

    def show_error(self, text: str | None) -> None:
        self.error.show_error(text)

    def _delete(self) -> None:
        self.show_error(self._doc.delete_plan(self._doc.current_index))

    def fit_columns(self) -> None:
        """Plan columns as wide as the window allows (MIN..MAX), so the default plans fit."""
        n = self.model.columnCount()
        if n == 0:
            return
        room = self.table.viewport().width()
        width = int(max(MIN_COLUMN, min(MAX_COLUMN, room // n)))
        header = self.table.horizontalHeader()
        if header.defaultSectionSize() != width:
            header.setDefaultSectionSize(width)
            for i in range(n):
                header.resizeSection(i, width)
        # the room beside the colour swatch: a name wider than it breaks at our line breaks, which the
        # header's height then holds (a break Qt makes itself would be cut off)
        wrap = _header_wrap(self.model, header.fontMetrics(), width - 12 - SWATCH_ROOM)
        if wrap != self.model.header_wrap:      # explicit line breaks: the header grows to hold them
            self.model.header_wrap = wrap
            self.model.headerDataChanged.emit(Qt.Horizontal, 0, n - 1)
        lines = max(str(self.model.headerData(i, Qt.Horizontal) or "").count("\n") + 1 for i in range(n))
        height = lines * header.fontMetrics().lineSpacing() + 10   # (Qt keeps the height of the first texts)
        if header.minimumHeight() != height:
            header.setMinimumHeight(height)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self.fit_columns()

    def eventFilter(self, watched, event):
        """The table's viewport changed size (the window, the metric labels' column, a scroll bar): the
        plan columns share the new width."""
        if watched is self.table.viewport() and event.type() == QEvent.Resize:
            self.fit_columns()
        return super().eventFilter(watched, event)


def _header_wrap(model, metrics, room_px: int) -> int:
    """Characters per header line such that every plan's name, broken at that width, fits `room_px`
    (measured, not estimated from an average character: capitals and digits are wider). A single word
    wider than the room cannot fit at any width: it does not make the other names break sooner."""
    names = model.plan_names()
    wrap = max(8, room_px // max(1, metrics.averageCharWidth()))

    def too_wide(line: str) -> bool:
        return " " in line.strip() and metrics.horizontalAdvance(line) > room_px

    while wrap > 8 and any(too_wide(line) for name in names
                           for line in textwrap.wrap(name, wrap, break_long_words=False)):
        wrap -= 1
    return wrap
