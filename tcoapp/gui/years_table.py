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
RIGHT = int(Qt.AlignRight | Qt.AlignVCenter)
_ROLES = frozenset((Qt.DisplayRole, Qt.UserRole, Qt.TextAlignmentRole, Qt.ForegroundRole))


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
        self._cells: list[list[tuple]] = []
        self._shown = None      # the PlanResult shown: an edit of another plan leaves the table alone
        self.grown: list[int] = []
        document.scenario_changed.connect(self.reload)
        document.current_changed.connect(self.reload)
        self.reload()

    def reload(self, *_):
        results = self._doc.results
        index = self._doc.current_index
        result = results[index] if results and index < len(results) else None
        if result is not None and result is self._shown:
            return
        years = result.year_rows() if result is not None else []
        same_shape = [y.get("year") for y in years] == [y.get("year") for y in self._years]
        if not same_shape:
            self.beginResetModel()
        before = self._widest()
        self._shown, self._years = result, years
        self._cells = [[self._cell(row, col) for col in range(len(self._years))] for row in range(len(ROWS))]
        after = self._widest()
        # columns whose longest text grew (the view widens them; values that only change keep their width)
        self.grown = [c for c, n in enumerate(after) if same_shape and c < len(before) and n > before[c]]
        if not same_shape:
            self.endResetModel()
        elif self._years:   # the same years: new values in place (no relayout of the headers)
            self.dataChanged.emit(self.index(0, 0), self.index(len(ROWS) - 1, len(self._years) - 1))

    def _widest(self) -> list[int]:
        """The longest text of each column, in characters."""
        return [max((len(row[c][0]) for row in self._cells), default=0) for c in range(len(self._years))]

    def _cell(self, row: int, col: int) -> tuple:
        """(text, raw value, negative) of one cell, formatted once per reload (data() is called often)."""
        key, _, unit = ROWS[row]
        value = self._years[col].get(key)
        text = "" if value is None and col == 0 else _text(value, unit)
        return text, value, isinstance(value, float) and value < 0

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
        if role not in _ROLES or not index.isValid() or index.column() >= len(self._years):
            return None
        text, value, negative = self._cells[index.row()][index.column()]
        if role == Qt.DisplayRole:
            return text
        if role == Qt.UserRole:
            return value
        if role == Qt.TextAlignmentRole:
            return RIGHT
        return NEGATIVE if negative else None


def years_view(document: Document) -> QTableView:
    view = QTableView()
    model = YearsModel(document, view)
    view.setModel(model)
    # sized once per new plan shown (ResizeToContents would measure every cell on every repaint)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.Interactive)
    view.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
    view.verticalHeader().setDefaultSectionSize(22)
    model.modelReset.connect(view.resizeColumnsToContents)
    model.dataChanged.connect(lambda *_: [view.resizeColumnToContents(c) for c in model.grown])
    view.resizeColumnsToContents()
    view.setToolTip("The current plan year by year (docs/model.md, 'Years')")
    view.setMinimumHeight(180)
    return view
