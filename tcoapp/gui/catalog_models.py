"""Qt table models over catalog entries (devices, models) and measured curve points.

Columns come from the field table (label and unit in the header, help in the tooltip); the source
column is shown like any other. Device and model cells are editable: an edit makes the entry a
scenario entry (the workbook's Devices/Models sheet) through the document, validated and undoable.
Curve points are shown in the Curves sheet's long format; their measured numbers are editable.
"""
from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont

from ..engine.quantities.inputs import CURVE_ARRAYS, CURVE_POINT_FIELDS, DEVICE_FIELDS, MODEL_FIELDS, Field
from ..engine.performance.measured import config_text
from .document import Document
from ..engine.quantities.validate import coerce
from .labels import format_field, parse_input

OVERRIDE_BRUSH = QBrush(QColor(227, 242, 253))
POINT_COLUMNS = CURVE_ARRAYS


def header_text(field: Field) -> str:
    return f"{field.label} [{field.unit}]" if field.unit else field.label


class EntryTableModel(QAbstractTableModel):
    """Devices or models: one row per entry (shipped catalog plus the scenario's own)."""

    edit_failed = Signal(str)

    def __init__(self, document: Document, kind: str, parent=None):
        super().__init__(parent)
        self._doc, self._kind = document, kind
        self._fields = DEVICE_FIELDS if kind == "device" else MODEL_FIELDS
        self._names = self._current_names()
        self._last_own = self._own()
        document.scenario_changed.connect(self._on_changed)

    def _current_names(self) -> list[str]:
        s = self._doc.scenario
        return s.all_device_names() if self._kind == "device" else s.all_model_names()

    @property
    def kind(self) -> str:
        return self._kind

    def names(self) -> list[str]:
        return list(self._names)

    def entry(self, row: int):
        return self._entry(row)

    def _entry(self, row: int):
        s, name = self._doc.scenario, self._names[row]
        return s.device(name) if self._kind == "device" else s.model(name)

    def _is_override(self, row: int) -> bool:
        own = self._doc.scenario.devices if self._kind == "device" else self._doc.scenario.models
        return self._names[row] in own

    def field_name(self, column: int) -> str:
        return self._fields[column].name

    def rowCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self._names)

    def columnCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self._fields)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation == Qt.Horizontal and 0 <= section < len(self._fields):
            field = self._fields[section]
            if role == Qt.DisplayRole:
                return header_text(field)
            if role == Qt.ToolTipRole:
                return f"{field.name}: {field.help}"
        if orientation == Qt.Vertical and role == Qt.DisplayRole and 0 <= section < len(self._names):
            return str(section + 1)
        return None

    def flags(self, index):
        if not index.isValid():
            return Qt.NoItemFlags
        flags = Qt.ItemIsEnabled | Qt.ItemIsSelectable
        if self._fields[index.column()].name != "name":
            flags |= Qt.ItemIsEditable
        return flags

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid() or index.row() >= len(self._names):
            return None
        field = self._fields[index.column()]
        value = getattr(self._entry(index.row()), field.name)
        if role in (Qt.DisplayRole, Qt.EditRole):
            return format_field(field, value)
        if role == Qt.UserRole:
            return value
        if role == Qt.ToolTipRole:
            text = format_field(field, value)
            if self._is_override(index.row()):
                text += "\n(scenario entry: overrides or adds to the shipped catalog)"
            return text
        if role == Qt.BackgroundRole and self._is_override(index.row()):
            return OVERRIDE_BRUSH
        if role == Qt.FontRole and field.name == "name" and self._is_override(index.row()):
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.TextAlignmentRole and field.type in ("int", "float"):
            return int(Qt.AlignRight | Qt.AlignVCenter)
        return None

    def setData(self, index, value, role=Qt.EditRole):
        if role != Qt.EditRole or not index.isValid():
            return False
        field = self._fields[index.column()]
        entry = self._entry(index.row())
        values = entry.as_dict()
        values[field.name] = value
        setter = self._doc.set_device if self._kind == "device" else self._doc.set_model
        error = setter(entry.name, values)
        if error:
            self.edit_failed.emit(error)
            return False
        return True

    def _own(self):
        return self._doc.scenario.devices if self._kind == "device" else self._doc.scenario.models

    def _on_changed(self):
        own = self._own()
        if own is getattr(self, "_last_own", None):
            return   # the scenario's devices/models are the same objects: nothing to redraw
        self._last_own = own
        names = self._current_names()
        if names != self._names:
            self.beginResetModel()
            self._names = names
            self.endResetModel()
        elif names:
            self.dataChanged.emit(self.index(0, 0), self.index(len(names) - 1, len(self._fields) - 1))


