"""Speculative decoding as physics (docs/model.md, "Speculative decoding"): the gain falls with batch,
k = 0 is no speculation exactly, a compute-bound step gains nothing, the drafter has its own cost."""
import numpy as np
import pytest

from tcoapp.engine.performance.factors import DEFAULT_FACTORS
from tcoapp.engine.performance.generated import run_roofline
from tcoapp.engine.performance.memory import architecture
from tcoapp.engine.performance.spec_decode import MTP_LATER_POSITION_RATIO, drafter_kind, tokens_per_step
from tcoapp.engine.quantities.records import ServingConfig, Workload
from tcoapp.io.catalog import load_catalog

CAT = load_catalog()
WL = Workload(input_tokens=1024, output_tokens=1024)
CASES = [("B200", "Llama-3.3-70B", ServingConfig(tensor_parallel=1, weight_precision="fp8", kv_precision="fp8")),
         ("B200", "DeepSeek-R1", ServingConfig(tensor_parallel=8, weight_precision="fp8", kv_precision="fp8"))]


def _gain(device, model, serving, batch, k, acceptance=None):
    alpha = CAT.spec_acceptance[model].acceptance if acceptance is None else acceptance
    dev, mod = CAT.devices[device], CAT.models[model]
    base = run_roofline(dev, mod, serving.with_(spec_decode_draft_tokens=0), WL, batch)
    spec = run_roofline(dev, mod, serving.with_(spec_decode_draft_tokens=k, spec_decode_acceptance=alpha), WL, batch)
    return spec.tokens_per_s_per_device / base.tokens_per_s_per_device


@pytest.mark.parametrize("device,model,serving", CASES)
def test_the_gain_falls_with_batch(device, model, serving):
    g = _gain(device, model, serving, np.array([1.0, 64.0, 256.0]), 3)
    assert g[0] > g[1] > g[2]
    assert g[0] > 1.5          # a memory-bound step gains most of its accepted tokens


@pytest.mark.parametrize("device,model,serving", CASES)
def test_no_draft_tokens_is_no_speculation_exactly(device, model, serving):
    dev, mod = CAT.devices[device], CAT.models[model]
    b = np.array([1.0, 8.0, 64.0, 256.0])
    plain = run_roofline(dev, mod, serving.with_(spec_decode_draft_tokens=0, spec_decode_acceptance=None), WL, b)
    zero = run_roofline(dev, mod, serving.with_(spec_decode_draft_tokens=0, spec_decode_acceptance=0.9), WL, b)
    assert np.array_equal(plain.tokens_per_s_per_device, zero.tokens_per_s_per_device)
    assert np.array_equal(plain.step_s, zero.step_s)


def test_a_compute_bound_step_gains_nothing():
    """Far past the ridge (a huge batch in memory, a slow-compute device) verifying k + 1 tokens costs
    k + 1 times the math while fewer than k + 1 are accepted: gain <= 1."""
    serving = CASES[0][2].with_(weight_precision="bf16", kv_precision="bf16", tensor_parallel=8)
    g = _gain("H100-SXM", "Llama-3.3-70B", serving, np.array([1024.0]), 3, acceptance=0.7)
    assert g[0] <= 1.0


def test_the_drafter_has_its_own_cost():
    """At acceptance 0 a draft token is never accepted: the step costs more and emits one token."""
    device, model, serving = CASES[1]
    g = _gain(device, model, serving, np.array([1.0, 64.0]), 2, acceptance=0.0)
    assert np.all(g < 1.0)


def test_drafter_sizes():
    """An MTP head is one more target layer (with the LM head); an EAGLE-3 drafter one dense layer."""
    r1, llama = CAT.models["DeepSeek-R1"], CAT.models["Llama-3.3-70B"]
    assert drafter_kind(r1.spec_decode_draft) == "mtp" and drafter_kind(llama.spec_decode_draft) == "eagle"
    mtp = architecture(r1).drafter
    assert mtp.n_layers == 1 and mtp.n_experts == architecture(r1).n_experts
    assert 0.5e9 < mtp.active_params < 2.5e9          # one MoE layer's active share + a 129k x 7168 LM head
    eagle = architecture(llama).drafter
    assert eagle.n_experts == 0 and 1.0e9 < eagle.active_params < 1.6e9   # released drafter: ~1.4 B


def test_tokens_per_step():
    assert tokens_per_step(0, 0.8) == 1.0
    assert tokens_per_step(3, 1.0) == 4.0
    assert tokens_per_step(1, 0.875) == pytest.approx(1.875)


