"""Every Qt model passes pytest-qt's qtmodeltester, before and after edits."""
import numpy as np
from PySide6.QtCore import Qt

from tcoapp.engine.performance.measured import make_measured_curve
from tcoapp.gui.catalog_models import CurvePointsModel, EntryTableModel
from tcoapp.gui.compare_model import CompareModel


def test_compare_model(qtmodeltester, document):
    model = CompareModel(document)
    qtmodeltester.check(model, force_py=True)   # the tester stays connected and checks every change
    document.add_plan(0)
    document.set_plan_value(0, "utilization", 0.5)
    document.delete_plan(1)
    document.undo_stack.undo()
    assert model.columnCount() == len(document.scenario.plans)


def test_compare_model_marks_best_and_formats_units(document):
    model = CompareModel(document)
    row = model.row_of("cost_per_million_output_tokens_usd")
    assert "USD/Mtok" in model.headerData(row, Qt.Vertical)
    costs = [r.metrics.cost_per_million_output_tokens_usd for r in document.results]
    best = int(np.nanargmin(costs))
    assert model.is_best("cost_per_million_output_tokens_usd", best)
    assert model.data(model.index(row, best), Qt.BackgroundRole) is not None
    assert model.data(model.index(row, best), Qt.UserRole) == costs[best]


def test_compare_model_edit_is_validated(document):
    model = CompareModel(document)
    row = model.row_of("utilization")
    failures = []
    model.edit_failed.connect(failures.append)
    assert not model.setData(model.index(row, 0), "1.4")
    assert failures and "between 0.001 and 1" in failures[0]
    assert document.scenario.plans[0].utilization == 0.7
    assert model.setData(model.index(row, 0), "0.5")
    assert document.scenario.plans[0].utilization == 0.5


def test_entry_models(qtmodeltester, document):
    qtmodeltester.check(EntryTableModel(document, "model"), force_py=True)
    devices = EntryTableModel(document, "device")
    qtmodeltester.check(devices, force_py=True)
    column = [devices.field_name(c) for c in range(devices.columnCount())].index("price_usd")
    assert devices.setData(devices.index(0, column), "31000")
    name = devices.data(devices.index(0, 0))
    assert document.scenario.device(name).price_usd == 31000
    assert name in document.scenario.devices
    assert not devices.setData(devices.index(0, column), "-5")


def test_curve_points_model(qtmodeltester, document):
    from dataclasses import replace

    curve = make_measured_curve("xpu", "H100-SXM", "Llama-3.3-70B", [1, 8, 32], [90, 600, 1800],
                                [90, 75, 56], [300, 420, 540])
    model = CurvePointsModel(document)
    qtmodeltester.check(model, force_py=True)
    document.push(replace(document.scenario, curves={"xpu": curve}), "add curve")
    assert model.rowCount() == 3


def test_catalog_duplicate_entry_is_undoable(window):
    catalog = window.catalog
    n = catalog.devices_model.rowCount()
    catalog.devices_table.selectRow(0)
    catalog.duplicate_selected()
    first = catalog.devices_model.names()[0]
    assert catalog.devices_model.rowCount() == n + 1
    assert f"{first} copy" in window.document.scenario.devices
    assert f"{first} copy" in [window.editor.editors["device"].widget.itemData(i)
                               for i in range(window.editor.editors["device"].widget.count())]
    window.document.undo_stack.undo()
    assert catalog.devices_model.rowCount() == n


def test_catalog_duplicate_only_on_the_devices_and_models_tables(window):
    catalog = window.catalog
    models = dict(window.document.scenario.models)
    catalog.tabs.setCurrentIndex(catalog.tabs.indexOf(catalog.curves_table))
    assert not catalog.duplicate_button.isEnabled() and catalog.fit_curve_button.isEnabled()
    catalog.duplicate_selected()
    assert window.document.scenario.models == models
    catalog.tabs.setCurrentIndex(catalog.tabs.indexOf(catalog.models_table))
    assert catalog.duplicate_button.isEnabled() and not catalog.fit_curve_button.isEnabled()


def test_curve_points_are_editable_and_curves_deletable(window, qtmodeltester):  # (the tester lets go first)
    from dataclasses import replace

    doc = window.document
    curve = make_measured_curve("xpu", "H100-SXM", "Llama-3.3-70B", [1, 8, 32], [90, 600, 1800],
                                [90, 75, 56], [300, 420, 540], source="bench", point_sources=("a", "b", "c"))
    doc.push(replace(doc.scenario, curves={"xpu": curve}), "add curve")
    model = window.catalog.curves_model
    qtmodeltester.check(model, force_py=True)
    names = [model.headerData(c, Qt.Horizontal) for c in range(model.columnCount())]
    col = [f.name for f in model._fields].index("tokens_per_s_per_device")
    assert model.setData(model.index(1, col), "650")
    assert doc.scenario.curves["xpu"].tokens_per_s_per_device[1] == 650
    batch_col = [f.name for f in model._fields].index("batch")
    assert model.setData(model.index(0, batch_col), "64")     # re-sorted, sources follow their points
    new = doc.scenario.curves["xpu"]
    assert list(new.batch) == [8, 32, 64] and new.point_sources == ("b", "c", "a")
    assert not model.setData(model.index(0, batch_col), "32")  # two points at one batch
    assert not model.setData(model.index(0, col), "-1")
    assert names
    doc.set_plan_values(0, {"curve": "xpu"})
    assert doc.delete_curve("xpu") is not None               # in use
    doc.undo_stack.undo()
    assert doc.delete_curve("xpu") is None
    assert "xpu" not in doc.scenario.curves and model.rowCount() == 0


def test_compare_model_marks_no_best_where_every_plan_is_alike(qtbot):
    """A metric every plan shares marks no plan best (the agentic sample's plans each charge nothing per
    million cached input tokens: 0.00 each, none "best"); where they differ the best is marked."""
    from pathlib import Path

    from tcoapp.gui.document import Document
    from tcoapp.io.load import load_scenario

    doc = Document(load_scenario(Path(__file__).parents[2] / "samples" / "agentic_coding.xlsx"))
    model = CompareModel(doc)
    values = [r.metrics.cost_per_million_cached_input_tokens_usd for r in doc.results]
    assert len(values) >= 2 and set(values) == {0.0}, values
    assert not any(model.is_best("cost_per_million_cached_input_tokens_usd", i) for i in range(len(values)))
    costs = [r.metrics.cost_per_million_output_tokens_usd for r in doc.results]
    assert len(set(costs)) > 1 and model.is_best("cost_per_million_output_tokens_usd", int(np.nanargmin(costs)))
