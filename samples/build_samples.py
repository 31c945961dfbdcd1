"""Build the sample scenario workbooks (samples/*.xlsx) from the definitions in this file.

Each sample answers one question planners ask. Every price, power and throughput assumption is
either a catalog number (resources/catalog/*.csv, each row with its source), a number cited in the
plan name or in the sample's notes below (REFERENCES sections A-C, named by section), or marked
ASSUMPTION. The notes also go to samples/README.md, so the workbook and its sources travel together.

    python samples/build_samples.py            # rewrite every samples/*.xlsx and samples/README.md
    python samples/build_samples.py --out DIR  # write them somewhere else
    python samples/build_samples.py --check    # rebuild into a temporary folder and list what differs from
                                               # samples/ (cell values and formulas, not zip bytes); exit 1 if any
"""
from __future__ import annotations

import argparse
import datetime
import io
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

if __package__ in (None, ""):  # run as a script from a checkout
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tcoapp.engine.quantities.records import make_device, make_plan, make_pool  # noqa: E402
from tcoapp.engine.plan.scenario import PriceTiers, Scenario, check_scenario  # noqa: E402
from tcoapp.engine.serving.defaults import widest_search  # noqa: E402
from tcoapp.io.catalog import load_catalog  # noqa: E402

SAMPLES_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Sample:
    filename: str
    title: str
    question: str
    notes: tuple[str, ...]
    build: Callable[[], Scenario]


def searched(raw: dict) -> dict:
    """The plan searching the widest serving space its device runs (what new plans do): its typed
    configuration is where the search starts and what Freeze replaces."""
    return {**raw, **widest_search(raw)}


def _scenario(plans, devices=(), price_tiers=()) -> Scenario:
    catalog = load_catalog()
    def plan(name, raw):
        raw = dict(raw)
        pools = tuple(make_pool({**pool, "plan": name}) for pool in raw.pop("pools", ()))
        return make_plan(name, raw).with_(pools=pools)

    return check_scenario(Scenario(
        tuple(plan(name, raw) for name, raw in plans),
        devices={d.name: d for d in devices},
        price_tiers={t.name: t for t in price_tiers},
        catalog_devices=catalog.devices, catalog_models=catalog.models))


# --- 1. the batch-size trade-off ------------------------------------------------------------------

LLAMA70_PRICE = {  # Llama-3.3-70B-Instruct-Turbo at Together AI: $0.88 in / $0.88 out (REFERENCES C.4)
    "price_usd_per_million_output_tokens": 0.88,
    "price_usd_per_million_input_tokens": 0.88,
}


def batch_tradeoff() -> Scenario:
    common = {"device": "H200-SXM", "model": "Llama-3.3-70B", "input_tokens": 1024, "output_tokens": 1024,
              "weight_precision": "fp8", "kv_precision": "fp8", "tensor_parallel": 2,
              "sizing_mode": "devices", "device_count": 64, **LLAMA70_PRICE}
    plans = [(f"H200 FP8 TP2 batch {b}", {**common, "batch": b}) for b in (1, 4, 16, 64, 256)]
    plans.append(("H200 FP8 TP2 >= 30 tok/s/user", {**common, "min_tokens_per_s_per_user": 30}))
    return _scenario(plans)


# --- 2. Hopper to Blackwell in a power-limited site -----------------------------------------------

R1_TIERS = PriceTiers(
    name="DeepSeek-R1 by speed (REFERENCES C.4)",
    # $2.19 DeepSeek official (speed not stated: ASSUMPTION it is the slow tier from 0 tok/s/user);
    # $5.40 Crusoe via OpenRouter at 36 tok/s/user; $6.00 Nebius AI Studio Fast at 167 tok/s/user
    # (SemiAnalysis InferenceX v2, Feb 2026)
    min_tokens_per_s_per_user=(0.0, 36.0, 167.0),
    price_usd_per_million_output_tokens=(2.19, 5.40, 6.00),
    source="REFERENCES C.4: $2.19 DeepSeek official (api-docs.deepseek.com, speed not stated: ASSUMPTION slow tier "
           "from 0 tok/s/user); $5.40 Crusoe via OpenRouter at 36 tok/s/user; $6.00 Nebius AI Studio Fast at "
           "167 tok/s/user (SemiAnalysis InferenceX v2, Feb 2026)",
)
R1_WORKLOAD = {"model": "DeepSeek-R1", "input_tokens": 1024, "output_tokens": 1024,
               # input price: DeepSeek official cache-miss $0.55 per M (REFERENCES C.4)
               "price_usd_per_million_input_tokens": 0.55}
NVL72_RACK = {"rack_power_cap_kw": 132, "servers_per_rack_max": 1}  # 8 power shelves = 132 kW (REFERENCES A)
H200_R1 = {"device": "H200-SXM", "weight_precision": "fp8", "kv_precision": "fp8",
           "tensor_parallel": 1, "expert_parallel": 8, "attention_dp": True}
B200_R1 = {"device": "B200", "weight_precision": "nvfp4", "kv_precision": "fp8",
           "tensor_parallel": 1, "expert_parallel": 8, "attention_dp": True}
GB200_R1 = {"device": "GB200-NVL72", "weight_precision": "nvfp4", "kv_precision": "fp8",
            "tensor_parallel": 1, "expert_parallel": 8, "attention_dp": True, **NVL72_RACK}


SPEED_TARGETS = (20, 36, 167)  # tok/s/user: below the first paid-speed tier (ASSUMPTION), then the two C.4 tiers


def hopper_to_blackwell() -> Scenario:
    site = {**R1_WORKLOAD, "sizing_mode": "facility_power", "facility_power_kw": 1000, "price_tiers": R1_TIERS.name}
    plans = [  # each device at its best configuration and batch for the target
        (f"{label} >= {target} tok/s/user", searched({**site, **config, "min_tokens_per_s_per_user": target}))
        for label, config in (("H200", H200_R1), ("B200", B200_R1), ("GB200 NVL72", GB200_R1))
        for target in SPEED_TARGETS
    ]
    return _scenario(plans, price_tiers=(R1_TIERS,))


# --- 3. heterogeneous pipeline: GPU prefill + Corsair decode --------------------------------------

def corsair_sram() -> object:
    """Corsair as its on-card SRAM tier (2 GB at 150 TB/s per card, vendor claims, REFERENCES A):
    the override the catalog's Corsair notes recommend for a model that fits in SRAM."""
    row = load_catalog().devices["Corsair"].as_dict()
    row.update(name="Corsair-SRAM", memory_gb=2, mem_bw_gb_s=150000, fast_memory_gb=0, fast_mem_bw_gb_s=0,
               notes="Corsair served from its 2 GB on-card SRAM at 150 TB/s (vendor claims via mirrorfrog.com/"
                     "aiwiki.ai, REFERENCES A); every other figure as the catalog's Corsair row (estimates). "
                     "Sample override: the weights must fit in the SRAM of the replica's cards.")
    return make_device(row)