def test_chained_acceptance_is_the_product_of_the_positions():
    """Position i is kept only where 1..i are all accepted: 1 + sum_i prod_{j<=i} a_j, with a_1 = alpha
    and a_j = alpha x r after it; r = 1 is the one-rate geometric chain."""
    a, r = 0.875, 0.6
    by_hand = 1 + a + a * (a * r) + a * (a * r) ** 2
    assert tokens_per_step(3, a, r) == pytest.approx(by_hand)
    assert tokens_per_step(3, a, 1.0) == pytest.approx((1 - a ** 4) / (1 - a))
    assert tokens_per_step(1, a, r) == pytest.approx(1 + a)        # one draft token: only the first position
    assert tokens_per_step(0, a, r) == 1.0
    assert tokens_per_step(3, 1.0, 1.0) == 4.0
    ks = np.arange(0, 8)
    assert np.all(np.diff(tokens_per_step(ks, a, r)) > 0)            # each draft token adds, less each time
    assert np.all(np.diff(tokens_per_step(ks, a, r), 2) < 0)


def test_a_reused_mtp_head_reproduces_its_published_acceptance_length():
    """The native DeepSeek-V3 MTP head reused for K = 7 positions: average acceptance length 3.09 at
    temperature 1 (nebius/MTP-DeepSeek-V3-0324 model card, "Original MTP"), first position 0.875."""
    assert tokens_per_step(7, 0.875, MTP_LATER_POSITION_RATIO) == pytest.approx(3.09, abs=0.01)
    r1 = architecture(CAT.models["DeepSeek-R1"])
    llama = architecture(CAT.models["Llama-3.3-70B"])
    assert r1.draft_later_ratio == MTP_LATER_POSITION_RATIO and llama.draft_later_ratio == 1.0


def test_the_mtp_chain_gains_less_than_one_rate_would():
    """Direction: three MTP draft tokens at the chained acceptance gain less than at one rate of 0.875
    (the chain's later positions accept less), one draft token the same."""
    device, model, serving = CASES[1]
    dev, mod = CAT.devices[device], CAT.models[model]
    b = np.array([1.0, 64.0])
    stated = DEFAULT_FACTORS.with_(spec_acceptance_realised=1.0)     # the acceptance as stated
    plain = run_roofline(dev, mod, serving.with_(spec_decode_draft_tokens=3, spec_decode_acceptance=0.875), WL, b,
                         stated)
    assert np.allclose(plain.tokens_per_step, tokens_per_step(3, 0.875, MTP_LATER_POSITION_RATIO))
    assert np.all(plain.tokens_per_step < tokens_per_step(3, 0.875))


def test_the_published_acceptance_is_the_default():
    from tcoapp.io.default_scenario import default_scenario
    scenario = default_scenario()
    plan = scenario.plans[0]
    assert plan.spec_decode_acceptance is None
    assert scenario.serving_of(plan).spec_decode_acceptance == CAT.spec_acceptance[plan.model].acceptance
    assert scenario.acceptance_for("Llama-3.1-405B") == 0.0   # none published: drafting gains nothing


def test_the_documented_gain_table_is_current():
    """docs/model.md's gain table is generated (tools/doc_blocks.py): the committed one is current."""
    from tools import doc_blocks
    for path in doc_blocks.MODEL_FILES:
        text = path.read_text(encoding="utf-8")
        assert "<!-- gen:spec-gain-table -->" in text
        assert doc_blocks.rewrite(text) == text, f"{path.name} is stale: run python tools/gen_docs.py"


def _sweep_gain(batches, serial, factors=DEFAULT_FACTORS, k=3):
    """Tokens/s per device of DeepSeek-R1 on B200 TP8 FP8 with k MTP draft tokens over without, on a stack
    that overlaps its host work (serial False) or drafts without the overlap (True, SGLang)."""
    from tcoapp.engine.performance.frontier import sweep
    dev, mod = CAT.devices["B200"], CAT.models["DeepSeek-R1"]
    common = dict(batches=batches, tensor_parallel=(8,), weight_precisions=("fp8",), factors=factors,
                  spec_decode_acceptance=0.875, spec_host_serial=serial)
    spec = sweep(dev, mod, WL, spec_decode_draft_tokens=(k,), **common)
    plain = sweep(dev, mod, WL, spec_decode_draft_tokens=(0,), **common)
    return spec.tokens_per_s_per_device / plain.tokens_per_s_per_device, plain


def test_a_stack_drafting_without_overlap_gains_less_the_larger_the_batch():
    """Direction: where the stack drafts without its overlap scheduler (SGLang), each speculative step
    adds the host time of its sequences, so the gain is lower than on a stack that overlaps it, and the
    more so the larger the batch; without draft tokens the flag changes nothing; a plan (no stack
    stated) pays none."""
    b = np.array([4.0, 64.0, 256.0])
    factors = DEFAULT_FACTORS.with_(spec_serial_seq_overhead_s=1e-4)
    overlapped, plain = _sweep_gain(b, False, factors)
    serial, plain_serial = _sweep_gain(b, True, factors)
    share = serial / overlapped
    assert np.all(share < 1.0) and share[0] > share[1] > share[2]
    assert np.array_equal(plain.tokens_per_s_per_device, plain_serial.tokens_per_s_per_device)
    none, _ = _sweep_gain(b, True, factors.with_(spec_serial_seq_overhead_s=0.0))
    assert np.allclose(none, overlapped)
    dev, mod = CAT.devices["B200"], CAT.models["DeepSeek-R1"]
    serving = CASES[1][2].with_(spec_decode_draft_tokens=3, spec_decode_acceptance=0.875)
    plan_gain = (run_roofline(dev, mod, serving, WL, b, factors).tokens_per_s_per_device
                 / run_roofline(dev, mod, serving.with_(spec_decode_draft_tokens=0), WL, b, factors).tokens_per_s_per_device)
    assert np.allclose(plan_gain, overlapped)

