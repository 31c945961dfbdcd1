"""The widest serving search (docs/model.md, "Serving search"): what new plans and the built-in
default scenario start with, what `frontier_share` measures a plan against, and what the Decision
view's "Search this plan" button sets.

Every precision is listed: the search itself tries only those the device runs (docs/model.md), so
the widest list is the device's own space. Speculative decoding is tried up to 3 draft tokens (the
frontier lines of the Performance and Decision charts sweep 0 and 3) where the plan's draft
acceptance rate is above 0 or empty (the model's published rate).
"""
from __future__ import annotations

from ..quantities.inputs import PLAN_FIELD_BY_NAME, PRECISIONS

WIDEST_PRECISIONS = ";".join(PRECISIONS)
WIDEST_DRAFT_TOKENS = 3
LOW_SHARE = 0.8   # below this share of its frontier a plan is warned "far below its frontier" (serving/frontier_share.py)


def widest_search(plan_values) -> dict:
    """The plan keys that make a plan search the widest space (a mapping of the plan's values in,
    the changes out): serving_search = auto, every precision, draft tokens up to 3 where the plan has
    an acceptance rate above 0 or leaves it empty (kept at the plan's own maximum where that is larger)."""
    value = lambda key: plan_values.get(key, PLAN_FIELD_BY_NAME[key].default)  # noqa: E731 - a key not given: its default
    acceptance = value("spec_decode_acceptance")   # empty: the model's published acceptance
    own = int(value("search_max_draft_tokens") or 0)
    drafts = max(own, WIDEST_DRAFT_TOKENS) if acceptance is None or float(acceptance) > 0 else own
    return {"serving_search": "auto", "search_precisions": WIDEST_PRECISIONS, "search_max_draft_tokens": drafts}
