"""Every part of a fleet is editable in the app, each as one undoable step: split a plan into a
prefill/decode pair and back, a tranche's purchase year, rent; the wide pools editor; Tab leaves the
pools table; choice boxes show labels; '70%' for a fraction; deleting the last plan says why."""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt

from tcoapp.gui.pools_editor import COLUMNS


def _col(key: str) -> int:
    return COLUMNS.index(key)


def test_split_a_plan_into_prefill_decode_and_back_one_step_each(window):
    doc, pools = window.document, window.editor.pools
    doc.set_plan_value(0, "sizing_mode", "devices")
    steps = doc.undo_stack.count()
    assert pools.split_button.isEnabled() and not pools.merge_button.isEnabled()
    pools.split_button.click()
    assert doc.undo_stack.count() == steps + 1
    result = doc.results[0]
    assert [p.role for p in result.pools] == ["prefill", "decode"] and result.metrics.npv_usd == result.metrics.npv_usd
    assert pools.merge_button.isEnabled() and not pools.split_button.isEnabled()
    pools.merge_button.click()
    assert doc.undo_stack.count() == steps + 2 and [p.role for p in doc.results[0].pools] == ["serve"]
    doc.undo_stack.undo()
    assert [p.role for p in doc.results[0].pools] == ["prefill", "decode"]
    doc.undo_stack.undo()
    assert [p.role for p in doc.results[0].pools] == ["serve"]


def test_split_and_merge_explicit_pool_rows(window):
    doc, pools = window.document, window.editor.pools
    doc.set_plan_value(0, "sizing_mode", "devices")
    pools.add_button.click()                     # two serve rows
    pools.table.item(1, _col("device")).setText("B200")
    before = doc.current_plan().pools[0].device_count
    pools.split_button.click()                   # the first serve row becomes a prefill + decode pair
    plan = doc.current_plan()
    assert [p.role for p in plan.pools] == ["prefill", "decode", "serve"]
    assert plan.pools[0].device_count + plan.pools[1].device_count == before
    assert plan.pools[0].device_count < plan.pools[1].device_count
    assert doc.undo_stack.undoText().startswith("Split ")
    pools.merge_button.click()
    assert [p.role for p in doc.current_plan().pools] == ["serve", "serve"]


def test_purchase_year_and_rent_are_columns_of_the_pools_table(window):
    doc, pools = window.document, window.editor.pools
    doc.set_plan_value(0, "sizing_mode", "devices")
    pools.add_button.click()
    pools.table.item(1, _col("purchase_year")).setText("2")
    assert doc.current_plan().pools[1].purchase_year == 2
    years = doc.results[0].year_rows()
    assert years[2]["capex_usd"] > 0 and years[1]["capex_usd"] == 0
    pools.table.item(1, _col("ownership")).setText("Rent")          # refused while the pool has no rent
    assert "rent" in pools.error.text() and doc.current_plan().pools[1].ownership == "buy"
    assert "Rent column" in pools.error.text()
    steps = doc.undo_stack.count()
    pools.table.item(1, _col("rent_usd_per_device_hour")).setText("2.5")   # a rent rents the pool: one step
    pool = doc.current_plan().pools[1]
    assert pool.ownership == "rent" and pool.rent_usd_per_device_hour == 2.5 and doc.undo_stack.count() == steps + 1
    assert pools.table.item(1, _col("ownership")).text() == "Rent"
    assert doc.results[0].pool_rows()[1]["ownership"] == "rent"
    pools.table.item(1, _col("ownership")).setText("buy")                  # back to buying clears the rent
    pool = doc.current_plan().pools[1]
    assert pool.ownership == "buy" and pool.rent_usd_per_device_hour == 0


def test_tab_leaves_the_pools_table(window, qtbot):
    table = window.editor.pools.table
    assert not table.tabKeyNavigation()
    window.editor.pools.table.setFocus()
    qtbot.keyClick(table, Qt.Key_Tab)
    assert not table.hasFocus()


def test_wide_pools_editor_shows_every_column(window, qtbot):
    dialog = window.editor.pools.open_wide()
    qtbot.waitExposed(dialog)
    assert dialog.width() > window.editor.pools.table.width()
    dialog.resize(1560, 380)          # at most the width of a 1600-pixel screen: every column in view
    qtbot.wait(10)
    table = dialog.editor.table
    header = table.horizontalHeader()
    last = header.count() - 1
    assert header.sectionViewportPosition(last) + header.sectionSize(last) <= table.viewport().width()
    dialog.editor.table.item(0, _col("rack_power_cap_kw")).setText("55")
    assert window.document.current_plan().pools[0].rack_power_cap_kw == 55
    assert window.editor.pools.table.item(0, _col("rack_power_cap_kw")).text() == "55"   # both follow the document


def test_choice_boxes_show_labels_and_keep_keys(window):
    box = window.editor.editors["sizing_mode"].widget
    assert box.currentText() == "Facility power (kW)" and box.currentData() == "facility_power"
    box.setCurrentIndex(box.findData("devices"))
    box.activated.emit(box.currentIndex())
    assert window.document.current_plan().sizing_mode == "devices"
    precision = window.editor.editors["weight_precision"].widget
    assert [precision.itemText(i) for i in range(precision.count())] == ["BF16", "FP8", "MXFP4", "NVFP4"]


def test_percent_is_accepted_for_a_fraction(window):
    editor = window.editor.editors["utilization"]
    editor.widget.setText("55%")
    editor.widget.editingFinished.emit()
    assert window.document.current_plan().utilization == 0.55 and not editor.error.isVisible()
    editor.widget.setText("155%")
    editor.widget.editingFinished.emit()
    assert editor.error.isVisible() and window.document.current_plan().utilization == 0.55


def test_deleting_the_last_plan_says_why(open_window):
    from tcoapp.io.default_scenario import default_scenario
    scenario = default_scenario()
    window = open_window(scenario=replace(scenario, plans=scenario.plans[:1]))
    window.delete_current_plan()
    assert len(window.document.scenario.plans) == 1
    assert "at least one plan" in window.problems.text()
    compare = window.compare
    assert not compare.delete_button.isEnabled() and "at least one plan" in compare.delete_button.toolTip()