def heterogeneous() -> Scenario:
    common = {"model": "Llama-3.1-8B", "input_tokens": 1024, "output_tokens": 256,
              "weight_precision": "fp8", "kv_precision": "fp8",
              "min_tokens_per_s_per_user": 300,  # ASSUMPTION: an agent/voice-class interactive target
              "sizing_mode": "facility_power", "facility_power_kw": 250,
              # ASSUMPTION: Llama-3.1-70B price at DeepInfra $0.40/$0.40 (REFERENCES C.4) as a
              # ceiling for an 8B model at an interactive tier; no 8B price in the references
              "price_usd_per_million_output_tokens": 0.40, "price_usd_per_million_input_tokens": 0.40}
    h100, b200 = {"device": "H100-SXM", "tensor_parallel": 8}, {"device": "B200", "tensor_parallel": 4}
    corsair = {"device": "Corsair-SRAM", "tensor_parallel": 8}
    common = searched(common)   # every plan, and every decode pool, at its best at the target
    plans = [
        ("All-H100 aggregated", {**common, **h100}),
        ("All-B200 aggregated", {**common, **b200}),
        ("All-H100 disaggregated 1:3", {**common, **h100, "prefill_devices": 1, "decode_devices": 3}),
        ("All-Corsair-SRAM aggregated", {**common, **corsair}),
        ("H100 TP8 prefill + Corsair-SRAM decode 1:3", {
            **common, **h100, "pools": (
                {"pool": "prefill", "role": "prefill", "device": "H100-SXM", "device_count": 1},
                {"pool": "decode", "role": "decode", "device": "Corsair-SRAM", "device_count": 3})}),
        ("H100 TP4 prefill + Corsair-SRAM decode 1:4", {
            **common, **h100, "pools": (
                {"pool": "prefill", "role": "prefill", "device": "H100-SXM", "device_count": 1, "tensor_parallel": 4},
                {"pool": "decode", "role": "decode", "device": "Corsair-SRAM", "device_count": 4})}),
    ]
    return _scenario(plans, devices=(corsair_sram(),))


# --- 4. optimizations that push the frontier ------------------------------------------------------

def frontier_optimizations() -> Scenario:
    base = {"device": "B200", "model": "Llama-3.3-70B", "input_tokens": 1024, "output_tokens": 1024,
            "tensor_parallel": 1, "kv_precision": "fp8", "weight_precision": "fp8",
            "min_tokens_per_s_per_user": 50,  # the default scenario's interactivity target
            "sizing_mode": "devices", "device_count": 64, **LLAMA70_PRICE}
    spec = {"spec_decode_draft_tokens": 3,
            "spec_decode_acceptance": 0.7}  # ASSUMPTION: k = 3 draft tokens, 70% acceptance
    plans = [
        ("B200 FP8 (baseline)", base),
        ("B200 MXFP4", {**base, "weight_precision": "mxfp4"}),
        ("B200 NVFP4", {**base, "weight_precision": "nvfp4"}),
        ("B200 NVFP4 + spec decode k=3 a=0.7", {**base, "weight_precision": "nvfp4", **spec}),
        ("B200 NVFP4 + disaggregated 1:5", {**base, "weight_precision": "nvfp4",
                                            "prefill_devices": 1, "decode_devices": 5}),
        ("B200 NVFP4 + 50% prefix-cache hits", {**base, "weight_precision": "nvfp4",
                                                "prefix_cache_hit_rate": 0.5}),  # ASSUMPTION: 50% hits
        ("B200 NVFP4 + all three", {**base, "weight_precision": "nvfp4", **spec, "prefill_devices": 1,
                                    "decode_devices": 5, "prefix_cache_hit_rate": 0.5}),
        ("B200 searched (the engine's best at the target)", searched({**base, "spec_decode_acceptance": 0.7})),
    ]
    return _scenario(plans)


# --- 5. an MoE reasoning model on a rack-scale system vs 8-GPU servers -------------------------------

def moe_rack_scale() -> Scenario:
    common = {"model": "DeepSeek-R1", "input_tokens": 1024, "output_tokens": 8192,
              # MLPerf Inference DeepSeek-R1 Server constraints: TTFT <= 2 s, TPOT <= 80 ms = 12.5 tok/s/user
              "min_tokens_per_s_per_user": 12.5, "max_ttft_s": 2.0,
              "sizing_mode": "facility_power", "facility_power_kw": 1000,
              # DeepSeek official: $2.19 out / $0.55 in (cache miss) per M (REFERENCES C.4)
              "price_usd_per_million_output_tokens": 2.19, "price_usd_per_million_input_tokens": 0.55}
    common = searched(common)
    plans = [
        ("8x H200 server", {**common, **H200_R1}),
        ("8x B200 server", {**common, **B200_R1}),
        ("GB200 NVL72 rack", {**common, **GB200_R1}),
        # typed, search off: what EP8 replicas give up against the configuration the search picks
        ("GB200 NVL72 EP8 replicas as typed (search off)", {**common, **GB200_R1, "serving_search": "off"}),
        # a fleet of two pools, each racked on its own: liquid-cooled NVL72 racks next to air-cooled B200 racks
        ("GB200 NVL72 prefill + B200 decode 1:5 (pools)", {**common, **B200_R1, "pools": (
            {"pool": "prefill", "role": "prefill", "device": "GB200-NVL72", "device_count": 1, **NVL72_RACK},
            {"pool": "decode", "role": "decode", "device": "B200", "device_count": 5})}),
    ]
    return _scenario(plans)


# --- 6. the years: falling token prices, a second tranche, a ramp and tax ---------------------------

def years_and_tranches() -> Scenario:
    fleet = {"device": "H200-SXM", "model": "Llama-3.3-70B", "input_tokens": 1024, "output_tokens": 1024,
             "weight_precision": "fp8", "kv_precision": "fp8", "tensor_parallel": 2,
             "min_tokens_per_s_per_user": 50,  # the default scenario's interactivity target
             "sizing_mode": "devices", "device_count": 64, "years": 5, **LLAMA70_PRICE}
    fleet = searched(fleet)
    falling = {"price_change_per_year": -0.3}  # ASSUMPTION: token prices of a given model fall 30% a year
    tranche = {"pools": (
        {"pool": "H200 (year 0)", "device": "H200-SXM", "device_count": 64},
        {"pool": "B200 (year 2)", "device": "B200", "device_count": 64, "tensor_parallel": 1,
         "weight_precision": "nvfp4", "purchase_year": 2})}
    taxed = {"first_year_utilization": 0.35, "ramp_years": 1,  # ASSUMPTION: a new cluster fills in its first year
             "tax_rate": 0.21, "depreciation_years": 5}
    plans = [
        ("64 H200, flat prices", fleet),
        ("64 H200, prices -30%/yr", {**fleet, **falling}),
        ("64 H200 + 64 B200 in year 2, prices -30%/yr", {**fleet, **falling, **tranche}),
        ("... + first-year ramp and 21% tax", {**fleet, **falling, **tranche, **taxed}),
    ]
    return _scenario(plans)


