"""A background task that fails (a sweep, a simulation) is reported inline above the views, never
in a pop-up; Dismiss hides the report."""
from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from tcoapp.engine.uncertainty.inputs import UncertainInput
from tcoapp.io.default_scenario import default_scenario


@pytest.fixture
def popups(monkeypatch):
    """Every error pop-up the app tries to open (the test fails if there is one)."""
    opened = []
    for name in ("warning", "critical", "information"):
        monkeypatch.setattr(QMessageBox, name, lambda *args, **kw: opened.append(args) or QMessageBox.Ok)
    return opened


def test_a_failed_sweep_is_shown_inline_and_no_message_box_opens(window, qtbot, monkeypatch, popups):
    import tcoapp.engine.performance.frontier as frontier

    def broken_sweep(*args, **kw):
        raise RuntimeError("sweep table exhausted")
    monkeypatch.setattr(frontier, "sweep", broken_sweep)
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))
    view = window.performance
    window.runner.cancel()               # the automatic sweep of the tab, if it started
    with qtbot.waitSignal(window.runner.failed, timeout=10000):
        qtbot.mouseClick(view.sweep_button, Qt.LeftButton)
    bar = window.problems
    assert bar.isVisible() and bar.error.isVisible()
    assert "RuntimeError: sweep table exhausted" in bar.text()
    assert bar.geometry().bottom() < window.tabs.geometry().top() + 1     # right above the views
    assert popups == []
    qtbot.mouseClick(bar.dismiss_button, Qt.LeftButton)
    assert not bar.isVisible() and bar.text() == ""


def test_a_failed_simulation_is_shown_inline_in_the_tab_and_above_it(qtbot, monkeypatch, popups):
    import tcoapp.gui.montecarlo_view as montecarlo_view
    from tcoapp.gui.app import create_window

    def broken_simulate(*args, **kw):
        raise MemoryError("draws do not fit")
    monkeypatch.setattr(montecarlo_view, "simulate", broken_simulate)
    window = create_window(None)
    qtbot.addWidget(window)
    row = UncertainInput("*", "utilization", "pert", 0.5, 0.7, 0.85)
    window.document.reset(replace(default_scenario(), uncertainty=(row,)), None)
    window.show()
    qtbot.waitExposed(window)
    with qtbot.waitSignal(window.runner.failed, timeout=10000):
        window.tabs.setCurrentIndex(window.tabs.indexOf(window._uncertainty_tab))   # the Uncertainty tab simulates when it is first shown
    view = window.uncertainty
    assert "Simulation failed: MemoryError: draws do not fit" in view.status.text()
    assert window.problems.isVisible() and "draws do not fit" in window.problems.text()
    assert popups == []
    window.document.undo_stack.setClean()
    window.close()
    window.runner.wait(10000)
