"""Apply an edit to all or selected plans: the current plan's value of a field, to other plans, in one
undoable step; refused for one plan, nothing changes and the error names the plan."""
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMenu


def test_apply_to_all_plans_is_one_undo(window):
    doc, editor = window.document, window.editor
    doc.set_current_index(1)
    assert doc.set_plan_values(1, {"utilization": "55%"}) is None
    before = [p.utilization for p in doc.scenario.plans]
    count = doc.undo_stack.count()
    assert editor.apply_to_plans("utilization", list(range(len(doc.scenario.plans)))) is None
    assert [p.utilization for p in doc.scenario.plans] == [0.55] * len(before)
    assert doc.undo_stack.count() == count + 1
    assert doc.undo_stack.undoText() == f"Set Utilization of {len(before)} plans to 0.55"
    doc.undo_stack.undo()
    assert [p.utilization for p in doc.scenario.plans] == before


def test_apply_to_selected_plans_leaves_the_others(window, monkeypatch):
    doc, editor = window.document, window.editor
    doc.set_current_index(0)
    assert doc.set_plan_values(0, {"revenue_mode": "device_hours", "price_usd_per_device_hour": "2.5"}) is None
    from tcoapp.gui import apply_dialog
    monkeypatch.setattr(apply_dialog, "choose_plans", lambda parent, label, names, current: [0, 2, 4])
    editor._apply_chosen("revenue_mode", "choose")
    editor._apply_chosen("price_usd_per_device_hour", "choose")
    modes = [p.revenue_mode for p in doc.scenario.plans]
    assert modes == ["device_hours", "tokens", "device_hours", "tokens", "device_hours"]
    assert [p.price_usd_per_device_hour for p in doc.scenario.plans][::2] == [2.5, 2.5, 2.5]


def test_a_refused_value_changes_no_plan_and_names_it(window):
    doc = window.document
    plans = doc.scenario.plans
    # a prefill device on a plan with Pools rows is refused there; here: a value out of range for every plan
    error = doc.set_plans_values(range(len(plans)), {"utilization": 1.5}, "Set Utilization of 5 plans to 1.5")
    assert error and error.startswith(f"{plans[0].name}: ") and "utilization" in error
    assert doc.scenario.plans == plans


def test_the_dialog_ticks_the_current_plan_and_returns_the_ticked(window):
    from tcoapp.gui.apply_dialog import ApplyDialog
    names = [p.name for p in window.document.scenario.plans]
    dialog = ApplyDialog(window, "Utilization", names, 1)
    assert dialog.chosen() == [1]
    dialog.plans.item(3).setCheckState(Qt.Checked)
    assert dialog.chosen() == [1, 3]
    assert not dialog.plans.item(1).flags() & Qt.ItemIsUserCheckable     # the source plan stays ticked
    dialog.deleteLater()


def test_the_context_menu_offers_both(window):
    editor = window.editor.editors["utilization"]
    seen = []

    def read_menu():
        menu = QApplication.activePopupWidget()
        if isinstance(menu, QMenu):
            seen.extend(a.text() for a in menu.actions())
            menu.close()

    QTimer.singleShot(200, read_menu)
    editor._menu(editor.widget.rect().center())
    assert "Apply Utilization to all plans" in seen and "Apply Utilization to plans…" in seen
