"""One curve's configuration, from the text of its configuration columns.

The configuration keeps the tool's own columns under their header names (`parallel`, `gemm`,
`(p)workers`, `Framework`, ...) after the project's keys it implies (docs/workbook_format.md, "Curves":
`input_tokens`, `output_tokens`, `tensor_parallel`, `expert_parallel`, `attention_dp`,
`weight_precision`, `kv_precision`; for a disaggregated deployment `prefill_devices` and
`decode_devices` and, per pool, `prefill.workers`, `prefill.tensor_parallel`, `prefill.device`, ...,
so that a two-pool plan can be built from it).
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from ...engine.plan.calibration_scope import stack_name
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
    if key in _PRECISIONS:
        return _PRECISIONS[key]
    # a quantization recipe (`w4a8_mxfp4_mxfp8`: MXFP4 weights, MXFP8 activations): the weights' format
    # is the first precision named
    return next((_PRECISIONS[part] for part in re.split(r"[^a-z0-9]+", text.lower()) if part in _PRECISIONS), "")


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


# Booleans as spreadsheets write them in their locale (Excel's TRUE/FALSE in English, German,
# French, Spanish, Italian, Dutch, Portuguese, Polish, Swedish, Danish/Norwegian, Finnish, Czech).
TRUE_WORDS = frozenset(("true", "yes", "1", "wahr", "vrai", "verdadero", "vero", "waar", "verdadeiro",
                        "prawda", "sant", "sand", "tosi", "pravda", "ja", "oui", "si", "sí", "y", "t"))
FALSE_WORDS = frozenset(("false", "no", "0", "falsch", "faux", "falso", "onwaar", "fałsz", "falsz", "falskt",
                         "falsk", "epätosi", "nepravda", "nein", "non", "nee", "n", "f", "none", ""))


def _truthy(text: str) -> bool:
    return text.strip().lower() in TRUE_WORDS


def boolean_problem(text: str) -> str | None:
    """None if `text` is a boolean in a spreadsheet's locale (TRUE, WAHR, VRAI, 1, ...), else the message."""
    if text.strip().lower() in TRUE_WORDS | FALSE_WORDS:
        return None
    return f"= {text!r}: not a true/false value (TRUE/FALSE, WAHR/FALSCH, VRAI/FAUX, 1/0, ...)"


class _Names:
    """Catalog matching with each note said once per file. The names come from `load()` -> (devices,
    models, vendors), called on the first match: a plain CSV's curves match no name, so reading one
    never loads the shipped catalog."""

    def __init__(self, load):
        self._load, self.notes = load, {}

    @functools.cached_property
    def _found(self) -> tuple[list[str], list[str], dict]:
        devices, models, vendors = self._load()
        return list(devices), list(models), vendors or {}

    @property
    def devices(self) -> list[str]:
        return self._found[0]

    @property
    def models(self) -> list[str]:
        return self._found[1]

    @property
    def vendors(self) -> dict:
        return self._found[2]

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


def _aic_layout(v: dict, prefix: str) -> tuple[str, str, str, str]:
    """(tensor_parallel, expert_parallel, attention_dp, note) in the project's sense of one aiconfigurator
    worker (the engine's replica spans TP x EP devices, attention tensor-parallel or data-parallel over
    all of them). aiconfigurator splits attention (tp x dp) and experts (moe_tp x moe_ep) over the same
    GPUs: where the expert split covers them (moe_tp x moe_ep = tp x dp) the worker is TP = moe_tp,
    EP = moe_ep, attention-DP when dp > 1 (`tp1pp1dp4etp4ep1`: 4 GPUs, TP 4, attention-DP); else
    (a dense model: the moe_* columns are 1) TP = tp, EP = 1. A worker with both tp > 1 and dp > 1
    is modelled as attention-DP, said in the note."""
    get = lambda k: _int(v.get(f"{prefix}{k}", "")) or 1  # noqa: E731
    tp, dp, moe_tp, moe_ep = get("tp"), get("dp"), get("moetp"), get("moeep")
    if moe_tp * moe_ep == tp * dp and tp * dp > 1 and (moe_ep > 1 or dp > 1):
        note = (f"attention tp {tp} x dp {dp} is modelled as attention data-parallel over {tp * dp} GPUs (the "
                "engine runs attention fully tensor- or data-parallel)") if tp > 1 and dp > 1 else ""
        return str(moe_tp), str(moe_ep), str(dp > 1).lower(), note
    note = ""
    if dp > 1:
        note = (f"dp {dp} with moe_tp x moe_ep = {moe_tp * moe_ep} (not tp x dp = {tp * dp}): read as {dp} "
                f"data-parallel copies of TP {tp}")
    return str(tp), "1", "false", note


