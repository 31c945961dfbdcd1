"""Speculative decoding: a drafter proposes k tokens, the target verifies them in one step.

With per-token acceptance alpha, the expected tokens emitted per verified step (accepted prefix
plus the target's own next token) is

    tokens_per_step = (1 - alpha^(k+1)) / (1 - alpha)      (= k + 1 when alpha = 1; = 1 when k = 0)

(Leviathan et al. 2023, "Fast Inference from Transformers via Speculative Decoding", eq. 1).

What a step costs (docs/model.md, "Speculative decoding"; roofline.py computes it):
- the verify pass is the target's decode step over B x (k + 1) tokens: GEMM rows, routed tokens
  (and so experts touched), attention math over k + 1 query positions, all-reduce / all-to-all
  bytes and per-sequence sampling all grow k + 1-fold; the weights and the KV cache are read once
  per step (the verify kernels tile the k + 1 query rows of a sequence together);
- the drafter runs k times per step, each a decode step of its own at B tokens: its weights,
  its KV cache (one layer) and its math, one layer's overhead and `spec_draft_cost_fraction` of
  the target's fixed step overhead (its launches and argmax sampling), plus per-sequence sampling.
  `drafter_architecture` gives its size: an MTP head (DeepSeek-V3/R1) is one more decoder layer
  of the target (its routed experts included) with the target's LM head; an EAGLE-3 drafter is one
  dense decoder layer of the target's hidden width with its fusion layer and its own LM head over a
  32,000-token draft vocabulary.

So speculation pays where the step is memory- or overhead-bound (small batch, long context) and
stops paying, then loses, where the verify pass turns compute-bound (large batch).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

# EAGLE-3's released drafters predict over a reduced draft vocabulary of 32,000 tokens
# (yuhuili/EAGLE3-LLaMA3.3-Instruct-70B config.json: draft_vocab_size 32000; EAGLE-3, Li et al. 2025,
# arXiv:2503.01840); their decoder layer is a Llama layer of the target's hidden width.
EAGLE_DRAFT_VOCAB = 32000
DENSE_LAYER_PARAMS_PER_HIDDEN2 = 12.0   # one dense decoder layer: 4 h^2 attention + 8 h^2 MLP (SwiGLU at ~2.7 h)
EAGLE_FUSION_PARAMS_PER_HIDDEN2 = 3.0   # EAGLE-3 fuses three target hidden states: a 3h x h projection
MTP_PROJECTION_PARAMS_PER_HIDDEN2 = 2.0  # DeepSeek-V3 MTP module: eh_proj, 2h x h (arXiv:2412.19437 sec. 2.2)

# the drafter's one layer is a full-attention layer: no sparse, compressed or linear groups
_ONE_FULL_LAYER = {"sparse_layers": 0, "linear_layers": 0, "compressed_layers": 0}


def tokens_per_step(draft_tokens, acceptance):
    """Expected output tokens per verified step (tokens/step); broadcasts."""
    k = np.asarray(draft_tokens, float)
    a = np.asarray(acceptance, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        geometric = (1.0 - a ** (k + 1.0)) / (1.0 - a)
    return np.where(a >= 1.0, k + 1.0, np.where(k <= 0, 1.0, geometric))


def drafter_kind(spec_decode_draft: str) -> str:
    """'mtp' where the model's published draft is a multi-token-prediction head (the catalog's
    `spec_decode_draft` names it), else 'eagle' (a small draft model: EAGLE-3, or a draft typed by
    hand for a model with none published, costed as an EAGLE-3 drafter)."""
    return "mtp" if "mtp" in (spec_decode_draft or "").lower() else "eagle"


def drafter_architecture(arch, kind: str, vocab_size: int):
    """The drafter as a one-layer `Architecture` (memory.Architecture) the roofline runs once per draft
    token: 'mtp' one decoder layer of the target (its share of the non-embedding shared weights and its
    routed experts, the target's KV per layer) plus a 2h x h projection and the target's LM head
    (vocab x h); 'eagle' one dense layer of the target's hidden width (12 h^2), the 3h x h fusion and a
    32,000-token LM head, with the target's KV per layer."""
    h = float(arch.hidden_size)
    layers = max(int(arch.n_layers), 1)
    embeddings = 2.0 * float(vocab_size) * h            # input embedding + LM head of the target
    kv_per_layer = arch.kv_values_per_token / layers
    if kind == "mtp":
        shared = max(arch.shared_params - embeddings, 0.0) / layers + MTP_PROJECTION_PARAMS_PER_HIDDEN2 * h * h \
            + float(vocab_size) * h
        expert = arch.expert_params / layers
        active = shared + arch.experts_per_token * expert
        return replace(arch, active_params=active, shared_params=shared, expert_params=expert, n_layers=1,
                       kv_values_per_token=kv_per_layer, sliding_window_layers=0, sliding_window_tokens=0,
                       **_ONE_FULL_LAYER)
    params = (DENSE_LAYER_PARAMS_PER_HIDDEN2 + EAGLE_FUSION_PARAMS_PER_HIDDEN2) * h * h + EAGLE_DRAFT_VOCAB * h
    return replace(arch, active_params=params, shared_params=params, expert_params=0.0, n_experts=0,
                   experts_per_token=0, n_layers=1, kv_values_per_token=kv_per_layer, is_mla=arch.is_mla,
                   sliding_window_layers=0, sliding_window_tokens=0,
                       **_ONE_FULL_LAYER)
