"""Frozen domain records built from the field table (docs/workbook_format.md).

The classes are written out from the table by tools/gen_records.py (`record_types.py`), so a field's
name, type and default live in one place and a reader and mypy see them. Build them with the `make_*`
functions here, which validate and report every problem at once.
"""
from __future__ import annotations

import math
from typing import Any, Mapping

from ..core.errors import Problem, ValidationError, shown
from .inputs import DEVICE_FIELDS, MODEL_FIELDS, PLAN_FIELDS, POOL_FIELDS, PRECISIONS, REQUEST_CLASS_FIELDS
from .dates import software_month
from .row import attribute  # noqa: F401 (read through this module too)
from .record_types import Device, ModelSpec, Plan, Pool, RequestClass, ServingConfig, Workload  # noqa: F401 (read here)
from .validate import Locator, coerce_record


def field_locator(prefix: str) -> Locator:
    """A locator that names `prefix` for every key (a record read from somewhere without cells)."""
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
    return _make(values_cls, PLAN_FIELDS, raw, where or field_locator(f"Plan {name!r}"), problems, _plan_checks)


def make_pool(raw: Mapping[str, Any], where: Locator | None = None, problems=None) -> Pool:
    """A validated Pool (a Pools sheet row) from raw values (every problem located by `where`)."""
    return _make(Pool, POOL_FIELDS, raw, where, problems, _pool_checks)


def make_request_class(raw: Mapping[str, Any], where: Locator | None = None, problems=None) -> RequestClass:
    """A validated RequestClass (a Workloads sheet row; its `class` column is the attribute `class_`) from raw
    values (every problem located by `where`)."""
    build = lambda **v: RequestClass(class_=v.pop("class"), **v)  # noqa: E731
    return _make(build, REQUEST_CLASS_FIELDS, raw, where or field_locator("Workloads row"), problems,
                 _request_class_checks)


Z90 = 1.2815515655446004   # the standard normal's 90th percentile
MAX_P90_OVER_MEAN = math.exp(Z90 * Z90 / 2.0)  # 2.2732: no lognormal's p90 lies further above its mean
SHARE_TOLERANCE = 1e-6  # shares typed to 6 decimals (1/3 as 0.333333) still add to 1


def request_class_problems(plan: str, classes, where: Locator | None = None) -> list[Problem]:
    """What is wrong with a plan's request classes taken together: their shares must add to 1 and their
    names be unique within the plan (each row's own fields are checked by `make_request_class`)."""
    if not classes:
        return []
    where = where or field_locator(f"Plan {plan!r} Workloads")
    problems = []
    names = [c.class_ for c in classes]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        problems.append(Problem(where("class"), "class", f"{', '.join(twice)}: a class name is used twice in plan "
                                                         f"{plan!r}; name each class once"))
    total = sum(c.share for c in classes)
    if abs(total - 1.0) > SHARE_TOLERANCE:
        shown = " + ".join(f"{c.share:g}" for c in classes)
        problems.append(Problem(where("share"), "share", f"plan {plan!r}: the classes' shares add to {total:.6g} "
                                                         f"({shown}); they must add to 1"))
    return problems


def _make(cls, fields, raw, where, problems, checks):
    own = problems is None
    problems = [] if own else problems
    where = where or field_locator(cls.__name__ if isinstance(cls, type) else "record")
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
    month, date_error = software_month(v.get("available_from", ""))
    if date_error:
        problems.append(Problem(where("available_from"), "available_from",
                                f"= {shown(v['available_from'])}: must be a month YYYY-MM between 2015-01 and 2100-12 "
                                "(or a date), or empty (a device that ships now)"))
    elif "available_from" in v:
        v["available_from"] = month
    if v["fast_memory_gb"] > 0 and v["fast_mem_bw_gb_s"] <= 0:
        problems.append(Problem(where("fast_mem_bw_gb_s"), "fast_mem_bw_gb_s",
                                f"= {v['fast_mem_bw_gb_s']:g}: a fast memory tier ({v['fast_memory_gb']:g} GB) needs its "
                                "bandwidth, a number > 0 (GB/s)"))
    if v["idle_w"] > v["tdp_w"]:
        problems.append(Problem(where("idle_w"), "idle_w", f"= {v['idle_w']:g}: must be at most tdp_w ({v['tdp_w']:g})"))
    if v["power_limit_w"] > 0 and not v["idle_w"] < v["power_limit_w"] <= v["tdp_w"]:
        problems.append(Problem(where("power_limit_w"), "power_limit_w",
                                f"= {v['power_limit_w']:g}: must be above idle_w ({v['idle_w']:g}) and at most tdp_w "
                                f"({v['tdp_w']:g}) W (a limit above the TDP raises no clock), or 0 for none"))
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
    _layer_group_checks(v, where, problems)


