"""The efficiency factors of the generated model (the workbook's Calibration sheet), editable: one
row per factor with its unit, a column for every plan and one per calibrated device (plans on that
device use it). A value that differs from the shipped default is bold. Every edit goes through
`table_edits` (validated against the factor table, undoable); a refused value is shown in red."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox, QHBoxLayout, QLabel, QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget,
)

from ..engine.quantities.factors import FACTOR_FIELDS
from ..engine.performance.factors import DEFAULT_FACTORS
from .document import Document
from .inline_error import InlineError
from .table_edits import remove_device_factors, set_factor

ALL_PLANS = "Every plan"


class CalibrationEditor(QWidget):
    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self._doc = document
        self.devices: list[str | None] = [None]
        self._shown = None
        self.table = QTableWidget(len(FACTOR_FIELDS), 1)
        self.table.setVerticalHeaderLabels([f"{f.label} [{f.unit}]" for f in FACTOR_FIELDS])
        for row, f in enumerate(FACTOR_FIELDS):
            self.table.verticalHeaderItem(row).setToolTip(f"{f.label} ({f.name}): {f.help}\nAllowed: {f.range_text()}; "
                                                          f"default {f.default:g}.")
        self.table.itemChanged.connect(self._changed)
        self.device_box = QComboBox()
        self.device_box.setToolTip("A device whose plans get factors of their own")
        add = QPushButton("Add device column")
        add.clicked.connect(self._add_device)
        self.remove_button = QPushButton("Remove column")
        self.remove_button.setToolTip("Plans on the selected column's device use the scenario's factors again")
        self.remove_button.clicked.connect(self._remove_device)
        self.error = InlineError()
        hint = QLabel("Efficiency factors of the generated (roofline) model. Bold: differs from the shipped default. "
                      "Catalog > Measured curves > Fit generated model… fits them to a curve. Saved on the "
                      "workbook's Calibration sheet.")
        hint.setWordWrap(True)
        hint.setStyleSheet("color: #444;")
        buttons = QHBoxLayout()
        buttons.addWidget(self.device_box)
        buttons.addWidget(add)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(hint)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.error)
        layout.addLayout(buttons)
        document.scenario_changed.connect(self.refresh)
        self.refresh()

    def refresh(self, force: bool = False) -> None:
        """Show the scenario's factors; unless `force`, only when they (or the devices) changed: every edit
        of the document calls this, and a rebuilt table re-lays out its tab."""
        scenario = self._doc.scenario
        extra = [d for d in self.devices[1:] if d not in scenario.device_factors]   # added, not yet edited
        self.devices = [None] + sorted(scenario.device_factors) + extra
        shown = (scenario.factors, tuple(scenario.device_factors.items()), tuple(self.devices),
                 tuple(scenario.all_device_names()))
        if shown == self._shown and not force:
            return
        self._shown = shown
        self.table.blockSignals(True)
        self.table.setColumnCount(len(self.devices))
        self.table.setHorizontalHeaderLabels([ALL_PLANS if d is None else f"Plans on {d}" for d in self.devices])
        for col, device in enumerate(self.devices):
            factors = scenario.factors if device is None else scenario.device_factors.get(device, scenario.factors)
            for row, f in enumerate(FACTOR_FIELDS):
                value = getattr(factors, f.name)
                item = QTableWidgetItem(f"{value:.6g}")
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                if value != getattr(DEFAULT_FACTORS, f.name):
                    font = QFont()
                    font.setBold(True)
                    item.setFont(font)
                self.table.setItem(row, col, item)
        self.table.resizeColumnsToContents()
        self.table.blockSignals(False)
        self.device_box.clear()
        self.device_box.addItems([d for d in scenario.all_device_names() if d not in self.devices])
        self.remove_button.setEnabled(len(self.devices) > 1)

    def _show(self, error: str | None) -> None:
        if self.error.show_error(error):
            self.refresh(force=True)      # put the refused cell back to the scenario's value

    def _changed(self, item: QTableWidgetItem) -> None:
        device = self.devices[item.column()]
        self._show(set_factor(self._doc, device, FACTOR_FIELDS[item.row()].name, item.text()))

    def _add_device(self) -> None:
        device = self.device_box.currentText()
        if device:
            self.devices.append(device)
            self.refresh()

    def _remove_device(self) -> None:
        col = self.table.currentColumn()
        if col <= 0:
            col = len(self.devices) - 1
        device = self.devices[col]
        if device is None:
            return
        if device in self._doc.scenario.device_factors:
            self._show(remove_device_factors(self._doc, device))
        else:
            self.devices.remove(device)
            self.refresh()
