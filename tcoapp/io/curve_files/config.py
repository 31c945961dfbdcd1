"""One curve's configuration, from the text of its configuration columns.

The configuration keeps the tool's own columns under their header names (`parallel`, `gemm`,
`(p)workers`, `Framework`, ...) after the project's keys it implies (DESIGN section 4:
`input_tokens`, `output_tokens`, `tensor_parallel`, `expert_parallel`, `attention_dp`,
`weight_precision`, `kv_precision`; for a disaggregated deployment `prefill_devices` and
`decode_devices` and, per pool, `prefill.workers`, `prefill.tensor_parallel`, `prefill.device`, ...,
so that a two-pool plan can be built from it).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...engine.performance.measured import parse_config_text
from .catalog_names import match_catalog_name
from .formats import Format
from .table import Table, header_key

_PRECISIONS = {"fp8": "fp8", "fp8static": "fp8", "fp8block": "fp8", "fp8blockwise": "fp8", "w8a8fp8": "fp8",
               "nvfp4": "nvfp4", "mxfp4": "mxfp4", "w4a16mxfp4": "mxfp4", "w4a8mxfp4fp8": "mxfp4",
               "bf16": "bf16", "bfloat16": "bf16", "fp16": "bf16", "float16": "bf16", "half": "bf16"}


def project_precision(text: str, vendor: str = "") -> str:
    """A tool's precision name as one of the project's (bf16, fp8, mxfp4, nvfp4), "" if unknown.
    InferenceX writes plain "fp4": NVFP4 on NVIDIA hardware, MXFP4 on AMD."""
    key = header_key(text)
    if key == "fp4":
        return "mxfp4" if vendor.lower() == "amd" else "nvfp4"
    return _PRECISIONS.get(key, "")


@dataclass(frozen=True)
class CurveMeta:
    device: str
    model: str
    precision: str
    tensor_parallel: int | None
    config: tuple[tuple[str, str], ...]
    notes: tuple[str, ...] = field(default=())


def _int(text: str) -> int | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if value.is_integer() and value >= 1 else None


def _truthy(text: str) -> bool:
    return text.strip().lower() in ("true", "yes", "1")


class _Names:
    """Catalog matching with each note said once per file."""

    def __init__(self, devices, models, vendors):
        self.devices, self.models, self.vendors, self.notes = list(devices), list(models), vendors, {}

    def device(self, raw: str) -> str:
        name, note = match_catalog_name(raw, self.devices, "device")
        if note:
            self.notes.setdefault(note, None)
        return name or raw

    def model(self, raw: str) -> str:
        name, note = match_catalog_name(raw, self.models, "model")
        if note:
            self.notes.setdefault(note, None)
        return name or raw


def _pairs(spec: Format, table: Table, values: tuple[str, ...]) -> list[tuple[str, str]]:
    """(original header, text) of the configuration columns the file has, in header order."""
    by_key = dict(zip(spec.config, values))
    out = []
    for header in table.headers:
        key = header_key(header)
        if key in by_key and by_key[key] != "" and all(h != header for h, _ in out):
            out.append((header, by_key[key].replace(";", ",")))
    return out


def _workload(v: dict) -> list[tuple[str, str]]:
    return [(k, v[src]) for k, src in (("input_tokens", "isl"), ("output_tokens", "osl")) if _int(v.get(src, ""))]


def _aic_replica(v: dict, prefix: str) -> tuple[str, str]:
    """(tensor_parallel, expert_parallel) in the project's sense (a replica spans TP x EP devices).
    aiconfigurator splits attention (tp x dp) and experts (moe_tp x moe_ep) over the same GPUs: an
    MoE run (moe_ep > 1 covering them) is TP = moe_tp, EP = moe_ep; a dense one is TP = tp, EP = 1."""
    get = lambda k: _int(v.get(f"{prefix}{k}", "")) or 1  # noqa: E731
    if get("moeep") > 1 and get("moetp") * get("moeep") == get("tp") * get("dp"):
        return str(get("moetp")), str(get("moeep"))
    return str(get("tp")), "1"


def _ix_replica(v: dict) -> tuple[str, str]:
    """InferenceX's TP counts every GPU of a replica, EP the ones experts spread over within it
    (`--tp 8 --ep 8` is 8 GPUs): TP = TP / EP, EP = EP in the project's sense."""
    tp, ep = _int(v.get("tp", "")), _int(v.get("ep", "")) or 1
    if tp and ep > 1 and tp % ep == 0:
        return str(tp // ep), str(ep)
    return (str(tp) if tp else ""), (str(ep) if v.get("ep") else "")


def _aic_pool(v: dict, side: str, names: _Names) -> tuple[list[tuple[str, str]], int]:
    """prefill.* / decode.* keys of one aiconfigurator pool, and its GPU count."""
    get = lambda k: v.get(f"{side[0]}{k}", "")  # noqa: E731
    per_worker = (_int(get("tp")) or 1) * (_int(get("pp")) or 1) * (_int(get("dp")) or 1)
    gpus = (_int(get("workers")) or 0) * per_worker
    tp, ep = _aic_replica(v, side[0])
    pairs = [(f"{side}.workers", get("workers")), (f"{side}.devices", str(gpus)),
             (f"{side}.tensor_parallel", tp), (f"{side}.pipeline_parallel", get("pp")),
             (f"{side}.expert_parallel", ep), (f"{side}.attention_dp", str((_int(get("dp")) or 1) > 1).lower()),
             (f"{side}.weight_precision", project_precision(get("gemm"))),
             (f"{side}.kv_precision", project_precision(get("kvcache"))),
             (f"{side}.device", names.device(get("system")))]
    return [(k, val) for k, val in pairs if val], gpus


def aiconfigurator_meta(spec: Format, table: Table, values, names: _Names) -> CurveMeta:
    v = dict(zip(spec.config, values))
    device, model = names.device(v.get("system") or v.get("dsystem", "")), names.model(v.get("model", ""))
    if not spec.disaggregated:
        tp, ep = _aic_replica(v, "")
        project = _workload(v) + [("tensor_parallel", tp), ("pipeline_parallel", v.get("pp", "")),
                                  ("expert_parallel", ep),
                                  ("attention_dp", str((_int(v.get("dp", "")) or 1) > 1).lower()),
                                  ("weight_precision", project_precision(v.get("gemm", ""))),
                                  ("kv_precision", project_precision(v.get("kvcache", "")))]
        config = tuple((k, x) for k, x in project if x) + tuple(_pairs(spec, table, values))
        return CurveMeta(device, model, v.get("gemm", ""), _int(v.get("tp", "")), config)
    prefill, p_gpus = _aic_pool(v, "prefill", names)
    decode, d_gpus = _aic_pool(v, "decode", names)
    notes = []
    total = _int(v.get("numtotalgpus", ""))
    if total and total != p_gpus + d_gpus:
        notes.append(f"{table.name}: num_total_gpus = {total} but the pools hold {p_gpus} + {d_gpus} GPUs")
    if (_int(v.get("eworkers", "")) or 0) > 0:
        notes.append(f"{table.name}: (e)workers = {v['eworkers']}: encoder workers are not modelled")
    project = _workload(v) + [("disaggregated", "true"), ("prefill_devices", str(p_gpus)), ("decode_devices", str(d_gpus))]
    config = tuple(project) + tuple(prefill) + tuple(decode) + tuple(_pairs(spec, table, values))
    return CurveMeta(device, model, v.get("dgemm", ""), None, config, tuple(notes))


def inferencex_meta(spec: Format, table: Table, values, names: _Names) -> CurveMeta:
    v = dict(zip(spec.config, values))
    device, model = names.device(v.get("hardware") or v.get("hardwarekey", "")), names.model(v.get("model", ""))
    disagg = _truthy(v.get("disaggregated", ""))
    prefill = v.get("numprefillchips") or v.get("numprefillgpus", "")
    decode = v.get("numdecodechips") or v.get("numdecodegpus", "")
    tp, ep = _ix_replica(v)
    adp = str(_truthy(v.get("dpattention", ""))).lower() if v.get("dpattention") else ""
    serving = [("tensor_parallel", tp), ("expert_parallel", ep), ("attention_dp", adp),
               ("weight_precision", project_precision(v.get("precision", ""), names.vendors.get(device, "")))]
    project = _workload(v) + serving
    if disagg:  # the export's TP, EP and DP Attention are the decode workers' (its TP column is decode_tp);
        # how they split a decode worker is not stated (TP 72 on 32 chips), so they stay in the raw TP / EP columns
        project = _workload(v) + [("disaggregated", "true"), ("prefill_devices", prefill), ("decode_devices", decode),
                                  ("prefill.devices", prefill), ("prefill.device", device),
                                  ("decode.devices", decode), ("decode.device", device),
                                  ("decode.attention_dp", adp), ("weight_precision", serving[-1][1])]
    config = tuple((k, x) for k, x in project if x) + tuple(_pairs(spec, table, values))
    return CurveMeta(device, model, v.get("precision", ""), None if disagg else _int(v.get("tp", "")), config)


def plain_meta(spec: Format, table: Table, values, names: _Names) -> CurveMeta:
    v = dict(zip(spec.config, values))
    config, _error = parse_config_text(v.get("config", ""))  # checked row by row in read.py
    return CurveMeta(v.get("device", ""), v.get("model", ""), v.get("precision", ""), _int(v.get("tensorparallel", "")),
                     config)


META = {"aiconfigurator": aiconfigurator_meta, "inferencex": inferencex_meta, "plain": plain_meta}


def names_for(devices, models, vendors=None) -> _Names:
    return _Names(devices, models, vendors or {})
