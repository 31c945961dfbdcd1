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
            f"{answer['ttft_s']:.3g} s, {_or_na(answer['agents_per_mw'], ',.0f')} agents per MW, "
            + ("cost per agent-hour n/a" if cost is None else f"${cost:,.3f} per agent-hour"))
