"""Frozen domain records built from the field table (docs/workbook_format.md).

The classes are generated from `fields.py`, so a field's name, type and default live in one place.
Build them with `make_*` functions, which validate and report every problem at once.
"""
from __future__ import annotations

from dataclasses import make_dataclass, field as dc_field, fields as dc_fields, replace
from typing import Any, Mapping

from ..core.errors import Problem, ValidationError
from .inputs import (
    DEVICE_FIELDS, MODEL_FIELDS, PLAN_FIELDS, POOL_FIELDS, PRECISIONS, SERVING_FIELDS, WORKLOAD_FIELDS, Field,
)
from .dates import software_month
from .validate import Locator, coerce_record

_PY_TYPES = {"float": float, "int": int, "str": str, "bool": bool, "choice": str}


def _record_class(name: str, fields: tuple[Field, ...], doc: str, extra: tuple = (), namespace=None, tail: tuple = ()):
    """A frozen record of the fields (and `extra` before, `tail` after them). `doc` is given: without it
    the dataclass would render the record's whole signature (up to 100 fields) as its docstring, which
    costs more than the rest of the class."""
    spec = list(extra) + [
        (f.name, _PY_TYPES[f.type] | None, dc_field(default=f.default)) for f in fields
    ] + list(tail)
    return make_dataclass(name, spec, frozen=True, namespace=dict(namespace or {}, __doc__=doc))


def _as_dict(self) -> dict[str, Any]:
    return {f.name: getattr(self, f.name) for f in dc_fields(self)}


def _with(self, **changes):
    return replace(self, **changes)


_NS = {"as_dict": _as_dict, "with_": _with}

Device = _record_class("Device", DEVICE_FIELDS, "An accelerator of the catalog (a Devices sheet row).",
                       namespace=dict(_NS, __module__=__name__))
ModelSpec = _record_class("ModelSpec", MODEL_FIELDS, "A model's architecture (a Models sheet row).",
                          namespace=dict(_NS, __module__=__name__))
Workload = _record_class("Workload", WORKLOAD_FIELDS, "A plan's requests: prompt and output lengths, prefix reuse.",
                         namespace=dict(_NS, __module__=__name__))
ServingConfig = _record_class("ServingConfig", SERVING_FIELDS, "How a pool serves: batch, parallelism, precisions, "
                              "speculative decoding.", namespace=dict(_NS, __module__=__name__))


def _plan_workload(self) -> Workload:
    return Workload(**{f.name: getattr(self, f.name) for f in WORKLOAD_FIELDS})


def _plan_serving(self) -> ServingConfig:
    return ServingConfig(**{f.name: getattr(self, f.name) for f in SERVING_FIELDS})


def _plan_is_disaggregated(self) -> bool:
    return self.prefill_devices > 0 and self.decode_devices > 0


def _plan_has_target(self) -> bool:
    return self.min_tokens_per_s_per_user is not None or self.max_ttft_s is not None


Pool = _record_class("Pool", POOL_FIELDS, "One pool of a plan (docs/model.md, \"Fleet plans\"): a device type with its "
                     "count, role, serving overrides (None = the plan's value), rack keys and ownership. Built from "
                     "a Pools sheet row.", namespace=dict(_NS, __module__=__name__))


Plan = _record_class(
    "Plan",
    PLAN_FIELDS,
    "One plan of a scenario (a Plans sheet column): device, model, workload, serving, sizing and finance "
    "inputs, and its pools (none: one serve pool of the plan's own keys).\n\n"
    "Every field is a Plans key (docs/workbook_format.md lists each with its unit, default and allowed range); "
    "units are in the names (`capex_usd`, `power_w`, `ttft_s`) and fractions are 0..1. Frozen: change a plan "
    "of a scenario with `Scenario.with_plan`, which validates the change as a workbook is validated.\n\n"
    "Attributes\n----------\nname : str\n    The plan's name (its Plans column header).\n"
    "pools : tuple of Pool\n    The plan's pools (Pools sheet rows); empty: one pool of the plan's own keys.\n\n"
    "Examples\n--------\n>>> import tcoapp\n>>> plan = tcoapp.load_scenario().plan(\"H200\")\n"
    ">>> plan.device, plan.utilization\n('H200-SXM', 0.7)\n",
    extra=(("name", str),),
    tail=(("pools", tuple, dc_field(default=())),),
    namespace=dict(
        _NS,
        __module__=__name__,
        workload=property(_plan_workload),
        serving=property(_plan_serving),
        is_disaggregated=property(_plan_is_disaggregated),
        has_target=property(_plan_has_target),
    ),
)


