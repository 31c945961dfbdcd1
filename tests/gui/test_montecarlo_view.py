"""The Uncertainty tab: the simulation runs in the worker and fills the four charts; Cancel; a plan
switch redraws the tornado; without Uncertainty rows the tab says so."""
from dataclasses import replace

import numpy as np
import pytest

from tcoapp.engine.uncertainty.inputs import UncertainInput
from tcoapp.engine.uncertainty.statistics import rank_correlations
from tcoapp.io.default_scenario import default_scenario

ROWS = (UncertainInput("*", "utilization", "pert", 0.5, 0.7, 0.85, group="market"),
        UncertainInput("*", "price_usd_per_million_output_tokens", "triangular", 0.6, 0.88, 1.0, group="market"),
        UncertainInput("*", "factor.eta_mem", "uniform", 0.6, high=0.9),
        UncertainInput("*", "electricity_usd_per_kwh", "lognormal", mean=0.09, sd=0.015))


@pytest.fixture
def uncertain_window(open_window):
    return open_window(scenario=replace(default_scenario(), uncertainty=ROWS))


def _run(window, qtbot, draws=2000):
    view = window.uncertainty
    window.runner.wait(10000)
    qtbot.waitUntil(lambda: not window.runner.running, timeout=20000)
    view.draws_box.setValue(draws)
    view.simulation = None
    view.run()
    qtbot.waitUntil(lambda: view.simulation is not None, timeout=20000)
    return view


def test_simulation_fills_every_chart(uncertain_window, qtbot):
    window = uncertain_window
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._uncertainty_tab))
    assert window.tabs.tabText(window.tabs.currentIndex()) == "Uncertainty"
    view = _run(window, qtbot)
    assert view.isVisible()
    n = len(window.document.scenario.plans)
    hist = view.charts_view.hist_lines.items[:n]
    for item, plan in zip(hist, view.simulation.plans):  # each plan's shares add up to its defined draws
        assert item.isVisible() and np.sum(item.yData) == pytest.approx(np.mean(np.isfinite(plan.metric("npv_usd"))))
    for item in view.charts_view.payback_lines.items[:n]:
        y = item.yData
        assert np.all(np.diff(y) >= 0) and 0 <= y[0] and y[-1] <= 1
    for i in range(n):  # every plan's P10-P90 band is filled between its two curves
        low, high = view.charts_view.fan_low.items[i].yData, view.charts_view.fan_high.items[i].yData
        assert np.all(low <= high) and np.any(low < high)
        rect = view.charts_view.fan_bands[i].path().boundingRect()
        assert rect.top() == pytest.approx(low.min(), rel=1e-6) and rect.bottom() == pytest.approx(high.max(), rel=1e-6)
    plan = view.simulation.plans[window.document.current_index]
    drawn = {**{d.row.key: d.values for d in plan.inputs}, **dict(plan.model_error)}   # the inputs and model error
    expected = rank_correlations(drawn, plan.metric("npv_usd"))
    bars = view.charts_view.tornado_bars.opts
    assert len(bars["width"]) == len([v for v in expected.values() if np.isfinite(v)])
    assert bars["width"][-1] == pytest.approx(next(iter(expected.values())))  # the strongest input on top
    from tcoapp.gui.economics_view import input_label
    ticks = [text for _, text in view.charts_view.p_tornado.getPlotItem().getAxis("left")._tickLevels[0]]
    assert input_label("utilization") in ticks and "Weight-read bandwidth efficiency" in ticks   # readable, not keys
    assert "utilization" not in ticks and "factor.eta_mem" not in ticks
    if plan.model_error:   # the model's own error is a driver too, named by its level
        assert any(t.startswith("Model error: ") for t in ticks) and not any(t.startswith("model error") for t in ticks)
    assert "P(NPV &gt; 0)" in view.status.text()
    window.document.set_current_index(3)
    assert view.charts_view.p_tornado.getPlotItem().titleLabel.text.replace("<br>", " ").endswith(window.document.scenario.plans[3].name)


