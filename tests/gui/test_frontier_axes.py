"""The Performance tab's frontier chart turns its axes logarithmic where the values it shows span
more than 10x (a sweep's cloud), and stays linear for a narrow range (the plans' points alone)."""
import numpy as np
import pytest


def test_a_sweep_spanning_decades_puts_the_frontier_on_log_axes_and_back_to_linear_without_it(window, qtbot):
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))   # a hidden tab is not drawn
    view = window.performance
    front = view.p_front.getPlotItem()
    view._clear_sweep()
    view.refresh()
    assert view.front_axes.log == (False, False)          # one plan's point and its target: narrow
    assert not front.getAxis("bottom").logMode and not front.getAxis("left").logMode
    with qtbot.waitSignal(window.runner.succeeded, timeout=60000):
        view.run_sweep()
    sweep = view.sweep
    ok = sweep.feasible & np.isfinite(sweep.tokens_per_s_per_user)
    user, device = sweep.tokens_per_s_per_user[ok], sweep.tokens_per_s_per_device[ok]
    assert user.max() > 10 * user.min() and device.max() > 10 * device.min()
    assert front.getAxis("bottom").logMode and front.getAxis("left").logMode
    x, y = view.cloud.getData()
    assert np.allclose(10 ** x, user) and np.allclose(10 ** y, device)
    star_x, _ = view.points.getData()
    plan = window.document.results[window.document.current_index].metrics
    assert 10 ** star_x[0] == pytest.approx(plan.tokens_per_s_per_user)
    target = next(t for t in view.front_targets.pool.items if t.isVisible())
    assert target.value() == pytest.approx(np.log10(50.0))
    assert "tokens/s per device at" in view._plan_tip(star_x[0], 0, view.points.data["data"][0])
    view._clear_sweep()
    view.refresh()
    assert not front.getAxis("bottom").logMode and not front.getAxis("left").logMode
    assert view.points.getData()[0][0] == pytest.approx(plan.tokens_per_s_per_user)
