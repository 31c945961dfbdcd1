"""Speculative decoding: a draft proposes k tokens, the target verifies them in one step.

With per-token acceptance alpha, the expected tokens emitted per verified step (accepted prefix
plus the target's own next token) is

    tokens_per_step = (1 - alpha^(k+1)) / (1 - alpha)      (= k + 1 when alpha = 1; = 1 when k = 0)

(Leviathan et al. 2023, "Fast Inference from Transformers via Speculative Decoding", eq. 1).
The verify step processes k + 1 tokens per sequence (k + 1 x the compute, one weight read), and
drafting costs k x `spec_draft_cost_fraction` of a target step. It therefore helps where the step
is memory-bound (small batch) and stops helping where it is compute-bound (large batch).
"""
from __future__ import annotations

import numpy as np


def tokens_per_step(draft_tokens, acceptance):
    """Expected output tokens per verified step (tokens/step); broadcasts."""
    k = np.asarray(draft_tokens, float)
    a = np.asarray(acceptance, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        geometric = (1.0 - a ** (k + 1.0)) / (1.0 - a)
    return np.where(a >= 1.0, k + 1.0, np.where(k <= 0, 1.0, geometric))


def step_cost_multiplier(draft_tokens, draft_cost_fraction):
    """Wall-time multiplier of a verified step for drafting: 1 + k x draft_cost_fraction."""
    return 1.0 + np.asarray(draft_tokens, float) * draft_cost_fraction
