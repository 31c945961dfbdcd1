"""Ctrl+Z / Ctrl+Shift+Z / Ctrl+Y undo and redo the document from anywhere, with real key events,
including right after typing in a field; every plan-editor input is found by its field key."""
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from tcoapp.engine.quantities.inputs import PLAN_FIELDS


def field(window, key):
    editor = window.editor.editors[key]     # (the fields below the first screen are built on demand)
    widget = window.editor.findChild(QWidget, key)
    assert widget is editor.widget
    return widget


def type_into(qtbot, widget, text):
    widget.setFocus()
    widget.selectAll()
    qtbot.keyClicks(widget, text)


def test_every_editor_input_has_its_field_key_as_object_name(window):
    for f in PLAN_FIELDS:
        assert window.editor.findChild(QWidget, f.name) is window.editor.editors[f.name].widget
        assert window.editor.editors[f.name].widget.accessibleName() == f.label


def test_ctrl_z_right_after_enter_in_a_field_undoes(window, qtbot):
    doc = window.document
    widget = field(window, "utilization")
    type_into(qtbot, widget, "0.35")
    qtbot.keyClick(widget, Qt.Key_Return)
    assert doc.scenario.plans[0].utilization == 0.35
    assert widget.hasFocus()
    qtbot.keyClick(widget, Qt.Key_Z, Qt.ControlModifier)
    assert doc.scenario.plans[0].utilization == 0.7
    assert widget.text() == "0.7"
    qtbot.keyClick(widget, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    assert doc.scenario.plans[0].utilization == 0.35
    qtbot.keyClick(widget, Qt.Key_Z, Qt.ControlModifier)
    qtbot.keyClick(widget, Qt.Key_Y, Qt.ControlModifier)
    assert doc.scenario.plans[0].utilization == 0.35


def test_ctrl_z_while_typing_commits_then_undoes_so_redo_brings_it_back(window, qtbot):
    doc = window.document
    widget = field(window, "electricity_usd_per_kwh")
    before = doc.scenario.plans[0].electricity_usd_per_kwh
    type_into(qtbot, widget, "0.2")
    qtbot.keyClick(widget, Qt.Key_Z, Qt.ControlModifier)
    assert doc.scenario.plans[0].electricity_usd_per_kwh == before
    assert widget.text() == f"{before:g}"
    qtbot.keyClick(widget, Qt.Key_Y, Qt.ControlModifier)
    assert doc.scenario.plans[0].electricity_usd_per_kwh == 0.2


def test_ctrl_z_after_refused_text_only_discards_the_typing(window, qtbot):
    doc = window.document
    doc.set_plan_value(0, "pue", 1.4)
    widget = field(window, "utilization")
    type_into(qtbot, widget, "7")
    qtbot.keyClick(widget, Qt.Key_Z, Qt.ControlModifier)
    assert doc.scenario.plans[0].pue == 1.4      # the earlier edit is not undone
    assert widget.text() == "0.7"
    assert not window.editor.editors["utilization"].error.isVisibleTo(window.editor)


def test_ctrl_z_from_the_compare_table_and_the_decision_tab(window, qtbot):
    doc = window.document
    doc.set_plan_value(0, "utilization", 0.5)
    window.tabs.setCurrentIndex(window.tabs.indexOf(window.decision))
    window.decision.ranking.setFocus()
    qtbot.keyClick(window.decision.ranking, Qt.Key_Z, Qt.ControlModifier)
    assert doc.scenario.plans[0].utilization == 0.7
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._compare_tab))
    window.compare.table.setFocus()
    qtbot.keyClick(window.compare.table, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    assert doc.scenario.plans[0].utilization == 0.5


def test_undo_texts_use_readable_labels(window, qtbot):
    widget = field(window, "utilization")
    type_into(qtbot, widget, "0.4")
    qtbot.keyClick(widget, Qt.Key_Return)
    text = window.document.undo_stack.undoText()
    assert text.startswith("Set Utilization of") and "utilization" not in text.split(" of ")[0][4:]
    assert widget.toolTip().startswith("Utilization (utilization):")


@pytest.mark.parametrize("key", ["batch", "device_count"])
def test_greyed_fields_show_the_value_the_engine_used(window, key):
    doc = window.document
    plan, result = doc.scenario.plans[0], doc.results[0]
    widget = field(window, key)
    assert not widget.isEnabled()
    used = getattr(result.metrics, key)
    assert getattr(plan, key) != used               # 64 entered, 10 used; 8 entered, 600 sized
    assert widget.text().replace(",", "") == f"{used:g}"
    assert "Greyed:" in widget.toolTip() and "kept in the workbook" in widget.toolTip()


def test_enabled_batch_shows_the_entered_value(window):
    doc = window.document
    doc.set_plan_values(0, {"min_tokens_per_s_per_user": None, "batch": 32})
    widget = field(window, "batch")
    assert widget.isEnabled() and widget.text() == "32"
    assert "Greyed" not in widget.toolTip()


def test_plan_name_naming_another_device_is_flagged_in_the_editor(window):
    doc = window.document
    doc.set_current_index(0)
    doc.set_plan_value(0, "device", "H200-SXM")
    text = window.editor.notes.text()
    assert "name says H100" in text and "H200-SXM" in text


def test_implausible_size_warned_in_the_editor(window):
    doc = window.document
    doc.set_plan_values(0, {"sizing_mode": "devices", "device_count": 100_000_000})
    assert "100,000,000 devices" in window.editor.notes.text()


def test_ctrl_z_works_in_the_floating_editor_but_not_in_a_dialog(window, qtbot):
    from PySide6.QtWidgets import QApplication, QDockWidget, QInputDialog, QLineEdit
    doc = window.document
    dock = window.findChild(QDockWidget, "plan_editor_dock")
    dock.setFloating(True)
    dock.activateWindow()   # the user clicks into the floating editor: its window is the active one
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dock)
    widget = field(window, "utilization")
    type_into(qtbot, widget, "0.45")
    assert QApplication.focusWidget() is widget
    qtbot.keyClick(widget, Qt.Key_Return)
    qtbot.keyClick(widget, Qt.Key_Z, Qt.ControlModifier)
    assert doc.scenario.plans[0].utilization == 0.7
    doc.set_plan_value(0, "utilization", 0.5)
    dialog = QInputDialog(window)
    dialog.show()
    edit = dialog.findChild(QLineEdit)
    qtbot.keyClicks(edit, "abc")
    qtbot.keyClick(edit, Qt.Key_Z, Qt.ControlModifier)
    assert doc.scenario.plans[0].utilization == 0.5      # the dialog's own undo, not the document's
    dialog.close()
