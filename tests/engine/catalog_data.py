"""The shipped catalog for the performance-engine tests, read from the CSVs without tcoapp.io."""
from __future__ import annotations

import csv
import pathlib

from tcoapp.engine.quantities.records import make_device, make_model

CATALOG = pathlib.Path(__file__).resolve().parents[2] / "resources" / "catalog"


def _read(name, make):
    with open(CATALOG / name, newline="", encoding="utf-8") as handle:
        return {row["name"]: make(row) for row in csv.DictReader(handle)}


DEVICES = _read("devices.csv", make_device)
MODELS = _read("models.csv", make_model)
