"""Scenarios with request classes for the Workloads sheet tests (a sample with three classes on its first plan
and an agentic class on its second)."""
from __future__ import annotations

from pathlib import Path

from tcoapp.engine.quantities.records import make_request_class
from tcoapp.io.workbook_read import read_scenario

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "moe_rack_scale.xlsx"


def request_class(plan: str, name: str, share: float, **fields):
    return make_request_class({"plan": plan, "class": name, "share": share, **fields})


def three_classes(plan: str):
    """Chat 1k/300 at >= 50 tok/s/user, reasoning 2k/8k at >= 30 (long tails, its own prices), batch 4k/1k with no
    target and a cached input price a tenth of the input price at hit rate 0.9."""
    return (
        request_class(plan, "chat", 0.5, input_tokens=1000, output_tokens=300, min_tokens_per_s_per_user=50.0),
        request_class(plan, "reasoning", 0.3, input_tokens=2000, input_tokens_p90=4500, output_tokens=8000,
                      output_tokens_p90=18000, min_tokens_per_s_per_user=30.0, max_ttft_s=2.0,
                      latency_percentile="p99", price_usd_per_million_output_tokens=8.0,
                      price_usd_per_million_input_tokens=1.25),
        request_class(plan, "batch", 0.2, input_tokens=4000, output_tokens=1000, prefix_cache_hit_rate=0.9,
                      price_usd_per_million_cached_input_tokens=0.055),
    )


def agentic_mix(plan: str):
    return (
        request_class(plan, "chat", 0.75, input_tokens=800, output_tokens=250),
        request_class(plan, "coding agent", 0.25, output_tokens=400, session_turns=20, system_prompt_tokens=12000,
                      turn_input_tokens=3000, turn_gap_s=8.0, price_usd_per_million_cached_input_tokens=0.05),
    )


def with_classes(scenario=None):
    scenario = scenario or read_scenario(SAMPLE)
    first, second = scenario.plans[0], scenario.plans[1]
    scenario = scenario.replace_plan(0, first.with_(workloads=three_classes(first.name)))
    return scenario.replace_plan(1, second.with_(workloads=agentic_mix(second.name)))


def renamed(scenario, index: int, name: str):
    """Plan `index` under `name`, its classes naming it."""
    from dataclasses import replace

    plan = scenario.plans[index]
    return scenario.replace_plan(index, replace(plan, name=name, workloads=tuple(c.with_(plan=name)
                                                                                 for c in plan.workloads)))
