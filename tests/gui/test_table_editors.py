"""Price-tier tables and calibration factors are editable in the app, validated and undoable."""
import os

import pytest

from tcoapp.engine.quantities.factors import FACTOR_FIELDS
from tcoapp.engine.performance.factors import DEFAULT_FACTORS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE = os.path.join(ROOT, "samples", "hopper_to_blackwell_power_limited.xlsx")


@pytest.fixture
def sample_window(open_window):
    return open_window(SAMPLE, size=None)


def test_editing_a_tier_price_recomputes_revenue_and_undoes(sample_window):
    doc = sample_window.document
    editor = sample_window.catalog.price_tiers
    name = editor.current()
    assert name in doc.scenario.price_tiers and editor.table.rowCount() == 3
    i = next(k for k, p in enumerate(doc.scenario.plans) if p.price_tiers == name)
    before = doc.results[i].metrics.revenue_usd_per_year
    editor.table.item(0, 1).setText("4.38")            # the slow tier's price, doubled
    assert doc.scenario.price_tiers[name].price_usd_per_million_output_tokens[0] == 4.38
    assert "price table" in doc.undo_stack.undoText() and "Output price" in doc.undo_stack.undoText()
    assert doc.results[i].metrics.revenue_usd_per_year != before
    doc.undo_stack.undo()
    assert doc.scenario.price_tiers[name].price_usd_per_million_output_tokens[0] == 2.19
    assert editor.table.item(0, 1).text() == "2.19"


def test_refused_tier_values_are_shown_inline(sample_window):
    doc = sample_window.document
    editor = sample_window.catalog.price_tiers
    before = doc.scenario
    editor.table.item(0, 1).setText("-1")
    assert doc.scenario is before and editor.error.isVisibleTo(editor) and "Output price" in editor.error.text()
    assert editor.table.item(0, 1).text() == "2.19"
    editor.table.item(0, 0).setText("36")              # a threshold the table already has
    assert doc.scenario is before and "already has a tier" in editor.error.text()


def test_thresholds_stay_sorted_and_tiers_add_and_remove(sample_window):
    doc = sample_window.document
    editor = sample_window.catalog.price_tiers
    name = editor.current()
    editor.table.item(2, 0).setText("10")
    assert doc.scenario.price_tiers[name].min_tokens_per_s_per_user == (0.0, 10.0, 36.0)
    editor._add_tier()
    assert doc.scenario.price_tiers[name].min_tokens_per_s_per_user[-1] == 72.0
    editor.table.setCurrentCell(3, 0)
    editor._remove_tier()
    assert len(doc.scenario.price_tiers[name].min_tokens_per_s_per_user) == 3


def test_new_table_and_delete_refused_while_used(window, sample_window, monkeypatch):
    editor = window.catalog.price_tiers
    monkeypatch.setattr("tcoapp.gui.price_tiers_editor.QInputDialog.getText", lambda *a, **k: ("Fast tiers", True))
    editor._new_table()
    doc = window.document
    assert "Fast tiers" in doc.scenario.price_tiers and editor.current() == "Fast tiers"
    doc.set_plan_value(0, "price_tiers", "Fast tiers")
    editor._delete_table()
    assert "Fast tiers" in doc.scenario.price_tiers and "used by plan" in editor.error.text()
    doc.set_plan_value(0, "price_tiers", "")
    editor._delete_table()
    assert "Fast tiers" not in doc.scenario.price_tiers


def test_factor_for_every_plan_changes_throughput_and_undoes(window):
    doc = window.document
    editor = window.catalog.calibration
    row = [f.name for f in FACTOR_FIELDS].index("eta_mem")
    before = doc.results[0].metrics.tokens_per_s_per_device
    editor.table.item(row, 0).setText("0.9")
    assert doc.scenario.factors.eta_mem == 0.9
    assert doc.results[0].metrics.tokens_per_s_per_device > before
    assert editor.table.item(row, 0).font().bold()
    assert doc.undo_stack.undoText() == "Set Weight-read bandwidth efficiency to 0.9 for every plan"
    doc.undo_stack.undo()
    assert doc.scenario.factors == DEFAULT_FACTORS


def test_device_column_calibrates_only_that_device(window):
    doc = window.document
    editor = window.catalog.calibration
    device = doc.scenario.plans[0].device
    editor.device_box.setCurrentText(device)
    editor._add_device()
    col = editor.devices.index(device)
    row = [f.name for f in FACTOR_FIELDS].index("eta_compute")
    other = doc.results[1].metrics.tokens_per_s_per_device
    editor.table.item(row, col).setText("0.3")
    assert doc.scenario.device_factors[device].eta_compute == 0.3
    assert doc.scenario.factors.eta_compute == DEFAULT_FACTORS.eta_compute
    assert doc.results[1].metrics.tokens_per_s_per_device == other
    editor.table.item(row, col).setText("2")
    assert "Decode compute efficiency" in editor.error.text() and doc.scenario.device_factors[device].eta_compute == 0.3
    editor.table.setCurrentCell(0, col)
    editor._remove_device()
    assert device not in doc.scenario.device_factors


def test_editors_never_widen_the_window_past_1300(sample_window):
    for i in range(sample_window.tabs.count()):
        assert sample_window.tabs.widget(i).minimumSizeHint().width() <= 1300 - 380, sample_window.tabs.tabText(i)


def test_catalog_errors_are_inline(window, dialogs):
    devices = window.catalog.devices_model
    column = [devices.field_name(c) for c in range(devices.columnCount())].index("price_usd")
    assert not devices.setData(devices.index(0, column), "-5")
    assert window.catalog.error.isVisibleTo(window.catalog) and "price_usd" in window.catalog.error.text()
    assert dialogs.messages == []
    assert devices.setData(devices.index(0, column), "31000")
    assert not window.catalog.error.isVisibleTo(window.catalog)


def test_undo_texts_of_table_and_pool_edits_use_labels(window):
    from tcoapp.gui.pool_edits import set_pool_value
    doc = window.document
    model = window.compare.model
    from PySide6.QtCore import Qt
    assert model.setData(model.index(model.row_of("electricity_usd_per_kwh"), 0), "0.2", Qt.EditRole)
    assert doc.undo_stack.undoText().startswith("Set Electricity price of")
    assert set_pool_value(doc, 0, 0, "device_count", "16") is None
    assert doc.undo_stack.undoText().startswith("Set Devices of pool")


def test_editing_a_fitted_scope_by_hand_drops_its_fit_quality(window):
    doc = window.document
    scope = "H200-SXM | dense | trtllm"
    doc.set_device_factors(scope, doc.scenario.factors.with_(eta_mem=0.9), {"fit_curve": "tp4", "fit_points": 14})
    editor = window.catalog.calibration
    assert doc.scenario.calibration_quality[scope]["fit_points"] == 14
    col = editor.devices.index(scope)
    row = [f.name for f in FACTOR_FIELDS].index("eta_compute")
    editor.table.item(row, col).setText("0.3")
    assert doc.scenario.device_factors[scope].eta_compute == 0.3 and doc.scenario.device_factors[scope].eta_mem == 0.9
    assert scope not in doc.scenario.calibration_quality  # the factors are no longer those the fit measured
    doc.undo_stack.undo()
    assert doc.scenario.calibration_quality[scope]["fit_points"] == 14