def _layer_group_checks(v, where, problems) -> None:
    """The attention layer groups add up: sliding-window + linear layers <= n_layers, sparse layers
    among the rest (the full-attention layers), and each group has its sizes (or none)."""
    full = v["n_layers"] - v["sliding_window_layers"] - v["linear_attention_layers"]
    if v["linear_attention_layers"] > 0 and full < 0:
        problems.append(Problem(where("linear_attention_layers"), "linear_attention_layers",
                                f"= {v['linear_attention_layers']}: sliding_window_layers ({v['sliding_window_layers']}) + "
                                f"linear_attention_layers must be at most n_layers ({v['n_layers']})"))
    elif v["sparse_attention_layers"] + v["compressed_attention_layers"] > max(full, 0):
        key = "sparse_attention_layers" if v["sparse_attention_layers"] > max(full, 0) else "compressed_attention_layers"
        problems.append(Problem(where(key), key,
                                f"= {v[key]}: sparse_attention_layers + compressed_attention_layers "
                                f"({v['sparse_attention_layers'] + v['compressed_attention_layers']}) must be at most the "
                                f"full-attention layers, n_layers - sliding_window_layers - linear_attention_layers = {max(full, 0)}"))
    if v["compressed_window_tokens"] > 0 and v["sparse_attention_layers"] + v["compressed_attention_layers"] == 0:
        problems.append(Problem(where("compressed_window_tokens"), "compressed_window_tokens",
                                f"= {v['compressed_window_tokens']}: a raw window belongs to sparse or compressed layers; "
                                "set sparse_attention_layers or compressed_attention_layers, or clear it"))
    pairs = (("sparse_attention_layers", "sparse_top_k_tokens", "sparse attention"),
             ("compressed_attention_layers", "compressed_attention_ratio", "compressed attention"),
             ("indexer_heads", "indexer_head_dim", "a sparse-attention indexer"),
             ("linear_attention_layers", "linear_state_values", "linear attention"),
             ("linear_attention_layers", "linear_attention_heads", "linear attention"))
    for first, second, what in pairs:
        if (v[first] > 0) != (v[second] > 0):
            problems.append(Problem(where(second), second,
                                    f"= {v[second]:g}: {what} needs both {first} and {second} > 0 (or both 0; "
                                    f"{first} = {v[first]:g})"))
    if v["indexer_heads"] > 0 and v["sparse_attention_layers"] == 0:
        problems.append(Problem(where("indexer_heads"), "indexer_heads",
                                f"= {v['indexer_heads']}: an indexer belongs to sparse-attention layers; set "
                                "sparse_attention_layers and sparse_top_k_tokens, or clear indexer_heads and indexer_head_dim"))


def context_problem(model: ModelSpec, input_tokens, output_tokens) -> str | None:
    """Why a request of `input_tokens` + `output_tokens` cannot run on `model` (None: it can): its
    context exceeds the model's max_context_tokens (0: unknown, never refused)."""
    limit = int(getattr(model, "max_context_tokens", 0) or 0)
    context = int(input_tokens) + int(output_tokens)
    if limit <= 0 or context <= limit:
        return None
    return (f"= {int(input_tokens):,}: with output_tokens {int(output_tokens):,} the context is {context:,} tokens, "
            f"beyond {model.name}'s max_context_tokens ({limit:,}); input_tokens + output_tokens must be at most "
            f"{limit:,} (or choose a model with a longer context)")


def _pool_checks(v, where, problems) -> None:
    _precision_check(v, where, problems)
    if v["ownership"] == "rent" and v["rent_usd_per_device_hour"] <= 0:
        problems.append(Problem(where("rent_usd_per_device_hour"), "rent_usd_per_device_hour",
                                "a rented pool needs its rent: a number > 0 (USD per device-hour)"))
    if v["ownership"] == "buy" and v["rent_usd_per_device_hour"] > 0:
        problems.append(Problem(where("rent_usd_per_device_hour"), "rent_usd_per_device_hour",
                                f"= {v['rent_usd_per_device_hour']:g}: a bought pool pays no rent (set ownership = rent, or clear it)"))