def test_a_sglang_row_drafts_serially_and_a_tensorrt_row_does_not():
    """The measurement rows' stack decides the term: SGLang on any vendor (its server drops the overlap
    scheduler under EAGLE / MTP drafting), not TensorRT-LLM."""
    from tcoapp.engine.performance.measurement_rows import drafts_serially
    assert drafts_serially({"framework": "sglang"}) and drafts_serially({"framework": "SGLang 0.5.2 (ROCm)"})
    assert not drafts_serially({"framework": "trt"}) and not drafts_serially({"framework": ""})


def _verify_step(device, model, k, batch, context, attention_dp=False, tp=1):
    """(memory, compute, comm) seconds of one decode step verifying k draft tokens (roofline.decode_step)."""
    from tcoapp.engine.performance.precision import attention_peak_flops, bytes_per_value, peak_flops
    from tcoapp.engine.performance.roofline import decode_step
    from tcoapp.engine.performance.roofline_inputs import ServingArrays
    dev = CAT.devices[device]
    arrays = ServingArrays(batch_sequences=np.asarray(batch, float), tensor_parallel=tp, expert_parallel=1,
                           attention_dp=attention_dp, weight_bytes_per_value=bytes_per_value("fp8"),
                           kv_bytes_per_value=bytes_per_value("fp8"), peak_flop_s=peak_flops(dev, "fp8", 1.0),
                           attention_peak_flop_s=attention_peak_flops(dev, "fp8"), draft_tokens=float(k))
    return decode_step(dev, architecture(CAT.models[model]), arrays, context, DEFAULT_FACTORS)


def test_a_verify_step_reads_the_weights_and_kv_once_and_does_k_plus_1_times_the_math():
    """Dense model: verifying k draft tokens multiplies every GEMM row and the attention over k + 1 query
    positions (compute x (k + 1)) while the weights and the KV cache are read once (memory unchanged)."""
    batch, context = np.array([1.0, 16.0, 128.0]), 8192.0 + 512.0
    mem0, comp0, _ = _verify_step("B200", "Llama-3.3-70B", 0, batch, context)
    mem2, comp2, _ = _verify_step("B200", "Llama-3.3-70B", 2, batch, context)
    assert np.allclose(mem2, mem0)
    assert np.allclose(comp2, 3.0 * comp0)


def test_mla_decode_attention_flops_are_the_latent_math():
    """DeepSeek's absorbed MLA decode: 128 query heads over one 576-wide latent (QK^T over the 512 latent +
    64 RoPE key, AV over the 512 latent): 2 x 128 x (576 + 512) FLOPs per cached token per query token per
    layer; the model's 4 x heads x 576 is within 10 % of it, and the context's share of a verify step
    grows with k + 1 (MLA decode attention sits near the ridge at one query token already)."""
    arch = architecture(CAT.models["DeepSeek-R1"])
    per_layer = arch.decode_attention_flops_per_context_token / arch.n_layers
    assert per_layer == pytest.approx(2 * 128 * (576 + 512), rel=0.10)
    # the latent's arithmetic intensity at one query token with an FP8 cache (FLOPs per KV byte) is near
    # B200's FP8 ridge (4.5 PFLOP/s over 8 TB/s = 562): k + 1 query positions make it compute-bound
    intensity = per_layer / (arch.mla_latent_dim * 1.0)
    assert 562 / 1.5 < intensity < 562 * 1.5
    short0 = _verify_step("B200", "DeepSeek-R1", 0, np.array([148.0]), 1024.0 + 512.0, attention_dp=True, tp=8)[1]
    short2 = _verify_step("B200", "DeepSeek-R1", 2, np.array([148.0]), 1024.0 + 512.0, attention_dp=True, tp=8)[1]
    long0 = _verify_step("B200", "DeepSeek-R1", 0, np.array([148.0]), 8192.0 + 512.0, attention_dp=True, tp=8)[1]
    long2 = _verify_step("B200", "DeepSeek-R1", 2, np.array([148.0]), 8192.0 + 512.0, attention_dp=True, tp=8)[1]
    # the attention added by two draft tokens: twice the one-token attention, at both contexts
    assert (long2 - short2) == pytest.approx(3.0 * (long0 - short0), rel=1e-6)
