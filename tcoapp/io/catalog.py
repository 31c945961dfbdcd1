"""Load the shipped catalog (resources/catalog/*.csv): one row per entry, each with its source."""
from __future__ import annotations

import csv
import functools
import importlib.resources
from dataclasses import dataclass
from typing import Mapping

from ..engine.core.errors import Problem, ValidationError
from ..engine.quantities.records import Device, ModelSpec, make_device, make_model


@dataclass(frozen=True)
class Catalog:
    devices: Mapping[str, Device]
    models: Mapping[str, ModelSpec]


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
    return Catalog(devices=_load("devices.csv", make_device), models=_load("models.csv", make_model))
