"""The KV-cache link between a prefill and a decode pool of different devices (docs/model.md, "Fleet
plans"): each side uses its own network card. Per request t_kv = kv_bytes / (min(n_p x link_p, n_d x
link_d) x 1e9); the link carries min(N_p x link_p, N_d x link_d) x 1e9 / kv_bytes requests/s (n: a
replica's devices, N: a pool's devices, link: that side's own device's scale_out_gb_s). The cases are
worked out by hand from the catalog model's KV cache size."""
import pytest

from tcoapp.engine.pipeline.compute import compute_plan
from tcoapp.engine.quantities.records import make_plan, make_pool
from tcoapp.engine.plan.scenario import Scenario, check_scenario
from tcoapp.io.catalog import load_catalog

CATALOG = load_catalog()
MODEL = CATALOG.models["Llama-3.1-8B"]


def _plan(pre_count, dec_count, pre_tp=1, dec_tp=1, pre_device="H100-fast-net", dec_device="H100-slow-net"):
    raw = {"device": "H100-SXM", "model": MODEL.name, "tensor_parallel": 1, "batch": 16}
    pools = [{"pool": "p", "role": "prefill", "device": pre_device, "device_count": pre_count, "tensor_parallel": pre_tp},
             {"pool": "d", "role": "decode", "device": dec_device, "device_count": dec_count, "tensor_parallel": dec_tp}]
    plan = make_plan("pair", raw)
    return plan.with_(pools=tuple(make_pool({"plan": "pair", **p}) for p in pools))


def _compute(plan):
    base = CATALOG.devices["H100-SXM"]
    devices = {"H100-fast-net": base.with_(name="H100-fast-net", scale_out_gb_s=0.05),
               "H100-slow-net": base.with_(name="H100-slow-net", scale_out_gb_s=0.01)}
    scenario = check_scenario(Scenario((plan,), devices=devices, catalog_devices=CATALOG.devices,
                                       catalog_models=CATALOG.models))
    return compute_plan(scenario, plan)


def kv_bytes(plan):
    return 2 * MODEL.n_layers * MODEL.n_kv_heads * MODEL.head_dim * 1 * plan.input_tokens  # fp8 KV cache


def test_the_link_carries_the_slower_side_with_each_sides_own_card():
    # 8 prefill devices at 0.05 GB/s send 0.4 GB/s; 8 decode devices at 0.01 GB/s receive 0.08 GB/s
    plan = _plan(8, 8)
    result = _compute(plan)
    assert result.fleet.limited_by == "kv_transfer"
    assert result.fleet.requests_per_s[1] == pytest.approx(8 * 0.01e9 / kv_bytes(plan), rel=1e-9)
    # 40 decode devices receive 0.4 GB/s = what 8 prefill devices send: the sender limits now (it read 8 x 0.01)
    plan = _plan(8, 48)
    result = _compute(plan)
    assert result.fleet.limited_by == "kv_transfer"
    assert result.fleet.requests_per_s[1] == pytest.approx(8 * 0.05e9 / kv_bytes(plan), rel=1e-9)


def test_one_requests_transfer_is_limited_by_the_slower_replica():
    # prefill TP1 at 0.05 GB/s vs decode TP8 at 8 x 0.01 = 0.08 GB/s: the one prefill device limits
    plan = _plan(8, 64, pre_tp=1, dec_tp=8)
    one = _compute(plan)
    wide = _compute(_plan(8, 64, pre_tp=1, dec_tp=8, pre_device="H100-slow-net"))
    t_fast, t_slow = kv_bytes(plan) / 0.05e9, kv_bytes(plan) / 0.01e9
    # the same prefill and decode steps; only the transfer differs (0.01 vs 0.05 GB/s sender)
    assert wide.metrics.ttft_s - one.metrics.ttft_s == pytest.approx(t_slow - t_fast, rel=1e-6)
    # decode TP1 at 0.01 GB/s receives slower than the TP1 prefill sends: the receiver limits
    narrow = _compute(_plan(8, 64, pre_tp=1, dec_tp=1))
    assert narrow.metrics.ttft_s > t_slow
