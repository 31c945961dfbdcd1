"""The shipped catalog: every row sourced, estimates named, rack-scale systems unambiguous."""
import pytest
from tcoapp.engine.quantities.inputs import DEVICE_FIELDS, MODEL_FIELDS
from tcoapp.io.catalog import load_catalog

REQUIRED_DEVICES = {"H100-SXM", "H200-SXM", "B200", "B300", "GB200-NVL72", "GB300-NVL72", "MI300X", "MI325X",
                    "MI355X", "Gaudi3", "Corsair"}
REQUIRED_MODELS = {"Llama-3.1-8B", "Llama-3.3-70B", "Llama-2-70B", "Llama-3.1-405B", "DeepSeek-R1", "gpt-oss-120b"}


def test_required_entries_present():
    catalog = load_catalog()
    assert REQUIRED_DEVICES <= set(catalog.devices)
    assert REQUIRED_MODELS <= set(catalog.models)
    assert any("Nemotron" in name for name in catalog.models)


def test_every_row_has_a_source_and_valid_estimate_names():
    catalog = load_catalog()
    device_keys = {f.name for f in DEVICE_FIELDS}
    model_keys = {f.name for f in MODEL_FIELDS}
    for entries, keys in ((catalog.devices, device_keys), (catalog.models, model_keys)):
        for entry in entries.values():
            assert len(entry.source) > 20, entry.name
            named = [k for k in entry.estimated_fields.split(";") if k]
            assert set(named) <= keys, (entry.name, named)


def test_prices_and_idle_power_are_marked_estimates():
    for device in load_catalog().devices.values():
        marked = set(device.estimated_fields.split(";"))
        assert {"price_usd", "idle_w"} <= marked, device.name


def test_rack_scale_systems_are_one_server_per_rack():
    devices = load_catalog().devices
    for name in ("GB200-NVL72", "GB300-NVL72"):
        d = devices[name]
        assert d.devices_per_server == 72 and d.scale_up_domain == 72
        rack_kw = (72 * d.tdp_w + d.server_overhead_w) / 1000
        assert 100 <= rack_kw <= 140
        assert "rack" in d.notes.lower()


def test_moe_and_mla_models():
    models = load_catalog().models
    r1 = models["DeepSeek-R1"]
    assert (r1.n_experts, r1.experts_per_token, r1.mla_latent_dim) == (256, 8, 576)
    assert r1.active_params_b < r1.total_params_b
    oss = models["gpt-oss-120b"]
    assert (oss.n_experts, oss.experts_per_token) == (128, 4)


def test_agentic_coding_moe_models_are_consistent_with_their_configs():
    """Issue 11: totals and actives computed from the published configs; one routed expert over its
    layers must equal 3 x hidden x moe_intermediate x MoE layers (the catalog's decomposition)."""
    from tcoapp.engine.performance.memory import architecture
    models = load_catalog().models
    expected = {  # name: (hidden, moe_intermediate, MoE layers, experts, per token)
        "Kimi-K2": (7168, 2048, 60, 384, 8),
        "Qwen3-235B": (4096, 1536, 94, 128, 8),
        "Qwen3-Coder-480B": (6144, 2560, 62, 160, 8),
    }
    for name, (hidden, inter, layers, experts, k) in expected.items():
        model = models[name]
        assert (model.n_experts, model.experts_per_token, model.hidden_size) == (experts, k, hidden)
        assert architecture(model).expert_params == pytest.approx(3 * hidden * inter * layers, rel=5e-3), name
        assert "COMPUTED" in model.source and "config.json" in model.source
    assert models["Kimi-K2"].mla_latent_dim == 576 and models["Kimi-K2"].qk_rope_head_dim == 64


def test_2026_models_match_their_configs_and_attention_groups():
    """The 2026 models: the catalog's expert decomposition equals 3 x hidden x moe_intermediate x MoE
    layers from each config, the attention layer groups are the config's, every derived field is
    marked, and a model serving with an MTP head says so (MiniMax-M2 publishes none)."""
    from tcoapp.engine.performance.memory import architecture
    models = load_catalog().models
    expected = {  # name: (hidden, moe_intermediate, MoE layers, experts, per token)
        "DeepSeek-V3.2": (7168, 2048, 58, 256, 8), "Kimi-K2.5": (7168, 2048, 60, 384, 8),
        "GLM-4.6": (5120, 1536, 89, 160, 8), "GLM-5": (6144, 2048, 75, 256, 8),
        "MiniMax-M2": (3072, 1536, 62, 256, 8), "Qwen3-Next-80B-A3B": (2048, 512, 48, 512, 10),
        "Qwen3.5-397B-A17B": (4096, 1024, 60, 512, 10), "DeepSeek-V4-Flash": (4096, 2048, 43, 256, 6),
    }
    for name, (hidden, inter, layers, experts, k) in expected.items():
        model = models[name]
        assert (model.n_experts, model.experts_per_token, model.hidden_size) == (experts, k, hidden)
        assert architecture(model).expert_params == pytest.approx(3 * hidden * inter * layers, rel=5e-3), name
        if name != "DeepSeek-V4-Flash":  # its totals are the technical report's, not counted here
            assert {"total_params_b", "active_params_b"} <= set(model.estimated_fields.split(";")), name
        assert "config" in model.source and model.max_context_tokens >= 163840, name
    groups = {name: (m.sparse_attention_layers, m.sparse_top_k_tokens, m.indexer_heads, m.indexer_head_dim,
                     m.linear_attention_layers, m.linear_attention_heads) for name, m in models.items()}
    assert groups["DeepSeek-V3.2"] == (61, 2048, 64, 128, 0, 0)
    assert groups["GLM-5"] == (78, 2048, 32, 128, 0, 0)
    assert groups["DeepSeek-V4-Flash"] == (20, 512, 64, 128, 0, 0)
    v4 = models["DeepSeek-V4-Flash"]
    assert (v4.sparse_compression_ratio, v4.compressed_attention_layers, v4.compressed_attention_ratio,
            v4.compressed_window_tokens, v4.sliding_window_layers, v4.sliding_window_tokens) == (4, 20, 128, 128, 3, 128)
    assert groups["Qwen3-Next-80B-A3B"] == (0, 0, 0, 0, 36, 32)
    assert groups["Qwen3.5-397B-A17B"] == (0, 0, 0, 0, 45, 64)
    assert models["Qwen3-Next-80B-A3B"].linear_state_values == 32 * 128 * 128 + 3 * (2 * 16 * 128 + 32 * 128)
    assert all(g == (0, 0, 0, 0, 0, 0) for name, g in groups.items() if name not in
               ("DeepSeek-V3.2", "GLM-5", "DeepSeek-V4-Flash", "Qwen3-Next-80B-A3B", "Qwen3.5-397B-A17B"))
    for name in ("DeepSeek-V3.2", "DeepSeek-V4-Flash", "GLM-4.6", "GLM-5", "Qwen3-Next-80B-A3B", "Qwen3.5-397B-A17B"):
        assert "MTP head" in models[name].spec_decode_draft, name
    assert models["MiniMax-M2"].spec_decode_draft == "" and "MTP" in models["MiniMax-M2"].notes
