"""Model architecture in the units the roofline needs: parameters by kind, KV-cache bytes, capacity.

MoE decomposition from the catalog's totals (E routed experts, k per token):
    expert_params  = (total_params - active_params) / (E - k)   one expert, summed over its layers
    shared_params  = active_params - k x expert_params          attention, embeddings, dense and
                                                                shared-expert layers (always read)
Expected routed experts touched per MoE layer by T tokens (uniform routing):
    E_touched(T) = E x (1 - (1 - k / E)^T)
KV cache per token: GQA/MHA `2 x n_layers x n_kv_heads x head_dim` values; MLA
`n_layers x mla_latent_dim` values (DeepSeek-V3/R1: 576 = 512 latent + 64 RoPE key).
Sliding-window layers (gpt-oss: 18 of 36 layers keep 128 tokens) cache at most the window:
    kv_values(context) = kv_full_per_token x context + kv_window_per_token x min(context, window)
They are read from the model's optional `sliding_window_layers` / `sliding_window_tokens`
attributes (absent: every layer attends to the full context). In prefill the same layers attend to
at most the window: pairs = new x (full layers x context + window layers x min(context, window)) / layers.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .spec_decode import drafter_architecture, drafter_kind


@dataclass(frozen=True)
class Architecture:
    """Parameter counts (params, not billions) and attention sizes of one model."""

    active_params: float
    shared_params: float
    expert_params: float      # one routed expert across all its layers (0 for dense)
    n_experts: int
    experts_per_token: int
    n_layers: int
    hidden_size: int
    q_heads: int
    head_dim: int
    kv_values_per_token: float       # per token over all layers, as if every layer kept the full context
    is_mla: bool
    mla_latent_dim: int
    sliding_window_layers: int = 0
    sliding_window_tokens: int = 0
    qk_rope_head_dim: int = 0        # extra rotary QK width per head (MLA prefill)
    drafter: "Architecture | None" = None   # the speculative drafter as one layer (spec_decode.py)

    def kv_values(self, context_tokens):
        """KV-cache values one sequence holds at `context_tokens` of context (broadcasts)."""
        context = np.asarray(context_tokens, float)
        if self.sliding_window_layers <= 0 or self.sliding_window_tokens <= 0:
            return self.kv_values_per_token * context
        per_layer = self.kv_values_per_token / self.n_layers
        full = per_layer * (self.n_layers - self.sliding_window_layers)
        return full * context + per_layer * self.sliding_window_layers * np.minimum(context, self.sliding_window_tokens)

    def prefill_pairs(self, new_tokens, mean_context_tokens):
        """(query, key) pairs of a prefill of `new_tokens` whose queries see `mean_context_tokens` keys on
        average, averaged over the layers: a sliding-window layer sees at most its window,
        new x (full layers x context + window layers x min(context, window)) / layers."""
        pairs = np.asarray(new_tokens, float) * np.asarray(mean_context_tokens, float)
        if self.sliding_window_layers <= 0 or self.sliding_window_tokens <= 0:
            return pairs
        window = np.asarray(new_tokens, float) * np.minimum(mean_context_tokens, float(self.sliding_window_tokens))
        full = self.n_layers - self.sliding_window_layers
        return (full * pairs + self.sliding_window_layers * window) / self.n_layers

    @property
    def is_moe(self) -> bool:
        """Whether the model routes each token to some of its experts (MoE)."""
        return self.n_experts > self.experts_per_token > 0

    @property
    def stored_params(self) -> float:
        """Parameters held in memory: shared + all routed experts."""
        return self.shared_params + self.n_experts * self.expert_params

    @property
    def decode_attention_flops_per_context_token(self) -> float:
        """Attention FLOPs of one decoded token per cached context token (QK^T and AV, 2 FLOP/MAC).

        MHA/GQA: 4 x layers x q_heads x head_dim. MLA in absorbed form works on the latent:
        4 x layers x q_heads x mla_latent_dim.
        """
        width = self.mla_latent_dim if self.is_mla else self.head_dim
        return 4.0 * self.n_layers * self.q_heads * width

    @property
    def prefill_attention_flops_per_token_pair(self) -> float:
        """Prefill attention FLOPs per (query, key) pair: QK^T over the QK width (head_dim +
        qk_rope_head_dim) and AV over head_dim, 2 FLOP per MAC: 2 x layers x q_heads x (2 x head_dim +
        qk_rope_head_dim) (= 4 x layers x q_heads x head_dim without a rotary extra). MLA prefill runs
        un-absorbed: DeepSeek-V3/R1 QK is 192 wide, V 128."""
        return 2.0 * self.n_layers * self.q_heads * (2.0 * self.head_dim + self.qk_rope_head_dim)


def architecture(model) -> Architecture:
    """Decompose a ModelSpec (params in billions) into the quantities of the roofline."""
    total, active = model.total_params_b * 1e9, model.active_params_b * 1e9
    e, k = int(model.n_experts), int(model.experts_per_token)
    if e > k > 0:
        expert = (total - active) / (e - k)
        shared = active - k * expert
    else:
        expert, shared, e, k = 0.0, total, 0, 0
    is_mla = model.mla_latent_dim > 0
    kv = model.n_layers * model.mla_latent_dim if is_mla else 2.0 * model.n_layers * model.n_kv_heads * model.head_dim
    q_heads = model.n_heads or max(1, model.hidden_size // model.head_dim)
    window_layers = int(getattr(model, "sliding_window_layers", 0) or 0)
    window_tokens = int(getattr(model, "sliding_window_tokens", 0) or 0)
    target = Architecture(active, max(shared, 0.0), expert, e, k, model.n_layers, model.hidden_size,
                          q_heads, model.head_dim, float(kv), is_mla, int(model.mla_latent_dim),
                          min(window_layers, model.n_layers), window_tokens,
                          int(getattr(model, "qk_rope_head_dim", 0) or 0))
    kind = drafter_kind(getattr(model, "spec_decode_draft", ""))
    return replace(target, drafter=drafter_architecture(target, kind, int(getattr(model, "vocab_size", 0) or 0)))


def experts_touched(n_experts, experts_per_token, tokens):
    """Expected distinct routed experts one MoE layer reads for `tokens` tokens: E (1 - (1 - k/E)^T)."""
    if n_experts <= 0:
        return np.zeros_like(np.asarray(tokens, float))
    tokens = np.asarray(tokens, float)
    return n_experts * -np.expm1(tokens * np.log1p(-experts_per_token / n_experts))


def kv_split(arch: Architecture, devices, attention_dp):
    """Ways one replica's KV cache is divided across its devices.

    Attention-DP: every device holds only its own sequences -> N ways. Tensor-parallel attention
    splits KV heads -> min(N, n_kv_heads) ways (heads beyond that are replicated); an MLA latent
    is shared by all heads, so TP does not split it (1 way).
    """
    devices = np.asarray(devices, float)
    tp_split = np.ones_like(devices) if arch.is_mla else np.minimum(devices, arch.kv_values_per_token / (2.0 * arch.n_layers * arch.head_dim))
    return np.where(attention_dp, devices, tp_split)


def weight_bytes_per_device(arch: Architecture, devices, attention_dp, weight_bytes, shared_weight_bytes=None):
    """Bytes of weights stored per device: shared params at `shared_weight_bytes` per value (None:
    `weight_bytes`; replicated under attention-DP, else split N ways) + all routed experts at
    `weight_bytes` split N ways."""
    devices = np.asarray(devices, float)
    shared_bytes = weight_bytes if shared_weight_bytes is None else shared_weight_bytes
    shared_ways = np.where(attention_dp, 1.0, devices)
    return shared_bytes * arch.shared_params / shared_ways + weight_bytes * arch.n_experts * arch.expert_params / devices


def fast_tier_shares(device, weights_stored, kv_stored, usable_fraction):
    """(share of the weights, share of the KV cache) a device holds in its fast tier (SRAM): weights
    first, then the KV cache, up to fast_memory_gb x usable_fraction; (0, 0) without a fast tier."""
    fast = float(getattr(device, "fast_memory_gb", 0.0) or 0.0) * 1e9 * usable_fraction
    weights_stored, kv_stored = np.asarray(weights_stored, float), np.asarray(kv_stored, float)
    if fast <= 0:
        return 0.0 * weights_stored, 0.0 * kv_stored
    w_share = np.clip(fast / np.maximum(weights_stored, 1e-30), 0.0, 1.0)
    left = np.maximum(fast - weights_stored, 0.0)
    return w_share, np.clip(left / np.maximum(kv_stored, 1e-30), 0.0, 1.0)


def tier_seconds_per_byte(device, fast_share):
    """Read time of one byte of which `fast_share` sits in the fast tier (s/B, before efficiency):
    share / fast_bw + (1 - share) / mem_bw (each layer's bytes sit in one tier, read in turn)."""
    slow = 1.0 / (device.mem_bw_gb_s * 1e9)
    fast_bw = float(getattr(device, "fast_mem_bw_gb_s", 0.0) or 0.0)
    if fast_bw <= 0:
        return slow + 0.0 * np.asarray(fast_share, float)
    return fast_share / (fast_bw * 1e9) + (1.0 - fast_share) * slow


def capacity_gb(device) -> float:
    """Memory for weights and KV cache per device: memory_gb plus the fast tier (GB)."""
    return float(device.memory_gb) + float(getattr(device, "fast_memory_gb", 0.0) or 0.0)


def max_batch_by_memory(arch: Architecture, memory_gb, usable_fraction, devices, attention_dp,
                        weight_bytes, kv_bytes, context_tokens, shared_weight_bytes=None):
    """Largest concurrent batch per replica whose weights + KV fit in memory (sequences, floor).

        B_max = floor((memory_gb x 1e9 x usable - weight_bytes_per_device)
                      / (kv_values(context_tokens) x kv_bytes / kv_split))
    0 where the weights alone do not fit.
    """
    free = memory_gb * 1e9 * usable_fraction - weight_bytes_per_device(arch, devices, attention_dp, weight_bytes,
                                                                       shared_weight_bytes)
    per_sequence = arch.kv_values(context_tokens) * kv_bytes / kv_split(arch, devices, attention_dp)
    return np.maximum(np.floor(free / per_sequence), 0.0)
