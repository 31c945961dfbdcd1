"""A disaggregated measured deployment (an aiconfigurator or InferenceX row set) as a two-pool plan:
the deployment's prefill and decode pools with their own devices, counts and the configuration the
file states, computed by the generated model, so the plan can be sized, priced and compared (the
measured deployment curve stays in the scenario beside it)."""
from __future__ import annotations

from ..quantities.inputs import PRECISIONS
from ..quantities.records import Plan, make_plan, make_pool

POOL_CONFIG_KEYS = ("tensor_parallel", "expert_parallel", "attention_dp", "weight_precision",
                    "attention_weight_precision", "kv_precision")


def is_disaggregated(curve) -> bool:
    """Whether a measured curve records a prefill/decode deployment (its config names both device counts)."""
    config = dict(curve.config)
    return config.get("disaggregated") == "true" and "prefill_devices" in config and "decode_devices" in config


def _pool(config: dict, role: str, plan_name: str, fallback_device: str) -> dict:
    raw = {"plan": plan_name, "pool": role, "role": role, "device": config.get(f"{role}.device") or fallback_device,
           "device_count": config[f"{role}_devices"]}
    for key in POOL_CONFIG_KEYS:
        value = config.get(f"{role}.{key}")
        if value is None or (key.endswith("precision") and value not in PRECISIONS):
            continue
        raw[key] = value
    return raw


def two_pool_plan(curve, template: Plan, name: str) -> Plan:
    """The plan of `template`'s finance keys whose pools are the deployment's (ValueError if `curve` is not a
    disaggregated deployment the model can run; ValidationError where a stated value is not a valid pool key)."""
    if not is_disaggregated(curve):
        raise ValueError(f"curve {curve.name!r} is not a disaggregated deployment")
    config = dict(curve.config)
    workload = {k: int(float(config[k])) for k in ("input_tokens", "output_tokens") if k in config}
    plan = make_plan(name, {**_plan_values(template), "model": curve.model or template.model,
                            "device": config.get("decode.device") or curve.device or template.device,
                            "curve": "", "prefill_device": "", "decode_device": "", "prefill_devices": 0,
                            "decode_devices": 0, **workload,
                            # the stack the deployment ran: the plan uses factors calibrated for it
                            **({"serving_stack": config["serving_stack"]} if config.get("serving_stack") else {})})
    for role in ("prefill", "decode"):
        if float(config.get(f"{role}.pipeline_parallel", "1") or 1) > 1:
            raise ValueError(f"curve {curve.name!r}: the {role} pool uses pipeline parallelism, which the generated "
                             "model does not model")
    pools = tuple(make_pool(_pool(config, role, name, curve.device)) for role in ("prefill", "decode"))
    return plan.with_(pools=pools)


def _plan_values(plan: Plan) -> dict:
    values = plan.as_dict()
    values.pop("name")
    values.pop("pools")
    values.pop("workloads")   # a measured deployment serves its curve's request shape, not the template's classes
    return values
