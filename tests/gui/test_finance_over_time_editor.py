"""The plan editor is generated from the field table: the finance-over-time keys (docs/model.md, "Finance over
time") appear in its Years group with their units, and an edit recomputes the plan (the years table shows the
throughput index once it moves)."""
import pytest

NEW_KEYS = ("hardware_price_change_per_year", "throughput_change_per_year", "tax_loss_limit")


@pytest.fixture
def window(qtbot):
    from tcoapp.gui.app import create_window
    win = create_window(None, compute=True)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: bool(win.document.results), timeout=60000)
    yield win
    win.document.undo_stack.setClean()
    win.close()


def test_the_plan_editor_has_the_new_keys_and_an_edit_recomputes(window, qtbot):
    editors = window.editor.editors
    for key in NEW_KEYS:
        assert key in editors and editors[key].field.group == "years", key
    doc = window.document
    before = doc.results[doc.current_index]
    assert doc.set_plan_values(doc.current_index, {"throughput_change_per_year": "0.3"}, "faster software") is None
    qtbot.waitUntil(lambda: doc.results and doc.results[doc.current_index] is not before, timeout=60000)
    after = doc.results[doc.current_index]
    assert after.metrics.cost_per_million_output_tokens_usd < before.metrics.cost_per_million_output_tokens_usd
    from tcoapp.gui.years_table import YearsModel
    model = YearsModel(doc)
    assert "throughput_index" in model.rows
