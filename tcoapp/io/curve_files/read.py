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
from dataclasses import dataclass, field

import numpy as np

from ...engine.core.errors import Problem, ValidationError
from ...engine.performance.measured import MeasuredCurve, make_measured_curve, parse_config_text
from ..paused_gc import paused_gc
from .config import metas as curve_metas, names_for
from .checks import COUNT_KEYS, config_problems, header_problems
from .duplicates import resolve_duplicates
from .formats import FORMAT_NAMES, Format, detect_format, named_format
from .naming import curve_names
from .numbers import localized
from .pools import pool_curves
from .rows import POINT_FIELDS, Row, Rows, read_rows
from .table import Table, header_key, read_table
from .text_columns import group_ids


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
    table = read_table(path)
    spec = _format(fmt, table)
    problems: list[Problem] = header_problems(spec, table)
    if problems:
        raise ValidationError(problems)
    table = localized(spec, table, COUNT_KEYS)   # one number convention per file; cells as plain text
    problems += config_problems(spec, table)
    rows, warnings = read_rows(spec, table, problems)
    if not problems and not len(rows):
        problems.append(Problem(table.where(table.header_row + 1), "", "no data rows"))
    if spec.name == "plain":
        _plain_config_problems(table, problems)
    if problems:
        raise ValidationError(problems)
    names = names_for(lambda: _names(devices, models, vendors))
    curves = _build_curves(spec, table, rows, names, warnings, problems)
    if problems:
        raise ValidationError(problems)
    warnings = list(dict.fromkeys(list(table.notes) + list(names.notes) + warnings)) + _file_notes(spec, table, curves)
    return CurveFile(str(path), spec.name, tuple(curves), tuple(warnings), table.preamble)


def _names(devices, models, vendors):
    """(devices, models, vendors) with the shipped catalog's where not given."""
    if devices is None or models is None:
        from ..catalog import load_catalog
        catalog = load_catalog()
        devices = catalog.devices if devices is None else devices
        models = catalog.models if models is None else models
        vendors = vendors or {name: d.vendor for name, d in catalog.devices.items()}
    return devices, models, vendors


def _build_curves(spec: Format, table: Table, rows: Rows, names, warnings: list[str], problems) -> list:
    """One curve per configuration (with its pool curves where the file is disaggregated)."""
    groups = _Groups(rows)
    metas = curve_metas(spec, table, groups.keys, names)
    given = [dict(zip(spec.config, key)).get("curve", "") for key in groups.keys]
    headers = [(h, header_key(h)) for h in table.headers]
    labels = [dict(m.config) | dict(_raw_pairs(spec, headers, k)) for m, k in zip(metas, groups.keys)]
    curves = []
    for g, (name, meta, key) in enumerate(zip(curve_names(spec, table, labels, given), metas, groups.keys)):
        raw = dict(zip(spec.config, key))
        if g not in groups.repeated:   # no batch twice (the usual curve): from the columns
            curves.append(_curve(spec, table, name, meta, raw, groups, g))
        else:
            kept = resolve_duplicates(spec, table, name, rows.rows(groups.members(g)), warnings, problems)
            curves.append(_curve_of_rows(spec, table, name, meta, raw, kept))
        warnings.extend(meta.notes)
        if spec.disaggregated:
            curves += pool_curves(spec, table, curves[-1], rows.rows(groups.members(g)), warnings, problems)
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
    for row, text in zip(table.lines(), table.column(i)):
        _, error = parse_config_text(text)
        if error:
            problems.append(Problem(table.where(row), table.headers[i], error))


