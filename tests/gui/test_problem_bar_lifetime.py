"""The problem bar above the views goes away when its problem is over: the next success of the same
kind of action (a sweep after a failed sweep, a save after a failed save), or another document
opened; a success of another kind leaves it."""
import os

from PySide6.QtCore import Qt

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "samples", "batch_tradeoff.xlsx")


def _fail_a_save(window, tmp_path):
    assert not window.save_to(str(tmp_path / "no such folder" / "plan.xlsx"))
    assert "Cannot save plan.xlsx" in window.problems.text()


def test_a_successful_save_clears_a_failed_save(window, tmp_path):
    _fail_a_save(window, tmp_path)
    assert window.save_to(str(tmp_path / "plan.xlsx"))
    assert not window.problems.isVisible() and window.problems.text() == ""


def test_a_failed_save_stays_when_a_sweep_succeeds_and_goes_when_another_document_opens(window, qtbot, tmp_path):
    _fail_a_save(window, tmp_path)
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))
    view = window.performance
    window.runner.cancel()
    with qtbot.waitSignal(window.runner.succeeded, timeout=20000):
        qtbot.mouseClick(view.sweep_button, Qt.LeftButton)
    assert "Cannot save plan.xlsx" in window.problems.text()     # a sweep does not make the save work
    assert window.open_path(SAMPLE, confirmed=True)
    assert window.problems.text() == ""


def test_the_next_successful_sweep_clears_a_failed_sweep(window, qtbot, monkeypatch):
    import tcoapp.engine.performance.frontier as frontier

    def broken_sweep(*args, **kw):
        raise RuntimeError("sweep table exhausted")
    with monkeypatch.context() as broken:   # undoes only this patch, not the autouse dialog and settings ones
        broken.setattr(frontier, "sweep", broken_sweep)
        window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))
        view = window.performance
        window.runner.cancel()
        with qtbot.waitSignal(window.runner.failed, timeout=10000):
            qtbot.mouseClick(view.sweep_button, Qt.LeftButton)
        assert "sweep table exhausted" in window.problems.text()
    with qtbot.waitSignal(window.runner.succeeded, timeout=20000):
        qtbot.mouseClick(view.sweep_button, Qt.LeftButton)
    assert not window.problems.isVisible()


def test_a_failed_open_stays_until_an_open_succeeds(window, tmp_path):
    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(b"not a workbook")
    assert not window.open_path(str(broken), confirmed=True)
    assert "Cannot open broken.xlsx" in window.problems.text()
    window.document.set_plan_value(0, "utilization", 0.5)          # an edit does not resolve it
    assert "Cannot open broken.xlsx" in window.problems.text()
    assert window.open_path(SAMPLE, confirmed=True)
    assert window.problems.text() == ""


def test_a_views_message_goes_when_the_document_next_changes_and_a_file_problem_stays(window):
    doc = window.document
    window.show_view_message("The frontier sweep is not available for this plan")
    doc.set_plan_value(0, "utilization", 0.51)   # raised before this edit: the document moved on
    assert window.problems.text() == ""
    window.show_problem("Cannot open bad.xlsx", "Open failed")   # a file problem without a kind
    doc.set_plan_value(0, "utilization", 0.53)
    assert "Cannot open bad.xlsx" in window.problems.text()      # stays until Dismiss
    raise_one = lambda: window.show_view_message("raised by this very change")  # noqa: E731
    doc.scenario_changed.connect(raise_one)
    doc.set_plan_value(0, "utilization", 0.52)
    assert window.problems.text() == "raised by this very change"            # it stays
    doc.scenario_changed.disconnect(raise_one)
    window.show_problem("Save failed", kind="save")
    doc.undo_stack.undo()
    assert "Save failed" in window.problems.text()                           # a kind waits for its action