def test_cancel_stops_the_simulation(uncertain_window, qtbot):
    window = uncertain_window
    view = window.uncertainty
    window.runner.wait(10000)
    qtbot.waitUntil(lambda: not window.runner.running, timeout=20000)
    view.simulation = None
    view.draws_box.setValue(400_000)
    view.run()
    assert window.progress.isVisible() or window.runner.running
    window.progress.cancel_button.click()
    assert view.status.text() == "Simulation cancelled."
    window.runner.wait(20000)
    qtbot.wait(50)
    assert view.simulation is None


def test_without_rows_the_tab_says_so(window):
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._uncertainty_tab))
    view = window.uncertainty
    assert "no uncertain inputs" in view.status.text()
    assert view.simulation is None and view.rows.table.rowCount() == 0


def test_plan_edits_carry_their_uncertainty_rows(qtbot):
    from tcoapp.gui.document import Document

    rows = ROWS + (UncertainInput("H100", "device.price_usd", "uniform", 20000.0, high=30000.0),)
    doc = Document(replace(default_scenario(), uncertainty=rows))
    assert doc.rename_plan(0, "H100 renamed") is None
    assert doc.scenario.uncertainty[-1].plan == "H100 renamed"
    doc.add_plan(0)
    assert [r.plan for r in doc.scenario.uncertainty if r.key == "device.price_usd"] == ["H100 renamed", "H100 renamed copy"]
    doc.delete_plan(0)
    assert [r.plan for r in doc.scenario.uncertainty if r.key == "device.price_usd"] == ["H100 renamed copy"]
    doc.undo_stack.undo()
    assert len([r for r in doc.scenario.uncertainty if r.key == "device.price_usd"]) == 2


def test_rows_are_edited_validated_added_removed_and_undone(uncertain_window, qtbot, dialogs):
    window = uncertain_window
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._uncertainty_tab))
    table = window.uncertainty.rows
    doc = window.document
    before = doc.scenario.uncertainty
    high = list(table.table.horizontalHeaderItem(c).text() for c in range(table.table.columnCount())).index("high")
    table.table.item(0, high).setText("0.3")           # below low (0.5): refused, one message naming the cell
    assert doc.scenario.uncertainty == before
    assert "Uncertainty row 1 high = 0.3: must be greater than low (0.5)" in window.problems.text()
    assert table.table.item(0, high).text() == "0.85"  # the table shows the document's rows again
    table.table.item(0, high).setText("0.9")
    assert doc.scenario.uncertainty[0].high == 0.9
    doc.undo_stack.undo()
    assert doc.scenario.uncertainty == before
    table.add_button.click()
    added = doc.scenario.uncertainty[-1]
    assert len(doc.scenario.uncertainty) == len(before) + 1 and added.plan == doc.current_plan().name
    assert added.low < added.mode < added.high and added.source.startswith("ASSUMPTION")
    table.table.setCurrentCell(len(before), 0)
    table.remove_button.click()
    assert doc.scenario.uncertainty == before


def _pen_colors(pool, n):
    return [item.opts["pen"].color().name() for item in pool.items[:n]]


