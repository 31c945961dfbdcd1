"""The main window end to end: open, edit through the editor, see table and charts change, undo,
plans, normalization, save and reopen, chart export, confirmation before losing changes."""
import os

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tests.cli.workbook_factory import write_workbook


def cell(window, key, col):
    model = window.compare.model
    return model.data(model.index(model.row_of(key), col))


def cash_curve(window, i):
    """Plan i's cash-flow line as the Economics tab draws it (a hidden tab is drawn when shown)."""
    current = window.tabs.currentIndex()
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._economics_tab))
    window.tabs.setCurrentIndex(current)
    return np.array(window.economics.cash_lines.items[i].yData, float)


def test_launch_shows_default_scenario(window):
    assert window.isVisible()
    assert window.compare.model.columnCount() == len(window.document.scenario.plans) >= 2
    assert "Untitled" in window.windowTitle()
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == [
        "Decision", "Compare plans", "Performance", "Economics", "Bridge", "Catalog", "Uncertainty"]


def feasible_plan(doc) -> int:
    """Index of a plan with an operating point (the engine's default scenario may have infeasible ones)."""
    for i, r in enumerate(doc.results):
        if np.isfinite(r.metrics.cost_per_million_output_tokens_usd):
            return i
    pytest.skip("no plan of the default scenario has an operating point")


def test_edit_through_editor_updates_table_and_charts_then_undo(window, qtbot):
    doc = window.document
    i = feasible_plan(doc)
    doc.set_current_index(i)
    editor = window.editor.editors["utilization"].widget
    before_cost = cell(window, "cost_per_million_output_tokens_usd", i)
    before_cash = cash_curve(window, i)
    with qtbot.waitSignal(doc.scenario_changed, timeout=2000):
        editor.setText("0.35")
        editor.editingFinished.emit()
    assert doc.scenario.plans[i].utilization == 0.35
    assert cell(window, "utilization", i) == "0.35"
    assert cell(window, "cost_per_million_output_tokens_usd", i) != before_cost
    assert not np.allclose(cash_curve(window, i), before_cash)
    assert window.isWindowModified()
    doc.undo_stack.undo()
    assert doc.scenario.plans[i].utilization == 0.7
    assert cell(window, "cost_per_million_output_tokens_usd", i) == before_cost
    assert np.allclose(cash_curve(window, i), before_cash)
    assert editor.text() == "0.7"
    assert not window.isWindowModified()


def test_invalid_value_is_shown_not_applied(window):
    field = window.editor.editors["utilization"]
    field.widget.setText("1.4")
    field.widget.editingFinished.emit()
    assert window.document.scenario.plans[0].utilization == 0.7
    assert field.error.isVisibleTo(window.editor) and "between 0.001 and 1" in field.error.text()
    field.widget.setText("abc")
    field.widget.editingFinished.emit()
    assert "not a number" in field.error.text()
    field.widget.setText("0.6")
    field.widget.editingFinished.emit()
    assert not field.error.isVisibleTo(window.editor)
    assert window.document.scenario.plans[0].utilization == 0.6


def test_choice_and_device_editors(window):
    editors = window.editor.editors
    box = editors["weight_precision"].widget
    box.setCurrentIndex(box.findData("bf16"))        # shown as "BF16", kept as the key
    assert box.currentText() == "BF16"
    box.activated.emit(box.currentIndex())
    assert window.document.scenario.plans[0].weight_precision == "bf16"
    devices = editors["device"].widget
    devices.setCurrentIndex(devices.findData("B200"))
    devices.activated.emit(devices.currentIndex())
    assert window.document.scenario.plans[0].device == "B200"


