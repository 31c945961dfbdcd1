"""Each plan keeps its chart colour in every view when plans are deleted, renamed, added or
reordered, and Undo gives a deleted plan back the colour it had."""
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction

from tcoapp.gui.colors import PLAN_COLORS
from tcoapp.gui.plan_colors import carried_slots


def signature_colors(window) -> dict[str, str]:
    chart, plans = window.decision.chart, window.document.scenario.plans
    return {plans[int(i)].name: b.color().name()
            for i, b in zip(chart.points.data["data"], chart.points.data["brush"])}


def as_shown(window, tab):
    """Show `tab` (a hidden tab redraws when it is shown), then the tab that was current again."""
    current = window.tabs.currentIndex()
    window.tabs.setCurrentIndex(window.tabs.indexOf(tab))
    window.tabs.setCurrentIndex(current)


def cash_line_colors(window) -> dict[str, str]:
    plans = window.document.scenario.plans
    as_shown(window, window._economics_tab)
    return {p.name: line.opts["pen"].color().name() for p, line in zip(plans, window.economics.cash_lines.items)}


def performance_line_colors(window) -> dict[str, str]:
    plans = window.document.scenario.plans
    as_shown(window, window._performance_tab)
    lines = window.performance._line_pools[0][0].items
    return {p.name: line.opts["pen"].color().name() for p, line in zip(plans, lines)}


def rack_bar_colors(window) -> dict[str, str]:
    plans = window.document.scenario.plans
    as_shown(window, window._economics_tab)
    brushes = window.economics.rack_bars.opts["brushes"]
    return {p.name: b.color().name() for p, b in zip(plans, brushes)}


def compare_header_colors(window) -> dict[str, str]:
    model, plans = window.compare.model, window.document.scenario.plans
    return {p.name: model.headerData(i, Qt.Horizontal, Qt.DecorationRole).toImage().pixelColor(5, 5).name()
            for i, p in enumerate(plans)}


VIEWS = (signature_colors, cash_line_colors, performance_line_colors, rack_bar_colors, compare_header_colors)


def all_views(window) -> list[dict[str, str]]:
    return [view(window) for view in VIEWS]


def delete_first_plan_from_the_menu(window):
    window.document.set_current_index(0)
    next(a for a in window.findChildren(QAction) if a.text() == "Delete plan").trigger()


def test_deleting_a_plan_keeps_every_other_plans_colour_in_every_view_and_undo_restores_it(window, qtbot):
    doc = window.document
    names = [p.name for p in doc.scenario.plans]
    before = all_views(window)
    assert before[0]                                  # the signature chart shows the plans' stars
    for view in before[1:]:
        assert list(view) == names
        assert len(set(view.values())) == len(names)  # distinct colours
    delete_first_plan_from_the_menu(window)
    assert [p.name for p in doc.scenario.plans] == names[1:]
    after = all_views(window)
    for old, new in zip(before, after):
        assert names[0] not in new
        assert new == {k: v for k, v in old.items() if k != names[0]}   # none shifted to the next colour
    qtbot.keyClick(window.compare.table, Qt.Key_Z, Qt.ControlModifier)
    assert [p.name for p in doc.scenario.plans] == names
    assert all_views(window) == before


def test_a_renamed_plan_keeps_its_colour_and_a_new_plan_takes_the_freed_one(window):
    doc = window.document
    colors = doc.plan_colors
    assert doc.rename_plan(1, "Renamed plan") is None
    assert doc.plan_colors == colors
    assert cash_line_colors(window)["Renamed plan"] == colors[1]
    doc.delete_plan(0)
    doc.add_plan()
    assert doc.plan_colors == colors[1:] + colors[:1]     # the first palette colour not in use
    assert performance_line_colors(window)[doc.scenario.plans[-1].name] == colors[0]
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert doc.plan_colors == colors


def test_colour_slots_follow_plans_through_reorders_and_take_the_first_free_colour():
    assert carried_slots(["a", "b", "c"], (0, 1, 2), ["c", "a", "b"]) == (2, 0, 1)
    assert carried_slots(["a", "b", "c"], (0, 1, 2), ["b", "c", "d"]) == (1, 2, 0)
    assert carried_slots(["a", "b"], (3, 5), ["a", "x", "y"]) == (3, 5, 0)      # "x" took b's place: renamed
    assert carried_slots(["a", "b"], (0, 1), ["a", "b", "n"]) == (0, 1, 2)
    full = [f"p{i}" for i in range(len(PLAN_COLORS))]
    slots = carried_slots(full, tuple(range(len(PLAN_COLORS))), full + ["extra"])
    assert slots[-1] == 0                                 # all worn once: the first of the least worn


def test_a_hidden_performance_tab_redraws_when_shown_not_on_every_edit(window):
    """An edit redraws what is on screen; the Performance tab, built but hidden, catches up when shown."""
    view = window.performance                      # built while its tab is hidden
    doc = window.document
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._economics_tab))
    line = view._line_pools[0][0].items[1]
    before = line.yData
    assert doc.set_plan_value(1, "output_tokens", doc.scenario.plans[1].output_tokens // 2) is None   # a new curve
    assert view.redraw.stale and line.yData is before          # hidden: marked stale, not drawn
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))
    assert not view.redraw.stale and view.isVisible() and line.yData is not before
    assert view.refresh() == []                                # nothing changed since: nothing drawn
