"""A long chart title (a plan or device name in it) wraps instead of widening the plot past its widget,
which cut the chart off at 1300x800 (the Uncertainty tab's rank-correlation chart)."""
from PySide6.QtCore import Qt

from tcoapp.gui.montecarlo_charts import MonteCarloCharts
from tcoapp.gui.plotting import set_title


def test_a_long_title_wraps_and_the_plot_stays_inside_its_widget(qtbot):
    charts = MonteCarloCharts()
    qtbot.addWidget(charts)
    charts.resize(848, 500)
    charts.show()
    qtbot.waitExposed(charts)
    item = charts.p_tornado.getPlotItem()
    set_title(item, "Rank correlation with NPV: B200 NVFP4 + spec decode k=3 a=0.7 <fast>")
    qtbot.wait(10)
    assert "<br>" in item.titleLabel.text and "&lt;fast&gt;" in item.titleLabel.text
    assert item.effectiveSizeHint(Qt.MinimumSize).width() <= charts.p_tornado.width()
    assert item.getViewBox().width() < charts.p_tornado.width()
    set_title(item, "Short")
    assert item.titleLabel.text == "Short"
