"""`tcoapp curves --json`: the text of `dumps(curve_file_json(result))` (io/curve_files/to_json.py),
each curve's points written from its columns: no dict per point (a 100,000-row file has 100,000)."""
from __future__ import annotations

import numpy as np

from ..io.curve_files.read import CurveFile
from ..io.curve_files.rows import POINT_FIELDS
from ..io.curve_files.to_json import curve_file_json, points_json
from ..io.paused_gc import paused_gc
from .json_text import Written, column_text, dumps, list_text, records_text

_KEYS = (*POINT_FIELDS, "source")


def curve_file_text(result: CurveFile) -> str:
    """The JSON text of a read curve file, as `dumps(curve_file_json(result))` writes it."""
    with paused_gc():
        value = curve_file_json(result, points=lambda curve: Written(lambda depth: _points_text(curve, depth)))
        return dumps(value)


def _points_text(curve, depth: int) -> str:
    """A curve's points at `depth`: each point's values (null where not finite) and its source."""
    columns = _float_columns(curve)
    sources = column_text(curve.point_sources)
    if sources is None or any(len(c) != len(sources) for c in columns):   # never from a file: value by value
        return dumps(points_json(curve)).replace("\n", "\n" + "  " * depth)
    return list_text(records_text(_KEYS, [*map(_json_floats, columns), sources], depth + 1), depth)


def _float_columns(curve) -> list[np.ndarray]:
    return [np.asarray(getattr(curve, f), float) for f in POINT_FIELDS]


def _json_floats(values: np.ndarray) -> list[str]:
    """Each value's JSON: its repr, or null where it is not finite."""
    finite = np.isfinite(values)
    if not finite.any():   # a column the file does not have
        return ["null"] * len(values)
    texts = list(map(float.__repr__, values.tolist()))
    if not finite.all():
        for k in np.flatnonzero(~finite).tolist():
            texts[k] = "null"
    return texts
