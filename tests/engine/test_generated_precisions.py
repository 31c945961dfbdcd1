"""Device-supported precisions (docs/model.md, "Precision"): the serving search tries only the
weight and KV formats a device runs: NVFP4 only on FP4 math that runs it (NVIDIA Blackwell), MXFP4
on AMD CDNA4 and as weight-only on Hopper / CDNA3, no FP4 KV cache without FP4 math."""
from __future__ import annotations

import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.performance.precision import (
    math_precision, native_fp4_formats, supported_kv_precisions, supported_weight_precisions,
)
from tcoapp.engine.plan.pools import resolve_pools
from tcoapp.engine.quantities.records import make_device, make_plan
from tcoapp.engine.plan.scenario import Scenario, check_scenario
from tcoapp.engine.serving.search import pool_search_space, search_serve_pool
from tcoapp.io.catalog import load_catalog

CATALOG = load_catalog()
WIDEST = "bf16;fp8;mxfp4;nvfp4"


def test_the_catalog_states_which_fp4_formats_each_device_runs():
    d = CATALOG.devices
    for name in ("B200", "B300", "GB200-NVL72", "GB300-NVL72"):
        assert native_fp4_formats(d[name]) == ("mxfp4", "nvfp4")
    assert native_fp4_formats(d["MI355X"]) == ("mxfp4",)
    for name in ("H100-SXM", "H200-SXM", "MI300X", "MI325X", "Gaudi3"):
        assert native_fp4_formats(d[name]) == ()
    assert "mxfp4" in supported_weight_precisions(d["H200-SXM"])        # weight-only, dequantized
    assert "nvfp4" not in supported_weight_precisions(d["H200-SXM"])
    assert "nvfp4" not in supported_weight_precisions(d["MI355X"])
    assert supported_weight_precisions(d["Gaudi3"]) == ("bf16", "fp8")
    assert supported_kv_precisions(d["H200-SXM"]) == ("bf16", "fp8")    # no FP4 KV without FP4 math
    assert math_precision(d["MI355X"], "nvfp4") == "bf16"               # typed by hand: dequantized
    assert math_precision(d["MI355X"], "mxfp4") == "fp4"


@pytest.mark.parametrize("device", sorted(CATALOG.devices))
@pytest.mark.parametrize("model", ["DeepSeek-R1", "Llama-3.3-70B"])
def test_the_widest_search_never_proposes_a_precision_the_device_does_not_run(device, model):
    dev = CATALOG.devices[device]
    p = make_plan("p", {"device": device, "model": model, "serving_search": "auto", "search_precisions": WIDEST,
                        "min_tokens_per_s_per_user": 20.0, "input_tokens": 1000, "output_tokens": 500})
    # (an announced device is searched as it will be bought: the search does not depend on the tranche's year)
    scenario = Scenario((p,), catalog_devices=CATALOG.devices, catalog_models=CATALOG.models)
    if not dev.available_from:
        scenario = check_scenario(scenario)
    pool = resolve_pools(p)[0]
    space = pool_search_space(scenario, p, pool)
    assert set(space.weight_precisions) <= set(supported_weight_precisions(dev))
    assert set(space.kv_precisions) <= set(supported_kv_precisions(dev))
    assert not set(space.kv_precisions) & {"mxfp4", "nvfp4"} - set(native_fp4_formats(dev))
    chosen, outcome = search_serve_pool(scenario, p, pool)
    if outcome is not None:
        assert chosen.serving.weight_precision in supported_weight_precisions(dev)
        assert chosen.serving.kv_precision in supported_kv_precisions(dev)
        if space.dropped_precisions:
            assert "left out, not run by a serving stack here" in outcome.text()


def test_a_plan_whose_own_precision_the_device_does_not_run_is_searched_at_the_device_best():
    p = make_plan("p", {"device": "H100-SXM", "model": "Llama-3.3-70B", "serving_search": "auto",
                        "weight_precision": "nvfp4", "kv_precision": "nvfp4", "batch": 64})
    scenario = check_scenario(Scenario((p,), catalog_devices=CATALOG.devices, catalog_models=CATALOG.models))
    space = pool_search_space(scenario, p, resolve_pools(p)[0])
    assert space.weight_precisions == ("fp8",) and space.kv_precisions == ("fp8",)
    assert space.dropped_precisions == ("nvfp4 weights", "nvfp4 KV")


def _device(**keys):
    raw = {"name": "X", "memory_gb": 80, "mem_bw_gb_s": 3000, "peak_tflops_bf16": 900, "tdp_w": 700,
           "price_usd": 1, **keys}
    return make_device(raw)


def test_a_device_without_the_column_keeps_every_fp4_format_where_it_has_fp4_math():
    assert native_fp4_formats(_device(peak_tflops_fp4=4000)) == ("mxfp4", "nvfp4")
    assert native_fp4_formats(_device(peak_tflops_fp4=0)) == ()


def test_bad_fp4_format_cells_are_refused_with_the_allowed_values():
    with pytest.raises(ValidationError, match="fp4_formats.*not a 4-bit format"):
        _device(peak_tflops_fp4=4000, fp4_formats="fp8")
    with pytest.raises(ValidationError, match="peak_tflops_fp4 > 0"):
        _device(fp4_formats="nvfp4")
    with pytest.raises(ValidationError, match="fp4_weight_only_formats.*mxfp4 and/or nvfp4"):
        _device(fp4_weight_only_formats="int4")


@pytest.mark.parametrize("devices, wide", [(8, ()), (16, (16,)), (32, (16, 32)), (64, (16, 32))])
def test_the_search_spans_scale_up_domains_only_with_expert_parallelism_and_the_pool_devices(devices, wide):
    p = make_plan("p", {"device": "H200-SXM", "model": "DeepSeek-R1", "serving_search": "auto", "device_count": devices,
                        "min_tokens_per_s_per_user": 20.0, "input_tokens": 1000, "output_tokens": 500})
    scenario = check_scenario(Scenario((p,), catalog_devices=CATALOG.devices, catalog_models=CATALOG.models))
    space = pool_search_space(scenario, p, resolve_pools(p)[0])
    assert tuple(ep for ep in space.expert_parallel if ep > 8) == wide        # 2 and 4 domains at most
    assert max(space.tensor_parallel) == 8                                    # TP stays in one domain
    assert all(tp * ep <= min(devices, 32) for tp, ep in space.pairs)
    dense = make_plan("d", {"device": "H200-SXM", "model": "Llama-3.3-70B", "serving_search": "auto",
                            "device_count": devices, "batch": 64})
    scenario = check_scenario(Scenario((dense,), catalog_devices=CATALOG.devices, catalog_models=CATALOG.models))
    assert pool_search_space(scenario, dense, resolve_pools(dense)[0]).expert_parallel == (1,)