def test_charts_of_an_old_simulation_wear_the_current_plan_colours(uncertain_window, qtbot):
    """Delete a plan and add one (it takes the free colour, the deleted plan's): the old simulation's
    deleted plan turns grey and is named so; every other plan keeps its current colour, by name."""
    from tcoapp.gui.colors import legend_entry
    from tcoapp.gui.montecarlo_view import GONE_COLOR

    window = uncertain_window
    doc = window.document
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._uncertainty_tab))
    view = _run(window, qtbot, draws=500)
    names = [p.name for p in view.simulation.plans]
    deleted_color = doc.color_of(names[1])
    doc.delete_plan(1)
    doc.add_plan()
    added = doc.scenario.plans[-1].name
    assert doc.color_of(added) == deleted_color             # the case the charts must not confuse
    n = len(names)
    wanted = [GONE_COLOR if i == 1 else doc.color_of(name) for i, name in enumerate(names)]
    for pool in (view.charts_view.hist_lines, view.charts_view.fan_mid, view.charts_view.payback_lines):
        assert _pen_colors(pool, n) == wanted
    assert deleted_color not in wanted
    assert legend_entry(GONE_COLOR, f"{names[1]} (no longer in the scenario)") in view.legend.text()
    doc.set_current_index(len(doc.scenario.plans) - 1)      # the new plan was not simulated: no tornado
    assert view.charts_view.tornado_bars.opts["width"].size == 0
    doc.set_current_index(1)                                # names[2] now sits at 1: its tornado, by name
    assert view.charts_view.p_tornado.getPlotItem().titleLabel.text.replace("<br>", " ").endswith(names[2])
    doc.undo_stack.undo()
    doc.undo_stack.undo()                                   # the plan is back, in its own colour
    assert _pen_colors(view.charts_view.hist_lines, n) == [doc.color_of(name) for name in names]
    assert "no&nbsp;longer" not in view.legend.text()


def test_cancel_mid_run_stops_between_chunks_of_draws(uncertain_window, qtbot):
    """A long run (1,000,000 draws, in chunks) stops soon after Cancel, not at the end of a plan."""
    window = uncertain_window
    view = window.uncertainty
    window.runner.wait(10000)
    qtbot.waitUntil(lambda: not window.runner.running, timeout=20000)
    fractions = []
    window.runner.progressed.connect(fractions.append)
    view.simulation = None
    view.draws_box.setValue(1_000_000)
    view.run()
    task = window.runner._task
    qtbot.waitUntil(lambda: bool(fractions), timeout=30000)
    window.progress.cancel_button.click()
    assert task.wait(10000), "the worker thread ended"
    qtbot.wait(50)
    assert view.simulation is None and view.status.text() == "Simulation cancelled."
    assert max(fractions) < 0.5, "it stopped between chunks, long before the run's end"


def test_a_device_edit_that_breaks_a_star_device_row_is_refused(open_window):
    """The Uncertainty rows' one validation holds at a plan's device edit, so a saved workbook always reads."""
    base = default_scenario()
    plan = base.plans[0]
    scenario = replace(base.with_plans([plan, plan.with_(name="twin")]),
                       uncertainty=(UncertainInput("*", "device.price_usd", "uniform", low=20000.0, high=30000.0),))
    window = open_window(scenario=scenario)
    message = window.document.set_plan_value(1, "device", base.plans[2].device)
    assert message and "the plans run different devices" in message
    assert window.document.scenario.plans[1].device == plan.device
    window.runner.wait(20000)


def test_pairwise_probabilities_are_shown_for_every_pair(uncertain_window, qtbot):
    from tcoapp.engine.uncertainty.report import simulation_json
    window = uncertain_window
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._uncertainty_tab))
    view = _run(window, qtbot)
    assert view.pairwise.isVisible() and not view.empty_note.isVisible() and view.charts_view.isVisible()
    text = view.pairwise.text()
    assert "P(row beats column)" in text
    pairs = simulation_json(view.simulation)["pairwise"]
    n = len(view.simulation.plans)
    assert len(pairs) == n * (n - 1)
    for pair in pairs:
        assert f">{pair['prob_a_higher_npv']:.0%}<" in text
    from PySide6.QtGui import QTextDocument
    doc = QTextDocument()
    doc.setHtml(text)
    assert all(p.name in doc.toPlainText() for p in view.simulation.plans)


def test_empty_state_explains_itself_without_axes(window):
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._uncertainty_tab))
    view = window.uncertainty
    assert view.simulation is None
    assert view.empty_note.isVisible() and not view.charts_view.isVisible() and not view.pairwise.isVisible()
    assert "No uncertain inputs yet" in view.empty_note.text() and "Add uncertain input" in view.empty_note.text()
