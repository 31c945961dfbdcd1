"""Attention per layer group (docs/model.md "Attention per layer group"): sparse top-k layers with
their indexer (DeepSeek Sparse Attention), linear layers with a fixed state, from the catalog's
configs; the models without them compute exactly as before; bad values and over-long contexts are
refused with the field named."""
import numpy as np
import openpyxl
import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.performance.generated import memory_limit, run_roofline
from tcoapp.engine.performance.memory import LINEAR_FLOPS_PER_STATE_VALUE, architecture, kv_device_bytes
from tcoapp.engine.performance.pool_pair import kv_bytes_per_request
from tcoapp.engine.plan.scenario import Scenario, check_scenario
from tcoapp.engine.quantities.records import ServingConfig, Workload, make_model, make_plan
from tcoapp.io.catalog import load_catalog
from tcoapp.io.workbook_read import read_scenario
from tests.cli.workbook_factory import write_workbook

CATALOG = load_catalog()
MODELS, DEVICES = CATALOG.models, CATALOG.devices
H200 = DEVICES["H200-SXM"]
CONTEXT_128K = 131072


def test_dsa_reads_less_attention_memory_per_token_than_r1_at_128k():
    """DeepSeek-V3.2 at 128k: each of its 61 layers reads the 576-value latent of 2048 selected tokens
    plus the indexer's 128-value key of every token; DeepSeek-R1 reads the latent of every token."""
    v32, r1 = architecture(MODELS["DeepSeek-V3.2"]), architecture(MODELS["DeepSeek-R1"])
    assert float(v32.kv_read_values(CONTEXT_128K)) == 61 * (576 * 2048 + 128 * CONTEXT_128K)
    assert float(r1.kv_read_values(CONTEXT_128K)) == 61 * 576 * CONTEXT_128K
    assert float(v32.kv_read_values(CONTEXT_128K)) < float(r1.kv_read_values(CONTEXT_128K)) / 4
    # ... but it stores more: the whole latent plus the indexer keys (capacity is not flattered)
    assert float(v32.kv_values(CONTEXT_128K)) == 61 * (576 + 128) * CONTEXT_128K
    serving = ServingConfig(tensor_parallel=8)
    work = Workload(input_tokens=CONTEXT_128K - 2048, output_tokens=4096)
    fast, slow = (run_roofline(H200, MODELS[m], serving, work, np.array([16.0])) for m in ("DeepSeek-V3.2", "DeepSeek-R1"))
    assert fast.memory_s[0] < 0.5 * slow.memory_s[0]
    assert fast.compute_s[0] < slow.compute_s[0]
    assert fast.tokens_per_s_per_device[0] > slow.tokens_per_s_per_device[0]
    assert memory_limit(H200, MODELS["DeepSeek-V3.2"], serving, work) < memory_limit(H200, MODELS["DeepSeek-R1"], serving, work)


def test_linear_hybrid_holds_less_kv_per_token_than_a_full_attention_model_of_its_size():
    """Qwen3-Next-80B-A3B: 12 of 48 layers cache 2 x 2 x 256 values per token, 36 hold a fixed
    548,864-value state; Llama-3.3-70B (full GQA, about its size) caches 2 x 80 x 8 x 128, and the
    same model with every layer full would cache four times its KV."""
    hybrid = MODELS["Qwen3-Next-80B-A3B"]
    arch, dense = architecture(hybrid), architecture(MODELS["Llama-3.3-70B"])
    all_full = architecture(hybrid.with_(linear_attention_layers=0, linear_state_values=0, linear_attention_heads=0))
    assert arch.state_bytes == 36 * 548864 * 2
    one = ServingConfig(tensor_parallel=1)
    for context in (1024, 8192, CONTEXT_128K):
        held = float(kv_device_bytes(arch, 1.0, context, 1.0, 1.0, False))
        assert held == 2 * 12 * 2 * 256 * context + arch.state_bytes
        assert held < float(kv_device_bytes(dense, 1.0, context, 1.0, 1.0, False))
        if context >= 8192:  # the fixed state is paid back past a few thousand tokens
            assert held < float(kv_device_bytes(all_full, 1.0, context, 1.0, 1.0, False))
    work = Workload(input_tokens=CONTEXT_128K, output_tokens=1024)
    assert kv_bytes_per_request(hybrid, one, work) == 2 * 12 * 2 * 256 * CONTEXT_128K + arch.state_bytes