def _field_locator(prefix: str) -> Locator:
    return lambda key: prefix


def make_device(raw: Mapping[str, Any], where: Locator | None = None, problems=None) -> Device:
    """A validated Device from a row of raw values (every problem located by `where`)."""
    return _make(Device, DEVICE_FIELDS, raw, where, problems, _device_checks)


def make_model(raw: Mapping[str, Any], where: Locator | None = None, problems=None) -> ModelSpec:
    """A validated ModelSpec from a row of raw values (every problem located by `where`)."""
    return _make(ModelSpec, MODEL_FIELDS, raw, where, problems, _model_checks)


def make_plan(name: str, raw: Mapping[str, Any], where: Locator | None = None, problems=None) -> Plan:
    """A validated Plan named `name` from its raw values (every problem located by `where`)."""
    values_cls = lambda **v: Plan(name=name, **v)  # noqa: E731
    return _make(values_cls, PLAN_FIELDS, raw, where or _field_locator(f"Plan {name!r}"), problems, _plan_checks)


def make_pool(raw: Mapping[str, Any], where: Locator | None = None, problems=None) -> Pool:
    """A validated Pool (a Pools sheet row) from raw values (every problem located by `where`)."""
    return _make(Pool, POOL_FIELDS, raw, where, problems, _pool_checks)


def _make(cls, fields, raw, where, problems, checks):
    own = problems is None
    problems = [] if own else problems
    where = where or _field_locator(cls.__name__ if isinstance(cls, type) else "record")
    start = len(problems)
    values = coerce_record(fields, raw, where, problems)
    if len(problems) == start:
        checks(values, where, problems)
    if len(problems) > start:
        if own:
            raise ValidationError(problems)
        return None
    return cls(**values)


def _device_checks(v, where, problems) -> None:
    if v["fast_memory_gb"] > 0 and v["fast_mem_bw_gb_s"] <= 0:
        problems.append(Problem(where("fast_mem_bw_gb_s"), "fast_mem_bw_gb_s",
                                f"= {v['fast_mem_bw_gb_s']:g}: a fast memory tier ({v['fast_memory_gb']:g} GB) needs its "
                                "bandwidth, a number > 0 (GB/s)"))
    if v["idle_w"] > v["tdp_w"]:
        problems.append(Problem(where("idle_w"), "idle_w", f"= {v['idle_w']:g}: must be at most tdp_w ({v['tdp_w']:g})"))
    for key in (f.name for f in DEVICE_FIELDS if f.name.startswith("fp4_")):  # lists of 4-bit formats
        listed = search_precision_list(v[key] or "")
        unknown = [p for p in listed if p not in ("mxfp4", "nvfp4")]
        if unknown:
            problems.append(Problem(where(key), key, f"= {v[key]!r}: {', '.join(unknown)} is not a 4-bit format; list "
                                    "mxfp4 and/or nvfp4 separated by ';', or leave it empty"))
    if search_precision_list(v["fp4_formats"] or "") and v["peak_tflops_fp4"] <= 0:
        problems.append(Problem(where("fp4_formats"), "fp4_formats",
                                f"= {v['fp4_formats']!r}: FP4 math formats need peak_tflops_fp4 > 0 (it is "
                                f"{v['peak_tflops_fp4']:g}); empty the cell or enter the FP4 peak"))


