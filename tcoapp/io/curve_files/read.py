"""Read one measured-curve file into curves (docs/curves.md).

Rows with one configuration form one curve (batch = concurrency), named by what tells it from the
file's other curves. Several rows at one batch in one configuration (aiconfigurator lists a
concurrency once per `ctx_tokens`; an InferenceX export may hold reruns on several dates) are
resolved, and said: the row of the latest date, else the one with the most tokens/s per device, is
kept. In a plain CSV (your own sweeps) they are an error. Every curve keeps its configuration, its
source file (and the file's comment preamble: license, attribution) and each point its file row.
"""
from __future__ import annotations

import pathlib
from operator import itemgetter
from dataclasses import dataclass, field

from ...engine.core.errors import Problem, ValidationError
from ...engine.performance.measured import MeasuredCurve, make_measured_curve, parse_config_text
from ..paused_gc import paused_gc
from .config import META, names_for
from .checks import COUNT_KEYS, config_problems, header_problems
from .duplicates import resolve_duplicates
from .formats import FORMAT_NAMES, Format, detect_format, named_format
from .naming import curve_names
from .numbers import localized
from .pools import pool_curves
from .rows import POINT_FIELDS, Row, read_rows
from .table import Table, header_key, read_table


@dataclass(frozen=True)
class CurveFile:
    """What one file held: its format, its curves, and everything noticed while reading it."""

    path: str
    format: str
    curves: tuple[MeasuredCurve, ...]
    warnings: tuple[str, ...] = field(default=())
    preamble: tuple[str, ...] = field(default=())


def read_curve_file(path, fmt: str = "auto", devices=None, models=None, vendors=None) -> CurveFile:
    """Curves of one CSV file; raises ValidationError listing every bad cell (file, row, column).

    devices, models: the names tool names are mapped to (default: the shipped catalog);
    vendors: device name -> vendor (InferenceX "fp4" is NVFP4 on NVIDIA, MXFP4 on AMD).
    """
    with paused_gc():
        return _read(path, fmt, devices, models, vendors)


def _read(path, fmt: str, devices, models, vendors) -> CurveFile:
    if devices is None or models is None:
        from ..catalog import load_catalog
        catalog = load_catalog()
        devices = catalog.devices if devices is None else devices
        models = catalog.models if models is None else models
        vendors = vendors or {name: d.vendor for name, d in catalog.devices.items()}
    table = read_table(path)
    spec = _format(fmt, table)
    problems: list[Problem] = header_problems(spec, table)
    if problems:
        raise ValidationError(problems)
    table = localized(spec, table, COUNT_KEYS)   # one number convention per file; cells as plain text
    problems += config_problems(spec, table)
    rows, warnings = read_rows(spec, table, problems)
    if not problems and not rows:
        problems.append(Problem(table.where(table.header_row + 1), "", "no data rows"))
    if spec.name == "plain":
        _plain_config_problems(table, problems)
    if problems:
        raise ValidationError(problems)
    names = names_for(devices, models, vendors)
    curves = _build_curves(spec, table, rows, names, warnings, problems)
    if problems:
        raise ValidationError(problems)
    warnings = list(dict.fromkeys(list(table.notes) + list(names.notes) + warnings)) + _file_notes(spec, table, curves)
    return CurveFile(str(path), spec.name, tuple(curves), tuple(warnings), table.preamble)


def _build_curves(spec: Format, table: Table, rows: list[Row], names, warnings: list[str], problems) -> list:
    """One curve per configuration (with its pool curves where the file is disaggregated)."""
    groups = _groups(rows)
    metas = [META[spec.name](spec, table, key, names) for key in groups]
    given = [dict(zip(spec.config, key)).get("curve", "") for key in groups]
    labels = [dict(m.config) | dict(_raw_pairs(spec, table, k)) for m, k in zip(metas, groups)]
    curves = []
    for name, meta, (key, members) in zip(curve_names(spec, table, labels, given), metas, groups.items()):
        kept = resolve_duplicates(spec, table, name, members, warnings, problems)
        warnings.extend(meta.notes)
        curves.append(_curve(spec, table, name, meta, dict(zip(spec.config, key)), kept))
        if spec.disaggregated:
            curves += pool_curves(spec, table, curves[-1], members, warnings, problems)
    return curves


def _file_notes(spec: Format, table: Table, curves) -> list[str]:
    notes = []
    if spec.disaggregated:
        notes.append(f"{table.name}: each disaggregated deployment gives three curves: the deployment (tokens/s "
                     "per device over all its GPUs: the one for a one-pool plan) and its prefill and decode pools "
                     "(each pool's own rate, for a two-pool plan)")
    single = [c.name for c in curves if c.batch.size == 1]
    if single:
        notes.append(f"{table.name}: {len(single)} curve(s) with a single point (flat in batch): "
                     + ", ".join(repr(n) for n in single[:6]) + (", ..." if len(single) > 6 else ""))
    return notes


def _format(fmt: str, table: Table) -> Format:
    keys = {header_key(h) for h in table.headers}
    if fmt not in FORMAT_NAMES:
        raise ValidationError([Problem(table.name, "format", f"= {fmt!r}: one of {', '.join(FORMAT_NAMES)}")])
    spec = detect_format(keys) if fmt == "auto" else named_format(fmt, keys)
    if spec is None:
        raise ValidationError([Problem(table.where(table.header_row), "", (
            "unknown curve format: expected an InferenceX export (Output Throughput/Chip or /GPU), an "
            "aiconfigurator pareto.csv or best_config_topn.csv (tokens/s/gpu) or a plain CSV (batch, "
            "tokens_per_s_per_device)"))])
    return spec


def _plain_config_problems(table: Table, problems: list[Problem]) -> None:
    i = table.index().get("config")
    if i is None:
        return
    for row, cells in table.rows:
        _, error = parse_config_text(cells[i] if i < len(cells) else "")
        if error:
            problems.append(Problem(table.where(row), table.headers[i], error))


def _groups(rows: list[Row]) -> dict[tuple[str, ...], list[Row]]:
    groups: dict[tuple[str, ...], list[Row]] = {}
    for row in rows:
        groups.setdefault(row.config, []).append(row)
    return groups


def _raw_pairs(spec: Format, table: Table, key) -> list[tuple[str, str]]:
    by_key = dict(zip(spec.config, key))
    return [(h, by_key[header_key(h)]) for h in table.headers if header_key(h) in by_key]


def _curve(spec: Format, table: Table, name: str, meta, raw: dict, rows: list[Row]) -> MeasuredCurve:
    points = [r.point for r in rows]
    batches = list(map(itemgetter("batch"), points))
    if batches != sorted(batches):   # in batch order (a file usually lists them so already)
        order = sorted(range(len(rows)), key=batches.__getitem__)
        rows, points = [rows[k] for k in order], [points[k] for k in order]
    columns = {f: list(map(itemgetter(f), points)) for f in POINT_FIELDS}
    source = raw.get("source") if spec.name == "plain" and raw.get("source") else f"{spec.name} import of {table.name}"
    if table.preamble:
        source += " (" + " / ".join(table.preamble)[:300] + ")"
    return make_measured_curve(
        name, meta.device, meta.model, columns["batch"], columns["tokens_per_s_per_device"],
        columns["tokens_per_s_per_user"], columns["power_w"], columns["ttft_s"], precision=meta.precision,
        tensor_parallel=meta.tensor_parallel, source=source, point_sources=table.wheres(map(itemgetter(0), rows)),
        config=meta.config)

