"""Generated scenarios for the workbook tests: measured curves (so compute is cheap and exact), custom
devices and models, price tiers, calibration factors, every sizing mode, and names that look like
formulas. `random_scenario(rnd)` takes a random.Random, so hypothesis (st.randoms) and a seeded
loop both drive it."""
from __future__ import annotations

import random

from tcoapp.engine.quantities.inputs import PRECISIONS, SIZING_MODES
from tcoapp.engine.quantities.factors import FACTOR_FIELD_BY_NAME
from tcoapp.engine.performance.factors import DEFAULT_FACTORS, FACTOR_NAMES
from tcoapp.engine.performance.measured import make_measured_curve
from tcoapp.engine.quantities.records import make_device, make_model, make_plan
from tcoapp.engine.plan.scenario import PriceTiers, Scenario
from tcoapp.io.catalog import load_catalog

TRICKY_NAMES = ("=1+1", "+SUM(A1:A2)", "-2", "@cmd", "=HYPERLINK(\"http://x\")", "ünïcødé ☃", "a'b",
                'quote"d', "<tag>&amp;", "Plan 1", "123", "1e5", "TRUE", "#N/A", "x" * 60)


def _name(rnd: random.Random, prefix: str, used: set) -> str:
    while True:
        base = rnd.choice(TRICKY_NAMES) if rnd.random() < 0.5 else f"{prefix}{rnd.randrange(1000)}"
        name = base if base not in used else f"{base} {len(used)}"
        if name not in used:
            used.add(name)
            return name


def _float(rnd: random.Random, lo: float, hi: float) -> float:
    """A float with all 17 significant digits (exercises the exact round trip)."""
    return lo + (hi - lo) * rnd.random()


def random_device(rnd, name):
    tdp = _float(rnd, 150, 1500)
    return make_device({
        "name": name, "vendor": rnd.choice(["Acme", "=VENDOR()", ""]), "memory_gb": _float(rnd, 16, 300),
        "mem_bw_gb_s": _float(rnd, 500, 9000), "peak_tflops_bf16": _float(rnd, 100, 3000),
        "peak_tflops_fp8": rnd.choice([0.0, _float(rnd, 100, 5000)]), "tdp_w": tdp,
        "idle_w": rnd.choice([0.0, tdp * rnd.random()]), "price_usd": _float(rnd, 1000, 80000),
        "devices_per_server": rnd.choice([1, 2, 4, 8, 72]), "server_price_usd": rnd.choice([0.0, _float(rnd, 0, 2e5)]),
        "server_overhead_w": rnd.choice([0.0, _float(rnd, 0, 8000)]), "scale_up_domain": rnd.choice([1, 8, 72]),
        "interconnect_gb_s": _float(rnd, 0, 1800), "source": rnd.choice(["", "hand-made", "-from a spec sheet"]),
        "notes": rnd.choice(["", "line one\nline two", "@note"]),
    })


def random_model(rnd, name):
    total = _float(rnd, 1, 700)
    return make_model({
        "name": name, "total_params_b": total, "active_params_b": total * (0.1 + 0.9 * rnd.random()),
        "n_layers": rnd.randint(1, 128), "hidden_size": rnd.randint(256, 16384), "n_kv_heads": rnd.randint(1, 16),
        "head_dim": rnd.choice([64, 128]), "source": "generated",
    })


def random_curve(rnd, name, device, model):
    n = rnd.randint(2, 8)
    batches = sorted(rnd.sample(range(1, 600), n))
    tps = sorted(_float(rnd, 10, 20000) for _ in range(n))
    users = sorted((_float(rnd, 2, 300) for _ in range(n)), reverse=True)
    power = sorted(_float(rnd, 100, 1200) for _ in range(n))
    ttft = sorted(_float(rnd, 0.01, 5) for _ in range(n)) if rnd.random() < 0.5 else None
    if rnd.random() < 0.3:
        power = None
    return make_measured_curve(name, device, model, batches, tps, users, power, ttft,
                               precision=rnd.choice(["", *PRECISIONS]), tensor_parallel=rnd.choice([None, 1, 2, 8]),
                               source=rnd.choice(["", "measured", "=SUM(1)"]),
                               config=rnd.choice([(), (("input_tokens", str(rnd.randint(1, 9000))), ("prefill.workers", "2"),
                                                       ("Framework", "dynamo-sglang"))]))