def _model_checks(v, where, problems) -> None:
    if v["active_params_b"] > v["total_params_b"]:
        problems.append(Problem(where("active_params_b"), "active_params_b",
                                f"= {v['active_params_b']:g}: must be at most total_params_b ({v['total_params_b']:g})"))
    if v["experts_per_token"] > v["n_experts"]:
        problems.append(Problem(where("experts_per_token"), "experts_per_token",
                                f"= {v['experts_per_token']}: must be at most n_experts ({v['n_experts']})"))
    if v["n_experts"] > 0 and v["active_params_b"] * v["n_experts"] < v["experts_per_token"] * v["total_params_b"]:
        problems.append(Problem(where("active_params_b"), "active_params_b",
                                f"= {v['active_params_b']:g}: too small for {v['experts_per_token']} of {v['n_experts']} experts "
                                f"of a {v['total_params_b']:g} B model (shared parameters would be negative); must be at least "
                                f"{v['experts_per_token'] * v['total_params_b'] / v['n_experts']:g}"))
    if (v["n_experts"] > 0) != (v["experts_per_token"] > 0):
        problems.append(Problem(where("experts_per_token"), "experts_per_token",
                                "an MoE model needs both n_experts and experts_per_token > 0 (a dense model: both 0)"))
    if v["sliding_window_layers"] > v["n_layers"]:
        problems.append(Problem(where("sliding_window_layers"), "sliding_window_layers",
                                f"= {v['sliding_window_layers']}: must be at most n_layers ({v['n_layers']})"))
    if (v["sliding_window_layers"] > 0) != (v["sliding_window_tokens"] > 0):
        problems.append(Problem(where("sliding_window_tokens"), "sliding_window_tokens",
                                "sliding-window attention needs both sliding_window_layers and sliding_window_tokens > 0 (or both 0)"))
    if v["n_kv_heads"] == 0 and v["mla_latent_dim"] == 0:
        problems.append(Problem(where("n_kv_heads"), "n_kv_heads", "= 0: a model needs n_kv_heads > 0 or an mla_latent_dim"))


def _pool_checks(v, where, problems) -> None:
    _precision_check(v, where, problems)
    if v["ownership"] == "rent" and v["rent_usd_per_device_hour"] <= 0:
        problems.append(Problem(where("rent_usd_per_device_hour"), "rent_usd_per_device_hour",
                                "a rented pool needs its rent: a number > 0 (USD per device-hour)"))
    if v["ownership"] == "buy" and v["rent_usd_per_device_hour"] > 0:
        problems.append(Problem(where("rent_usd_per_device_hour"), "rent_usd_per_device_hour",
                                f"= {v['rent_usd_per_device_hour']:g}: a bought pool pays no rent (set ownership = rent, or clear it)"))


def search_precision_list(text: str) -> tuple[str, ...]:
    """The precisions named in a `search_precisions` value ("fp8; nvfp4" -> ("fp8", "nvfp4"))."""
    return tuple(dict.fromkeys(p.strip().lower() for p in (text or "").split(";") if p.strip()))


def _precision_check(v, where, problems) -> None:
    value = v.get("attention_weight_precision")
    if value and value not in PRECISIONS:
        problems.append(Problem(where("attention_weight_precision"), "attention_weight_precision",
                                f"= {value!r}: must be empty (weight_precision) or one of {', '.join(PRECISIONS)}"))


def _plan_checks(v, where, problems) -> None:
    _precision_check(v, where, problems)
    month, date_error = software_month(v.get("software_date", ""))
    if date_error:
        problems.append(Problem(where("software_date"), "software_date", date_error))
    elif "software_date" in v:
        v["software_date"] = month       # a day (an Excel date cell) is read as its month
    unknown = [p for p in search_precision_list(v["search_precisions"]) if p not in PRECISIONS]
    if unknown:
        problems.append(Problem(where("search_precisions"), "search_precisions",
                                f"= {v['search_precisions']!r}: {', '.join(unknown)} is not a precision; list "
                                f"precisions separated by ';', each one of {', '.join(PRECISIONS)}"))
    if (v["prefill_devices"] > 0) != (v["decode_devices"] > 0):
        problems.append(Problem(where("decode_devices"), "decode_devices",
                                "disaggregation needs both prefill_devices and decode_devices > 0 (or both 0)"))
