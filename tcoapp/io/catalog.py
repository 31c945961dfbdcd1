"""Load the shipped catalog (resources/catalog/*.csv): one row per entry, each with its source."""
from __future__ import annotations

import csv
import dataclasses
import functools
import importlib.resources
from dataclasses import dataclass
from typing import Mapping

from ..engine.core.errors import Problem, ValidationError
from ..engine.quantities.records import Device, ModelSpec, make_device, make_model
from ..engine.quantities.spec_acceptance import TASKS, ModelCatalog, SpecAcceptance


@dataclass(frozen=True)
class Catalog:
    devices: Mapping[str, Device]
    models: Mapping[str, ModelSpec]
    spec_acceptance: Mapping[str, SpecAcceptance] = dataclasses.field(default_factory=dict)


def _read_rows(filename: str) -> list[dict[str, str]]:
    resource = importlib.resources.files("tcoapp.resources") / "catalog" / filename
    with resource.open("r", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _load(filename: str, make) -> dict:
    problems: list[Problem] = []
    entries = {}
    for row_number, row in enumerate(_read_rows(filename), start=2):
        entry = make(row, lambda key, r=row_number: f"catalog {filename} row {r}", problems)
        if entry is not None:
            entries[entry.name] = entry
    if problems:
        raise ValidationError(problems)
    return entries


@functools.lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    """The shipped devices and models, validated against the field table (cached)."""
    models = _load("models.csv", make_model)
    acceptance = load_spec_acceptance(set(models))
    return Catalog(devices=_load("devices.csv", make_device), models=ModelCatalog(models, acceptance),
                   spec_acceptance=acceptance)


SPEC_ACCEPTANCE_FILE = "spec_acceptance.csv"


def load_spec_acceptance(model_names: set[str]) -> dict[str, SpecAcceptance]:
    """The published acceptance table (resources/catalog/spec_acceptance.csv) by model: the `all`
    row's alpha and spread, the task rows' alphas. Every value is checked (0..1, low <= alpha <=
    high, a known model and task, a source), each problem naming the file's row."""
    problems: list[Problem] = []
    overall, tasks = {}, {}
    for row_number, row in enumerate(_read_rows(SPEC_ACCEPTANCE_FILE), start=2):
        where = f"catalog {SPEC_ACCEPTANCE_FILE} row {row_number}"
        values = _acceptance_values(row, where, model_names, problems)
        if values is None:
            continue
        model, task = row["model"], row["task"]
        tasks.setdefault(model, {})[task] = values[0]
        if task == "all":
            overall[model] = SpecAcceptance(model, row["method"], *values, source=row["source"])
    if problems:
        raise ValidationError(problems)
    missing = sorted(set(tasks) - set(overall))
    if missing:
        raise ValidationError([Problem(f"catalog {SPEC_ACCEPTANCE_FILE}", "task",
                                       f"{name} has task rows but no 'all' row") for name in missing])
    return {m: dataclasses.replace(a, tasks={t: v for t, v in tasks[m].items() if t != "all"})
            for m, a in overall.items()}


def _acceptance_values(row, where, model_names, problems) -> tuple[float, float, float] | None:
    """(acceptance, low, high) of one row, or None with its problems added."""
    found = len(problems)
    if row.get("model") not in model_names:
        problems.append(Problem(where, "model", f"{row.get('model')!s} is not a catalog model"))
    if row.get("task") not in TASKS:
        problems.append(Problem(where, "task", f"{row.get('task')!s} must be one of {', '.join(TASKS)}"))
    if not (row.get("source") or "").strip():
        problems.append(Problem(where, "source", "every acceptance needs its source (or ESTIMATE)"))
    numbers = []
    for key in ("acceptance", "acceptance_low", "acceptance_high"):
        try:
            value = float(row.get(key) or "")
        except ValueError:
            value = float("nan")
        if not 0.0 <= value <= 1.0:
            problems.append(Problem(where, key, f"{row.get(key)!s} must be a fraction between 0 and 1"))
        numbers.append(value)
    if len(problems) == found and not numbers[1] <= numbers[0] <= numbers[2]:
        problems.append(Problem(where, "acceptance", "acceptance_low <= acceptance <= acceptance_high must hold"))
    return tuple(numbers) if len(problems) == found else None