class CurvePointsModel(QAbstractTableModel):
    """Every measured point of every curve of the scenario, in the Curves sheet's long format.
    The measured numbers are editable (validated by the field table, undoable)."""

    edit_failed = Signal(str)

    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self._doc = document
        self._fields = CURVE_POINT_FIELDS
        self._rows = self._build()
        self._curves = document.scenario.curves
        document.scenario_changed.connect(self._on_changed)

    def _build(self) -> list[tuple]:
        rows = []
        self._where: list[tuple[str, int]] = []
        for curve in self._doc.scenario.curves.values():
            sources = curve.point_sources or ()
            for i in range(len(curve.batch)):
                values = {
                    "curve": curve.name, "device": curve.device, "model": curve.model, "batch": curve.batch[i],
                    "tokens_per_s_per_device": curve.tokens_per_s_per_device[i],
                    "tokens_per_s_per_user": curve.tokens_per_s_per_user[i], "power_w": curve.power_w[i],
                    "ttft_s": curve.ttft_s[i], "precision": curve.precision, "tensor_parallel": curve.tensor_parallel,
                    "source": sources[i] if i < len(sources) and sources[i] else curve.source,
                    "config": config_text(curve.config),
                }
                rows.append(tuple(values.get(f.name) for f in self._fields))
                self._where.append((curve.name, i))
        return rows

    def flags(self, index):
        if not index.isValid():
            return Qt.NoItemFlags
        flags = Qt.ItemIsEnabled | Qt.ItemIsSelectable
        if self._fields[index.column()].name in POINT_COLUMNS:
            flags |= Qt.ItemIsEditable
        return flags

    def curve_at(self, row: int) -> str:
        return self._where[row][0]

    def setData(self, index, value, role=Qt.EditRole):
        if role != Qt.EditRole or not index.isValid():
            return False
        field = self._fields[index.column()]
        if field.name not in POINT_COLUMNS:
            return False
        typed, error = coerce(field, parse_input(field, value))   # the app's own (US) number format
        if error:
            self.edit_failed.emit(f"{field.name} {error}")
            return False
        name, i = self._where[index.row()]
        error = self._doc.set_curve_point(name, i, field.name, typed)
        if error:
            self.edit_failed.emit(error)
            return False
        return True

    def field_name(self, column: int) -> str:
        return self._fields[column].name

    def rowCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self._fields)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation == Qt.Horizontal and 0 <= section < len(self._fields):
            if role == Qt.DisplayRole:
                return header_text(self._fields[section])
            if role == Qt.ToolTipRole:
                return self._fields[section].help
        if orientation == Qt.Vertical and role == Qt.DisplayRole and 0 <= section < len(self._rows):
            return str(section + 1)
        return None

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        value = self._rows[index.row()][index.column()]
        if isinstance(value, (float, np.floating)):
            value = float(value)
            if not math.isfinite(value):
                value = None
        if role == Qt.DisplayRole:
            return "" if value is None else format_field(self._fields[index.column()], value)
        if role == Qt.UserRole:
            return value
        return None

    def _on_changed(self):
        if self._doc.scenario.curves is self._curves:
            return
        self._curves = self._doc.scenario.curves
        rows = self._build()
        if len(rows) != len(self._rows) or rows != self._rows:
            self.beginResetModel()
            self._rows = rows
            self.endResetModel()
