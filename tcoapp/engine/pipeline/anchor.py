"""The searched answer checked against the shipped measurements (docs/model.md, "Published anchor").

For a plan on a generated curve, the nearest published measured point: a measurement row of the
same device and model (`measurement_rows.map_device` / `map_model`) at the same power (a run below the
device's TDP, `power_limited_w`, only for a device with that `power_limit_w`), the same precision family
(4-bit, 8-bit or 16-bit weights) and comparable lengths (input and output each within a factor of
`LENGTH_FACTOR` of the plan's), nearest the plan's tokens/s per user (within a factor of
`USER_FACTOR` where the row states one; a row without a per-user rate only where the plan has no
target). Distance: |ln(user / target)| + (|ln(input ratio)| + |ln(output ratio)|) / 2.

    published_anchor = {source, device, model, precision, input_tokens, output_tokens,
                        tokens_per_s_per_user, tokens_per_s_per_device (the row's output tokens/s per GPU),
                        value (the same), ratio = plan tokens/s per device / value}

None where no row qualifies. A note says when the anchor's value lies outside the plan's 80 % band.
The engine reads no file: the caller passes the rows (tcoapp/io/measurements.py reads them).
"""
from __future__ import annotations

import math
import re

from ..performance.device_power import nameplate_w
from ..performance.measurement_rows import map_device, map_model, positive_number, power_limited_w, row_precision

LENGTH_FACTOR = 2.0
USER_FACTOR = 1.5
FAMILY = {"nvfp4": "fp4", "mxfp4": "fp4", "fp8": "fp8", "bf16": "bf16"}


def published_anchor(rows, device, model_name: str, precision: str, input_tokens: float, output_tokens: float,
                     target_per_user: float | None, plan_per_device: float) -> dict | None:
    """The nearest qualifying row as `published_anchor` (module docstring), or None. `rows`: measurement
    rows (dicts of the measurements CSV); `device`: the plan's Device (its `name` is matched)."""
    best, best_distance = None, math.inf
    for row in rows:
        distance = _distance(row, device, model_name, precision, input_tokens, output_tokens, target_per_user)
        if distance is not None and distance < best_distance:
            best, best_distance = row, distance
    if best is None:
        return None
    value = positive_number(best.get("tokens_per_s_per_gpu"))
    ratio = plan_per_device / value if value and plan_per_device and math.isfinite(plan_per_device) else None
    return {"source": best.get("source", ""), "device": best.get("device", ""), "model": best.get("model", ""),
            "precision": best.get("precision", ""), "input_tokens": positive_number(best.get("input_len")),
            "output_tokens": positive_number(best.get("output_len")),
            "tokens_per_s_per_user": positive_number(best.get("tokens_per_s_per_user")),
            "tokens_per_s_per_device": value, "value": value, "ratio": ratio}


def _distance(row, device, model_name, precision, input_tokens, output_tokens, target_per_user) -> float | None:
    """The row's distance to the plan (module docstring), None where it does not qualify."""
    if row.get("invalid") or map_model(row.get("model") or "") != model_name:
        return None
    if map_device(row.get("device") or "") != device.name or positive_number(row.get("tokens_per_s_per_gpu")) is None:
        return None
    if (power_limited_w(row, device) or float(device.tdp_w)) != nameplate_w(device):   # ran at another power
        return None
    if FAMILY.get(row_precision(row, device, model_name)) != FAMILY.get(precision):
        return None
    found = [_log_ratio(row.get(k), v) for k, v in (("input_len", input_tokens), ("output_len", output_tokens))]
    lengths = [d for d in found if d is not None and d <= math.log(LENGTH_FACTOR)]
    if len(lengths) < len(found):
        return None
    user = positive_number(row.get("tokens_per_s_per_user"))
    if target_per_user is None:
        return sum(lengths) / 2.0
    if user is None or abs(math.log(user / target_per_user)) > math.log(USER_FACTOR):
        return None
    return abs(math.log(user / target_per_user)) + sum(lengths) / 2.0


def _log_ratio(text, planned: float) -> float | None:
    value = positive_number(text)
    return abs(math.log(value / planned)) if value is not None and planned > 0 else None


def anchor_note(anchor: dict | None, band: dict | None) -> str | None:
    """A note where the anchor's tokens/s per device lies outside the plan's 80 % band (None: inside,
    or no anchor or band)."""
    if not anchor or not band or anchor.get("value") is None:
        return None
    low, high = band["tokens_per_s_per_device"]
    value = anchor["value"]
    if low <= value <= high:
        return None
    side = "below" if value < low else "above"
    user = anchor.get("tokens_per_s_per_user")
    at = f" at {user:,.0f} tokens/s per user" if user is not None and math.isfinite(user) else ""
    return (f"the nearest published measurement ({value:,.0f} tokens/s per device{at}, {short_source(anchor['source'])}) "
            f"lies {side} the plan's 80 % band ({low:,.0f}-{high:,.0f}); the plan is {anchor['ratio']:.2f}x it")


_COMMIT = re.compile(r"/(blob|tree)/[0-9a-f]{7,40}/")
SOURCE_CHARS = 140


def short_source(source: str) -> str:
    """A measurement's source for a note: its first part (before ';'), a GitHub link's commit left out (the
    full source is in the JSON's published_anchor), cut at a word past SOURCE_CHARS characters."""
    text = _COMMIT.sub(r"/\1/.../", source.split(";")[0]).strip()
    if len(text) <= SOURCE_CHARS:
        return text
    return text[:SOURCE_CHARS].rsplit(" ", 1)[0] + " ..."


def with_anchor(scenario, result, rows):
    """`result` (a PlanResult) with its `published_anchor` (None where its point is not on a generated
    curve, the plan serves request classes, or no row qualifies) and, where the anchor lies outside the band, the note among its warnings."""
    from dataclasses import replace
    point = result.point
    if not str(getattr(point, "source", "")).startswith("generated") or not result.pools:
        return result
    plan = scenario.plan(result.name)
    if plan.workloads:   # a mix of request classes: the measurements are of one request shape each
        return result
    pool = next((p for p in result.pools if p.role != "prefill"), result.pools[0])
    anchor = published_anchor(rows, scenario.device(pool.device), plan.model, pool.serving.weight_precision,
                              float(plan.input_tokens), float(plan.output_tokens), plan.min_tokens_per_s_per_user,
                              float(point.tokens_per_s_per_device))
    note = anchor_note(anchor, result.prediction_interval)
    return replace(result, published_anchor=anchor, warnings=tuple(result.warnings) + ((note,) if note else ()))
