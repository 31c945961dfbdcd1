"""`tcoapp curves --json`: the text of `dumps(curve_file_json(result))` (io/curve_files/to_json.py),
each curve's points written from its columns: no dict per point (a 100,000-row file has 100,000)."""
from __future__ import annotations

import numpy as np

from ..io.curve_files.read import CurveFile
from ..io.curve_files.rows import POINT_FIELDS
from ..io.curve_files.to_json import curve_file_json, points_json
from ..io.paused_gc import paused_gc
from .json_text import Quoted, Same, Written, column_text, dump_parts, dumps, list_text, record_lists_text, records_text

_KEYS = (*POINT_FIELDS, "source")


# the depth of a curve's "points" in curve_file_json: the file's dict 0, its "curves" list 1, a curve 2
_POINTS_DEPTH = 3


def curve_file_text(result: CurveFile) -> str:
    """The JSON text of a read curve file, as `dumps(curve_file_json(result))` writes it."""
    return "".join(curve_file_parts(result))


def curve_file_parts(result: CurveFile) -> list[str]:
    """The pieces of `curve_file_text(result)`, in order (the CLI writes them without joining them)."""
    with paused_gc():
        texts = _all_points_texts(result.curves, _POINTS_DEPTH)
        value = curve_file_json(result, points=lambda curve: Written(
            lambda depth: texts[id(curve)] if texts and depth == _POINTS_DEPTH else _points_text(curve, depth)))
        return dump_parts(value)


def _all_points_texts(curves, depth: int) -> dict[int, str] | None:
    """id(curve) -> the JSON text of its points at `depth`, every curve's written from their columns joined
    (a file of 1,000 curves: one pass, not 1,000); None when a curve's sources are not all text or not
    one per point (then each curve is written on its own)."""
    sizes = [len(c.point_sources) for c in curves]
    if not curves or not all(map(_one_per_point, curves, sizes)):
        return None
    sources = [s for c in curves for s in c.point_sources]
    if set(map(type, sources)) != {str}:
        return None
    columns = [_float_texts(np.concatenate([np.asarray(getattr(c, f), float) for c in curves])) for f in POINT_FIELDS]
    texts = record_lists_text(_KEYS, [*columns, _string_texts(sources)], sizes, depth)
    return {id(c): text for c, text in zip(curves, texts)}


def _string_texts(values: list[str]) -> list[str] | None:
    """The JSON of each of `values` (strings); where none has a character to escape (the usual sources,
    `file.csv:row 12`), the texts themselves, as `Quoted`: the template writes their quotes."""
    joined = "".join(values)
    if joined.isascii() and not joined.encode("ascii").translate(None, _WRITTEN_AS_IT_IS):
        return Quoted(values)   # every character JSON writes as it is (printable ASCII but a quote or backslash)
    return column_text(values)


# the characters JSON writes as they are (printable ASCII but a quote and a backslash), as bytes to delete
_WRITTEN_AS_IT_IS = bytes(b for b in range(32, 127) if b not in b'"\\')


def _float_texts(values: np.ndarray) -> list[str] | Same:
    """Each value's JSON (its repr, null where not finite), or one `Same` null for a column of none (one
    the file does not have). A column of repeated values (the batches) has each distinct value written
    once (not where it holds a zero: 0.0 and -0.0 are one key and two texts)."""
    finite = np.isfinite(values)
    if not finite.any():
        return Same("null")
    if finite.all() and (values != 0).all():
        distinct, where = np.unique(values, return_inverse=True)
        if 2 * len(distinct) <= len(values):
            return np.array(list(map(float.__repr__, distinct.tolist())), object)[where].tolist()
    return _json_floats(values)


def _one_per_point(curve, size: int) -> bool:
    """Whether each of the curve's point columns holds one value per point (`size` of them)."""
    shapes = [getattr(v, "shape", None) for v in map(curve.__getattribute__, POINT_FIELDS)]
    return shapes.count((size,)) == len(shapes) or all(
        np.ndim(v) == 1 and np.size(v) == size for v in map(curve.__getattribute__, POINT_FIELDS))


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