# --- 10. buy now or wait: announced next-generation racks on one site ------------------------------

NEXT_RACKS = {  # rack power cap = one rack's nameplate (ESTIMATES, docs/catalog.md): NVL72 racks, the 600 kW Kyber rack
    "GB300-NVL72": 140, "VR200-NVL72": 200, "VR300-NVL576": 600}


def buy_now_or_wait() -> Scenario:
    site = {"model": "Llama-3.3-70B", "input_tokens": 1024, "output_tokens": 1024,
            "min_tokens_per_s_per_user": 50,  # the default scenario's interactivity target
            "sizing_mode": "facility_power", "facility_power_kw": 1000, "years": 5,
            "weight_precision": "nvfp4", "kv_precision": "fp8", **LLAMA70_PRICE}

    def rack(device: str, year: int = 0) -> dict:
        raw = searched({**site, "device": device, "rack_power_cap_kw": NEXT_RACKS[device], "servers_per_rack_max": 1})
        if year:  # one pool bought in `year`: the site waits (serves nothing) until the year after
            raw["pools"] = ({"pool": f"{device} (bought year {year})", "device": device, "device_count": 1,
                             "purchase_year": year, "weight_precision": "nvfp4",
                             "rack_power_cap_kw": NEXT_RACKS[device], "servers_per_rack_max": 1},)
        return raw

    plans = [
        ("Buy GB300 NVL72 now", rack("GB300-NVL72")),
        ("Buy Vera Rubin NVL72 now", rack("VR200-NVL72")),
        ("Wait a year for Vera Rubin NVL72", rack("VR200-NVL72", 1)),
        ("Wait a year for Rubin Ultra NVL576", rack("VR300-NVL576", 1)),
    ]
    return _scenario(plans)


# --- 9. a GPU cloud: device-hours sold reserved and on demand, financed with debt -------------------

H100_HOURS = {  # REFERENCES C.3 (market quotes, dated): H100 SXM on demand $1.49-2.10, Lambda reserved $1.85
    "revenue_mode": "device_hours", "price_usd_per_device_hour": 2.10, "reserved_price_usd_per_device_hour": 1.85}


def gpu_cloud_financed() -> Scenario:
    cloud = {"device": "H100-SXM", "model": "Llama-3.3-70B", "input_tokens": 1024, "output_tokens": 1024,
             "weight_precision": "fp8", "kv_precision": "fp8", "tensor_parallel": 2, "batch": 64,
             "sizing_mode": "devices", "device_count": 64, "years": 4, **H100_HOURS}
    reserved = {"reserved_fraction": 0.6}  # ASSUMPTION: 60% of the fleet under reserved contracts
    debt = {"debt_fraction": 0.6, "debt_rate": 0.08, "debt_years": 4,  # ASSUMPTION: lender's terms, no cited source
            "equity_discount_rate": 0.15}                              # ASSUMPTION: equity's required return
    taxed = {"tax_rate": 0.21, "depreciation_method": "macrs_5"}   # 26 U.S.C. 11(b); IRS Pub. 946 Table A-1
    # Llama 3 Herd of Models (arXiv:2407.21783) Table 5: 148 GPU + 72 HBM3 interruptions in 54 days on 16,384 H100s
    # = 9%/yr, an upper bound on replacements; the ramp is an ASSUMPTION (installation and customer onboarding)
    aging = {"annual_failure_rate": 0.09, "tranche_ramp_months": 6}
    plans = [
        ("64 H100, on demand", cloud),
        ("64 H100, 60% reserved", {**cloud, **reserved}),
        ("... financed 60% at 8%", {**cloud, **reserved, **debt}),
        ("... + 21% tax, MACRS 5-year", {**cloud, **reserved, **debt, **taxed}),
        ("... + 9%/yr GPU failures, 6-month ramp", {**cloud, **reserved, **debt, **taxed, **aging}),
    ]
    return _scenario(plans)


# --- 8. uncertainty: Monte Carlo over prices, utilization, hardware costs and the model's error ----

def _u(plan, key, distribution, source, **params):
    from tcoapp.engine.uncertainty.inputs import UncertainInput
    return UncertainInput(plan, key, distribution, source=source, **params)


UNCERTAIN_PLANS = (("H200", "H200-SXM", {"weight_precision": "fp8", "tensor_parallel": 2}),
                   ("B200", "B200", {"weight_precision": "nvfp4", "tensor_parallel": 1}),
                   ("GB200 NVL72", "GB200-NVL72", {"weight_precision": "nvfp4", "tensor_parallel": 1,
                                                         "rack_power_cap_kw": 132, "servers_per_rack_max": 1}),
                   ("MI355X", "MI355X", {"weight_precision": "fp8", "tensor_parallel": 1}))
STREET = "REFERENCES A (aiinframap mid-2026: H100/H200/B200 ~$30k/$35k/$40k, explicitly +/-20-40%): triangular 0.8x-1.4x of the catalog price"
UNCERTAIN_DEVICE_PRICES = (
    ("H200", 28_000.0, 35_000.0, 49_000.0, STREET),
    ("B200", 32_000.0, 40_000.0, 56_000.0, STREET),
    ("GB200 NVL72", 27_778.0, 33_333.0, 43_056.0,
     "REFERENCES A: GB200 NVL72 rack $2-3M (kshirol), ~$3M (xatakaon), $3.1M (fetchlogic): per GPU $2M/72 to $3.1M/72, mode $2.4M/72"),
    ("MI355X", 16_000.0, 20_000.0, 28_000.0, "ASSUMPTION: the same 0.8x-1.4x street-price range as the NVIDIA parts (no AMD price source)"),
)


