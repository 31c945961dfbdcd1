"""The public agentic measurements (resources/measurements/agentic_public.csv; docs/model.md, "Agentic
sessions and KV tiers"): one row per measured operating point of an agentic run, each with its source,
read into `AgenticRow`s; a row that cannot be read is refused naming its line and column."""
from __future__ import annotations

import csv
import importlib.resources
import pathlib

from ..engine.core.errors import Problem, ValidationError
from ..engine.performance.kv_residency import SessionShape
from ..engine.quantities.inputs import KV_OFFLOADS
from ..engine.serving.agentic_validation import AgenticRow

AGENTIC_CSV = pathlib.Path(str(importlib.resources.files("tcoapp.resources") / "measurements" / "agentic_public.csv"))
_NUMBERS = ("tensor_parallel", "sessions_per_replica", "host_gb_per_device", "host_link_gb_s", "session_turns",
            "system_prompt_tokens", "turn_input_tokens", "turn_output_tokens", "turn_gap_s",
            "measured_prefix_hit_rate", "measured_tokens_per_s_per_device")


def read_agentic_measurements(path=AGENTIC_CSV, catalog=None) -> list[AgenticRow]:
    """The rows of an agentic measurements CSV (every problem named by line and column, all at once)."""
    with open(path, newline="", encoding="utf-8") as handle:
        lines = list(csv.DictReader(handle))
    rows, problems = [], []
    for line, raw in enumerate(lines, start=2):
        row = _row(raw, f"{pathlib.Path(path).name} line {line}", catalog, problems)
        if row is not None:
            rows.append(row)
    if problems:
        raise ValidationError(problems)
    return rows


def _row(raw: dict, where: str, catalog, problems: list[Problem]) -> AgenticRow | None:
    values = {}
    for key in _NUMBERS:
        try:
            values[key] = float(raw.get(key) or "")
        except ValueError:
            problems.append(Problem(where, key, f"= {raw.get(key)!r}: must be a number"))
    if raw.get("kv_offload") not in KV_OFFLOADS:
        problems.append(Problem(where, "kv_offload", f"= {raw.get('kv_offload')!r}: must be one of {', '.join(KV_OFFLOADS)}"))
    if not (raw.get("source") or "").strip():
        problems.append(Problem(where, "source", "every measurement names its source"))
    for key, table in (("device", "devices"), ("model", "models")):
        if catalog is not None and raw.get(key) not in getattr(catalog, table):
            problems.append(Problem(where, key, f"= {raw.get(key)!r}: not in the catalog"))
    if len(values) < len(_NUMBERS) or any(p.where == where for p in problems):
        return None
    if not 0 <= values["measured_prefix_hit_rate"] <= 1 or values["measured_tokens_per_s_per_device"] <= 0:
        problems.append(Problem(where, "measured_prefix_hit_rate", "the hit rate must be 0..1 and tokens/s above 0"))
        return None
    shape = SessionShape(int(values["session_turns"]), values["system_prompt_tokens"], values["turn_input_tokens"],
                         values["turn_output_tokens"], values["turn_gap_s"])
    return AgenticRow(raw["source"], raw["device"], raw["model"], int(values["tensor_parallel"]), raw["weight_precision"],
                      raw["kv_precision"], values["sessions_per_replica"], raw["kv_offload"], values["host_gb_per_device"],
                      values["host_link_gb_s"], shape, values["measured_prefix_hit_rate"],
                      values["measured_tokens_per_s_per_device"])
