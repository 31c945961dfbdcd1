"""The published anchor on the frontier chart: a hollow diamond in the plan's colour at the nearest
shipped measurement's tokens/s per user and per device (pipeline/anchor.py), its tooltip the anchor in
words with the plan's ratio; none where a plan has no anchor."""
from __future__ import annotations

import numpy as np
import pytest

from tcoapp.present.anchor import anchor_sentence


def _shown(view):
    xs, ys = view.anchors.getData()
    log_x, log_y = view.front_axes.log
    xs, ys = np.asarray(xs, float), np.asarray(ys, float)
    return (10 ** xs if log_x else xs), (10 ** ys if log_y else ys)


# a plan the shipped measurements anchor: DeepSeek-R1 FP8 on B200, 1k/1k (InferenceX rows)
ANCHORED = {"model": "DeepSeek-R1", "weight_precision": "fp8", "kv_precision": "fp8", "search_precisions": "fp8",
            "input_tokens": 1024, "output_tokens": 1024, "min_tokens_per_s_per_user": 50.0}


def test_each_anchored_plan_has_its_marker_on_the_frontier_chart(window):
    view, doc = window.performance, window.document
    b200 = next(i for i, p in enumerate(doc.scenario.plans) if p.device == "B200")
    assert doc.set_plan_values(b200, ANCHORED) is None
    doc.set_current_index(b200)
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))
    current = doc.scenario.plans[doc.current_index]
    same = [i for i, p in enumerate(doc.scenario.plans) if (p.device, p.model) == (current.device, current.model)]
    anchored = [i for i in same if (doc.results[i].published_anchor or {}).get("tokens_per_s_per_user")]
    assert anchored == [b200]
    xs, ys = _shown(view)
    assert len(xs) == len(anchored)
    for k, i in enumerate(anchored):
        anchor = doc.results[i].published_anchor
        assert xs[k] == pytest.approx(anchor["tokens_per_s_per_user"], rel=1e-9)
        assert ys[k] == pytest.approx(anchor["value"], rel=1e-9)
    tip = view._anchor_tip(0, 0, anchored[0])
    anchor = doc.results[anchored[0]].published_anchor
    assert anchor_sentence(anchor) in tip and anchor["source"] in tip and f"{anchor['ratio']:.2f}x" in tip


def test_a_plan_without_an_anchor_has_no_marker(window):
    """The default plans (Llama-3.3-70B at the default lengths) have no shipped measurement near them."""
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))
    view, doc = window.performance, window.document
    assert doc.results[doc.current_index].published_anchor is None
    assert len(_shown(view)[0]) == 0
    assert view._anchor_tip(0, 0, doc.current_index) == ""