def test_add_duplicate_rename_delete_plan(window, monkeypatch):
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._economics_tab))   # a hidden tab is not drawn
    doc = window.document
    n = len(doc.scenario.plans)
    window.compare.add_button.click()
    assert len(doc.scenario.plans) == n + 1 and window.compare.model.columnCount() == n + 1
    assert len(window.economics.cash_lines.ensure(n + 1)) == n + 1
    doc.set_current_index(0)
    window.compare.duplicate_button.click()
    assert doc.scenario.plans[-1].name == f"{doc.scenario.plans[0].name} copy"
    monkeypatch.setattr("tcoapp.gui.compare_view.QInputDialog.getText", lambda *a, **k: ("Renamed", True))
    window.compare.rename_plan(0)
    assert doc.scenario.plans[0].name == "Renamed"
    assert window.compare.model.headerData(0, Qt.Horizontal) == "Renamed"
    assert window.compare.model.headerData(0, Qt.ToolTipRole and Qt.Horizontal, Qt.ToolTipRole).startswith("Renamed")
    doc.set_current_index(0)
    window.compare.delete_button.click()
    assert len(doc.scenario.plans) == n + 1
    assert "Renamed" not in [p.name for p in doc.scenario.plans]
    for _ in range(4):
        doc.undo_stack.undo()
    assert len(doc.scenario.plans) == n


def test_normalization_switch(window):
    doc = window.document
    combo = window.compare.normalization
    doc.set_current_index(0)
    combo.setCurrentIndex(combo.findData("iso_budget"))
    combo.activated.emit(combo.currentIndex())
    assert {p.sizing_mode for p in doc.scenario.plans} == {"capex_budget"}
    budget = doc.scenario.plans[0].capex_budget_usd
    for result in doc.results:
        assert result.metrics.capex_usd <= budget * 1.0000001
    assert doc.normalization()[0] == "iso_budget"
    window.compare.target.setText("5000000")
    window.compare.target.editingFinished.emit()
    assert doc.scenario.plans[1].capex_budget_usd == 5e6
    combo.setCurrentIndex(combo.findData("as_entered"))
    combo.activated.emit(combo.currentIndex())
    assert {p.sizing_mode for p in doc.scenario.plans} == {"facility_power"}


def test_open_workbook_and_save_reopen(window, tmp_path):
    path = write_workbook(str(tmp_path / "hand.xlsx"))
    assert window.open_path(path)
    doc = window.document
    assert [p.name for p in doc.scenario.plans] == ["Acme big", "Acme small"]
    assert "hand.xlsx" in window.windowTitle()
    assert window.settings.recent_files()[0] == os.path.abspath(path)
    assert window.catalog.curves_model.rowCount() == 4
    doc.set_plan_value(0, "utilization", 0.5)
    out = str(tmp_path / "saved.xlsx")
    assert window.save_to(out)
    assert not doc.is_dirty
    saved = doc.scenario
    assert window.open_path(out)
    assert doc.scenario == saved


def test_open_bad_file_shows_message(window, tmp_path, dialogs):
    bad = tmp_path / "bad.xlsx"
    bad.write_text("not a workbook")
    assert not window.open_path(str(bad))
    assert "bad.xlsx" in window.problems.text()
    assert window.document.path is None


def test_confirmation_before_losing_changes(window, dialogs):
    doc = window.document
    doc.set_plan_value(0, "utilization", 0.5)
    dialogs.answer = dialogs.answer.Cancel
    window.new_file()
    assert doc.scenario.plans[0].utilization == 0.5
    dialogs.answer = dialogs.answer.Discard
    window.new_file()
    assert doc.scenario.plans[0].utilization == 0.7 and not doc.is_dirty


def test_export_charts(window, tmp_path):
    for name in ("Frontier", "Cumulative cash flow"):
        for ext in ("png", "svg"):
            path = str(tmp_path / f"chart.{ext}")
            assert window.export_chart(name, path)
            assert os.path.getsize(path) > 1000


