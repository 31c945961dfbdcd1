"""An edit repaints what changed, not the whole tab: values that change with every edit are LiveText
(no relayout), axes are cached, and the pools and calibration tables keep the cells that did not
change."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QGraphicsItem, QLabel, QVBoxLayout, QWidget

from tcoapp.gui.live_text import LiveNotes, LiveText
from tcoapp.gui.pools_editor import COLUMNS


class _Events(QObject):
    def __init__(self, kinds):
        super().__init__()
        self.kinds, self.seen = kinds, []

    def eventFilter(self, obj, event):
        if event.type() in self.kinds:
            self.seen.append((event.type(), event.rect() if event.type() == QEvent.Paint else None))
        return False


def test_live_text_repaints_without_asking_for_a_layout(qtbot):
    box = QWidget()
    text = LiveText()
    QVBoxLayout(box).addWidget(text)
    qtbot.addWidget(box)
    box.show()
    qtbot.waitExposed(box)
    QApplication.processEvents()
    spy = _Events({QEvent.LayoutRequest})
    box.installEventFilter(spy)
    text.setText("NPV = $86,167,589")
    QApplication.processEvents()
    assert text.text() == "NPV = $86,167,589" and text.toolTip() == text.text()
    assert spy.seen == []
    label = QLabel()
    box.layout().addWidget(label)
    QApplication.processEvents()
    spy.seen.clear()
    label.setText("NPV = $86,167,589")   # the QLabel it replaces does ask (the check can fail)
    QApplication.processEvents()
    assert spy.seen


NOTES_STYLE = "QLabel { background: #fff8e1; border: 1px solid #ffcc80; padding: 4px; }"
NOTES = ("• batch 157 chosen for the target >= 50 tokens/s per user\n• serving search chose TP1, 1 device per replica, "
         "nvfp4 weights, nvfp4 KV, 2 draft tokens, batch 157: lowest cost per million output tokens ($0.115 per Mtok) "
         "of 192 configurations x batch (110,208 points)\n• not entered (0): colocation, maintenance, software, staff")


def _notes_box(qtbot, notes, width=420):
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.addWidget(notes)
    layout.addStretch(1)
    box.resize(width, 400)
    qtbot.addWidget(box)
    box.show()
    qtbot.waitExposed(box)
    QApplication.processEvents()
    return box


@pytest.mark.parametrize("width", [260, 420, 700])
def test_live_notes_show_what_the_styled_word_wrapped_label_showed(qtbot, width):
    """The plan editor's notes (LiveNotes) look as its QLabel with the notes' style sheet did, pixel for pixel."""
    label = QLabel(NOTES)
    label.setWordWrap(True)
    label.setStyleSheet(NOTES_STYLE)
    notes = LiveNotes("#fff8e1", "#ffcc80", padding=4)
    notes.setText(NOTES)
    shown = [_notes_box(qtbot, w, width) for w in (label, notes)]
    assert label.geometry() == notes.geometry()
    assert shown[0].grab().toImage() == shown[1].grab().toImage()


def test_live_notes_ask_for_a_layout_only_when_a_new_text_needs_another_height(qtbot):
    notes = LiveNotes("#fff8e1", "#ffcc80", padding=4)
    notes.setText(NOTES)
    box = _notes_box(qtbot, notes)
    spy = _Events({QEvent.LayoutRequest, QEvent.Paint})
    box.installEventFilter(spy)
    notes.installEventFilter(spy)
    height = notes.height()
    notes.setText(NOTES.replace("$0.115", "$0.134"))   # an edit's new cost: the same lines
    QApplication.processEvents()
    assert [kind for kind, _ in spy.seen] == [QEvent.Paint]   # painted, no layout asked for
    assert notes.text().count("$0.134") == 1 and notes.height() == height
    spy.seen.clear()
    notes.setText(NOTES + "\n• the draft acceptance 0.714 is Llama-3.3-70B's published rate")   # one more line
    QApplication.processEvents()
    assert QEvent.LayoutRequest in [kind for kind, _ in spy.seen]
    assert notes.height() > height


def test_economics_axes_are_cached_and_the_tornado_value_is_live_text(window):
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._economics_tab))
    econ = window.economics
    for item in econ.charts().values():
        for entry in item.axes.values():
            assert entry["item"].cacheMode() == QGraphicsItem.CacheMode.DeviceCoordinateCache
    assert isinstance(econ.tornado_value, LiveText)
    doc = window.document
    old = econ.tornado_value.text()
    assert doc.set_plan_value(doc.current_index, "utilization", 0.41) is None
    assert econ.tornado_value.text() != old


def test_pools_table_keeps_the_cells_an_edit_did_not_change(window):
    doc, pools = window.document, window.editor.pools
    table = pools.table
    keep = {(r, c): table.item(r, c) for r in range(table.rowCount()) for c in range(table.columnCount())}
    assert doc.set_plan_value(doc.current_index, "tensor_parallel", 1) is None
    col, device_col = COLUMNS.index("tensor_parallel"), COLUMNS.index("device")
    assert table.item(0, col).text() == "1"
    assert table.item(0, col) is not keep[(0, col)]            # the changed cell is new
    assert table.item(0, device_col) is keep[(0, device_col)]  # the others are kept


def test_calibration_table_is_rebuilt_only_when_the_factors_change(window):
    doc, editor = window.document, window.catalog.calibration
    first = editor.table.item(0, 0)
    assert doc.set_plan_value(doc.current_index, "utilization", 0.42) is None
    assert editor.table.item(0, 0) is first   # a plan edit leaves the factors' table alone
    editor.table.item(0, 0).setText("0.5")    # a factor edit rebuilds it
    assert editor.table.item(0, 0) is not first
    assert editor.table.item(0, 0).text() == "0.5"


def test_the_cash_flow_year_points_sit_on_every_plans_line_in_its_colour(window):
    import numpy as np

    window.tabs.setCurrentIndex(window.tabs.indexOf(window._economics_tab))
    econ, doc = window.economics, window.document
    assert doc.set_plan_value(1, "utilization", 0.45) is None
    x, y = econ.cash_points.getData()
    colours = [b.color().name() for b in econ.cash_points.data["brush"]]
    start = 0
    for i, result in enumerate(doc.results):
        cumulative = np.cumsum(result.finance.cash_flows_usd)
        years = np.nonzero(np.isfinite(cumulative))[0]  # a plan without an operating point has no year points
        cumulative, n = cumulative[years], years.size
        assert np.allclose(x[start:start + n], years) and np.allclose(y[start:start + n], cumulative)
        assert set(colours[start:start + n]) == {doc.plan_colors[i]}
        start += n
    assert start == len(x)


def test_the_tornado_range_stays_while_it_holds_the_bars_and_settles_on_edits_back_and_forth():
    from tcoapp.gui.economics_view import sticky_span

    first = sticky_span(None, 121e6, 238e6)
    assert first[0] <= 121e6 and first[1] >= 238e6 and first == (120e6, 240e6)   # round steps of 20M
    assert sticky_span(first, 125e6, 235e6) is first          # the bars moved inside it: kept
    grown = sticky_span(first, 141e6, 262e6)                   # they left it: it grows to hold both
    assert grown[0] <= 120e6 and grown[1] >= 262e6
    assert sticky_span(grown, 121e6, 238e6) == grown          # back again: the same range
    assert sticky_span(grown, -2.0, 3.0) == (-2.0, 3.0)       # another metric (a sliver in it): a new range


def test_edits_do_not_render_the_scatter_symbols_again(window):
    """One brush object per colour: pyqtgraph's symbol atlas keys on the object, so new brushes would render
    every symbol again on each edit and grow the atlas for as long as the window is open."""
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._economics_tab))
    econ, doc = window.economics, window.document
    doc.set_plan_value(0, "utilization", 0.5)
    sizes = [len(econ.cash_points.fragmentAtlas), len(econ.payback.fragmentAtlas)]
    for value in (0.55, 0.6, 0.65, 0.5):
        assert doc.set_plan_value(0, "utilization", value) is None
    assert [len(econ.cash_points.fragmentAtlas), len(econ.payback.fragmentAtlas)] == sizes


def test_catalog_columns_are_sized_when_the_tab_is_first_shown(window):
    assert not window._catalog_tab.built              # start-up does not build the catalog, let alone measure it
    catalog = window.catalog
    assert not catalog._fitted                       # built while hidden: its cells are not measured yet
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._catalog_tab))
    assert catalog._fitted
    model, header = catalog.devices_model, catalog.devices_table.horizontalHeader()
    source = next(c for c in range(model.columnCount()) if model.field_name(c) == "source")
    assert header.visualIndex(source) == 1 and catalog.devices_table.columnWidth(source) == 300


def test_the_plan_editor_builds_its_first_screen_then_the_rest_once_painted(qtbot):
    from tcoapp.gui.app import create_window
    win = create_window(None, compute=False)
    qtbot.addWidget(win)
    editor = win.editor
    assert "device" in editor._editors and "utilization" not in editor._editors   # start-up: the first screen
    width = editor.minimumWidth()
    win.show()
    qtbot.waitUntil(lambda: not editor._rest, timeout=5000)                        # the rest, once painted
    assert editor._editors["utilization"].widget.isVisible()
    assert editor.minimumWidth() == width      # its width was estimated up front: the editor does not widen
    win.document.undo_stack.setClean()
    win.close()


def test_an_edit_of_one_plan_keeps_the_others_and_redraws_nothing_in_the_editor_of_another(window):
    doc, editor = window.document, window.editor
    while len(doc.scenario.plans) < 3:
        doc.add_plan(0)
    doc.set_current_index(0)
    editor.refresh()
    before = doc.scenario.plans
    drawn = []
    editor.redraw.part("spy", lambda: (doc.scenario.plans[0], doc.results[0]), lambda *_: drawn.append(1))
    editor.refresh()
    drawn.clear()
    assert doc.set_plan_value(2, "utilization", 0.37) is None
    after = doc.scenario.plans
    assert after[0] is before[0] and after[1] is before[1] and after[2] is not before[2]
    assert after[2].utilization == 0.37
    assert drawn == [] and "plan" not in editor.refresh()
    assert doc.set_plan_value(0, "utilization", 0.38) is None   # the shown plan's edit is drawn
    assert drawn == [1] and doc.scenario.plans[0].utilization == 0.38


def test_an_energy_price_edit_sets_the_cost_bars_it_moved_and_not_the_capex_segment(window, monkeypatch):
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._economics_tab))
    econ, doc = window.economics, window.document
    set_again = []
    for name, bar in econ.cost_chart.bars.items():
        monkeypatch.setattr(bar, "setOpts", lambda *a, _bar=bar, _name=name, **k: (
            set_again.append(_name), type(_bar).setOpts(_bar, *a, **k)))
    capex_before = list(econ.cost_chart.bars["capex"].opts["width"])
    price = doc.scenario.plans[0].electricity_usd_per_kwh
    assert doc.set_plan_value(0, "electricity_usd_per_kwh", price * 1.5) is None
    assert "energy" in set_again and "capex" not in set_again
    assert list(econ.cost_chart.bars["capex"].opts["width"]) == capex_before
    if not econ.cost_chart.log:   # the energy segment is the plan's new energy cost
        want = float(doc.results[0].finance["cost_per_million_output_tokens_energy_usd"])
        assert float(econ.cost_chart.bars["energy"].opts["width"][0]) == pytest.approx(want, rel=1e-9)