def _aic_precisions(v: dict, prefix: str) -> list[tuple[str, str]]:
    """weight_precision (of the routed experts, where the `moe` column states another precision than
    `gemm`: gpt-oss's MXFP4 experts beside bf16 attention), attention_weight_precision (then `gemm`'s)
    and kv_precision."""
    gemm, moe = project_precision(v.get(f"{prefix}gemm", "")), project_precision(v.get(f"{prefix}moe", ""))
    kv = project_precision(v.get(f"{prefix}kvcache", ""))
    if moe and gemm and moe != gemm:
        return [("weight_precision", moe), ("attention_weight_precision", gemm), ("kv_precision", kv)]
    return [("weight_precision", gemm or moe), ("kv_precision", kv)]


def _ix_replica(v: dict) -> tuple[str, str]:
    """InferenceX's TP counts every GPU of a replica, EP the ones experts spread over within it
    (`--tp 8 --ep 8` is 8 GPUs): TP = TP / EP, EP = EP in the project's sense."""
    tp, ep = _int(v.get("tp", "")), _int(v.get("ep", "")) or 1
    if tp and ep > 1 and tp % ep == 0:
        return str(tp // ep), str(ep)
    if tp and ep > 1:  # EP does not divide the replica's GPUs: no engine layout says this; kept in TP / EP
        return "", ""
    return (str(tp) if tp else ""), (str(ep) if v.get("ep") else "")


def _aic_pool(v: dict, side: str, names: _Names) -> tuple[list[tuple[str, str]], int]:
    """prefill.* / decode.* keys of one aiconfigurator pool, and its GPU count."""
    get = lambda k: v.get(f"{side[0]}{k}", "")  # noqa: E731
    per_worker = (_int(get("tp")) or 1) * (_int(get("pp")) or 1) * (_int(get("dp")) or 1)
    gpus = (_int(get("workers")) or 0) * per_worker
    tp, ep, adp, note = _aic_layout(v, side[0])
    pairs = [(f"{side}.workers", get("workers")), (f"{side}.devices", str(gpus)),
             (f"{side}.tensor_parallel", tp), (f"{side}.pipeline_parallel", get("pp")),
             (f"{side}.expert_parallel", ep), (f"{side}.attention_dp", adp),
             *((f"{side}.{k}", x) for k, x in _aic_precisions(v, side[0])),
             (f"{side}.serving_stack", stack_name(get("backend"))),
             (f"{side}.device", names.device(get("system")))]
    if note:
        names.notes.setdefault(f"{side} workers {get('parallel')}: {note}", None)
    return [(k, val) for k, val in pairs if val], gpus


def aiconfigurator_meta(spec: Format, table: Table, values, names: _Names) -> CurveMeta:
    v = dict(zip(spec.config, values))
    device, model = names.device(v.get("system") or v.get("dsystem", "")), names.model(v.get("model", ""))
    if not spec.disaggregated:
        tp, ep, adp, note = _aic_layout(v, "")
        project = _workload(v) + [("tensor_parallel", tp), ("pipeline_parallel", v.get("pp", "")),
                                  ("expert_parallel", ep), ("attention_dp", adp), *_aic_precisions(v, ""),
                                  ("serving_stack", stack_name(v.get("backend", "")))]
        config = tuple((k, x) for k, x in project if x) + tuple(_pairs(spec, table, values))
        notes = (f"{table.name}: {v.get('parallel') or 'tp ' + v.get('tp', '')}: {note}",) if note else ()
        devices = (_int(v.get("tp", "")) or 1) * (_int(v.get("pp", "")) or 1) * (_int(v.get("dp", "")) or 1)
        return CurveMeta(device, model, v.get("gemm", ""), devices, config, notes)
    prefill, p_gpus = _aic_pool(v, "prefill", names)
    decode, d_gpus = _aic_pool(v, "decode", names)
    notes = []
    total = _int(v.get("numtotalgpus", ""))
    if total and total != p_gpus + d_gpus:
        notes.append(f"{table.name}: num_total_gpus = {total} but the pools hold {p_gpus} + {d_gpus} GPUs")
    if (_int(v.get("eworkers", "")) or 0) > 0:
        notes.append(f"{table.name}: (e)workers = {v['eworkers']}: encoder workers are not modelled")
    stack = stack_name(v.get("dbackend") or v.get("pbackend", ""))
    project = _workload(v) + [("disaggregated", "true"), ("prefill_devices", str(p_gpus)), ("decode_devices", str(d_gpus))]
    project += [("serving_stack", stack)] if stack else []
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
               ("weight_precision", project_precision(v.get("precision", ""), names.vendors.get(device, ""))),
               ("serving_stack", stack_name(v.get("framework", "")))]
    project = _workload(v) + serving
    if disagg:  # the export's TP, EP and DP Attention are the decode workers' (its TP column is decode_tp);
        # how they split a decode worker is not stated (TP 72 on 32 chips), so they stay in the raw TP / EP columns
        project = _workload(v) + [("disaggregated", "true"), ("prefill_devices", prefill), ("decode_devices", decode),
                                  ("prefill.devices", prefill), ("prefill.device", device),
                                  ("decode.devices", decode), ("decode.device", device),
                                  ("decode.attention_dp", adp), ("weight_precision", serving[3][1]),
                                  ("serving_stack", serving[4][1])]
    config = tuple((k, x) for k, x in project if x) + tuple(_pairs(spec, table, values))
    notes = ()
    if not disagg and not tp and _int(v.get("tp", "")):
        notes = (f"{table.name}: TP {v['tp']} with EP {v['ep']}: EP does not divide the replica's GPUs, so no "
                 "tensor_parallel / expert_parallel is set (the curve cannot be calibrated until they are)",)
    return CurveMeta(device, model, v.get("precision", ""), None if disagg else _int(v.get("tp", "")), config, notes)