def test_sparse_and_linear_work_per_token_is_flat_past_top_k_and_state():
    v32 = architecture(MODELS["DeepSeek-V3.2"])
    indexer_slope = 2 * 61 * 64 * 128  # FLOPs per context token: the indexer's scores, nothing else
    for context in (4096, 65536, 500_000):
        grew = float(v32.decode_attention_flops(2 * context)) - float(v32.decode_attention_flops(context))
        assert grew == pytest.approx(indexer_slope * context, rel=1e-12)
        read_grew = float(v32.kv_read_values(2 * context)) - float(v32.kv_read_values(context))
        assert read_grew == 61 * 128 * context
    no_indexer = architecture(MODELS["DeepSeek-V3.2"].with_(indexer_heads=0, indexer_head_dim=0))
    assert float(no_indexer.decode_attention_flops(4096)) == float(no_indexer.decode_attention_flops(10**6))
    assert float(no_indexer.kv_read_values(4096)) == float(no_indexer.kv_read_values(10**6))
    # a purely recurrent model: constant state, constant work, whatever the context
    mamba = architecture(make_model({"name": "all-linear", "total_params_b": 1, "active_params_b": 1, "n_layers": 4,
                                     "hidden_size": 1024, "n_kv_heads": 1, "head_dim": 64, "linear_attention_layers": 4,
                                     "linear_state_values": 65536, "linear_attention_heads": 8}))
    flops = mamba.decode_attention_flops(np.array([1.0, 1e3, 1e6]))
    assert np.all(flops == 4 * LINEAR_FLOPS_PER_STATE_VALUE * 65536)
    held = kv_device_bytes(mamba, 1.0, np.array([1.0, 1e3, 1e6]), 1.0, 1.0, False)
    assert np.all(held == 4 * 65536 * 2.0)
    # read and written back once per step, split across tensor-parallel heads
    assert float(kv_device_bytes(mamba, 1.0, 1e6, 1.0, 4.0, False, read=True)) == 2 * 4 * 65536 * 2.0 / 4


def test_long_contexts_compute_and_memory_limits_them():
    serving = ServingConfig(tensor_parallel=8)
    limits = {}
    for name in ("DeepSeek-R1", "DeepSeek-V3.2", "Qwen3-Next-80B-A3B"):
        for context in (32768, CONTEXT_128K):
            work = Workload(input_tokens=context - 1024, output_tokens=1024)
            r = run_roofline(H200, MODELS[name], serving, work, np.array([1.0, 8.0]))
            assert np.all(np.isfinite(r.tokens_per_s_per_device)) and np.all(r.ttft_s > 0)
            limits[name, context] = memory_limit(H200, MODELS[name], serving, work)
    # full-context KV: four times the context, a quarter of the sequences (MLA is not split by TP)
    assert limits["DeepSeek-R1", 32768] / 4 - 1 <= limits["DeepSeek-R1", CONTEXT_128K] <= limits["DeepSeek-R1", 32768] / 4
    # the hybrid's fixed state does not grow: it loses less than a factor four
    assert limits["Qwen3-Next-80B-A3B", CONTEXT_128K] > limits["Qwen3-Next-80B-A3B", 32768] / 4
    assert limits["Qwen3-Next-80B-A3B", CONTEXT_128K] > 10 * limits["DeepSeek-R1", CONTEXT_128K]


def test_models_without_layer_groups_compute_exactly_as_before():
    """Figures from main before the layer groups existed (the same expressions must run for them)."""
    from tcoapp.engine.performance.factors import DEFAULT_FACTORS
    from tcoapp.engine.quantities.factors import prior_anchors
    factors = DEFAULT_FACTORS.with_(**prior_anchors())   # the 2026-12-06 refit's factors (the prior's anchors)
    cases = {   # (the shipped factors of the 2026-12-06 refit with a per-layer overhead ratio per architecture)
            ("DeepSeek-R1", 8, 1024): [18.855406636562908, 81.53832912558724, 237.84527420803443, 613.9329779824793],
            ("gpt-oss-120b", 1, 8192): [173.47348497386966, 409.2039210176348, 1242.8846570193125, 2934.892172188602],
            ("Llama-3.3-70B", 8, 1024): [14.09946568607434, 106.47013105095168, 587.9725984655812, 1140.6861681419234],
    }
    for (name, tp, prompt), expected in cases.items():
        serving = ServingConfig(tensor_parallel=tp, spec_decode_draft_tokens=1 if prompt == 8192 else 0)
        work = Workload(input_tokens=prompt, output_tokens=1024, prefix_cache_hit_rate=0.5 if prompt == 8192 else 0.0)
        r = run_roofline(H200, MODELS[name], serving, work, np.array([1.0, 8.0, 64.0, 256.0]), factors)
        assert r.tokens_per_s_per_device.tolist() == expected, name


