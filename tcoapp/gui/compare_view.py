"""Plans side by side: the compare table, plan actions and the normalization switch."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QInputDialog, QLabel, QLineEdit, QPushButton,
    QTableView, QVBoxLayout, QWidget,
)

from ..engine.fields import PLAN_FIELD_BY_NAME
from ..engine.normalize import LABELS, NORMALIZATIONS
from .compare_model import CompareModel
from .document import Document
from .labels import format_number

# (engine mode, text shown, field of the common value)
NORMALIZATION_CHOICES = tuple((mode, LABELS[mode], spec[1] if spec else None) for mode, spec in NORMALIZATIONS.items())


class CompareView(QWidget):
    message = Signal(str)   # a problem to show the user (the main window decides how)

    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self._doc = document
        self.model = CompareModel(document, self)
        self.model.edit_failed.connect(self.message)
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectItems)
        self.table.setAlternatingRowColors(False)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.Interactive)
        self.table.horizontalHeader().setDefaultSectionSize(160)
        self.table.horizontalHeader().setDefaultAlignment(Qt.AlignCenter | Qt.TextWordWrap)
        self.table.horizontalHeader().sectionDoubleClicked.connect(self.rename_plan)
        self.table.selectionModel().currentChanged.connect(lambda cur, _: self._select(cur.column()))
        self.table.setEditTriggers(QAbstractItemView.DoubleClicked | QAbstractItemView.EditKeyPressed
                                   | QAbstractItemView.AnyKeyPressed)

        self.add_button = QPushButton("Add plan")
        self.duplicate_button = QPushButton("Duplicate")
        self.delete_button = QPushButton("Delete")
        self.rename_button = QPushButton("Rename…")
        self.add_button.clicked.connect(lambda: document.add_plan())
        self.duplicate_button.clicked.connect(lambda: document.add_plan(document.current_index))
        self.delete_button.clicked.connect(lambda: document.delete_plan(document.current_index))
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
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.table, 1)
        layout.addWidget(legend)
        document.scenario_changed.connect(self._sync)
        document.current_changed.connect(self._sync)
        self._sync()

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
        self.delete_button.setEnabled(len(self._doc.scenario.plans) > 1)

    def _normalize(self, *_):
        mode = self.normalization.currentData()
        current, value = self._doc.normalization()
        text = self.target.text().replace(",", "").strip()
        wanted = None
        if mode != "as_entered" and text and mode == current:
            try:
                wanted = float(text)
            except ValueError:
                self.message.emit(f"{text!r} is not a number")
                return
            if wanted == value:
                return
        if mode == current and wanted is None:
            return
        error = self._doc.normalize(mode, wanted)
        if error:
            self.message.emit(error)
        self._sync()

    def rename_plan(self, index: int) -> None:
        if index < 0:
            return
        old = self._doc.scenario.plans[index].name
        name, ok = QInputDialog.getText(self, "Rename plan", "Plan name:", text=old)
        if ok:
            error = self._doc.rename_plan(index, name)
            if error:
                self.message.emit(error)
