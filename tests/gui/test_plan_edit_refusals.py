"""Plan edits that would make the workbook unreadable are refused with the reader's message."""
from dataclasses import replace

from tcoapp.io.default_scenario import default_scenario


def test_attention_weight_precision_edits_on_a_dense_model_are_refused(open_window):
    window = open_window(scenario=default_scenario())   # Llama-3.3-70B: dense
    doc = window.document
    message = doc.set_plan_value(0, "attention_weight_precision", "fp8")
    assert message and "dense" in message and doc.scenario.plans[0].attention_weight_precision == ""


def test_a_model_edit_that_voids_the_precision_split_is_refused(open_window):
    base = default_scenario()
    moe = base.plans[2].with_(model="DeepSeek-R1", attention_weight_precision="fp8")
    window = open_window(scenario=replace(base.with_plans([moe])))
    doc = window.document
    message = doc.set_plan_value(0, "model", "Llama-3.3-70B")
    assert message and "attention_weight_precision" in message and "dense" in message
    assert doc.scenario.plans[0].model == "DeepSeek-R1"
    assert doc.set_plan_values(0, {"model": "Llama-3.3-70B", "attention_weight_precision": ""}) is None