def uncertainty_llama70b() -> Scenario:
    from dataclasses import replace
    common = {"model": "Llama-3.3-70B", "input_tokens": 1024, "output_tokens": 1024, "kv_precision": "fp8",
              "min_tokens_per_s_per_user": 50, "sizing_mode": "facility_power", "facility_power_kw": 1000,
              **LLAMA70_PRICE}
    scenario = _scenario([(name, searched({**common, "device": device, **own})) for name, device, own in UNCERTAIN_PLANS])
    rows = [
        _u("*", "price_usd_per_million_output_tokens", "uniform",
           "REFERENCES C.4: Llama-3.x-70B at DeepInfra $0.40 / $0.40 and Together AI $0.88 / $0.88 per M: the two quotes as the ends",
           low=0.40, high=0.88, group="token price"),
        _u("*", "price_usd_per_million_input_tokens", "uniform", "REFERENCES C.4 (as the output price; same group)",
           low=0.40, high=0.88, group="token price"),
        _u("*", "price_change_per_year", "triangular", "ASSUMPTION: token prices of a given model fall 0-50% a year, 30% most likely",
           low=-0.5, mode=-0.3, high=0.0),
        _u("*", "utilization", "pert", "ASSUMPTION: 50-85% of the year at the operating point, 70% most likely (the field default)",
           low=0.5, mode=0.7, high=0.85),
        _u("*", "electricity_usd_per_kwh", "triangular",
           "REFERENCES C.1: EIA 2023 commercial 7.38 c (North Dakota) to 12 c (theneuralbase example), 8.95 c Virginia most likely",
           low=0.0738, mode=0.0895, high=0.12),
        _u("*", "pue", "uniform", "REFERENCES C.2: 1.2 typical modern AI data center (aiinframap) to 1.58 industry average (Uptime 2023)",
           low=1.2, high=1.58),
        _u("*", "factor.eta_mem", "pert",
           "ASSUMPTION: weight-read efficiency 0.65-0.9 around the default 0.8, about the generated model's median error (docs/model.md)",
           low=0.65, mode=0.8, high=0.9),
    ]
    rows += [_u(plan, "device.price_usd", "triangular", source, low=low, mode=mode, high=high)
             for plan, low, mode, high, source in UNCERTAIN_DEVICE_PRICES]
    return replace(scenario, uncertainty=tuple(rows))


# --- agentic coding: sessions, KV tiers and routing (not in SAMPLES until the Workloads sheet is written) ---

GLM46_PRICE = {  # Z.AI GLM 4.6 at ZenMux, input under 32k: $0.35 in / $1.54 out / $0.07 cache read per M
    # (https://zenmux.ai/z-ai/glm-4.6, read 2026-12-06)
    "price_usd_per_million_input_tokens": 0.35, "price_usd_per_million_output_tokens": 1.54,
    "price_usd_per_million_cached_input_tokens": 0.07}
CODING_AGENT = {  # a coding agent's session (ESTIMATE, the shape of the public agentic traces: contexts to
    # ~100k tokens, ~97 % of input read from cache, docs/model.md "Validation on public agentic measurements")
    "class": "agentic coding", "share": 1.0, "output_tokens": 600, "session_turns": 40,
    "system_prompt_tokens": 12000, "turn_input_tokens": 2000, "turn_gap_s": 10.0}
DRAM_USD_PER_GB = 10.0   # ASSUMPTION: server DDR5 RDIMM per GB; enter your quote
GLM_SERVING = {"model": "GLM-4.6", "weight_precision": "fp8", "kv_precision": "fp8", "tensor_parallel": 8,
               "serving_search": "off", "batch": 64, "sizing_mode": "facility_power", "facility_power_kw": 1000,
               "input_tokens": 40000, "output_tokens": 600, "prefix_cache_hit_rate": 0.95, **GLM46_PRICE}


def agentic_coding() -> Scenario:
    """GB200 NVL72 vs B200 vs MI355X serving a GLM-class coding agent from 1 MW: each with and without host
    offload (B200 and MI355X buy 2 TB more DRAM per server; GB200's 17 TB of Grace LPDDR5X is in the rack),
    and session-affinity against random routing; decided by NPV per MW."""
    from tcoapp.engine.quantities.records import make_request_class
    plans = []
    for label, device, extra in (("GB200 NVL72", "GB200-NVL72", {**NVL72_RACK}), ("B200", "B200", {}),
                                 ("MI355X", "MI355X", {})):
        buys = {} if device == "GB200-NVL72" else {"extra_host_memory_gb": 2048.0,
                                                   "host_memory_price_usd_per_gb": DRAM_USD_PER_GB}
        for offload, routing in (("none", "session_affinity"), ("host", "session_affinity"), ("host", "random")):
            keys = {**GLM_SERVING, "device": device, **extra, "kv_offload": offload, "kv_routing": routing,
                    **(buys if offload != "none" else {})}
            plans.append((f"{label} {'HBM only' if offload == 'none' else '+ host DRAM'}, {routing.replace('_', ' ')}",
                          keys))
    scenario = _scenario(plans)
    coding = lambda name: make_request_class({**CODING_AGENT, "plan": name})  # noqa: E731
    return scenario.with_plans(tuple(p.with_(workloads=(coding(p.name),)) for p in scenario.plans))


AGENTIC_SAMPLE = Sample(
    "agentic_coding.xlsx", "Agentic coding: what host memory and KV-aware routing are worth per MW",
    "A GLM-class coding agent served from 1 MW: GB200 NVL72, B200 or MI355X, with or without a host-memory KV tier, "
    "routed by session affinity or at random: how many concurrent agents per MW, at what cost per agent-hour, and "
    "which plan has the highest NPV?",
    ("Plans: GB200 NVL72, B200 and MI355X at 1 MW of facility power, GLM-4.6 FP8 TP8, each HBM only, with host "
     "memory (B200 and MI355X buy 2 TB more DRAM per server at $10/GB, an ASSUMPTION; GB200 NVL72 uses the 17 TB "
     "of Grace LPDDR5X in the rack) and with host memory under random routing.",
     "The agentic class: 40-turn sessions on a 12k-token system prompt, 2k new input and 600 output tokens a "
     "turn, 10 s between turns (ESTIMATE from the public agentic traces). The agentic block of each plan gives "
     "its sessions, hit rate per tier, agents per MW and cost per agent-hour (docs/model.md, \"Agentic sessions "
     "and KV tiers\"); Results' last rows and the Decision view give the agents per MW and cost per agent-hour.",
     "Prices: Z.AI GLM 4.6 at ZenMux, $0.35 in / $1.54 out / $0.07 cached per million tokens (read 2026-12-06).",
     "Read: each plan serves its coding agent at the hit rate its sessions reach on its memory (Results' served "
     "hit rate, the JSON's agentic block). Past the HBM knee the host tier keeps the sessions' prefixes: the hit "
     "rate, tokens/s per device, agents per MW rise and the cost per agent-hour falls; random routing loses most "
     "of it. At these prices a cached input token pays a fifth of an uncached one and an agent's turn is mostly "
     "input, so the revenue per turn falls faster than the turns per MW rise: the NPV per MW can be higher "
     "without the tier. That is the buyer's question this sample answers: what the memory buys at the price "
     "charged for cached tokens (change price_usd_per_million_cached_input_tokens on Plans and recompute)."),
    agentic_coding)


