"""The plan editor's pools table: add a pool, edit its device and rack cap, bad values refused,
undo; the compare table shows pool rows under the plans."""
from __future__ import annotations

from PySide6.QtCore import Qt

from tcoapp.gui.pools_editor import COLUMNS


def _col(key: str) -> int:
    return COLUMNS.index(key)


def test_add_edit_and_undo_pools(window):
    doc, pools = window.document, window.editor.pools
    doc.set_plan_value(0, "sizing_mode", "devices")
    assert not doc.current_plan().pools and pools.table.rowCount() == 1   # the derived serve pool
    pools.add_button.click()
    plan = doc.current_plan()
    assert [p.pool for p in plan.pools] == ["serve", "pool 2"] and pools.table.rowCount() == 2
    pools.table.item(1, _col("device")).setText("B200")
    pools.table.item(1, _col("rack_power_cap_kw")).setText("60")
    plan = doc.current_plan()
    assert plan.pools[1].device == "B200" and plan.pools[1].rack_power_cap_kw == 60
    result = doc.results[doc.current_index]
    assert [r["device"] for r in result.pool_rows()] == [plan.device, "B200"]
    assert result.metrics.racks == sum(r["racks"] for r in result.pool_rows())
    # the compare table has a row per pool
    model = window.compare.model
    text = model.data(model.index(model.row_of("1"), doc.current_index))
    assert "B200" in text and "racks" in text
    # a bad value is refused, named, and changes nothing
    pools.table.item(1, _col("device_count")).setText("-3")
    assert pools.error.isVisibleTo(window.editor) and "device_count" in pools.error.text()
    assert doc.current_plan().pools[1].device_count == plan.pools[1].device_count
    pools.table.item(1, _col("device")).setText("No-such-GPU")
    assert "no device of that name" in pools.error.text()
    # undo walks back every edit, to a plan without pool rows
    for _ in range(3):
        doc.undo_stack.undo()
    assert not doc.current_plan().pools


def test_remove_the_last_row_returns_to_one_pool(window):
    doc, pools = window.document, window.editor.pools
    pools.add_button.click()
    assert len(doc.current_plan().pools) == 2
    pools.table.selectRow(1)
    pools.remove_button.click()
    pools.table.selectRow(0)
    pools.remove_button.click()
    assert not doc.current_plan().pools and pools.table.rowCount() == 1


def test_a_derived_pair_becomes_two_rows_and_keeps_its_meaning(window):
    doc, pools = window.document, window.editor.pools
    doc.set_plan_values(doc.current_index, {"sizing_mode": "devices", "device_count": 32, "prefill_devices": 1,
                                            "decode_devices": 3})
    before = doc.results[doc.current_index].metrics.tokens_per_s_per_device
    assert pools.table.rowCount() == 2
    pools.table.item(0, _col("pool")).setText("prefill pool")
    plan = doc.current_plan()
    assert [p.role for p in plan.pools] == ["prefill", "decode"] and plan.prefill_devices == 0
    assert doc.results[doc.current_index].metrics.tokens_per_s_per_device == before


def test_a_disaggregated_deployment_becomes_a_two_pool_plan(window):
    from pathlib import Path

    from tcoapp.io.curve_files import read_curve_file
    from tcoapp.gui.pool_edits import add_deployment_plans

    path = Path(__file__).resolve().parents[1] / "data" / "curves" / "aiconfigurator_llama70b_fp8_h200_disagg_pareto.csv"
    curves = read_curve_file(path).curves
    doc = window.document
    n = len(doc.scenario.plans)
    window._curves_imported(curves, as_plans=True)
    added = doc.scenario.plans[n:]
    assert len(added) == 2  # two deployments in the file (the pool curves are not deployments)
    plan = added[0]
    prefill, decode = plan.pools
    assert (prefill.role, prefill.device, prefill.device_count, prefill.tensor_parallel) == ("prefill", "H200-SXM", 2, 1)
    assert (decode.role, decode.device_count, decode.tensor_parallel) == ("decode", 2, 2)
    assert plan.model == "Llama-3.1-70B" and plan.input_tokens == 4000 and plan.output_tokens == 1000
    result = doc.results[n]
    assert [r["role"] for r in result.pool_rows()] == ["prefill", "decode"]
    doc.undo_stack.undo()  # the import and its plans are one step
    assert len(doc.scenario.plans) == n
    assert add_deployment_plans(doc, [c for c in curves if "pool" in c.name]) == []  # pool curves add no plan


def test_pools_table_shows_the_devices_and_batch_the_engine_used(window):
    editor = window.editor.pools
    result = window.document.results[0]
    used = editor.table.item(0, COLUMNS.index("used:device_count"))
    share = editor.table.item(0, COLUMNS.index("device_count"))
    assert used.text() == f"{result.metrics.device_count:,.0f}" and share.text() == "8"
    assert not used.flags() & Qt.ItemIsEditable
    assert editor.table.item(0, COLUMNS.index("used:batch")).text() == f"{result.metrics.batch:g}"
    assert "share" in share.toolTip()


def test_with_pools_rows_the_plan_device_fields_are_greyed_and_show_the_pools_devices(window):
    doc, pools, editors = window.document, window.editor.pools, window.editor.editors
    device = doc.current_plan().device
    assert editors["device"].widget.isEnabled() and editors["device"].widget.currentText() == device
    pools.add_button.click()
    pools.table.item(1, _col("device")).setText("B200")
    combo = editors["device"].widget
    assert not combo.isEnabled()
    assert combo.currentText() == f"{device} + B200"                     # what the engine used
    assert "not used" in combo.toolTip() and device in combo.toolTip()
    for key in ("prefill_device", "decode_device"):
        assert not editors[key].widget.isEnabled() and editors[key].widget.currentText() == "(per pool)"
    doc.undo_stack.undo()
    doc.undo_stack.undo()                                                # back to no Pools rows
    assert not doc.current_plan().pools
    assert combo.isEnabled() and combo.currentText() == device
    assert combo.findText(f"{device} + B200") < 0                        # the shown-used item is gone
    assert editors["prefill_device"].widget.isEnabled()
