"""Long work off the GUI thread: progress, cancel, errors; the frontier sweep and its click."""
import time

import numpy as np
import pytest

from tcoapp.engine.core.errors import Cancelled, TcoError
from tcoapp.gui.worker import TaskRunner


def slow_job(progress, should_cancel):
    for i in range(200):
        if should_cancel():
            raise Cancelled("cancelled")
        progress(i / 200)
        time.sleep(0.005)
    return "done"


def test_runner_success_with_progress(qtbot):
    runner = TaskRunner()
    seen = []
    runner.progressed.connect(seen.append)
    with qtbot.waitSignal(runner.succeeded, timeout=10000) as blocker:
        runner.start("slow", slow_job)
    assert blocker.args == ["done"]
    assert seen and len(seen) < 200   # throttled
    assert not runner.running
    runner.wait()


def test_runner_cancel(qtbot):
    runner = TaskRunner()
    results = []
    runner.succeeded.connect(results.append)
    runner.start("slow", slow_job)
    with qtbot.waitSignal(runner.cancelled, timeout=2000):
        runner.cancel()
    runner.wait()
    qtbot.wait(50)
    assert results == [] and not runner.running


def test_runner_error_is_a_message(qtbot):
    def bad(progress, should_cancel):
        raise TcoError("the field x = 3: must be at most 2")

    runner = TaskRunner()
    with qtbot.waitSignal(runner.failed, timeout=5000) as blocker:
        runner.start("bad", bad)
    assert "must be at most 2" in blocker.args[0]
    runner.wait()


def test_sweep_runs_then_click_sets_operating_point(window, qtbot, dialogs):
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))   # a hidden tab is not drawn
    from PySide6.QtWidgets import QMessageBox
    dialogs.answer = QMessageBox.Yes
    view = window.performance
    with qtbot.waitSignal(window.runner.succeeded, timeout=60000):
        view.run_sweep()
    assert view.sweep is not None and view.sweep.pareto_mask.any()
    assert len(view.cloud.data) > 0
    i = int(view.sweep.pareto_indices[len(view.sweep.pareto_indices) // 2])
    assert "batch" in view.config_text(i)
    view.use_point(i)
    assert dialogs.messages[-1][0] == "Replace the target?" and ">= 50 tokens/s per user" in dialogs.messages[-1][1]
    plan = window.document.current_plan()
    assert plan.batch == int(round(view.sweep.batch[i])) and plan.min_tokens_per_s_per_user is None
    assert plan.tensor_parallel == int(view.sweep.tensor_parallel[i]) and plan.serving_search == "off"
    result = window.document.results[window.document.current_index]
    assert np.isclose(result.metrics.tokens_per_s_per_device, view.sweep.tokens_per_s_per_device[i], rtol=0.05)
    window.document.undo_stack.undo()
    assert window.document.current_plan().min_tokens_per_s_per_user is not None


def test_sweep_cancel_from_progress_panel(window, qtbot, monkeypatch):
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))   # a hidden tab is not drawn
    import tcoapp.gui.perf_data as perf_data

    monkeypatch.setattr(perf_data, "SWEEP_BATCHES", np.arange(1, 4097, dtype=float))
    view = window.performance
    results = []
    window.runner.succeeded.connect(results.append)
    plan = window.document.current_plan()
    job = perf_data.sweep_for_plan(window.document.scenario, plan, batches=np.arange(1, 20001, dtype=float))
    window.runner.start("big sweep", lambda progress, should_cancel: (time.sleep(0.2), job(
        progress=progress, should_cancel=should_cancel))[1], on_success=view.show_sweep)
    assert window.progress.isVisibleTo(window)
    with qtbot.waitSignal(window.runner.cancelled, timeout=5000):
        window.progress.cancel_button.click()
    assert not window.progress.isVisibleTo(window)
    window.runner.wait(20000)
    qtbot.wait(50)
    assert results == []


def test_frontier_hover_text_and_plan_star_click(window, qtbot):
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))   # a hidden tab is not drawn
    view = window.performance
    with qtbot.waitSignal(window.runner.succeeded, timeout=60000):
        view.run_sweep()
    i = int(view.sweep.pareto_indices[0])
    tip = view._tip(0, 0, i)
    assert "batch" in tip and "TP" in tip and "tokens/s per device" in tip
    spots = view.points.points()
    if len(spots):
        target = int(spots[-1].data())
        view._plan_clicked(view.points, [spots[-1]], None)
        assert window.document.current_index == target


