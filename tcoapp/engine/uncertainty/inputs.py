"""One validated row of the Uncertainty sheet (docs/model.md, "Uncertainty").

`make_uncertain_input` coerces a row with the field table, resolves its key to the field it moves
(Plans, Devices or the efficiency factors) and checks the parameters: each present only where its
distribution takes it, low <= mode <= high with low < high, sd > 0, and the distribution's support
inside the key's allowed range, so that no draw ever leaves it (never a clamp). Every problem names
its cell.
"""
from __future__ import annotations

from dataclasses import dataclass, field as dc_field
from typing import Any, Mapping

from ..core.errors import Problem
from ..quantities.factors import FACTOR_FIELD_BY_NAME
from ..quantities.inputs import DEVICE_FIELDS, PLAN_FIELD_BY_NAME, Field, by_name
from ..quantities.validate import Locator, _in_range, coerce_record
from . import distributions
from .fields import ALL_PLANS, PARAMETERS, UNCERTAINTY_FIELDS

DEVICE_PREFIX, FACTOR_PREFIX = "device.", "factor."
DEVICE_FIELD_BY_NAME = by_name(DEVICE_FIELDS)


@dataclass(frozen=True)
class UncertainInput:
    """An uncertain input: `key` on `plan` (or every plan) follows `distribution`; values in the key's unit."""

    plan: str
    key: str
    distribution: str
    low: float | None = None
    mode: float | None = None
    high: float | None = None
    mean: float | None = None
    sd: float | None = None
    group: str = ""
    source: str = ""
    cells: Mapping[str, str] = dc_field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def stream(self) -> str:
        """The name of its quantile stream: its group, else its key (shared by every plan)."""
        return self.group or self.key

    @property
    def applies_to_all(self) -> bool:
        """Whether the row applies to every plan (`*`)."""
        return self.plan == ALL_PLANS

    def where(self, column: str) -> str:
        """The workbook cell of `column` (or the row named in words)."""
        return self.cells.get(column, f"Uncertainty {self.plan!r} {self.key!r}")

    def as_row(self) -> dict[str, Any]:
        """The row as the Uncertainty sheet holds it (column -> value, in the key's unit)."""
        return {f.name: getattr(self, f.name) for f in UNCERTAINTY_FIELDS}


def target_field(key: str) -> tuple[str, Field] | None:
    """(kind, field) a key moves: kind "plan", "device" or "factor"; None for an unknown key."""
    if key.startswith(DEVICE_PREFIX):
        found = DEVICE_FIELD_BY_NAME.get(key[len(DEVICE_PREFIX):])
        return ("device", found) if found else None
    if key.startswith(FACTOR_PREFIX):
        found = FACTOR_FIELD_BY_NAME.get(key[len(FACTOR_PREFIX):])
        return ("factor", found) if found else None
    found = PLAN_FIELD_BY_NAME.get(key)
    return ("plan", found) if found else None


def field_name(key: str) -> str:
    """The bare field name of a key (`device.price_usd` -> `price_usd`)."""
    for prefix in (DEVICE_PREFIX, FACTOR_PREFIX):
        if key.startswith(prefix):
            return key[len(prefix):]
    return key


def make_uncertain_input(raw: Mapping[str, Any], where: Locator, problems: list[Problem]) -> UncertainInput | None:
    """A validated row, or None with its problems appended (each naming its cell)."""
    start = len(problems)
    v = coerce_record(UNCERTAINTY_FIELDS, raw, where, problems)
    if len(problems) > start:
        return None
    resolved = _key_problems(v["key"], where, problems)
    if resolved is not None:
        _parameter_problems(v, resolved, where, problems)
    if len(problems) > start:
        return None
    cells = {f.name: where(f.name) for f in UNCERTAINTY_FIELDS}
    return UncertainInput(**v, cells=cells)


def _key_problems(key: str, where, problems) -> Field | None:
    resolved = target_field(key)
    if resolved is None:
        problems.append(Problem(where("key"), "key", f"= {key!r}: unknown key (a Plan key, device.FIELD or factor.NAME; "
                                                     "see the workbook format reference)"))
        return None
    target = resolved[1]
    if target.type != "float":
        problems.append(Problem(where("key"), "key", f"= {key!r}: a {target.type} field cannot be uncertain (only number "
                                                     "keys that take fractional values can)"))
        return None
    return target


def _parameter_problems(v, target: Field, where, problems) -> None:
    takes = PARAMETERS[v["distribution"]]
    for name in ("low", "mode", "high", "mean", "sd"):
        if name in takes and v[name] is None:
            problems.append(Problem(where(name), name, f"is required by a {v['distribution']} distribution"))
        elif name not in takes and v[name] is not None:
            problems.append(Problem(where(name), name, f"= {v[name]:g}: a {v['distribution']} distribution does not take "
                                                       f"{name} (it takes {', '.join(takes)}): clear the cell"))
    if any(v[name] is None for name in takes) or any(v[n] is not None for n in ("low", "mode", "high", "mean", "sd") if n not in takes):
        return
    if "low" in takes:
        _range_problems(v, target, where, problems)
    else:
        _moment_problems(v, target, where, problems)


def _range_problems(v, target: Field, where, problems) -> None:
    low, high, mode = v["low"], v["high"], v["mode"]
    if not low < high:
        problems.append(Problem(where("high"), "high", f"= {high:g}: must be greater than low ({low:g})"))
    if mode is not None and not low <= mode <= high:
        problems.append(Problem(where("mode"), "mode", f"= {mode:g}: must be between low ({low:g}) and high ({high:g})"))
    for name in ("low", "mode", "high"):
        value = v[name]
        if value is not None and not _in_range(target, value):
            problems.append(Problem(where(name), name, f"= {value:g}: {v['key']} must be {target.range_text()}"))


def _moment_problems(v, target: Field, where, problems) -> None:
    mean, sd = v["mean"], v["sd"]
    if not sd > 0:
        problems.append(Problem(where("sd"), "sd", f"= {sd:g}: must be greater than 0"))
        return
    if v["distribution"] == "lognormal" and not mean > 0:
        problems.append(Problem(where("mean"), "mean", f"= {mean:g}: a lognormal's mean must be greater than 0"))
        return
    lo, hi = distributions.support(v["distribution"], v)
    if not (_in_range(target, lo) and _in_range(target, hi)):
        problems.append(Problem(where("sd"), "sd", f"= {sd:g}: a {v['distribution']} of mean {mean:g} reaches "
                                                   f"{lo:.4g}..{hi:.4g} (its {distributions.TAIL:g} and 1 - "
                                                   f"{distributions.TAIL:g} quantiles), outside {v['key']}'s range "
                                                   f"({target.range_text()}): use a smaller sd or a bounded "
                                                   "distribution (uniform, triangular, pert)"))
