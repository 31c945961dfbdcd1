"""Import measured efficiency curves from the CSV files users already have (issue 3, item 4).

Formats (detected from the header, or named):
- `inferencex`: the InferenceX (SemiAnalysis) CSV export, one row per measured point with columns
  such as Hardware, Framework, Precision, TP, EP, DP Attention, Disaggregated, Concurrency,
  Output Throughput/GPU, Median Interactivity (tok/s/user), Median TTFT (ms) (+ Model, ISL, OSL).
- `aiconfigurator`: NVIDIA aiconfigurator's `pareto.csv` (model, isl, osl, concurrency, bs, ttft
  [ms], tokens/s/gpu, tokens/s/user, tp, moe_ep, gemm, kvcache, system, backend, power_w...).
- `plain`: your own sweeps, the long format of the workbook's Curves sheet: curve (optional),
  device, model, batch, tokens_per_s_per_device, tokens_per_s_per_user, power_w, ttft_s,
  precision, tensor_parallel, source.
Rows with the same configuration form one curve (batch = concurrency). Every curve records where
it came from (file and format) and every point its file row. Bad input raises one
`ValidationError` listing every problem as "file.csv:row 7" + column + what is wrong.
"""
from __future__ import annotations

import csv
import math
import pathlib
import re
from dataclasses import dataclass
from typing import Callable

from ..engine.errors import Problem, ValidationError, shown
from ..engine.performance.measured import MeasuredCurve, make_measured_curve


def _key(header: str) -> str:
    return re.sub(r"[^a-z0-9]", "", header.lower())


@dataclass(frozen=True)
class Column:
    """One column a format reads: accepted header spellings (normalized: lower case, letters and
    digits only) each with the scale to the field's unit, and whether it is required. A header
    matches an alias exactly, or failing that starts with an alias of 6+ characters
    ("Output Throughput/GPU (tok/s)")."""

    aliases: tuple[tuple[str, float], ...]
    required: bool = False
    positive: bool = True

    def find(self, index: dict[str, int]) -> tuple[int, float] | None:
        for alias, scale in self.aliases:
            if alias in index:
                return index[alias], scale
        for alias, scale in self.aliases:
            if len(alias) < 6:  # "tp" must not match "tpot..."
                continue
            hit = next((i for key, i in index.items() if key.startswith(alias)), None)
            if hit is not None:
                return hit, scale
        return None


def _c(*aliases, required=False, scale=1.0) -> Column:
    return Column(tuple((a, scale) if isinstance(a, str) else a for a in aliases), required)


@dataclass(frozen=True)
class Format:
    name: str
    columns: dict[str, Column]          # target field -> column
    group_by: tuple[str, ...]           # raw headers (normalized) that identify one curve


INFERENCEX = Format("inferencex", {
    "batch": _c("concurrency", "conc", "maxconcurrency", required=True),
    "tokens_per_s_per_device": _c("outputthroughputgpu", "outputthroughputpergpu", "outputtokthroughputgpu",
                                  "outputtpsgpu", required=True),
    "tokens_per_s_per_user": _c("medianinteractivity", "interactivity"),
    "tpot_s": _c(("mediantpotms", 1e-3), ("tpotms", 1e-3), ("mediantpots", 1.0)),
    "ttft_s": _c(("medianttftms", 1e-3), ("ttftms", 1e-3), ("medianttfts", 1.0), ("ttfts", 1.0)),
    "power_w": _c("powerw", "powergpuw"),
    "tensor_parallel": _c("tp"),
}, group_by=("model", "hardware", "framework", "precision", "tp", "ep", "dpattention", "disaggregated", "isl", "osl"))

AICONFIGURATOR = Format("aiconfigurator", {
    "batch": _c("concurrency", "bs", required=True),
    "tokens_per_s_per_device": _c("tokenssgpu", required=True),
    "tokens_per_s_per_user": _c("tokenssuser"),
    "tpot_s": _c(("tpot", 1e-3)),
    "ttft_s": _c(("ttft", 1e-3)),
    "power_w": _c("powerw"),
    "tensor_parallel": _c("tp"),
}, group_by=("model", "system", "backend", "version", "isl", "osl", "tp", "pp", "dp", "moetp", "moeep", "parallel",
             "gemm", "kvcache", "fmha", "moe"))

PLAIN = Format("plain", {
    "batch": _c("batch", required=True),
    "tokens_per_s_per_device": _c("tokenspersperdevice", required=True),
    "tokens_per_s_per_user": _c("tokenspersperuser"),
    "ttft_s": _c("ttfts"),
    "power_w": _c("powerw"),
    "tensor_parallel": _c("tensorparallel"),
}, group_by=("curve", "device", "model", "precision", "tensorparallel"))

FORMATS = {f.name: f for f in (INFERENCEX, AICONFIGURATOR, PLAIN)}


def detect_format(headers) -> Format | None:
    keys = {_key(h) for h in headers}
    if "tokenssgpu" in keys:
        return AICONFIGURATOR
    if INFERENCEX.columns["tokens_per_s_per_device"].find({k: 0 for k in keys}) or "hardware" in keys:
        return INFERENCEX
    if "tokenspersperdevice" in keys:
        return PLAIN
    return None