SAMPLES: tuple[Sample, ...] = (
    Sample(
        "batch_tradeoff.xlsx", "The batch-size trade-off",
        "How much cheaper does a token get as I batch more users on one GPU, and what does each user lose?",
        ("Llama-3.3-70B, 1,024 in / 1,024 out, on 64 H200 (8 servers), FP8 weights and KV cache, TP2; "
         "batch 1 to 256 plus one plan that picks the largest batch meeting >= 30 tokens/s per user.",
         "Throughput, power and TTFT are generated by the roofline engine from the catalog H200-SXM row "
         "(SemiAnalysis gpu-specs, MLPerf 700 W TGP) with the default efficiency factors: an estimate, "
         "compare with REFERENCES B.2 (TRT-LLM H200 Llama-3.3-70B FP8 TP2: 2,587 output tok/s per GPU at "
         "max throughput, 1k/1k).",
         "Price: Llama-3.3-70B-Instruct-Turbo at Together AI, $0.88 in / $0.88 out per M (REFERENCES C.4).",
         "Finance inputs are the field-table defaults: PUE 1.3 (Uptime 2024), 8.95 c/kWh (EIA 2023 Virginia "
         "commercial), 4 years (SemiAnalysis economic life), 10% discount rate, 70% utilization and 15% other "
         "capex (ASSUMPTIONS).",
         "Read: cost_per_million_output_tokens_usd falls with batch while tokens_per_s_per_user falls; the "
         "largest batch is capped by max_batch_by_memory (KV cache).",
         "Serving search is off here on purpose: the question is what the batch does to one typed configuration "
         "(FP8, TP2, no speculative decoding). Each plan's frontier_share says how far it is from the best H200 "
         "reaches at the same tokens/s per user (a few percent at batch 1, most of it at batch 256) and its notes "
         "warn below 80%. With serving_search = auto on every plan (the Decision tab's 'Search ... at its best') "
         "the trade-off keeps its shape, cheaper tokens and slower users as the batch grows, at lower cost per "
         "token (speculative decoding and TP1 are then chosen)."),
        batch_tradeoff),
    Sample(
        "hopper_to_blackwell_power_limited.xlsx", "Hopper to Blackwell in a power-limited site",
        "With 1 MW of facility power, what do H200, B200 and GB200 NVL72 earn per rack and per MW, and how "
        "much of the '4x performance, 10x revenue at the same power' claim survives my assumptions?",
        ("DeepSeek-R1, 1,024 in / 1,024 out; every plan sized to 1 MW facility power (sizing_mode "
         "facility_power: nameplate IT power x PUE must fit), so revenue_usd_per_year is also revenue per MW.",
         "Each device runs at three interactivity targets: >= 20 tokens/s per user (ASSUMPTION: a slow, "
         "batch-priced tier), >= 36 (the Crusoe/OpenRouter tier) and >= 167 (the Nebius Fast tier). A device "
         "that cannot reach a target reports no operating point and no revenue for that plan: part of the answer.",
         "serving_search = auto over the widest space on every plan: each device runs the TP / EP / attention-DP "
         "configuration, precisions it supports (search_precisions lists them all; the search keeps those the "
         "device runs), speculative draft tokens (0-3 at acceptance 0.7, ASSUMPTION) and batch that is cheapest "
         "per million output tokens at its target, so the comparison is not decided by hand-picked "
         "configurations. The chosen configuration is the Results sheet's `serving` row; set serving_search = "
         "off to compare the typed ones (FP8 on H200, NVFP4 on Blackwell, EP8 with attention-DP).",
         "With the search over draft tokens and FP4 formats the fastest tier changes: Blackwell now reaches "
         ">= 167 tok/s/user at a profit (GB200 NVL72 with a TP16 replica inside its NVLink domain and draft "
         "tokens), while H200 there "
         "still runs TP8 at a batch of one or two and never pays back.",
         "Price tiers (PriceTiers sheet) by tokens/s per user, REFERENCES C.4: $2.19 per M output from 0 "
         "(DeepSeek official price; its speed is not stated: ASSUMPTION that it is the slow tier), $5.40 from "
         "36 tok/s/user (Crusoe FP8 via OpenRouter) and $6.00 from 167 tok/s/user (Nebius AI Studio Fast FP4), "
         "SemiAnalysis InferenceX v2, Feb 2026. Input price $0.55 per M (DeepSeek official cache miss).",
         "Testing '4x performance, 10x revenue at the same power': the performance ratio is output_tokens_per_year "
         "(Blackwell plan / H200 plan, same power); the revenue ratio is revenue_usd_per_year. At the same tier "
         "the two ratios are equal; revenue grows faster than performance only when Blackwell is priced in a "
         "faster tier than Hopper (compare 'H200 >= 20' with 'GB200 >= 36'). So the claim depends on the tier "
         "prices (edit the PriceTiers rows), on the interactivity each device reaches, and on utilization.",
         "NVIDIA's claims to test (REFERENCES C.6, VENDOR): GB200 NVL72 ~10x throughput per MW vs Hopper; "
         "GTC 2025 '25x-40x' at iso-power for reasoning. SemiAnalysis measured up to ~100x at 116 tok/s/user "
         "(FP4 disaggregated vs H100 FP8). H100 is left out: DeepSeek-R1's 671 GB of FP8 weights do not fit in "
         "one 8 x 80 GB server.",
         "GB200 NVL72: one rack = 72 GPUs, rack power cap 132 kW (8 power shelves, REFERENCES A, EST), "
         "servers_per_rack_max 1. 8-GPU servers use the default 40 kW rack cap (ASSUMPTION, air-cooled).",
         "Throughput is generated by the roofline engine (estimate); compare with REFERENCES B.2 TRT-LLM max "
         "throughput per GPU for DeepSeek-R1-0528 1k/1k: B200 6,463 (FP4), GB200 6,939 (FP4), H200 1,627 (FP8)."),
        hopper_to_blackwell),
    Sample(
        "heterogeneous_disaggregated.xlsx", "A heterogeneous pipeline: GPU prefill, Corsair decode",
        "At an interactive target, does a pool of small-batch-efficient accelerators (d-Matrix Corsair) for "
        "decode behind a GPU prefill pool beat an all-GPU plan on cost per token?",
        ("Llama-3.1-8B, 1,024 in / 256 out, >= 300 tokens/s per user (ASSUMPTION: an agent/voice-class "
         "interactive target, where GPUs need small batches), every plan sized to 250 kW facility power.",
         "Plans: all-H100 and all-B200 aggregated, all-H100 disaggregated 1:3, all-Corsair aggregated, and "
         "H100 prefill + Corsair decode 1:3 (TP8 prefill) and 1:4 (TP4 prefill) (ASSUMPTION ratios; the plan's "
         "notes say if a pool starves and what the balanced ratio is).",
         "Every plan searches the widest space (serving_search = auto): each serve and decode pool runs its "
         "device's cheapest configuration at the target; a prefill pool runs its typed TP8 or TP4 (the search "
         "does not size prefill replicas).",
         "The answer, told honestly: no. With every plan at its best the all-B200 plan is the cheapest per "
         "token, at about two thirds of the cheapest Corsair plan's cost (TP1, FP4, speculative decoding at a batch "
         "that still meets 300 tok/s/user); "
         "earlier versions of this sample compared hand-typed GPU configurations (B200 at TP4, about 4% of its "
         "frontier) and ranked the Corsair pipeline first. The pipeline still beats all-H100 disaggregated, and "
         "the 1:4 pipeline with TP4 prefill beats the 1:3 one; set serving_search = off on every plan to see the "
         "typed comparison.",
         "Corsair-SRAM (Devices sheet) overrides the catalog Corsair row to model the 2 GB on-card SRAM at "
         "150 TB/s (vendor claims, REFERENCES A): with TP8 the 8 GB of FP8 weights spread over 8 cards' 16 GB "
         "SRAM. Price $15k per card, 600 W and the server figures are the catalog's PLACEHOLDER estimates: "
         "Corsair has no public price, no disclosed TDP and no independent benchmark.",
         "Vendor claim to test (REFERENCES C.6, VENDOR): Corsair '10x interactivity, 3x perf/TCO, 3x energy "
         "efficiency vs GPU'.",
         "The two heterogeneous plans are fleets of two pools (Pools sheet): each pool has its own device, "
         "tensor parallelism, servers and racks (pools never share a rack); the plan's request rate is the "
         "smaller of the two pools' capacities and of the KV-cache link, and its notes name the limiting pool. "
         "The KV cache moves over each device's scale-out network (scale_out_gb_s; Corsair's 12.5 GB/s is an "
         "ESTIMATE).",
         "Price: $0.40 per M in and out, DeepInfra Llama-3.1-70B (REFERENCES C.4) used as a ceiling for an 8B "
         "model (ASSUMPTION: the references carry no 8B price)."),
        heterogeneous),
    Sample(
        "frontier_optimizations.xlsx", "Optimizations that push the frontier",
        "On one model and device, what is each software optimization worth in tokens per GPU and cost per "
        "token at the same interactivity?",
        ("Llama-3.3-70B on 64 B200 (8 servers), 1,024 in / 1,024 out, each plan at the largest batch meeting "
         ">= 50 tokens/s per user (the default scenario's target).",
         "Plans: FP8 weights (baseline); MXFP4 and NVFP4 weights; NVFP4 + speculative decoding (k = 3 draft "
         "tokens, acceptance 0.7: ASSUMPTION); NVFP4 + prefill/decode disaggregation 1:5 (ASSUMPTION ratio, near the balanced share the plan's notes report); "
         "NVFP4 + 50% prefix-cache hits (ASSUMPTION); and all three together: gains compound.",
         "These plans are typed on purpose (serving_search off): each shows one optimization by hand, and its "
         "frontier_share says how much of the device's best at the target it reaches. The last plan searches "
         "the widest space (precisions, TP, draft tokens 0-3 at acceptance 0.7, batch): the engine's best single "
         "configuration, cheaper than every hand-typed combination (prefix caching is a property of the "
         "traffic, not of the configuration, so it is not searched).",
         "Throughput is generated by the roofline engine (estimate); compare with REFERENCES B.2: TRT-LLM "
         "B200 Llama-3.3-70B FP4 TP1 6,920 output tok/s per GPU at max throughput (1k/1k).",
         "Price: $0.88 per M in and out (Together AI Llama-3.3-70B, REFERENCES C.4)."),
        frontier_optimizations),
    Sample(
        "moe_rack_scale.xlsx", "An MoE reasoning model: rack-scale vs 8-GPU servers",
        "For DeepSeek-R1 with long reasoning outputs, is a GB200 NVL72 rack worth its price against 8-GPU H200 "
        "and B200 servers at the same power?",
        ("DeepSeek-R1 (671B total, 37B active, MLA), 1,024 in / 8,192 out (a TRT-LLM benchmark shape, "
         "REFERENCES B.2), every plan sized to 1 MW facility power.",
         "Interactivity target: MLPerf Inference DeepSeek-R1 Server constraints, TTFT <= 2 s and TPOT <= 80 ms "
         "(= 12.5 tokens/s per user) (REFERENCES B.1).",
         "Every plan searches the widest space (serving_search = auto: TP, EP, attention-DP, precisions, draft "
         "tokens 0-3, batch) starting from EP8 with attention data-parallel. With expert load imbalance and the "
         "all-to-all cost in the model (docs/model.md, section 1), spreading one replica over the whole "
         "72-GPU NVLink domain (EP72) no longer pays: the search picks TP8 with attention-DP on every device, "
         "the NVL72 rack included, and what still sets the rack apart is its power and rack density. The plan "
         "'GB200 NVL72 EP8 replicas as typed (search off)' keeps EP8 to show what the search gains.",
         "Price: DeepSeek official $2.19 out / $0.55 in per M (REFERENCES C.4).",
         "Compare with REFERENCES B.2 TRT-LLM max throughput per GPU, DeepSeek-R1-0528 1024/8192: B200 3,862, "
         "GB200 4,379 (FP4), H200 1,218 (FP8). GB200 rack: 132 kW cap, one per rack (REFERENCES A, EST).",
         "The last plan is a fleet of two pools (Pools sheet): GB200 NVL72 racks for prefill under their own "
         "132 kW cap, B200 servers for decode in 40 kW air-cooled racks, a 1:5 device ratio kept in whole "
         "servers within the 1 MW (its notes show how busy each pool is); the KV cache moves over the 400 Gb/s scale-out network."),
        moe_rack_scale),
    Sample(
        "years_price_decline.xlsx", "The years: falling token prices, a second tranche, a ramp and tax",
        "If token prices fall 30% a year, does a 64-GPU H200 fleet still pay back, and does adding a B200 tranche "
        "in year 2 help or hurt NPV and payback?",
        ("Llama-3.3-70B, 1,024 in / 1,024 out, >= 50 tokens/s per user, 5-year horizon; 64 H200 bought at the "
         "start, every pool at its best configuration at the target (serving_search = auto over the widest "
         "space, starting from FP8, TP2).",
         "With the search on, the H200 fleet pays back within its first year, at year 1's price and before the "
         "tranche is bought, so neither falling prices nor the second tranche move payback any more: falling "
         "prices cut NPV, the tranche lowers the cost per token and raises NPV. (With the "
         "typed FP8 TP2 configuration, serving_search = off, payback came later and the tranche delayed it.)",
         "Token price $0.88 per M in and out in year 1 (Together AI Llama-3.3-70B, REFERENCES C.4). Falling plans: "
         "-30% a year (ASSUMPTION: a given model's price falls by tens of percent a year; for scale, DeepInfra "
         "sold Llama-3.1-70B at $0.40, REFERENCES C.4).",
         "Second tranche: 64 B200 (searched from NVFP4, TP1) paid in year 2, serving years 3-5, worth capex x (1 - 3/5) at the "
         "horizon (straight-line to zero residual over the 5-year life). B200 price and server price are "
         "the catalog's estimates (docs/catalog.md).",
         "Last plan: utilization 35% in year 1, 70% from year 2 (ASSUMPTION: a new cluster fills up in a year); "
         "income tax 21% (US federal corporate rate, 26 U.S.C. 11(b)) on revenue - opex - straight-line "
         "depreciation over 5 years (IRS Publication 946: computers are 5-year property; straight-line here), "
         "losses carried forward.",
         "Electricity 8.95 c/kWh (EIA 2023 Virginia commercial, REFERENCES C.1), PUE 1.3 (REFERENCES C.2), "
         "discount rate 10% (ASSUMPTION); colocation, maintenance, software and staff are not entered (0): "
         "the notes say so."),
        years_and_tranches),
    Sample(
        "uncertainty_llama70b.xlsx", "Uncertainty: which plan pays back, and how sure is that?",
        "Serving Llama-3.3-70B at >= 50 tokens/s per user from 1 MW, with token prices, their decline, "
        "utilization, electricity, PUE, hardware prices and the performance model's error all uncertain: "
        "what are P10/P50/P90 of each plan's NPV, how likely is each to pay back, and how likely does one "
        "beat another?",
        ("Plans: H200, B200, GB200 NVL72 and MI355X, each sized to 1 MW of facility power (iso-power), "
         "Llama-3.3-70B 1,024 in / 1,024 out at >= 50 tokens/s per user, each at its best configuration "
         "(serving_search = auto over the widest space): the built-in default scenario's setting.",
         "The Uncertainty sheet gives every range with its source (REFERENCES A, C.1, C.2, C.4) or marks it "
         "ASSUMPTION; the output and input token prices share the group 'token price' (they move together); "
         "every other input is drawn independently, with the same draws for every plan (common random numbers).",
         "Run: tcoapp simulate samples/uncertainty_llama70b.xlsx --draws 10000 --seed 0 --json, or the app's "
         "Uncertainty tab; the exported MonteCarlo and MonteCarloDraws sheets hold 2,000 draws (seed 0).",
         "Finance inputs not on the Uncertainty sheet are the field-table defaults (4 years, 10% discount rate, "
         "15% other capex: ASSUMPTIONS); colocation, maintenance, software and staff are not entered (0)."),
        uncertainty_llama70b),
    Sample(
        "gpu_cloud_financed.xlsx", "A GPU cloud: device-hours sold reserved and on demand, financed with debt",
        "Do today's H100 rental prices pay for a 64-GPU H100 cloud, how much does selling 60% as reserved capacity "
        "change, and what does the equity holder earn when 60% of the capex is borrowed?",
        ("64 H100 SXM (8 servers) bought at the start, 4-year horizon (SemiAnalysis 4-year economic useful life, "
         "REFERENCES C.5), revenue_mode = device_hours: every device-hour is for sale.",
         "On-demand price $2.10 per GPU-hour (top of the $1.49-2.10 H100 SXM on-demand range, aiapiplaybook.com "
         "2026-01-15) paid for the hours used (utilization 70%, the field-table ASSUMPTION); reserved price "
         "$1.85 per GPU-hour (Lambda reserved H100, techplained Apr 2026), paid for every hour (REFERENCES C.3). "
         "Share reserved: 60% (ASSUMPTION).",
         "Debt: 60% of capex at 8% a year, repaid as a level annuity over 4 years (ASSUMPTION: no lender's terms "
         "in the references; enter yours); equity discount rate 15% (ASSUMPTION). NPV and IRR stay the project's "
         "(unlevered); equity NPV, equity IRR and min DSCR show the financing.",
         "Last plan: income tax 21% (US federal corporate rate, 26 U.S.C. 11(b)), MACRS 5-year depreciation "
         "(IRS Publication 946, Table A-1, half-year convention; computers are 5-year property), interest "
         "deductible; the horizon sale is a disposal (the undepreciated basis is deducted).",
         "Last plan, the same with hardware that ages: 9% of the GPUs fail each year and are replaced at the device "
         "price (capex in the year, MACRS-depreciated, sold with the fleet at the horizon like a tranche of their year; capacity unchanged): Meta saw 148 faulty-GPU and 72 HBM3 "
         "interruptions in 54 days on 16,384 H100s (The Llama 3 Herd of Models, arXiv:2407.21783, 2024, Table 5), "
         "about 9% of GPUs a year, an upper bound on replacements (not every interruption replaces a GPU); and "
         "the fleet ramps from no load to full over its first 6 months (ASSUMPTION: installation, burn-in and "
         "customer onboarding).",
         "Throughput (for the cost per token) is generated for Llama-3.3-70B FP8 TP2 at batch 64; electricity "
         "8.95 c/kWh (EIA 2023 Virginia commercial, REFERENCES C.1), PUE 1.3 (REFERENCES C.2), other capex 15% "
         "and discount rate 10% (ASSUMPTIONS); colocation, maintenance, software and staff are not entered (0)."),
        gpu_cloud_financed),
    Sample(
        "buy_now_or_wait.xlsx", "Buy now or wait for the next generation",
        "On a 1 MW site, do I buy racks that ship now, or leave the site empty for a year and buy the next "
        "generation, and how sure is the answer?",
        ("Plans: GB300 NVL72 and Vera Rubin NVL72 bought now (year 0 = the catalog's date, 2026-12), Vera Rubin "
         "NVL72 and Rubin Ultra NVL576 bought in year 1 (a Pools row with purchase_year 1: the site serves "
         "nothing in year 1); each sized to 1 MW of facility power, the same 5-year horizon, Llama-3.3-70B 1,024 "
         "in / 1,024 out at >= 50 tokens/s per user, at its best configuration (serving_search = auto).",
         "Vera Rubin (available from 2026-10) and Rubin Ultra (2027-10) are ANNOUNCED devices: their catalog rows "
         "are NVIDIA's preliminary figures and ESTIMATES (price, power, rack), with their sources and dates "
         "(docs/catalog.md); no measurement of either exists, so their prediction intervals and model-error draws are "
         "widened by the error of an architecture held out of the fit (docs/model.md). A tranche bought before its device's available_from is refused.",
         "Token price $0.88 per M in and out (Together AI Llama-3.3-70B, REFERENCES C.4) every year, utilization "
         "70%, electricity 8.95 c/kWh (REFERENCES C.1), PUE 1.3 (REFERENCES C.2), discount rate 10% "
         "(ASSUMPTIONS); a waiting site pays nothing in year 1 (enter colocation_contracted_kw to charge the idle "
         "site). Rack power caps: 140 kW (GB300 NVL72), 200 kW (Vera Rubin NVL72), 600 kW (Rubin Ultra's Kyber "
         "rack, NVIDIA GTC 2025).",
         "Read: the Decision ranks by NPV (one site), with NPV per MW and how sure the first place is over the "
         "model's error; waiting gives up a year of revenue for faster hardware."),
        buy_now_or_wait),
    AGENTIC_SAMPLE,
)