def random_plan(rnd, name, device, model, curve, tiers, ttft_known: bool):
    raw = {
        "device": device, "model": model, "curve": curve, "batch": rnd.randint(1, 700),
        "input_tokens": rnd.randint(1, 20000), "output_tokens": rnd.randint(1, 4000),
        "tensor_parallel": rnd.choice([1, 2, 4]), "weight_precision": rnd.choice(PRECISIONS),
        "attention_dp": rnd.random() < 0.3, "sizing_mode": rnd.choice(SIZING_MODES),
        "device_count": rnd.randint(1, 5000), "facility_power_kw": _float(rnd, 10, 50000),
        "capex_budget_usd": _float(rnd, 1e5, 1e9), "demand_tokens_per_day": _float(rnd, 1e6, 1e12),
        "rack_power_cap_kw": _float(rnd, 5, 200), "servers_per_rack_max": rnd.randint(1, 8),
        "other_capex_fraction": _float(rnd, 0, 0.5), "pue": _float(rnd, 1, 2),
        "electricity_usd_per_kwh": _float(rnd, 0, 0.4), "colocation_usd_per_kw_month": rnd.choice([0.0, _float(rnd, 0, 300)]),
        "maintenance_fraction_per_year": rnd.choice([0.0, _float(rnd, 0, 0.1)]),
        "software_usd_per_device_year": rnd.choice([0.0, _float(rnd, 0, 5000)]),
        "staff_usd_per_year": rnd.choice([0.0, _float(rnd, 0, 1e6)]), "utilization": rnd.choice([0.001, 1.0, _float(rnd, 0.001, 1)]),
        "years": rnd.randint(1, 10), "discount_rate": rnd.choice([0.0, _float(rnd, 0, 0.3)]),
        "residual_value_fraction": rnd.choice([0.0, _float(rnd, 0, 0.5)]),
        "price_usd_per_million_output_tokens": rnd.choice([0.0, _float(rnd, 0, 20)]),
        "price_usd_per_million_input_tokens": _float(rnd, 0, 3),
    }
    if tiers and rnd.random() < 0.5:
        raw["price_tiers"] = rnd.choice(tiers)
    if rnd.random() < 0.3:
        raw["min_tokens_per_s_per_user"] = _float(rnd, 1, 200)
    if ttft_known and rnd.random() < 0.2:
        raw["max_ttft_s"] = _float(rnd, 0.05, 5)
    return make_plan(name, raw)


def random_tiers(rnd, name):
    n = rnd.randint(1, 4)
    thresholds = tuple(sorted(rnd.sample(range(0, 300), n)))
    return PriceTiers(name, tuple(float(t) for t in thresholds), tuple(_float(rnd, 0.05, 30) for _ in range(n)))


def random_scenario(rnd: random.Random, max_plans: int = 4) -> Scenario:
    catalog = load_catalog()
    used: set = set(catalog.devices) | set(catalog.models)
    devices = {n: random_device(rnd, n) for n in (_name(rnd, "XPU-", used) for _ in range(rnd.randint(0, 3)))}
    models = {n: random_model(rnd, n) for n in (_name(rnd, "Model-", used) for _ in range(rnd.randint(0, 2)))}
    shipping = sorted(n for n, d in catalog.devices.items() if not d.available_from)  # announced ones: buy later
    device_names = list(devices) + rnd.sample(shipping, 2)
    model_names = list(models) + rnd.sample(sorted(catalog.models), 1)
    curves = {}
    for _ in range(rnd.randint(1, 3)):
        name = _name(rnd, "curve-", used)
        curves[name] = random_curve(rnd, name, rnd.choice(device_names), rnd.choice(model_names))
    tiers = {n: random_tiers(rnd, n) for n in (_name(rnd, "tiers-", used) for _ in range(rnd.randint(0, 2)))}
    plans = []
    for _ in range(rnd.randint(1, max_plans)):
        curve = rnd.choice(list(curves))
        plan = random_plan(rnd, _name(rnd, "plan ", used), rnd.choice(device_names), rnd.choice(model_names),
                           curve, list(tiers), bool((curves[curve].ttft_s == curves[curve].ttft_s).any()))
        plans.append(_within_context(plan, (models.get(plan.model) or catalog.models[plan.model]).max_context_tokens))
    factors = DEFAULT_FACTORS
    if rnd.random() < 0.5:
        factors = DEFAULT_FACTORS.with_(**{k: _float(rnd, FACTOR_FIELD_BY_NAME[k].max / 100, FACTOR_FIELD_BY_NAME[k].max)
                                           for k in rnd.sample(FACTOR_NAMES, 3)})
    return Scenario(tuple(plans), devices, models, curves, tiers, factors,
                    catalog_devices=catalog.devices, catalog_models=catalog.models)


def _within_context(plan, limit: int):
    """The plan with its request shortened to the model's max_context_tokens (a longer one is refused)."""
    if not limit or plan.input_tokens + plan.output_tokens <= limit:
        return plan
    output = min(plan.output_tokens, limit // 2)
    return plan.with_(output_tokens=output, input_tokens=min(plan.input_tokens, limit - output))


def seeded_scenarios(count: int, seed: int = 20261130, max_plans: int = 4) -> list[Scenario]:
    rnd = random.Random(seed)
    return [random_scenario(rnd, max_plans) for _ in range(count)]