@pytest.mark.parametrize("change, field, words", [
    ({"sparse_attention_layers": 62}, "sparse_attention_layers", "at most the full-attention layers"),
    ({"sparse_top_k_tokens": 0}, "sparse_top_k_tokens", "needs both sparse_attention_layers and sparse_top_k_tokens"),
    ({"indexer_head_dim": 0}, "indexer_head_dim", "needs both indexer_heads and indexer_head_dim"),
    ({"sparse_attention_layers": 0, "sparse_top_k_tokens": 0}, "indexer_heads", "an indexer belongs to sparse-attention layers"),
    ({"sparse_top_k_tokens": -5}, "sparse_top_k_tokens", ""),
])
def test_bad_sparse_values_are_refused_naming_the_field(change, field, words):
    raw = MODELS["DeepSeek-V3.2"].as_dict() | change
    with pytest.raises(ValidationError) as info:
        make_model(raw, lambda key: f"Models row {key}")
    text = str(info.value)
    assert field in text and words in text and "Problem(" not in text


@pytest.mark.parametrize("change, field, words", [
    ({"linear_attention_layers": 49}, "linear_attention_layers", "must be at most n_layers (48)"),
    ({"linear_state_values": 0}, "linear_state_values", "needs both linear_attention_layers and linear_state_values"),
    ({"linear_attention_heads": 0}, "linear_attention_heads", "needs both"),
    ({"linear_state_bytes": 16}, "linear_state_bytes", "8"),
    ({"sparse_attention_layers": 13, "sparse_top_k_tokens": 2048}, "sparse_attention_layers", "= 12"),
])
def test_bad_linear_values_are_refused_naming_the_field(change, field, words):
    raw = MODELS["Qwen3-Next-80B-A3B"].as_dict() | change
    with pytest.raises(ValidationError) as info:
        make_model(raw)
    assert field in str(info.value) and words in str(info.value)


def test_a_request_beyond_the_models_context_is_refused_at_input_tokens():
    plan = make_plan("long", {"device": "H200-SXM", "model": "DeepSeek-R1", "input_tokens": 200_000, "output_tokens": 8000})
    scenario = Scenario((plan,), catalog_devices=DEVICES, catalog_models=MODELS)
    with pytest.raises(ValidationError) as info:
        check_scenario(scenario)
    text = str(info.value)
    assert "input_tokens = 200,000" in text and "max_context_tokens (163,840)" in text and "208,000" in text
    fits = make_plan("fits", {"device": "H200-SXM", "model": "Qwen3-Next-80B-A3B", "input_tokens": 200_000, "output_tokens": 8000})
    check_scenario(Scenario((fits,), catalog_devices=DEVICES, catalog_models=MODELS))


def test_the_models_sheet_round_trips_the_layer_groups_and_names_a_bad_cell(tmp_path):
    path = write_workbook(tmp_path / "groups.xlsx")
    book = openpyxl.load_workbook(path)
    sheet = book["Models"]
    groups = {"n_heads": 32, "mla_latent_dim": 576, "sparse_attention_layers": 30, "sparse_top_k_tokens": 1024,
              "indexer_heads": 16, "indexer_head_dim": 64, "linear_attention_layers": 8, "linear_state_values": 131072,
              "linear_attention_heads": 16, "linear_state_bytes": 4}
    for column, (key, value) in enumerate(groups.items(), start=9):
        sheet.cell(1, column, key)
        sheet.cell(3, column, value)
    book.save(path)
    model = read_scenario(path).models["Tiny-13B"]
    assert {key: getattr(model, key) for key in groups} == groups
    sheet.cell(3, 9 + list(groups).index("sparse_attention_layers"), 40)
    book.save(path)
    with pytest.raises(ValidationError) as info:
        read_scenario(path)
    assert "Models!K3" in str(info.value) and "sparse_attention_layers = 40" in str(info.value)


