"""`tcoapp curves FILE --json`: a CurveFile as the JSON docs/curves.md describes (null = not in the file)."""
from __future__ import annotations

import math

from ..paused_gc import paused_gc
from .read import CurveFile
from .rows import POINT_FIELDS


def _number(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def points_json(curve) -> list[dict]:
    """Each point of a curve: its values (None where not finite) and its source."""
    columns = [[_number(v) for v in getattr(curve, f).tolist()] for f in POINT_FIELDS]
    points = [dict(zip(POINT_FIELDS, values)) for values in zip(*columns)]
    for point, where in zip(points, curve.point_sources):
        point["source"] = where
    return points


def curve_json(curve, points=points_json) -> dict:
    """A curve as JSON values; `points(curve)` stands for its points (a writer may give their text)."""
    return {"name": curve.name, "device": curve.device, "model": curve.model, "precision": curve.precision,
            "tensor_parallel": curve.tensor_parallel, "source": curve.source, "config": dict(curve.config),
            "points": points(curve)}


def curve_file_json(result: CurveFile, points=points_json) -> dict:
    with paused_gc():   # a dict per point: see paused_gc.py
        return {"file": result.path, "format": result.format, "curves": [curve_json(c, points) for c in result.curves],
                "warnings": list(result.warnings), "preamble": list(result.preamble)}
