"""Catalog tables: devices, models and measured curves, with their sources visible; the price-tier
tables and the calibration factors (workbook-only before), editable."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView, QHBoxLayout, QLabel, QPushButton, QTableView, QTabWidget, QVBoxLayout, QWidget,
)

from .calibration_editor import CalibrationEditor
from .catalog_models import CurvePointsModel, EntryTableModel
from .price_tiers_editor import PriceTiersEditor
from .document import Document
from .inline_error import InlineError


def _table(model) -> QTableView:
    view = QTableView()
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectItems)
    view.setWordWrap(False)
    view.verticalHeader().setDefaultSectionSize(22)
    view.horizontalHeader().setDefaultSectionSize(110)
    view.setSortingEnabled(False)
    return view


class CatalogView(QWidget):
    message = Signal(str)
    fit_requested = Signal(str)       # name of the curve to fit the generated model to

    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self.devices_model = EntryTableModel(document, "device", self)
        self.models_model = EntryTableModel(document, "model", self)
        self.curves_model = CurvePointsModel(document, self)
        for model in (self.devices_model, self.models_model, self.curves_model):
            model.edit_failed.connect(self.show_error)
        self.tabs = QTabWidget()
        self.devices_table = _table(self.devices_model)
        self.models_table = _table(self.models_model)
        self.curves_table = _table(self.curves_model)
        self.tabs.addTab(self.devices_table, "Devices")
        self.tabs.addTab(self.models_table, "Models")
        self.tabs.addTab(self.curves_table, "Measured curves")
        self.price_tiers = PriceTiersEditor(document)
        self.calibration = CalibrationEditor(document)
        self.tabs.addTab(self.price_tiers, "Price tiers")
        self.tabs.addTab(self.calibration, "Calibration factors")
        self._fitted = False   # columns are sized when the tab is first shown (measuring cells costs start-up)
        hint = QLabel("Double-click a cell to edit: the entry becomes a scenario entry (blue, saved in the "
                      "workbook's Devices/Models sheet) that overrides the shipped catalog. "
                      "Measured curves come from File > Import curve or the workbook's Curves sheet; their "
                      "numbers can be corrected here.")
        hint.setWordWrap(True)
        hint.setStyleSheet("color: #444;")
        self._doc = document
        self.duplicate_button = QPushButton("Duplicate entry")
        self.duplicate_button.setToolTip("Copy the selected device or model under a new name, to edit into a "
                                         "hypothetical one (saved in the workbook)")
        self.duplicate_button.clicked.connect(self.duplicate_selected)
        self.delete_curve_button = QPushButton("Delete curve")
        self.delete_curve_button.setToolTip("Remove the measured curve of the selected point (undoable)")
        self.delete_curve_button.clicked.connect(self.delete_selected_curve)
        self.delete_curve_button.setEnabled(False)
        self.fit_curve_button = QPushButton("Fit generated model…")
        self.fit_curve_button.setToolTip("Fit the generated model's efficiency factors to the selected point's curve "
                                         "(least squares; errors before and after), then optionally use them for "
                                         "plans on its device")
        self.fit_curve_button.clicked.connect(self._fit_selected_curve)
        self.fit_curve_button.setEnabled(False)
        self.tabs.currentChanged.connect(self._tab_changed)
        bottom = QHBoxLayout()
        bottom.addWidget(hint, 1)
        bottom.addWidget(self.duplicate_button)
        bottom.addWidget(self.fit_curve_button)
        bottom.addWidget(self.delete_curve_button)
        self.error = InlineError()
        document.scenario_changed.connect(lambda: self.error.show_error(None))   # an edit went through
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.error)
        layout.addLayout(bottom)

    def show_error(self, text: str | None) -> None:
        """Refused edits and actions, shown in red under the tables (never a pop-up)."""
        self.error.show_error(text)

    def _tab_changed(self, index: int) -> None:
        shown = self.tabs.widget(index)
        self.duplicate_button.setEnabled(shown in (self.devices_table, self.models_table))
        self.delete_curve_button.setEnabled(shown is self.curves_table)
        self.fit_curve_button.setEnabled(shown is self.curves_table)

    def selected_curve(self) -> str | None:
        if self.curves_model.rowCount() == 0:
            return None
        return self.curves_model.curve_at(max(0, self.curves_table.currentIndex().row()))

    def _fit_selected_curve(self) -> None:
        name = self.selected_curve()
        if name:
            self.fit_requested.emit(name)

    def delete_selected_curve(self) -> None:
        name = self.selected_curve()
        if name is None:
            return
        error = self._doc.delete_curve(name)
        if error:
            self.show_error(error)

    def duplicate_selected(self) -> None:
        table = self.tabs.currentWidget()
        if table not in (self.devices_table, self.models_table):
            return
        model = table.model()
        row = max(0, table.currentIndex().row())
        if model.rowCount() == 0:
            return
        entry = model.entry(row)
        names = set(model.names())
        name = f"{entry.name} copy"
        n = 2
        while name in names:
            name, n = f"{entry.name} copy {n}", n + 1
        values = {**entry.as_dict(), "name": name}
        error = (self._doc.set_device if model.kind == "device" else self._doc.set_model)(name, values)
        if error:
            self.show_error(error)
            return
        table.selectRow(model.names().index(name))

    def showEvent(self, event):  # noqa: N802
        if not self._fitted:
            self._fitted = True
            for table in (self.devices_table, self.models_table, self.curves_table):
                self._fit(table)
        super().showEvent(event)

    @staticmethod
    def _fit(table: QTableView) -> None:
        """Columns as wide as their header and values; long text columns capped (full text in the
        tooltip); the source moved next to the name so it is always in sight."""
        table.horizontalHeader().setResizeContentsPrecision(20)   # size from the first rows only
        table.resizeColumnsToContents()
        model, header = table.model(), table.horizontalHeader()
        for col in range(model.columnCount()):
            name = model.field_name(col)
            if name in ("source", "notes", "estimated_fields", "config"):
                table.setColumnWidth(col, 300 if name == "source" else 220)
            if name == "source" and table.model().field_name(0) == "name":
                header.moveSection(header.visualIndex(col), 1)