def test_a_workbook_plan_beyond_its_models_context_names_the_plans_cell(tmp_path):
    path = write_workbook(tmp_path / "context.xlsx")
    book = openpyxl.load_workbook(path)
    book["Models"].cell(1, 9, "max_context_tokens")
    book["Models"].cell(3, 9, 2048)   # Acme big asks 2000 + 500 tokens, Acme small 1000 + 1000
    book.save(path)
    with pytest.raises(ValidationError) as info:
        read_scenario(path)
    text = str(info.value)
    assert "Plans!C6" in text and "input_tokens = 2,000: with output_tokens 500 the context is 2,500 tokens, beyond Tiny-13B's max_context_tokens (2,048)" in text
    assert "Plans!D6" not in text


def test_a_written_workbook_reads_back_the_layer_groups_and_the_same_figures(tmp_path):
    from tcoapp.engine.pipeline.compute import compute_plan
    from tcoapp.io.workbook_write import write_scenario
    hybrid = MODELS["Qwen3-Next-80B-A3B"].with_(name="My-Qwen3-Next")
    sparse = MODELS["DeepSeek-V3.2"].with_(name="My-V3.2")
    plans = tuple(make_plan(name, {"device": "B200", "model": name, "input_tokens": 64000, "output_tokens": 2000,
                                   "tensor_parallel": 8, "batch": 16}) for name in (hybrid.name, sparse.name))
    scenario = check_scenario(Scenario(plans, models={hybrid.name: hybrid, sparse.name: sparse},
                                       catalog_devices=DEVICES, catalog_models=MODELS))
    path = tmp_path / "groups.xlsx"
    write_scenario(scenario, path)
    back = read_scenario(path)
    assert back.models[hybrid.name] == hybrid and back.models[sparse.name] == sparse
    for plan in plans:
        first, again = compute_plan(scenario, plan), compute_plan(back, back.plan(plan.name))
        assert first.metric_or_none("tokens_per_s_per_device") == again.metric_or_none("tokens_per_s_per_device")


def test_v4_compressed_layers_hold_an_entry_per_4_or_128_tokens():
    """DeepSeek-V4-Flash from its config: 3 window layers of 128 tokens, 20 CSA layers (an entry per 4
    tokens, top 512 entries read, indexer keys over all entries), 20 HCA layers (an entry per 128
    tokens), each compressed layer also keeping 128 raw tokens; one 512-value entry shared by K and V."""
    v4 = architecture(MODELS["DeepSeek-V4-Flash"])
    c = 1048576.0
    held = 512 * (3 * 128 + 20 * (c / 4 + 128) + 20 * (c / 128 + 128)) + 20 * 128 * c / 4
    read = 512 * (3 * 128 + 20 * (512 + 128) + 20 * (c / 128 + 128)) + 20 * 128 * c / 4
    assert float(v4.kv_values(c)) == held and float(v4.kv_read_values(c)) == read
    v32 = architecture(MODELS["DeepSeek-V3.2"])
    assert float(v4.kv_values(c)) < 0.1 * float(v32.kv_values(c))       # the card: 10 % of V3.2's KV cache
    flops = 4 * 64 * 512 * (3 * 128 + 20 * (512 + 128) + 20 * (c / 128 + 128)) + 2 * 20 * 64 * 128 * c / 4
    assert float(v4.decode_attention_flops(c)) == pytest.approx(flops, rel=1e-12)
    work = Workload(input_tokens=1_000_000, output_tokens=48_000)
    r = run_roofline(H200, MODELS["DeepSeek-V4-Flash"], ServingConfig(tensor_parallel=8), work, np.array([1.0, 4.0]))
    assert np.all(np.isfinite(r.tokens_per_s_per_device)) and memory_limit(H200, MODELS["DeepSeek-V4-Flash"],
                                                                            ServingConfig(tensor_parallel=8), work) >= 4


@pytest.mark.parametrize("change, field, words", [
    ({"compressed_attention_layers": 21}, "compressed_attention_layers", "must be at most the full-attention layers"),
    ({"compressed_attention_ratio": 0}, "compressed_attention_ratio", "needs both compressed_attention_layers"),
    ({"sparse_compression_ratio": 0}, "sparse_compression_ratio", "1"),
])
def test_bad_compressed_values_are_refused_naming_the_field(change, field, words):
    raw = MODELS["DeepSeek-V4-Flash"].as_dict() | change
    with pytest.raises(ValidationError) as info:
        make_model(raw)
    assert field in str(info.value) and words in str(info.value)
    window = MODELS["Llama-3.3-70B"].as_dict() | {"compressed_window_tokens": 128}
    with pytest.raises(ValidationError, match="compressed_window_tokens = 128: a raw window belongs to sparse or compressed"):
        make_model(window)
