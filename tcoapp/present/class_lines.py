"""A plan's request classes in words (docs/model.md, "Request classes"): one line per class for the command
line's text and the decision report (each class's share and lengths, its rate and TTFT at its percentile
against its target, requests/s, hit rate, cost per million output tokens and revenue)."""
from __future__ import annotations

from ..engine.core.number_format import count, money, number, percent
from ..engine.decision.summary import target_text


def _target(c) -> str:
    wanted = target_text(c)   # a class has the plan's two target fields
    if not wanted:
        return "no target"
    return "target " + wanted + (", met" if c.meets_target else ", NOT met")


def _or_na(value, text) -> str:
    return "n/a" if value is None else text(value)


def class_line(c) -> str:
    """One class in words."""
    stat = "" if c.latency_percentile == "mean" else f" ({c.latency_percentile})"
    revenue = "" if c.revenue_usd_per_year is None else f", revenue {money(c.revenue_usd_per_year)} per year"
    return (f"{c.class_} ({percent(c.share)} of requests, {count(c.input_tokens)} in / {count(c.output_tokens)} out "
            f"tokens): {_or_na(c.tokens_per_s_per_user, lambda v: number(v))} tokens/s per user{stat}, TTFT "
            f"{_or_na(c.ttft_s, lambda v: number(v) + ' s')}{stat} ({_target(c)}); "
            f"{_or_na(c.requests_per_s, lambda v: number(v))} requests/s, prefix hit rate "
            f"{percent(c.achieved_prefix_hit_rate)}; cost {_or_na(c.cost_per_million_output_tokens_usd, money)} per "
            f"million output tokens{revenue}")


def class_lines(result) -> list[str]:
    """Every class of the plan's result, one line each (empty: the plan has no request classes)."""
    return [class_line(c) for c in getattr(result, "workloads", ())]