def import_curves(path, fmt: str = "auto") -> list[MeasuredCurve]:
    """Measured curves from one CSV file (see module docstring); raises ValidationError on bad input."""
    path = pathlib.Path(path)
    name = path.name
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.reader(handle)
            headers = next(reader, None)
            rows = list(reader)
    except (OSError, UnicodeDecodeError) as exc:
        raise ValidationError([Problem(name, "", f"cannot read the file: {exc}")]) from None
    if not headers:
        raise ValidationError([Problem(f"{name}:row 1", "", "the file is empty: a header row is needed")])
    spec = _format(fmt, headers, name)
    return _curves(spec, headers, rows, name)


def _format(fmt, headers, name) -> Format:
    if fmt != "auto":
        if fmt not in FORMATS:
            raise ValidationError([Problem(name, "format", f"= {fmt!r}: one of auto, {', '.join(FORMATS)}")])
        return FORMATS[fmt]
    spec = detect_format(headers)
    if spec is None:
        raise ValidationError([Problem(f"{name}:row 1", "", "unknown curve format: expected an InferenceX export "
                                       "(Output Throughput/GPU), an aiconfigurator pareto.csv (tokens/s/gpu) or a plain "
                                       "CSV (batch, tokens_per_s_per_device)")])
    return spec


def _curves(spec: Format, headers, rows, name) -> list[MeasuredCurve]:
    index = {_key(h): i for i, h in enumerate(headers)}
    problems: list[Problem] = []
    where = {field: col.find(index) for field, col in spec.columns.items()}
    for field, col in spec.columns.items():
        if col.required and where[field] is None:
            problems.append(Problem(f"{name}:row 1", col.aliases[0][0], f"required column missing (for {field})"))
    if problems:
        raise ValidationError(problems)
    groups: dict[tuple, list[tuple[int, dict]]] = {}
    for row_number, row in enumerate(rows, start=2):
        if not any(cell.strip() for cell in row):
            continue
        values = _row_values(spec, headers, where, row, row_number, name, problems)
        if values is not None:
            key = tuple(_cell(row, index.get(k)) for k in spec.group_by)
            groups.setdefault(key, []).append((row_number, values))
    if not problems and not groups:
        problems.append(Problem(f"{name}:row 2", "", "no data rows"))
    curves = [] if problems else [_make(spec, key, points, name, problems) for key, points in groups.items()]
    if problems:
        raise ValidationError(problems)
    return curves


def _cell(row, i) -> str:
    return row[i].strip() if i is not None and i < len(row) else ""


def _row_values(spec, headers, where, row, row_number, name, problems) -> dict | None:
    values, ok = {}, True
    for field, col in spec.columns.items():
        if where[field] is None:
            continue
        i, scale = where[field]
        text = _cell(row, i)
        if not text:
            if col.required:
                problems.append(Problem(f"{name}:row {row_number}", headers[i], "is empty: a number is needed"))
                ok = False
            continue
        try:
            number = float(text.replace(",", "")) * scale
        except ValueError:
            problems.append(Problem(f"{name}:row {row_number}", headers[i], f"= {shown(text)}: not a number"))
            ok = False
            continue
        if not math.isfinite(number) or (col.positive and number <= 0):
            problems.append(Problem(f"{name}:row {row_number}", headers[i], f"= {shown(text)}: must be a number > 0"))
            ok = False
            continue
        values[field] = number
    if "tokens_per_s_per_user" not in values and "tpot_s" in values:
        values["tokens_per_s_per_user"] = 1.0 / values["tpot_s"]  # time per output token -> tokens/s per user
    return values if ok else None


def _make(spec: Format, key, points, name, problems) -> MeasuredCurve | None:
    labels = dict(zip(spec.group_by, key))
    seen: dict[float, int] = {}
    for row_number, v in points:
        if v["batch"] in seen:
            problems.append(Problem(f"{name}:row {row_number}", "batch",
                                    f"= {v['batch']:g}: same configuration and batch as row {seen[v['batch']]}"))
        seen.setdefault(v["batch"], row_number)
    if len(seen) < len(points):
        return None
    column: Callable[[str], list] = lambda f: [v.get(f, float("nan")) for _, v in points]  # noqa: E731
    tp = {v.get("tensor_parallel") for _, v in points}
    curve_name = _curve_name(spec, labels, name)
    return make_measured_curve(
        curve_name, _first(labels, ("device", "hardware", "system")), labels.get("model", ""), column("batch"),
        column("tokens_per_s_per_device"), column("tokens_per_s_per_user"), column("power_w"), column("ttft_s"),
        precision=_first(labels, ("precision", "gemm")), tensor_parallel=int(tp.pop()) if len(tp) == 1 and None not in tp else None,
        source=f"{spec.name} import of {name}", point_sources=tuple(f"{name}:row {r}" for r, _ in sorted(points, key=lambda p: p[1]["batch"])))


def _first(labels, keys) -> str:
    return next((labels[k] for k in keys if labels.get(k)), "")


def _curve_name(spec, labels, filename) -> str:
    if spec is PLAIN and labels.get("curve"):
        return labels["curve"]
    parts = [f"{k}={v}" if k in ("tp", "ep", "pp", "dp", "moetp", "moeep", "isl", "osl") else v
             for k, v in labels.items() if v and k not in ("version",)]
    return " ".join(parts) or pathlib.Path(filename).stem