def test_choosing_a_frontier_point_asks_before_replacing_the_target(window, qtbot, dialogs):
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))   # a hidden tab is not drawn
    from PySide6.QtWidgets import QMessageBox
    dialogs.answer = QMessageBox.No
    view = window.performance
    with qtbot.waitSignal(window.runner.succeeded, timeout=60000):
        view.run_sweep()
    before = window.document.scenario
    view.use_point(int(view.sweep.pareto_indices[0]))
    assert dialogs.messages and dialogs.messages[-1][0] == "Replace the target?"
    assert window.document.scenario is before
    window.document.set_plan_value(window.document.current_index, "min_tokens_per_s_per_user", None)
    asked = len(dialogs.messages)
    view.use_point(int(view.sweep.pareto_indices[0]))
    assert len(dialogs.messages) == asked        # no target: nothing to ask
    assert window.document.current_plan().batch == int(round(view.sweep.batch[int(view.sweep.pareto_indices[0])]))


def test_targets_drawn_on_interactivity_and_frontier_charts(window):
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))   # a hidden tab redraws when shown
    view = window.performance
    doc = window.document
    assert view.user_targets.shown == [50.0]
    line = [t for t in view.user_targets.pool.items if t.isVisible()][0]
    expected = np.log10(50.0) if view.log_y["tokens_per_s_per_user"] else 50.0
    assert line.value() == pytest.approx(expected) and line.angle == 0
    assert view.front_targets.shown == [50.0]
    doc.set_plan_value(1, "min_tokens_per_s_per_user", 30)
    assert view.user_targets.shown == [30.0, 50.0]
    assert view.front_targets.shown == [50.0]     # the frontier is of the current plan's device only
    doc.set_plan_value(0, "min_tokens_per_s_per_user", None)
    assert view.front_targets.shown == []
    assert sum(t.isVisible() for t in view.front_targets.pool.items) == 0


def test_frontier_axis_before_a_sweep_has_distinct_ticks(window):
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))   # a hidden tab is not drawn
    view = window.performance
    view._clear_sweep()
    view.refresh()
    (x0, x1), (y0, y1) = view.p_front.getPlotItem().viewRange()
    point = window.document.results[0].metrics
    assert x0 == 0 and x1 >= point.tokens_per_s_per_user * 1.3
    assert y0 == 0 and y1 >= point.tokens_per_s_per_device * 1.3


def test_clicking_a_frontier_marker_sets_the_operating_point(window, qtbot, dialogs):
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))   # a hidden tab is not drawn
    from PySide6.QtWidgets import QMessageBox
    dialogs.answer = QMessageBox.Yes
    view = window.performance
    with qtbot.waitSignal(window.runner.succeeded, timeout=60000):
        view.run_sweep()
    spot = view.pareto.scatter.points()[0]
    view._clicked(view.pareto, [spot], None)
    assert window.document.current_plan().batch == int(round(view.sweep.batch[int(spot.data())]))


def test_batch_charts_turn_log_where_values_span_a_decade(window):
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))   # a hidden tab is not drawn
    view = window.performance
    doc = window.document
    for key, widget in (("tokens_per_s_per_device", view.p_device), ("tokens_per_joule", view.p_joule),
                        ("tokens_per_s_per_user", view.p_user)):
        values = np.concatenate([np.asarray(line.yData, float) for line in view._line_pools[0][0].items[:0]] +
                                [np.asarray(view._line_pools[["tokens_per_s_per_device", "tokens_per_s_per_user",
                                 "tokens_per_joule"].index(key)][0].items[i].yData, float)
                                 for i in range(len(doc.scenario.plans))])
        values = values[np.isfinite(values) & (values > 0)]
        spans = values.max() > 10 * values.min()
        assert view.log_y[key] == spans
        assert widget.getPlotItem().getAxis("left").logMode == spans
    assert view.log_y["tokens_per_s_per_device"]        # batch 1 to 4096: always more than 10x
