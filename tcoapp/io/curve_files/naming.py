"""Curve names that tell a file's curves apart: the file's stem, then the configuration values that
differ between its curves (the format's label columns in order, as few as make the names unique).
A disaggregated curve is named by its pools: "prefill 4x tp1pp1dp1etp1ep1 + decode 1x tp4pp1dp1etp1ep1"."""
from __future__ import annotations

import pathlib

from .formats import Format
from .table import Table, header_key


def _pools_label(config: dict[str, str], headers: dict[str, str]) -> str:
    def pool(side, letter):
        parallel = config.get(headers.get(f"{letter}parallel", ""), "") or f"tp{config.get(f'{side}.tensor_parallel', '?')}"
        return f"{side} {config.get(f'{side}.workers', '?')}x {parallel}"
    return f"{pool('prefill', 'p')} + {pool('decode', 'd')}"


def curve_names(spec: Format, table: Table, configs: list[dict[str, str]], given: list[str]) -> list[str]:
    """One name per curve. configs: each curve's configuration; given: a name the file states (plain
    format's `curve` column) or ""."""
    stem = pathlib.Path(table.name).stem
    headers = {header_key(h): h for h in table.headers}
    base = [g or stem for g in given]
    if spec.disaggregated:
        base = [f"{b} {_pools_label(c, headers)}" for b, c in zip(base, configs)]
    labels = [[] for _ in configs]
    for key in spec.label_order:
        if len(set(zip(base, map(tuple, labels)))) == len(configs):
            break
        header = headers.get(key)
        values = [c.get(header, "") for c in configs] if header else []
        if header and len(set(values)) > 1:
            for label, value in zip(labels, values):
                label.append(f"{header}={value}")
    names = [" ".join([b] + label) for b, label in zip(base, labels)]
    return _unique(names)


def _unique(names: list[str]) -> list[str]:
    """Any name still repeated gets " #2", " #3", ..."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} #{seen[name]}")
    return out
