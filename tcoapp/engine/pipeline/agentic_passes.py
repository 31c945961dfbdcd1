"""A plan with an agentic request class serves what its memory allows (docs/model.md, "A plan's agentic
answer"): the fixed point between the rate the plan serves its agentic class at and the rate its sessions
reach at the operating point that rate gives.

A pass serves the class at hit rate h (and its requests' prefix reload); its operating batch B(h) rises
with h (less prefill per request: a target allows more sequences), and the sessions that keep B(h) in
service reach g(B(h)), which falls with B (more sessions, less KV memory each). So g(B(h)) - h falls with h
and has one crossing:

- usually the second pass reaches the rate it was served (within 1e-9): done;
- past the HBM knee the crossing sits on the cliff (a higher rate allows a batch whose sessions no longer fit,
  a lower one a batch whose sessions all do) and the passes alternate: the crossing is bisected in h, and
  the plan is served at the highest rate its sessions reach at the batch it allows (the lower end of the
  bracket, KNEE_STEPS halvings wide), never at a rate they do not reach.
"""
from __future__ import annotations

from typing import Callable

from .agentic_block import sessions_hit_rate

PASSES = 3          # passes after the first before the crossing is bisected (the usual case settles in one)
KNEE_STEPS = 10     # halvings of the bracket at the knee: its width 2^-10 of the alternating rates' gap
SETTLED = 1e-9      # relative: a pass's sessions reach the rate and reload it served


def _reached(result) -> float:
    return float(result.agentic["achieved_prefix_hit_rate"])


def _settled(applied, now) -> bool:
    """Whether a pass's sessions reached the (hit rate, {class: reload s}) it was served at."""
    (rate, reloads), (rate_now, reloads_now) = applied, now
    close = lambda a, b: abs(a - b) <= SETTLED * max(abs(a), abs(b), 1e-12)  # noqa: E731
    return close(rate, rate_now) and reloads.keys() == reloads_now.keys() and all(
        close(reloads[k], reloads_now[k]) for k in reloads)


def _noted(result, note: str):
    from dataclasses import replace
    return replace(result, warnings=tuple(dict.fromkeys(result.warnings + (note,))))


def served_by_sessions(plan, first, one_pass: Callable):
    """The plan's result served at its sessions' rate (module docstring); `first` the pass at the plan's own
    rate, `one_pass(classes, reloads)` a pass with the class's rate and reloads replaced."""
    served = sessions_hit_rate(plan, first.agentic)
    if served is None:
        return first
    result, passes = first, {}
    for _ in range(PASSES):
        classes, note, reloads = served
        applied = (_reached(result), reloads)
        result = one_pass(classes, reloads)
        passes[applied[0]] = (result, note)
        served = sessions_hit_rate(plan, result.agentic)
        if served is None or _settled(applied, (_reached(result), served[2])):
            return _noted(result, note)
    return _at_the_knee(plan, passes, one_pass)


def _at_the_knee(plan, passes: dict, one_pass: Callable):
    """Bisect the rate between a pass whose sessions reach more than it served (low) and one whose reach less
    (high); the plan served at the low end (module docstring)."""
    low = max((h for h, (r, _) in passes.items() if _reached(r) >= h), default=0.0)
    high = min((h for h, (r, _) in passes.items() if _reached(r) < h), default=1.0)
    if low not in passes:
        passes[low] = _pass_at(plan, low, passes, one_pass)
    for _ in range(KNEE_STEPS):
        h = 0.5 * (low + high)
        passes[h] = _pass_at(plan, h, passes, one_pass)
        low, high = (h, high) if _reached(passes[h][0]) >= h else (low, h)
    result, note = passes[low]
    above = passes.get(high)
    tail = (f"; its sessions sit at the HBM knee, so it is served at {low:.4f}: the highest rate whose batch its "
            f"sessions' KV still holds (they reach {_reached(result):.4f} there)")
    if above is not None:
        tail += (f"; at {high:.4f} the batch grows past the knee and they would reach only "
                 f"{_reached(above[0]):.4f}")
    return _noted(result, note + tail)


def _pass_at(plan, rate: float, passes: dict, one_pass: Callable):
    """(the pass serving the class at `rate`, its note), with the prefix reload of the nearest pass below."""
    nearest = max((h for h in passes if h <= rate), default=min(passes))
    reload_s = float(passes[nearest][0].agentic.get("turn_reload_s") or 0.0)
    served = sessions_hit_rate(plan, {"achieved_prefix_hit_rate": rate, "turn_reload_s": reload_s})
    if served is None:   # the class states this very rate and reloads nothing: the plan as it is
        return one_pass(plan.workloads, {}), ""
    classes, note, reloads = served
    return one_pass(classes, reloads), note