class _Groups:
    """The rows by configuration (configurations in order of their first row), each group's rows in batch
    order, found for all groups at once."""

    def __init__(self, rows: Rows):
        self.rows = rows
        self.keys, self.ids = group_ids(rows.configs)
        batch = rows.points["batch"]
        self.order = np.lexsort((batch, self.ids))   # by group, then batch (stable: file order at one batch)
        ids, batches = self.ids[self.order], batch[self.order]
        same = (ids[1:] == ids[:-1]) & (batches[1:] == batches[:-1])
        self.repeated = set(ids[1:][same].tolist())   # the groups with a batch twice
        self.ends = np.cumsum(np.bincount(self.ids, minlength=len(self.keys))).tolist()
        self.sorted = {f: v[self.order] for f, v in rows.points.items()}
        self.lines = rows.lines[self.order].tolist()
        self._wheres: tuple[str, ...] | None = None
        # every group's points as make_measured_curve keeps them (POINT_FIELDS by row, in batch order), when
        # it would keep them as they are: no value <= 0 and batches increasing in each group but the
        # repeated ones (those are resolved row by row); else None, and each curve is made on its own
        table = np.array([self.sorted[f] for f in POINT_FIELDS])
        starts = np.zeros(len(rows), bool)
        starts[[0, *self.ends[:-1]] if len(rows) else []] = True
        rising = (np.diff(table[0]) > 0) | starts[1:] | np.isin(ids[1:], list(self.repeated))
        self.table = table if rising.all() and not (table <= 0).any() else None

    def curve_columns(self, g: int) -> np.ndarray | None:
        """Group g's points as make_measured_curve would keep them (POINT_FIELDS by row), or None."""
        return None if self.table is None else self.table[:, self._span(g)]

    def _span(self, g: int) -> slice:
        return slice(self.ends[g - 1] if g else 0, self.ends[g])

    def columns(self, g: int) -> dict[str, np.ndarray]:
        """POINT_FIELDS -> group g's values, in batch order."""
        span = self._span(g)
        return {f: v[span] for f, v in self.sorted.items()}

    def wheres(self, table: Table, g: int) -> tuple[str, ...]:
        """`table.where` of group g's rows, in batch order (every group's made in one pass)."""
        if self._wheres is None:
            self._wheres = table.wheres(self.lines)
        return self._wheres[self._span(g)]

    def members(self, g: int) -> np.ndarray:
        """Group g's row indices in file order."""
        return np.flatnonzero(self.ids == g)


def _raw_pairs(spec: Format, headers: list[tuple[str, str]], key) -> list[tuple[str, str]]:
    """(header, text) of the configuration columns; headers: (header, its header_key) of each column."""
    by_key = dict(zip(spec.config, key))
    return [(h, by_key[k]) for h, k in headers if k in by_key]


def _source(spec: Format, table: Table, raw: dict) -> str:
    source = raw.get("source") if spec.name == "plain" and raw.get("source") else f"{spec.name} import of {table.name}"
    if table.preamble:
        source += " (" + " / ".join(table.preamble)[:300] + ")"
    return source


def _curve(spec: Format, table: Table, name: str, meta, raw: dict, groups: _Groups, g: int) -> MeasuredCurve:
    """The curve of group g (no batch twice), from its columns in batch order."""
    details = dict(precision=meta.precision, tensor_parallel=meta.tensor_parallel, source=_source(spec, table, raw),
                   point_sources=groups.wheres(table, g), config=meta.config)
    checked = groups.curve_columns(g)
    if checked is not None:   # what make_measured_curve would make of the columns, checked for all groups at once
        return MeasuredCurve(name, meta.device, meta.model, *checked, **details)
    columns = groups.columns(g)
    return make_measured_curve(
        name, meta.device, meta.model, columns["batch"], columns["tokens_per_s_per_device"],
        columns["tokens_per_s_per_user"], columns["power_w"], columns["ttft_s"], **details)


def _curve_of_rows(spec: Format, table: Table, name: str, meta, raw: dict, rows: list[Row]) -> MeasuredCurve:
    """The curve of `rows` (one per batch, after duplicates are resolved), in batch order."""
    rows = sorted(rows, key=lambda r: r.point["batch"])
    columns = {f: [r.point[f] for r in rows] for f in POINT_FIELDS}
    return make_measured_curve(
        name, meta.device, meta.model, columns["batch"], columns["tokens_per_s_per_device"],
        columns["tokens_per_s_per_user"], columns["power_w"], columns["ttft_s"], precision=meta.precision,
        tensor_parallel=meta.tensor_parallel, source=_source(spec, table, raw),
        point_sources=table.wheres(r.row for r in rows), config=meta.config)