WRITTEN = datetime.datetime(2026, 11, 30, tzinfo=datetime.timezone.utc)  # fixed: rebuilds are reproducible


def write_workbook(sample: Sample, scenario: Scenario, path: Path) -> None:
    """The full workbook (write_scenario), with the sample's question and the source or assumption of
    its numbers as extra rows of the About sheet."""
    from tcoapp.engine.pipeline.compute import compute_scenario
    from tcoapp.io.workbook_write import write_scenario

    notes = [("sample", f"{sample.title}: {sample.question}")]
    notes += [("source / assumption", note) for note in sample.notes]
    write_scenario(scenario, path, compute_scenario(scenario), WRITTEN, about_notes=notes)


def readme_text() -> str:
    lines = ["# Sample scenarios", "",
             "Generated by `python samples/build_samples.py` from the definitions in that file; do not edit "
             "by hand. Open one in the desktop app (`tcoapp samples/FILE.xlsx`), in Excel or LibreOffice, or "
             "compute it headless (`tcoapp compute samples/FILE.xlsx --json`). Section letters (A, B.2, C.4...) "
             "refer to the project's reference data (devices, public measurements, finance); every catalog "
             "number's source is in docs/catalog.md.", "",
             "## Regenerating", "",
             "After a change to the engine, the workbook writer or the definitions, rebuild every sample and this "
             "README with one command, `python samples/build_samples.py`, and commit the result. "
             "`python samples/build_samples.py --check` rebuilds them in a temporary folder and lists the cells "
             "(formula or value, and each formula's cached engine value) that differ from the shipped files; "
             "tests/test_samples_current.py runs that check (one sample in the fast suite, all of them in the slow "
             "one).", ""]
    for sample in SAMPLES:
        lines += [f"## {sample.filename}: {sample.title}", "", f"**Question.** {sample.question}", ""]
        lines += [f"- {note}" for note in sample.notes]
        lines.append("")
    return "\n".join(lines)


