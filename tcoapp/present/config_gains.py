"""A plan's configuration gains in words (pipeline/config_gains.py gives them): its tokens/s per device as
the validated base times each configuration's gain, the same sentence on the command line, the Bridge tab
and the report."""
from __future__ import annotations


def _gain(value) -> str:
    return "n/a" if value is None else f"{value:.2f}x"


def gains_sentence(gains: dict) -> str:
    """"2,815 tokens/s per device = validated base 1,205 (TP2, fp8 weights, fp8 KV, no draft tokens,
    aggregated) x speculative decoding 2.34x (3 draft tokens at acceptance 0.714) x FP4 KV cache 1.00x x
    disaggregation 1.00x" ("(the search's best TP4, ...)" where the base was searched); where a step has no
    operating point, says that the target is met only with it."""
    base = gains.get("validated_base_tokens_per_s_per_device")
    head = f"{gains['tokens_per_s_per_device']:,.0f} tokens/s per device = validated base "
    head += (f"{base:,.0f}" if base is not None else "none (the target is not met without the terms below)")
    searched = "the search's best " if gains.get("base_searched") else ""
    head += f" ({searched}{gains['base_configuration']})"
    terms = [f"{g['term']} {_gain(g['gain'])}" + (f" ({g['setting']})" if g["used"] else "") for g in gains["gains"]]
    return " x ".join([head] + terms)


def assumed_share(gains: dict) -> float | None:
    """The share of the plan's tokens/s per device that the configuration gains add over the validated
    base (1 - base / plan); None without a base."""
    base = gains.get("validated_base_tokens_per_s_per_device")
    total = gains.get("tokens_per_s_per_device")
    return None if base is None or not total else 1.0 - base / total
