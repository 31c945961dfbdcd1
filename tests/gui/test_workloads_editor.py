"""The plan editor's Workloads table: classes added, edited and removed through the undo stack, shares that must
add to 1 held with the sum on the problem bar, bad values named and refused."""
from __future__ import annotations

from tcoapp.gui.workloads_editor import COLUMNS


def _col(key: str) -> int:
    return COLUMNS.index(key)


def _type(editor, row: int, key: str, text: str) -> None:
    editor.table.item(row, _col(key)).setText(text)


def test_add_edit_remove_and_undo_classes(window):
    doc, editor = window.document, window.editor.workloads
    plan = doc.current_plan()
    assert not plan.workloads and editor.table.rowCount() == 0 and "No classes" in editor.hint.text()
    editor.add_button.click()   # the plan's requests as two classes of half the share: the same requests
    classes = doc.current_plan().workloads
    assert [(c.class_, c.share, c.input_tokens, c.output_tokens) for c in classes] == [
        ("class 1", 0.5, plan.input_tokens, plan.output_tokens), ("class 2", 0.5, plan.input_tokens, plan.output_tokens)]
    assert editor.table.rowCount() == 2 and "Shares add to 1" in editor.shares.text()
    for key in ("input_tokens", "output_tokens", "min_tokens_per_s_per_user", "max_ttft_s"):   # each class has its own
        widget = window.editor.editors[key].widget
        assert not widget.isEnabled() and "request classes" in widget.toolTip(), key
    _type(editor, 0, "class", "chat")
    _type(editor, 0, "output_tokens", "300")
    _type(editor, 1, "input_tokens_p90", "2000")
    classes = doc.current_plan().workloads
    assert classes[0].class_ == "chat" and classes[0].output_tokens == 300 and classes[1].input_tokens_p90 == 2000
    # an empty price shows the plan's, in grey; typing one sets it for this class only
    price = editor.table.item(1, _col("price_usd_per_million_output_tokens"))
    assert price.data(0x0100) is True and "the plan's value" in price.toolTip()
    _type(editor, 1, "price_usd_per_million_output_tokens", "8")
    assert doc.current_plan().workloads[1].price_usd_per_million_output_tokens == 8
    editor.table.selectRow(1)
    editor.add_button.click()   # a copy of the selected class taking half its share
    assert [(c.class_, c.share) for c in doc.current_plan().workloads] == [("chat", 0.5), ("class 2", 0.25),
                                                                             ("class 3", 0.25)]
    editor.table.selectRow(0)
    editor.remove_button.click()   # its share goes to the others in proportion
    assert [(c.class_, c.share) for c in doc.current_plan().workloads] == [("class 2", 0.5), ("class 3", 0.5)]
    assert "goes to the others in proportion" in doc.undo_stack.undoText()
    for _ in range(7):   # every step undoes, back to the plan's own keys
        doc.undo_stack.undo()
    assert doc.current_plan() == plan and editor.table.rowCount() == 0
    assert window.editor.editors["input_tokens"].widget.isEnabled()
    doc.undo_stack.redo()
    assert len(doc.current_plan().workloads) == 2 and editor.table.rowCount() == 2


def test_shares_off_1_are_held_and_named_on_the_problem_bar(window):
    doc, editor = window.document, window.editor.workloads
    editor.add_button.click()
    name = doc.current_plan().name
    before = doc.current_plan().workloads
    _type(editor, 0, "share", "0.4")   # 0.4 + 0.5: held, not applied
    assert doc.current_plan().workloads == before
    assert editor.table.item(0, _col("share")).text() == "0.4"
    expected = f"plan {name!r}: the classes' shares add to 0.9 (0.4 + 0.5); they must add to 1"
    assert expected in editor.shares.text()
    assert window.problems.text().startswith(f"Workloads: {expected}")
    _type(editor, 1, "share", "60%")   # 0.4 + 0.6 = 1: both edits in one undoable step
    assert [c.share for c in doc.current_plan().workloads] == [0.4, 0.6]
    assert window.problems.text() == "" and "Shares add to 1" in editor.shares.text()
    doc.undo_stack.undo()
    assert doc.current_plan().workloads == before


