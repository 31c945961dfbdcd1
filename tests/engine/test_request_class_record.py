"""The request-class record (a Workloads sheet row): its fields, its checks, and a plan's classes taken together."""
import pytest

import tcoapp
from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.quantities.records import make_request_class, request_class_problems

CHAT = {"plan": "A", "class": "chat", "share": 0.6, "input_tokens": 1000, "output_tokens": 300,
        "min_tokens_per_s_per_user": 50}
AGENT = {"plan": "A", "class": "agent", "share": 0.4, "output_tokens": 300, "session_turns": 20,
         "system_prompt_tokens": 8000, "turn_input_tokens": 2000, "turn_gap_s": 5}


def test_a_class_keeps_its_fields_and_leaves_the_plan_s_values_empty():
    chat = make_request_class(CHAT)
    assert (chat.class_, chat.share, chat.input_tokens, chat.output_tokens) == ("chat", 0.6, 1000, 300)
    assert chat.input_tokens_p90 is None and chat.price_usd_per_million_output_tokens is None
    assert chat.session_turns is None
    agent = make_request_class(AGENT)
    assert agent.input_tokens is None and agent.session_turns == 20


@pytest.mark.parametrize("change, field, words", [
    ({"share": 0}, "share", "> 0"),
    ({"share": 1.5}, "share", "<= 1"),
    ({"input_tokens_p90": 900}, "input_tokens_p90", "above the mean"),
    ({"output_tokens_p90": 300}, "output_tokens_p90", "above the mean"),
    ({"input_tokens": None}, "input_tokens", "mean prompt length"),
    ({"turn_gap_s": 3}, "turn_gap_s", "only an agentic class"),
    ({"latency_percentile": "p95"}, "latency_percentile", "p99"),
])
def test_a_bad_class_names_its_field_and_the_allowed_values(change, field, words):
    with pytest.raises(ValidationError) as error:
        make_request_class({**CHAT, **change}, lambda key: f"Workloads!{key}")
    text = str(error.value)
    assert f"Workloads!{field}" in text and words in text


def test_an_agentic_class_needs_its_session():
    with pytest.raises(ValidationError) as error:
        make_request_class({**AGENT, "turn_gap_s": None})
    assert "turn_gap_s" in str(error.value) and "agentic" in str(error.value)


def test_shares_add_to_one_and_names_are_unique():
    chat, agent = make_request_class(CHAT), make_request_class(AGENT)
    assert request_class_problems("A", [chat, agent]) == []
    assert request_class_problems("A", []) == []
    (problem,) = request_class_problems("A", [chat])
    assert "add to 0.6" in problem.message and "must add to 1" in problem.message
    twice = request_class_problems("A", [make_request_class({**CHAT, "share": 0.5})] * 2)
    assert [p.field for p in twice] == ["class"]


def test_a_plan_s_classes_are_checked_where_plans_are_replaced():
    scenario = tcoapp.load_scenario()
    plan = scenario.plans[0]
    classes = (make_request_class({**CHAT, "plan": plan.name}), make_request_class({**AGENT, "plan": plan.name}))
    assert scenario.replace_plan(0, plan.with_(workloads=classes)).plan(plan.name).workloads == classes
    with pytest.raises(ValidationError) as error:
        scenario.replace_plan(0, plan.with_(workloads=classes[:1]))
    assert "must add to 1" in str(error.value)
