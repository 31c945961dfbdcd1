"""The current plan's years as a table (years as columns): utilization, output price, tokens,
revenue, opex, capex by year (tranches), depreciation, tax, cash flow and cumulative cash flow,
from the engine's per-year rows (PlanResult.year_rows)."""
from __future__ import annotations

import math

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHeaderView, QTableView

from ..engine.finance.quantities import YEAR_QUANTITY_BY_KEY
from .document import Document

# row key in PlanResult.year_rows(), label, unit
ROWS = (
    ("utilization", "Utilization", "%"),
    ("price_usd_per_million_output_tokens", "Output price", "USD/Mtok"),
    ("output_tokens", "Output tokens", "tokens"),
    ("revenue_usd", "Revenue", "USD"),
    ("opex_usd", "Opex", "USD"),
    ("capex_usd", "Capex paid (tranches)", "USD"),
    ("depreciation_usd", "Depreciation", "USD"),
    ("taxable_income_usd", "Taxable income", "USD"),
    ("tax_usd", "Tax", "USD"),
    ("residual_value_usd", "Residual value", "USD"),
    ("cash_flow_usd", "Cash flow", "USD"),
    ("cumulative_cash_flow_usd", "Cumulative cash flow", "USD"),
)
NEGATIVE = QBrush(QColor("#c62828"))


def _text(value, unit: str) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    if unit == "%":
        return f"{value:.0%}"
    if unit == "USD/Mtok":
        return f"${value:,.3f}"
    if unit == "USD":
        return f"-${-value:,.0f}" if value < 0 else f"${value:,.0f}"
    return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:.3e}"


class YearsModel(QAbstractTableModel):
    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self._doc = document
        self._years: list[dict] = []
        document.scenario_changed.connect(self.reload)
        document.current_changed.connect(self.reload)
        self.reload()

    def reload(self, *_):
        self.beginResetModel()
        results = self._doc.results
        index = self._doc.current_index
        self._years = results[index].year_rows() if results and index < len(results) else []
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(ROWS)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._years)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation == Qt.Horizontal:
            if role == Qt.DisplayRole and section < len(self._years):
                return f"year {self._years[section]['year']}"
            return None
        key, label, unit = ROWS[section]
        if role == Qt.DisplayRole:
            return f"{label} [{unit}]"
        if role == Qt.ToolTipRole:
            quantity = YEAR_QUANTITY_BY_KEY.get(key)
            return quantity.help if quantity else "The plan's output price in the year (price x price index)."
        return None

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid() or index.column() >= len(self._years):
            return None
        key, _, unit = ROWS[index.row()]
        value = self._years[index.column()].get(key)
        if role == Qt.DisplayRole:
            return "" if value is None and index.column() == 0 else _text(value, unit)
        if role == Qt.UserRole:
            return value
        if role == Qt.TextAlignmentRole:
            return int(Qt.AlignRight | Qt.AlignVCenter)
        if role == Qt.ForegroundRole and isinstance(value, float) and value < 0:
            return NEGATIVE
        return None


def years_view(document: Document) -> QTableView:
    view = QTableView()
    view.setModel(YearsModel(document, view))
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
    view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
    view.setToolTip("The current plan year by year (docs/model.md, 'Years')")
    view.setMinimumHeight(180)
    return view