def test_tornado_for_current_plan(window):
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._economics_tab))
    window.document.set_current_index(feasible_plan(window.document))
    econ = window.economics
    ticks = econ.p_tornado.getPlotItem().getAxis("left")._tickLevels
    assert ticks and len(ticks[0]) >= 3
    plan = window.document.current_plan()
    assert econ.tornado_value.text().startswith(f"{plan.name}: NPV")
    assert "± 20%" in econ.tornado_note.text()
    # the model's own error is a named bar, at its band's percentiles (docs/model.md, "Sensitivity")
    from tcoapp.gui.economics_view import MODEL_ERROR_LABEL
    assert MODEL_ERROR_LABEL in [text for _, text in ticks[0]]
    assert "10th and 90th percentiles of its prediction band" in econ.tornado_note.text()


EXTREME_EDITS = [
    {"tensor_parallel": 4096}, {"batch": 1000000, "min_tokens_per_s_per_user": None}, {"years": 50},
    {"rack_power_cap_kw": 0.5}, {"sizing_mode": "demand", "demand_tokens_per_day": 1e15},
    {"sizing_mode": "capex_budget", "capex_budget_usd": 1}, {"utilization": 0}, {"discount_rate": 0},
    {"weight_precision": "nvfp4", "kv_precision": "mxfp4"}, {"spec_decode_draft_tokens": 64},
    {"prefill_devices": 1, "decode_devices": 3}, {"price_usd_per_million_output_tokens": 0,
                                                  "price_usd_per_million_input_tokens": 0},
    {"min_tokens_per_s_per_user": 1e6}, {"max_ttft_s": 1e-6}, {"model": "DeepSeek-R1", "expert_parallel": 8},
]


@pytest.mark.parametrize("changes", EXTREME_EDITS, ids=[",".join(c) for c in EXTREME_EDITS])
def test_extreme_inputs_never_crash_a_view(window, changes):
    window.performance, window.economics   # build every view
    doc = window.document
    for index in range(len(doc.scenario.plans)):
        error = doc.set_plan_values(index, changes)
        assert error is None or isinstance(error, str)
    for tab in range(window.tabs.count()):
        window.tabs.setCurrentIndex(tab)
        window.grab()
    for metric in range(window.economics.metric_box.count()):
        window.economics.metric_box.setCurrentIndex(metric)
        window.economics.refresh_tornado()


def test_open_in_background_and_its_failure(window, qtbot, tmp_path, dialogs):
    path = write_workbook(str(tmp_path / "bg.xlsx"))
    with qtbot.waitSignal(window.runner.succeeded, timeout=20000):
        window.open_in_background(path)
    assert window.document.path == os.path.abspath(path)
    bad = tmp_path / "broken.xlsx"
    bad.write_text("nope")
    with qtbot.waitSignal(window.runner.failed, timeout=20000):
        window.open_in_background(str(bad))
    assert "broken.xlsx" in window.problems.text()
    assert window.document.path == os.path.abspath(path)


def test_serving_search_shows_its_choice_and_freezes_in_one_click(window, qtbot):
    doc = window.document
    i = feasible_plan(doc)
    doc.set_current_index(i)
    doc.set_plan_value(i, "serving_search", "off")   # the default scenario searches: start from the typed plan
    assert not window.editor.freeze.isVisibleTo(window.editor)
    combo = window.editor.editors["serving_search"].widget
    with qtbot.waitSignal(doc.scenario_changed, timeout=5000):
        combo.setCurrentIndex(combo.findData("auto"))
        combo.activated.emit(combo.currentIndex())
    assert doc.scenario.plans[i].serving_search == "auto"
    assert "serving search chose" in window.editor.notes.text()
    assert window.editor.freeze.isVisibleTo(window.editor)
    searched = doc.results[i].metrics.cost_per_million_output_tokens_usd
    chosen = doc.results[i].pools[0].serving
    window.editor.freeze.click()
    plan = doc.scenario.plans[i]
    assert plan.serving_search == "off" and plan.tensor_parallel == chosen.tensor_parallel
    assert doc.results[i].metrics.cost_per_million_output_tokens_usd == pytest.approx(searched, rel=1e-12)
    assert not window.editor.freeze.isVisibleTo(window.editor)
    doc.undo_stack.undo()
    assert doc.scenario.plans[i].serving_search == "auto"


