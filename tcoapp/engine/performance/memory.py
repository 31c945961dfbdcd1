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

Attention per layer group (docs/model.md "Attention per layer group"): of the n_layers, `linear`
layers (Gated DeltaNet, Lightning, Mamba) hold a fixed state per sequence, `window` layers keep
min(context, window) tokens, the rest are full-attention layers (MHA/GQA or MLA), of which `sparse`
layers (DSA; DeepSeek-V4's CSA with entries of r_s tokens) store every entry but read only
min(c / r_s, top_k) of them, plus their indexer's key (indexer_head_dim values per entry) over all
entries, and `compressed` layers (DeepSeek-V4's HCA) attend densely to entries of r_c tokens; sparse
and compressed layers also keep the last `recent` = min(c, compressed_window_tokens) raw tokens:
    kv_values(c)      = per_layer x (dense x c + sparse x (c / r_s + recent) + compressed x (c / r_c
                        + recent) + window x min(c, W)) + sparse x indexer_dim x c / r_s
    kv_read_values(c) = the same with c / r_s capped at top_k             (dense = full - sparse - compressed)
    state_bytes       = linear x linear_state_values x linear_state_bytes (constant in c; read and
                        written once per decode step)
    attention FLOPs per decoded token = per_layer_flops x (the entries kv_read_values counts)
                        + sparse x 2 x indexer_heads x indexer_dim x c / r_s
                        + linear x LINEAR_FLOPS_PER_STATE_VALUE x linear_state_values
A model without sparse, compressed or linear layers takes the expressions above it, unchanged.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np

from .spec_decode import drafter_architecture, drafter_kind, later_position_ratio

# FLOPs per state value per token of a linear-attention layer: three products over the state of the
# gated delta rule (S k, the rank-one update (v - S k) k^T, the read-out S q), 2 FLOPs per
# multiply-add; Mamba-2 and Lightning attention do two (an upper bound for them).
LINEAR_FLOPS_PER_STATE_VALUE = 6.0


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
    draft_later_ratio: float = 1.0          # its draft positions 2..k accept alpha x this (spec_decode.py)
    sparse_layers: int = 0           # full-attention layers reading only top-k tokens (DSA)
    sparse_top_k_tokens: int = 0
    indexer_heads: int = 0
    indexer_head_dim: int = 0        # indexer key values per token per sparse layer
    linear_layers: int = 0           # linear / recurrent layers with a fixed state per sequence
    linear_state_values: float = 0.0  # per sequence per linear layer
    linear_heads: int = 0
    linear_state_bytes: float = 2.0
    sparse_compression_ratio: float = 1.0  # tokens per KV entry of a sparse layer (CSA: 4)
    compressed_layers: int = 0       # dense over entries of `compressed_ratio` tokens (HCA)
    compressed_ratio: float = 0.0
    compressed_window_tokens: int = 0  # recent raw tokens a sparse or compressed layer also keeps

    @property
    def has_layer_groups(self) -> bool:
        """Whether the model has sparse, compressed or linear attention layers (else the expressions of
        a model of full and sliding-window layers apply, unchanged)."""
        return self.sparse_layers > 0 or self.linear_layers > 0 or self.compressed_layers > 0

    def _group_tokens(self, context, read: bool):
        """Per-layer-equivalent KV entries of the softmax-attention layers at `context` c:
        dense x c + sparse x (c / ratio_s + recent) + compressed x (c / ratio_c + recent) + window x
        min(c, W), recent = min(c, compressed_window_tokens); where `read` (what a step reads and
        multiplies) a sparse layer's entries are capped at its top-k."""
        c = np.asarray(context, float)
        full = self.n_layers - self.sliding_window_layers - self.linear_layers
        window = self.sliding_window_layers * np.minimum(c, float(self.sliding_window_tokens))
        recent = np.minimum(c, float(self.compressed_window_tokens))
        entries = c / self.sparse_compression_ratio
        if read:
            entries = np.minimum(entries, float(self.sparse_top_k_tokens))
        compressed = c / self.compressed_ratio if self.compressed_layers > 0 else 0.0 * c
        return ((full - self.sparse_layers - self.compressed_layers) * c + self.sparse_layers * (entries + recent)
                + self.compressed_layers * (compressed + recent) + window)

    @property
    def _kv_per_layer(self) -> float:
        return self.kv_values_per_token / self.n_layers

    def kv_read_values(self, context_tokens):
        """KV-cache values one decode step reads per sequence at `context_tokens` (broadcasts): the
        stored values, except that a sparse layer reads min(its entries, top_k) entries (its indexer's
        keys over all of them)."""
        if not self.has_layer_groups:
            return self.kv_values(context_tokens)
        return self._kv_per_layer * self._group_tokens(context_tokens, True) + self.indexer_values(context_tokens)

    def indexer_values(self, context_tokens):
        """Indexer keys one sequence holds (and a step reads) at `context_tokens`: sparse layers x
        indexer_head_dim x entries."""
        return self.sparse_layers * self.indexer_head_dim * np.asarray(context_tokens, float) / self.sparse_compression_ratio

    @property
    def state_bytes(self) -> float:
        """Bytes of the linear layers' fixed state one sequence holds, whatever its context."""
        return self.linear_layers * self.linear_state_values * self.linear_state_bytes

    def decode_attention_flops(self, context_tokens):
        """Attention FLOPs of one decoded token at `context_tokens` of context (broadcasts): QK^T and
        AV over the tokens each layer reads, the indexer's scores over the whole context, and the
        linear layers' constant state update."""
        if not self.has_layer_groups:
            return self.decode_attention_flops_per_context_token * (self.kv_values(context_tokens) / self.kv_values_per_token)
        per_layer = self.decode_attention_flops_per_context_token / self.n_layers
        return (per_layer * self._group_tokens(context_tokens, True) + self._indexer_flops(context_tokens)
                + self.linear_layers * LINEAR_FLOPS_PER_STATE_VALUE * self.linear_state_values)

    def _indexer_flops(self, context_tokens):
        return (2.0 * self.sparse_layers * self.indexer_heads * self.indexer_head_dim * np.asarray(context_tokens, float)
                / self.sparse_compression_ratio)

    def prefill_attention_flops(self, new_tokens, mean_context_tokens):
        """Attention FLOPs of a prefill of `new_tokens` whose queries see `mean_context_tokens` keys on
        average: pairs x FLOPs per pair (sliding windows and sparse top-k capped), plus the indexer's
        scores over the whole context and the linear layers' work per new token."""
        if not self.has_layer_groups:
            return self.prefill_attention_flops_per_token_pair * self.prefill_pairs(new_tokens, mean_context_tokens)
        new = np.asarray(new_tokens, float)
        per_layer = self.prefill_attention_flops_per_token_pair / self.n_layers
        return new * (per_layer * self._group_tokens(mean_context_tokens, True) + self._indexer_flops(mean_context_tokens)
                      + self.linear_layers * LINEAR_FLOPS_PER_STATE_VALUE * self.linear_state_values)

    def kv_values(self, context_tokens):
        """KV-cache values one sequence holds at `context_tokens` of context (broadcasts), the linear
        layers' fixed state apart (`state_bytes`)."""
        context = np.asarray(context_tokens, float)
        if self.has_layer_groups:
            return self._kv_per_layer * self._group_tokens(context, False) + self.indexer_values(context)
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
    """Decompose a ModelSpec (params in billions) into the quantities of the roofline (an immutable
    record, kept per model: a search asks for it at every candidate)."""
    try:
        return _architecture_of(model)
    except TypeError:   # a model record that cannot be hashed (duck-typed in a test): built each time
        return _architecture(model)


@functools.lru_cache(maxsize=64)
def _architecture_of(model) -> Architecture:
    return _architecture(model)


def _architecture(model) -> Architecture:
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
                          int(getattr(model, "qk_rope_head_dim", 0) or 0), **_layer_groups(model))
    kind = drafter_kind(getattr(model, "spec_decode_draft", ""))
    return replace(target, drafter=drafter_architecture(target, kind, int(getattr(model, "vocab_size", 0) or 0)),
                   draft_later_ratio=later_position_ratio(kind))


def _layer_groups(model) -> dict:
    """The sparse, compressed and linear layer groups of a ModelSpec (absent attributes: none)."""
    value = lambda name, default=0: getattr(model, name, default) or default  # noqa: E731
    return {"sparse_layers": int(value("sparse_attention_layers")), "sparse_top_k_tokens": int(value("sparse_top_k_tokens")),
            "indexer_heads": int(value("indexer_heads")), "indexer_head_dim": int(value("indexer_head_dim")),
            "linear_layers": int(value("linear_attention_layers")), "linear_state_values": float(value("linear_state_values")),
            "linear_heads": int(value("linear_attention_heads")), "linear_state_bytes": float(value("linear_state_bytes", 2.0)),
            "sparse_compression_ratio": float(value("sparse_compression_ratio", 1)),
            "compressed_layers": int(value("compressed_attention_layers")),
            "compressed_ratio": float(value("compressed_attention_ratio")),
            "compressed_window_tokens": int(value("compressed_window_tokens"))}


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


def kv_device_bytes(arch: Architecture, batch, context_tokens, kv_bytes, devices, attention_dp, read=False):
    """Bytes of the KV cache (and linear state) one device holds (`read` False) or reads and writes in
    one decode step (`read` True) for `batch` sequences at `context_tokens`:
        batch x kv_values(c) x kv_bytes / kv_split                          (full and window layers)
    with sparse, compressed or linear layers: batch x (kv_values(c) or kv_read_values(c)) x kv_bytes / kv_split, the
    indexer keys split only by attention-DP (one key head), plus the state: batch x state_bytes /
    state_split (x 2 where read: read and written back), state_split = N under attention-DP, else
    min(N, linear_attention_heads)."""
    if not arch.has_layer_groups:
        return batch * arch.kv_values(context_tokens) * kv_bytes / kv_split(arch, devices, attention_dp)
    devices = np.asarray(devices, float)
    indexer = arch.indexer_values(context_tokens)
    attention = (arch.kv_read_values(context_tokens) if read else arch.kv_values(context_tokens)) - indexer
    adp_ways = np.where(attention_dp, devices, 1.0)
    state_ways = np.where(attention_dp, devices, np.minimum(devices, max(arch.linear_heads, 1)))
    per_sequence = (attention * kv_bytes / kv_split(arch, devices, attention_dp) + indexer * kv_bytes / adp_ways
                    + arch.state_bytes * (2.0 if read else 1.0) / state_ways)
    return np.asarray(batch, float) * per_sequence


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
    (with sparse, compressed or linear layers: / kv_device_bytes of one sequence, the linear state included)
    0 where the weights alone do not fit.
    """
    free = memory_gb * 1e9 * usable_fraction - weight_bytes_per_device(arch, devices, attention_dp, weight_bytes,
                                                                       shared_weight_bytes)
    per_sequence = kv_device_bytes(arch, 1.0, context_tokens, kv_bytes, devices, attention_dp)
    return np.maximum(np.floor(free / per_sequence), 0.0)
