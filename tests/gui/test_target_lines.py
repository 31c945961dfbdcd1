"""Target lines close together on the axis keep their labels apart (staggered in height)."""
import numpy as np

from tcoapp.gui.plotting import pg
from tcoapp.gui.target_lines import TargetLines


def _chart(qtbot, x_range, targets, to_axis=lambda v: v):
    """A 420x300 chart over x_range with vertical target lines, shown."""
    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    widget.resize(420, 300)
    item = widget.getPlotItem()
    item.setXRange(*x_range, padding=0)
    item.setYRange(0, 1, padding=0)
    lines = TargetLines(item, vertical=True)
    lines.update(targets, to_axis=to_axis)
    widget.show()
    qtbot.waitExposed(widget)
    qtbot.wait(20)
    return widget, item, lines   # the widget is kept alive by the caller


def test_labels_of_close_vertical_targets_do_not_overlap(qtbot):
    _widget, _, lines = _chart(qtbot, (0.5, 2.5), [(20.0, ["a"]), (36.0, ["b"]), (45.0, ["c"])],
                      to_axis=lambda v: float(np.log10(v)))
    rects = [line.label.sceneBoundingRect() for line in lines.pool.items[:3]]
    for i in range(3):
        for j in range(i + 1, 3):
            assert not rects[i].intersects(rects[j]), (i, j, rects[i], rects[j])


def test_a_target_near_the_right_edge_keeps_its_label_inside_the_chart(qtbot):
    _widget, item, lines = _chart(qtbot, (0, 250), [(20.0, ["a"]), (230.0, ["b"])])
    view = item.getViewBox().sceneBoundingRect()
    left, right = (line.label.sceneBoundingRect() for line in lines.pool.items[:2])
    assert view.contains(left) and view.contains(right), (view, left, right)
    assert right.right() <= lines.pool.items[1].sceneBoundingRect().center().x() + 1  # drawn left of its line
    item.setXRange(0, 1000, padding=0)   # the line is now in the left half: its label moves right of it
    qtbot.wait(20)
    assert lines.pool.items[1].label.sceneBoundingRect().left() >= lines.pool.items[1].sceneBoundingRect().center().x() - 1
