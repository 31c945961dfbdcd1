"""The per-year table of the current plan: an edit that keeps the years updates the cells in place (no model
reset), and a column whose longest value grows is widened so no figure is cut."""
from PySide6.QtCore import Qt


def test_an_edit_updates_the_years_in_place_and_widens_a_column_whose_value_grew(window, qtbot):
    doc = window.document
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._economics_tab))
    view = window.economics.years
    model = view.model()
    resets, changes = [], []
    model.modelReset.connect(lambda: resets.append(1))
    model.dataChanged.connect(lambda *a: changes.append(1))
    plan = doc.current_index
    doc.set_plan_value(plan, "utilization", 0.55)
    assert resets == [] and changes == [1]     # the changed cells, in place, in one signal
    assert model.data(model.index(0, 1), Qt.DisplayRole) == "55 %"
    n = len(changes)
    doc.set_plan_value(1 - plan, "utilization", 0.56)   # another plan: the table is left alone
    assert len(changes) == n
    column = 1
    width = view.columnWidth(column)
    price = doc.scenario.plans[plan].price_usd_per_million_output_tokens
    before = [model.data(model.index(r, column), Qt.DisplayRole) for r in range(model.rowCount())]
    doc.set_plan_value(plan, "price_usd_per_million_output_tokens", price * 10000)  # revenue figures grow wider
    qtbot.wait(10)
    texts = [model.data(model.index(r, column), Qt.DisplayRole) for r in range(model.rowCount())]
    needed = max(view.fontMetrics().horizontalAdvance(t) for t in texts if t)
    assert max(map(len, texts)) > max(map(len, before)), (before, texts)
    assert view.columnWidth(column) > width and view.columnWidth(column) >= needed


def test_a_financed_plan_shows_its_debt_rows_with_the_engines_figures(window, qtbot):
    doc = window.document
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._economics_tab))
    model = window.economics.years.model()
    plan = doc.current_index
    plain = model.rowCount()
    labels = lambda: [model.headerData(r, Qt.Vertical, Qt.DisplayRole) for r in range(model.rowCount())]  # noqa: E731
    assert "Interest [USD]" not in labels()
    doc.set_plan_value(plan, "debt_rate", 0.08)
    doc.set_plan_value(plan, "debt_fraction", 0.6)
    shown = labels()
    assert model.rowCount() == plain + 7
    assert shown[plain:] == ["Debt drawn [USD]", "Interest [USD]", "Principal repaid [USD]",
                             "Balloon repayment [USD]", "Debt service [USD]",
                             "DSCR [ratio]", "Equity cash flow [USD]"]
    years = doc.results[plan].year_rows()
    row = {label: r for r, label in enumerate(shown)}
    assert years[1]["interest_usd"] > 0 and years[1]["dscr"] is not None
    assert model.data(model.index(row["Interest [USD]"], 1), Qt.UserRole) == years[1]["interest_usd"]
    assert model.data(model.index(row["Debt service [USD]"], 1), Qt.UserRole) == years[1]["debt_service_usd"]
    assert model.data(model.index(row["DSCR [ratio]"], 1), Qt.DisplayRole) == f"{years[1]['dscr']:.2f}x"
    assert model.data(model.index(row["Debt drawn [USD]"], 0), Qt.UserRole) == years[0]["debt_drawn_usd"] > 0
    doc.set_plan_value(plan, "debt_fraction", 0.0)
    assert model.rowCount() == plain and "Interest [USD]" not in labels()
    doc.set_plan_value(plan, "annual_failure_rate", 0.05)
    assert labels()[plain:] == ["Replacements of failed devices [USD]", "Replacements' value at the horizon [USD]"]
    years = doc.results[plan].year_rows()
    assert model.data(model.index(plain, 2), Qt.UserRole) == years[2]["replacement_capex_usd"] > 0
