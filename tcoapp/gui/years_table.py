"""The current plan's years as a table (years as columns): utilization, output price, tokens,
revenue, opex, capex by year (tranches), depreciation, tax, cash flow and cumulative cash flow, the
replacements of failed devices and their value at the horizon where there are any, the throughput and hardware price
indices where they move, and for a financed plan its debt (interest, principal, the horizon's balloon, debt service,
DSCR, the equity cash flow), from the
engine's per-year rows (PlanResult.year_rows)."""
from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QHeaderView, QTableView

from ..engine.quantities.finance import YEAR_QUANTITY_BY_KEY
from ..engine.quantities import names
from .document import Document
from ..engine.core.number_format import count, money, percent, plain

# the rows' keys in PlanResult.year_rows(); each row's label and unit are the key's (the quantity table's)
ROWS = ("utilization", "price_usd_per_million_output_tokens", "output_tokens", "revenue_usd", "opex_usd", "capex_usd",
        "depreciation_usd", "taxable_income_usd", "tax_usd", "residual_value_usd", "cash_flow_usd",
        "cumulative_cash_flow_usd")
# shown only for a plan replacing failed devices (annual_failure_rate > 0)
REPLACEMENT_ROWS = ("replacement_capex_usd", "replacement_residual_value_usd")
# shown only where the key is set: software speed and hardware price by year (docs/model.md, "Finance over time")
INDEX_ROWS = ("throughput_index", "hardware_price_index")
# shown only for a plan with debt (debt_fraction > 0)
DEBT_ROWS = ("debt_drawn_usd", "interest_usd", "principal_usd", "balloon_usd", "debt_service_usd", "dscr",
             "equity_cash_flow_usd")
NEGATIVE = QBrush(QColor("#c62828"))
RIGHT = Qt.AlignRight | Qt.AlignVCenter


def _shown_unit(key: str) -> str:
    """The unit a row's header shows: the key's, a fraction as a percentage."""
    return "%" if names.unit(key) == "fraction" else names.unit(key)


def _text(value, unit: str) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    if unit == "%":
        return percent(value, 2)
    if unit == "USD/Mtok" or unit == "USD":
        return money(value)
    if unit == "ratio":
        return f"{value:.2f}x"
    return count(value) if abs(value) >= 1000 else plain(value, 4)


def _widest(cells: list[list[tuple]]) -> list[int]:
    """The longest text of each column, in characters."""
    return [max(len(line[c][0]) for line in cells) for c in range(len(cells[0]))] if cells and cells[0] else []


class YearsModel(QStandardItemModel):
    """The cells are Qt items (painting a cell asks no Python code); a reload sets only the cells whose
    text changed. After each reload `reloaded` is emitted, with `grown` the columns whose longest text
    grew and `reshaped` whether the years changed (new columns)."""

    reloaded = Signal()

    def __init__(self, document: Document, parent=None):
        super().__init__(len(ROWS), 0, parent)
        self._doc = document
        self._years: list[dict] = []
        self.rows = ROWS        # ROWS, then REPLACEMENT_ROWS and DEBT_ROWS where the plan has them
        self._cells: list[list[tuple]] = [[] for _ in ROWS]   # (text, value, negative) shown
        self._shown = None      # the PlanResult shown: an edit of another plan leaves the table alone
        self.grown: list[int] = []
        self.reshaped = False
        self._set_headers()
        document.scenario_changed.connect(self.reload)
        document.current_changed.connect(self.reload)
        self.reload()

    def _set_headers(self) -> None:
        self.setRowCount(len(self.rows))
        for row, key in enumerate(self.rows):
            header = QStandardItem(f"{names.label(key)} [{_shown_unit(key)}]")
            quantity = YEAR_QUANTITY_BY_KEY.get(key)
            header.setToolTip(quantity.help if quantity else "The plan's output price in the year (price x price index).")
            self.setVerticalHeaderItem(row, header)

    def reload(self, *_):
        results = self._doc.results
        index = self._doc.current_index
        result = results[index] if results and index < len(results) else None
        if result is not None and result is self._shown:
            return
        years = result.year_rows() if result is not None else []
        self.reshaped = [y.get("year") for y in years] != [y.get("year") for y in self._years]
        rows = _rows_shown(years)
        if rows != self.rows:
            self.rows, self.reshaped = rows, True
            self._set_headers()
        self._shown, self._years = result, years
        if self.reshaped:
            self.setColumnCount(len(years))
            self.setHorizontalHeaderLabels([f"year {y['year']}" for y in years])
        cells = [[self._cell(row, col) for col in range(len(years))] for row in range(len(self.rows))]
        self.blockSignals(True)   # one dataChanged for the table, not three per cell (each made the view measure it)
        changed = self._fill(cells)
        self.blockSignals(False)
        if changed:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, len(years) - 1))
        before, self._cells = _widest(self._cells), cells
        after = _widest(cells)
        # columns whose longest text grew (the view widens them; values that only change keep their width)
        self.grown = [c for c, n in enumerate(after) if not self.reshaped and c < len(before) and n > before[c]]
        self.reloaded.emit()

    def _fill(self, cells) -> bool:
        """Set every cell that changed (every cell after a reshape); whether any did."""
        changed = False
        for row, line in enumerate(cells):
            for col, cell in enumerate(line):
                if not self.reshaped and cell == self._cells[row][col]:
                    continue
                item = self.item(row, col)
                if item is None:
                    item = QStandardItem()
                    item.setEditable(False)
                    item.setTextAlignment(RIGHT)
                    self.setItem(row, col, item)
                text, value, negative = cell
                item.setData(value, Qt.UserRole)
                item.setData(NEGATIVE if negative else None, Qt.ForegroundRole)   # None: the palette's colour
                item.setText(text)
                changed = True
        return changed

    def _cell(self, row: int, col: int) -> tuple:
        """(text, raw value, negative) of one cell."""
        key = self.rows[row]
        value = self._years[col].get(key)
        text = "" if value is None and col == 0 else _text(value, _shown_unit(key))
        return text, value, isinstance(value, float) and value < 0


def _rows_shown(years) -> tuple:
    """The table's rows: the throughput and hardware price indices only where they move, the replacement and debt
    rows only where a year has replacements or debt service."""
    shown = lambda key: any((y.get(key) or 0) > 0 for y in years)  # noqa: E731
    moved = lambda key: any(y.get(key) not in (None, 0.0, 1.0) for y in years)  # noqa: E731
    return (ROWS + tuple(key for key in INDEX_ROWS if moved(key))
            + (REPLACEMENT_ROWS if shown("replacement_capex_usd") else ())
            + (DEBT_ROWS if shown("debt_service_usd") else ()))


def years_view(document: Document) -> QTableView:
    view = QTableView()
    model = YearsModel(document, view)
    view.setModel(model)
    # sized once per new plan shown (ResizeToContents would measure every cell on every repaint)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.Interactive)
    view.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
    view.verticalHeader().setDefaultSectionSize(22)
    model.reloaded.connect(lambda: view.resizeColumnsToContents() if model.reshaped else
                           [view.resizeColumnToContents(c) for c in model.grown])
    view.resizeColumnsToContents()
    view.setToolTip("The current plan year by year (docs/model.md, 'Years')")
    view.setMinimumHeight(180)
    return view
