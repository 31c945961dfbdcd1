"""A plan's agentic answer in words (the `agentic` block of `tcoapp compute --json`; docs/model.md,
"Agentic sessions and KV tiers"), for the CLI text and the report: one sentence per plan."""
from __future__ import annotations

from ..engine.core.number_format import percent


def _or_na(value, fmt: str) -> str:
    return "n/a" if value is None else format(value, fmt)


OFFLOAD_WORDS = {"none": "HBM only", "host": "KV offload to host memory", "host_nvme": "KV offload to host memory and NVMe"}
ROUTING_WORDS = {"session_affinity": "session-affinity", "random": "random"}


def offload_words(offload: str, routing: str) -> str:
    """"KV offload to host memory, session-affinity routing": a plan's tiers and routing in words."""
    return f"{OFFLOAD_WORDS.get(offload, offload)}, {ROUTING_WORDS.get(routing, routing)} routing"


def agents_per_mw_text(answer: dict | None) -> str:
    """"5,432" agents per MW of facility power; "n/a" for a plan without an agentic answer or without power."""
    return _or_na(None if answer is None else answer["agents_per_mw"], ",.0f")


def agent_hour_text(answer: dict | None) -> str:
    """"$0.123" per agent-hour; "n/a" for a plan without an agentic answer or without a cost."""
    cost = None if answer is None else answer["cost_per_agent_hour_usd"]
    return "n/a" if cost is None else f"${cost:,.3f}"


def agents_line(answer: dict) -> str:
    """The Decision view's line for a plan with an agentic class: "Agents (class coding): 11.6 concurrent per
    device, 5,432 per MW, $0.123 per agent-hour; prefix hit rate 95.4 % (KV offload to host memory, ...)"."""
    return (f"Agents (class {answer['class']}): {answer['concurrent_sessions_per_device']:,.3g} concurrent per device, "
            f"{agents_per_mw_text(answer)} per MW, {agent_hour_text(answer)} per agent-hour; prefix hit rate "
            f"{percent(answer['achieved_prefix_hit_rate'])} ({offload_words(answer['kv_offload'], answer['kv_routing'])})")


def agentic_sentence(answer: dict) -> str:
    """E.g. "class coding: 11.6 concurrent sessions per device (92.6 per replica, ...), prefix hit rate 95.4 %
    (HBM 70.0 %, host 25.4 %, NVMe 0.0 %), ..."."""
    tiers = answer["hit_rate_by_tier"]
    basis = {"sessions_per_replica": "the plan's sessions per replica", "operating_batch": "the plan's operating batch",
             "hbm_knee": "the HBM knee"}[answer["sessions_basis"]]
    cost = answer["cost_per_agent_hour_usd"]
    return (f"class {answer['class']}: {answer['concurrent_sessions_per_device']:,.3g} concurrent sessions per device "
            f"({answer['sessions_per_replica']:,.3g} per replica, from {basis}; the HBM knee is "
            f"{answer['hbm_knee_sessions_per_replica']:,.3g}), prefix hit rate "
            f"{percent(answer['achieved_prefix_hit_rate'])} (HBM {percent(tiers['hbm'])}, host {percent(tiers['host'])}, "
            f"NVMe {percent(tiers['nvme'])}; {offload_words(answer['kv_offload'], answer['kv_routing'])} over "
            f"{answer['replicas']} replicas), {answer['tokens_per_s_per_device']:,.0f} tokens/s per device, TTFT "
            f"{answer['ttft_s']:.3g} s, {agents_per_mw_text(answer)} agents per MW, "
            + ("cost per agent-hour n/a" if cost is None else f"{agent_hour_text(answer)} per agent-hour"))