def test_the_frontier_view_draws_the_searched_configuration_and_names_it(window, qtbot):
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))   # a hidden tab is not drawn
    doc = window.document
    i = feasible_plan(doc)
    doc.set_current_index(i)
    with qtbot.waitSignal(doc.scenario_changed, timeout=5000):
        doc.set_plan_values(i, {"serving_search": "auto", "search_precisions": "fp8;nvfp4"})
    view = window.performance
    result = doc.results[i]
    text = view._plan_tip(result.metrics.tokens_per_s_per_user, result.metrics.tokens_per_s_per_device, i)
    assert "serving search chose " + result.serving_text() in text


def test_table_errors_are_inline_not_popups(window, dialogs):
    from PySide6.QtCore import Qt as _Qt
    model = window.compare.model
    index = model.index(model.row_of("utilization"), 0)
    assert not model.setData(index, "1.4", _Qt.EditRole)
    assert window.compare.error.isVisibleTo(window.compare) and "between 0.001 and 1" in window.compare.error.text()
    assert dialogs.messages == []
    assert model.setData(index, "0.6", _Qt.EditRole)
    assert not window.compare.error.isVisibleTo(window.compare)


def test_default_plans_fit_the_default_window(window):
    window.resize(1500, 940)
    window.tabs.setCurrentWidget(window._compare_tab)
    table = window.compare.table
    window.compare.fit_columns()
    n = window.compare.model.columnCount()
    used = sum(table.columnWidth(i) for i in range(n))
    assert used <= table.viewport().width()


def test_plan_names_break_where_the_header_holds_them(window):
    """A name is broken at a width its header holds, measured (not by an average character: the
    capitals and digits of "GB200 NVL72" are wider), so no line is cut."""
    from tcoapp.gui.compare_view import SWATCH_ROOM
    assert window.document.rename_plan(1, "MMMM MMMM MMMM") is None   # wide letters: twice the average
    window.resize(1300, 800)
    window.tabs.setCurrentWidget(window._compare_tab)
    compare = window.compare
    compare.fit_columns()
    header = compare.table.horizontalHeader()
    lines = [(i, line) for i in range(compare.model.columnCount())
             for line in str(compare.model.headerData(i, Qt.Horizontal)).split("\n")]
    for i, line in lines:
        assert header.fontMetrics().horizontalAdvance(line) <= header.sectionSize(i) - 12 - SWATCH_ROOM, line


def test_about_dialog_has_version_licences_and_catalog_sources(window, monkeypatch):
    from tcoapp import __version__
    from tcoapp.gui import about_dialog
    shown = []
    monkeypatch.setattr(about_dialog.AboutDialog, "exec", lambda self: shown.append(self) or 0)
    window._about()
    dialog = shown[0]
    about = dialog.tabs.widget(0).toPlainText()
    assert f"tcoapp {__version__}" in about and "PySide6-Essentials" in about and "LGPL" in about
    assert "pyqtgraph" in about and "MIT" in about
    sources = dialog.tabs.widget(1).toPlainText()
    scenario = window.document.scenario
    device = next(iter(scenario.catalog_devices.values()))
    assert device.name in sources and device.source[:40] in sources and "estimated" in sources


def test_compare_header_flags_a_name_naming_another_device_and_tooltips_read(window):
    model = window.compare.model
    doc = window.document
    assert not model.headerData(0, Qt.Horizontal).startswith("\u26a0")
    doc.set_plan_value(0, "device", "H200-SXM")
    assert model.headerData(0, Qt.Horizontal).startswith("\u26a0")
    assert "name says H100" in model.headerData(0, Qt.Horizontal, Qt.ToolTipRole)
    row = model.row_of("cost_per_million_output_tokens_usd")
    assert model.headerData(row, Qt.Vertical, Qt.ToolTipRole).startswith("Cost per million output tokens (")
    row = model.row_of("utilization")
    assert model.headerData(row, Qt.Vertical, Qt.ToolTipRole).startswith("Utilization (utilization):")