def plain_meta(spec: Format, table: Table, values, names: _Names) -> CurveMeta:
    v = dict(zip(spec.config, values))
    config, _error = parse_config_text(v.get("config", ""))  # checked row by row in read.py
    return CurveMeta(v.get("device", ""), v.get("model", ""), v.get("precision", ""), _int(v.get("tensorparallel", "")),
                     config)


META = {"aiconfigurator": aiconfigurator_meta, "inferencex": inferencex_meta, "plain": plain_meta}
# the configuration columns a format's meta does not read (a plain CSV's curve name and source): curves
# that differ only there have one meta
_UNREAD = {"plain": ("curve", "source")}


def metas(spec: Format, table: Table, keys, names: _Names) -> list[CurveMeta]:
    """META[spec.name] of each configuration of `keys` (texts in spec.config order), made once for the
    configurations that differ only in the columns it does not read (a plain CSV's 1,000 curves of one
    device and model: one)."""
    meta = META[spec.name]
    read = [i for i, k in enumerate(spec.config) if k not in _UNREAD.get(spec.name, ())]
    if len(read) == len(spec.config):
        return [meta(spec, table, key, names) for key in keys]
    made: dict[tuple, CurveMeta] = {}
    out = []
    for key in keys:
        seen = tuple([key[i] for i in read])
        found = made.get(seen)
        if found is None:
            found = made[seen] = meta(spec, table, key, names)
        out.append(found)
    return out


def names_for(load) -> _Names:
    """The names `load()` gives as (devices, models, vendors), loaded when first matched."""
    return _Names(load)