TAIL_CLASS_SHARE = 0.15   # the share of a class's requests a suggested tail class takes, at most: above 0.1,
#                           so the two classes' p90 is the tail's length


def _two_class_hint(v, length: str, mean: float, p90: float) -> str:
    """How to type a tail longer than a lognormal's as two classes of the same mean and p90: a tail at a
    share t of length p90 (the mix's p90, as t > 0.1) and a body at 1 - t of length (mean - t p90) / (1 - t),
    with t = min(TAIL_CLASS_SHARE, (0.1 + mean / p90) / 2) so the body is longer than 0. No distribution of
    lengths >= 0 has its p90 at or above 10 x its mean (a tenth of the requests would hold all of the mean),
    so there it says that instead."""
    if p90 >= 10 * mean:
        return ("; no distribution of lengths has its p90 at 10 x its mean or above (a tenth of the requests "
                "would hold all of the mean)")
    tail = min(TAIL_CLASS_SHARE, (0.1 + mean / p90) / 2)
    body = (mean - tail * p90) / (1 - tail)
    name, share = v["class"], v["share"]
    return (f". A tail that long is two populations: type it as two classes, '{name} body' at share "
            f"{share * (1 - tail):.4g} with {length} {body:,.0f} and '{name} tail' at share "
            f"{share * tail:.4g} with {length} {p90:,} (the same mean and p90)")


def _request_class_checks(v, where, problems) -> None:
    for length in ("input_tokens", "output_tokens"):
        mean, p90 = v[length], v[f"{length}_p90"]
        if mean is not None and p90 is not None and p90 <= mean:
            problems.append(Problem(where(f"{length}_p90"), f"{length}_p90",
                                    f"= {p90:,}: a p90 above the mean ({mean:,}) draws a long tail; empty for a fixed "
                                    "length (a lognormal's p90 is above its mean)"))
        elif mean is not None and p90 is not None and p90 > MAX_P90_OVER_MEAN * mean * (1 + 1e-12):
            problems.append(Problem(where(f"{length}_p90"), f"{length}_p90",
                                    f"= {p90:,}: a lognormal's p90 is at most {MAX_P90_OVER_MEAN:.4g} x its mean "
                                    f"({MAX_P90_OVER_MEAN * mean:,.0f} for a mean of {mean:,}); lower the p90 or "
                                    f"raise the mean{_two_class_hint(v, length, mean, p90)}"))
    agentic = v["session_turns"] is not None
    session = ("system_prompt_tokens", "turn_input_tokens", "turn_gap_s")
    if agentic:
        for key in session:
            if v[key] is None:
                problems.append(Problem(where(key), key, f"an agentic class (session_turns = {v['session_turns']}) "
                                                         f"needs {key}: a number >= 0"))
    else:
        for key in session:
            if v[key] is not None:
                problems.append(Problem(where(key), key, f"= {v[key]:g}: only an agentic class reads it; set "
                                                         "session_turns (or clear it)"))
        if v["input_tokens"] is None:
            problems.append(Problem(where("input_tokens"), "input_tokens",
                                    "a class of independent requests needs its mean prompt length: an integer >= 1"))


def search_precision_list(text: str) -> tuple[str, ...]:
    """The precisions named in a `search_precisions` value ("fp8; nvfp4" -> ("fp8", "nvfp4"))."""
    return tuple(dict.fromkeys(p.strip().lower() for p in (text or "").split(";") if p.strip()))


def _precision_check(v, where, problems) -> None:
    value = v.get("attention_weight_precision")
    if value and value not in PRECISIONS:
        problems.append(Problem(where("attention_weight_precision"), "attention_weight_precision",
                                f"= {value!r}: must be empty (weight_precision) or one of {', '.join(PRECISIONS)}"))


def _kv_tier_checks(v, where, problems) -> None:
    """Extra host memory or NVMe bought needs its price (an empty price would buy it for nothing)."""
    for amount, price, unit in (("extra_host_memory_gb", "host_memory_price_usd_per_gb", "GB"),
                                ("extra_nvme_tb", "nvme_price_usd_per_tb", "TB")):
        if v.get(amount, 0) and v[amount] > 0 and v.get(price) is None:
            problems.append(Problem(where(price), price, f"{amount} = {v[amount]:g}: the extra memory needs its "
                                                         f"price, USD per {unit} (a number >= 0)"))


def _plan_checks(v, where, problems) -> None:
    _precision_check(v, where, problems)
    _kv_tier_checks(v, where, problems)
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