def build_all(out_dir: Path, only: tuple[str, ...] = ()) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for sample in SAMPLES:
        if only and sample.filename not in only:
            continue
        path = out_dir / sample.filename
        write_workbook(sample, sample.build(), path)
        paths.append(path)
    (out_dir / "README.md").write_text(readme_text(), encoding="utf-8")
    return paths


def _cells(path: Path) -> dict[tuple[str, str], object]:
    """(sheet, cell) -> what the cell holds: its formula text or its value, and the value cached beside a
    formula (the engine's number a reader sees before recalculating)."""
    import openpyxl

    out: dict[tuple[str, str], object] = {}
    for data_only in (False, True):
        book = openpyxl.load_workbook(path, data_only=data_only)
        for ws in book.worksheets:
            for row in ws.iter_rows():
                for cell in row:
                    if cell.value is not None:
                        out[(ws.title + (" (cached)" if data_only else ""), cell.coordinate)] = cell.value
    return out


# How far a number may move in its last bits between machines: numpy's kernels differ by CPU (seen: a
# cached 0.7^4 as 0.24009999999999992 on one machine, 0.24009999999999995 on another). Any change of the
# model or the finance moves a number by far more.
SAME_NUMBER_REL = 1e-12


def _same(a, b) -> bool:
    """Equal, numbers (not booleans) within SAME_NUMBER_REL of each other (absolutely for those below 1)."""
    numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b))
    if numbers:
        return math.isclose(a, b, rel_tol=SAME_NUMBER_REL, abs_tol=SAME_NUMBER_REL)
    return a == b


