"""Speculative decoding: a drafter proposes k tokens, the target verifies them in one step.

Draft position i is kept only when positions 1..i are all accepted, so with a_i the acceptance of
position i given the ones before it, the expected tokens emitted per verified step (accepted prefix
plus the target's own next token) is

    tokens_per_step = 1 + sum_{i=1..k} a_1 x a_2 x ... x a_i

(Leviathan et al. 2023, "Fast Inference from Transformers via Speculative Decoding", eq. 1, where
every a_i is one alpha: (1 - alpha^(k+1)) / (1 - alpha)). The chain here: a_1 = alpha (the plan's
acceptance, the model's published one by default) and a_i = alpha x r for i >= 2, r the drafter's
later-position ratio:

    tokens_per_step = 1 + alpha x (1 - (alpha r)^k) / (1 - alpha r)      (= k + 1 when alpha = r = 1)

- an EAGLE-3 drafter is trained on its own chained positions and its published alpha is already the
  one rate whose chain of K = 7 gives the published acceptance length: r = 1;
- a native MTP head (DeepSeek-V3/R1) is trained for the next-but-one token only and is reused
  autoregressively for later positions, where it accepts less: r = MTP_LATER_POSITION_RATIO
  (below), so the chain's later positions run at about 0.59 where the first runs at 0.875.

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

# A native MTP head reused for draft positions 2..k: their acceptance (each given the ones before it)
# over the first position's. The first position accepts 0.875 (DeepSeek-V3 Technical Report,
# arXiv:2412.19437 sec. 5.4.3: 85-90 % for the second token, one draft token); the original
# DeepSeek-V3 MTP module reused autoregressively at K = 7 draft tokens reaches an average acceptance
# length of 3.09 at temperature 1 over MT-bench, HumanEval and GSM8K (3.20 at temperature 0;
# https://huggingface.co/nebius/MTP-DeepSeek-V3-0324 model card, "Original MTP", accessed 2026-12).
# 1 + 0.875 x (1 - a^7) / (1 - a) = 3.09 gives a = 0.592 for the later positions: r = 0.592 / 0.875.
# (Temperature 1, as the EAGLE-3 rows of resources/catalog/spec_acceptance.csv; temperature 0 gives 0.70.)
MTP_LATER_POSITION_RATIO = 0.677
DRAFT_LATER_POSITION_RATIO = {"mtp": MTP_LATER_POSITION_RATIO, "eagle": 1.0}


def tokens_per_step(draft_tokens, acceptance, later_ratio=1.0):
    """Expected output tokens per verified step (tokens/step), the chained acceptance of the module
    docstring: position 1 at `acceptance`, positions 2..k at `acceptance` x `later_ratio`; broadcasts."""
    k = np.asarray(draft_tokens, float)
    a = np.asarray(acceptance, float)
    later = np.minimum(a * np.asarray(later_ratio, float), 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        chain = 1.0 + a * (1.0 - later ** k) / (1.0 - later)
    return np.where(k <= 0, 1.0, np.where(later >= 1.0, 1.0 + a * k, chain))


def later_position_ratio(kind: str) -> float:
    """The later-position acceptance ratio r of a drafter kind ('mtp' or 'eagle'; module docstring)."""
    return DRAFT_LATER_POSITION_RATIO[kind]


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