def test_bad_values_are_named_and_change_nothing(window):
    doc, editor = window.document, window.editor.workloads
    editor.add_button.click()
    before = doc.current_plan().workloads
    cases = {("output_tokens_p90", "100"): "output_tokens_p90 = 100: a p90 above the mean",
             ("input_tokens", "lots"): "input_tokens",
             ("turn_gap_s", "5"): "turn_gap_s = 5: only an agentic class reads it",
             ("class", "class 2"): "a class name is used twice",
             ("share", "1.5"): "share = 1.5"}
    for (key, text), message in cases.items():
        _type(editor, 0, key, text)
        assert message in editor.error.text() and editor.error.isVisibleTo(window.editor), (key, editor.error.text())
        assert doc.current_plan().workloads == before
    # an agentic class: session_turns with its session keys, its prompt length empty
    for key, text in (("session_turns", "20"), ("system_prompt_tokens", "12000"), ("turn_input_tokens", "3000"),
                      ("turn_gap_s", "8")):
        _type(editor, 0, key, text)
    assert editor.error.text() and doc.current_plan().workloads == before   # each step alone is refused, named
    assert "session_turns" in editor.error.text() or "turn_" in editor.error.text()


def test_renaming_the_plan_keeps_its_classes(window):
    doc, editor = window.document, window.editor.workloads
    editor.add_button.click()
    assert doc.rename_plan(doc.current_index, "Renamed") is None
    assert {c.plan for c in doc.current_plan().workloads} == {"Renamed"}
    assert doc.set_plan_value(doc.current_index, "utilization", 0.5) is None   # another key keeps the classes
    assert len(doc.current_plan().workloads) == 2
    doc.add_plan(doc.current_index)   # a copy has the classes, naming the copy
    copy = doc.scenario.plans[-1]
    assert len(copy.workloads) == 2 and {c.plan for c in copy.workloads} == {copy.name}


def test_the_wide_editor_follows_the_document(window):
    doc, editor = window.document, window.editor.workloads
    dialog = editor.open_wide()
    dialog.editor.add_button.click()
    assert len(doc.current_plan().workloads) == 2 and editor.table.rowCount() == 2
    dialog.editor.table.item(0, _col("share")).setText("0.3")   # held in the wide editor: on the problem bar too
    assert "add to 0.8" in window.problems.text()
    doc.undo_stack.undo()
    assert dialog.editor.table.rowCount() == 0 and window.problems.text() == ""
    assert "were not applied (their shares did not add to 1)" in dialog.editor.error.text()


def test_an_edit_of_another_plan_leaves_the_table_and_one_of_this_plan_rewrites_it(window):
    """The table is written again only when what it shows changes (an edit of another plan, the usual case,
    touches none of it); a refused value typed in a cell is written over at the next refresh."""
    doc, editor = window.document, window.editor.workloads
    editor.add_button.click()
    kept = editor.table.item(0, _col("output_tokens"))
    other = (doc.current_index + 1) % len(doc.scenario.plans)
    assert doc.set_plan_value(other, "utilization", 0.55) is None
    assert editor.table.item(0, _col("output_tokens")) is kept   # not written again
    price = _col("price_usd_per_million_output_tokens")
    shown = editor.table.item(0, price).text()
    assert doc.set_plan_value(doc.current_index, "price_usd_per_million_output_tokens", 123.0) is None
    assert editor.table.item(0, price).text() != shown and "123" in editor.table.item(0, price).text()  # the plan's
    _type(editor, 0, "output_tokens", "lots")   # refused: the cell shows what was typed, in red
    assert editor.error.text() and editor.table.item(0, _col("output_tokens")).text() == "lots"
    assert doc.set_plan_value(other, "utilization", 0.6) is None
    assert editor.table.item(0, _col("output_tokens")).text() == str(doc.current_plan().workloads[0].output_tokens)