def differences(built: Path, shipped: Path, limit: int = 20) -> list[str]:
    """What differs between a freshly built sample and the shipped one: sheets, cells (formula or value, and the
    cached value of each formula; numbers beyond their last bits, `_same`); at most `limit` lines."""
    if not shipped.exists():
        return [f"{shipped.name}: missing"]
    new, old = _cells(built), _cells(shipped)
    out = []
    for key in sorted(set(new) | set(old)):
        if not _same(new.get(key), old.get(key)):
            out.append(f"{shipped.name} {key[0]}!{key[1]}: shipped {old.get(key)!r}, built {new.get(key)!r}")
            if len(out) >= limit:
                break
    return out


def check(only: tuple[str, ...] = (), shipped_dir: Path = SAMPLES_DIR, limit: int = 20) -> list[str]:
    """Rebuild the samples (`only`: those files) in a temporary folder and list what differs from `shipped_dir`
    (at most `limit` lines per sample)."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        out = []
        for path in build_all(Path(folder), only):
            out.extend(differences(path, shipped_dir / path.name, limit))
        if not only and (Path(folder) / "README.md").read_text(encoding="utf-8") != (
                shipped_dir / "README.md").read_text(encoding="utf-8"):
            out.append("README.md differs")
        return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=SAMPLES_DIR, help="output directory (default: samples/)")
    parser.add_argument("--check", action="store_true",
                        help="rebuild into a temporary folder and list what differs from samples/ (exit 1 if any)")
    parser.add_argument("only", nargs="*", help="sample file names to build (default: all)")
    args = parser.parse_args(argv)
    if args.check:
        stale = check(tuple(args.only))
        print("\n".join(stale) if stale else "samples are current")
        return 1 if stale else 0
    for path in build_all(args.out, tuple(args.only)):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
