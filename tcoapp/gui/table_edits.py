"""Undoable edits of the workbook-only tables through the document: price-tier tables (the
PriceTiers sheet) and efficiency factors (the Calibration sheet: the scenario's factors and one
column per calibrated device). Values are validated by the field tables (`PRICE_TIER_FIELDS`,
`quantities/factors.py`); each function returns an error message (nothing changed) or None."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..engine.quantities.inputs import PRICE_TIER_FIELDS, by_name
from ..engine.quantities.factors import FACTOR_FIELD_BY_NAME
from ..engine.quantities.factors import factor_problem
from ..engine.plan.scenario import PriceTiers
from ..engine.quantities.validate import coerce
from .document import Document
from .labels import parse_input

TIER_FIELD = by_name(PRICE_TIER_FIELDS)
TIER_KEYS = ("min_tokens_per_s_per_user", "price_usd_per_million_output_tokens")


def _push_tiers(doc: Document, tables: dict, text: str) -> None:
    doc.push(replace(doc.scenario, price_tiers=tables), text)


def _rows(table: PriceTiers) -> list[list[float]]:
    return [list(r) for r in zip(table.min_tokens_per_s_per_user, table.price_usd_per_million_output_tokens)]


def _table_from(name: str, rows, source: str) -> PriceTiers:
    rows = sorted(rows, key=lambda r: r[0])
    return PriceTiers(name, tuple(float(r[0]) for r in rows), tuple(float(r[1]) for r in rows), source)


def set_tier_value(doc: Document, name: str, row: int, key: str, raw: Any) -> str | None:
    """Set the threshold or the price of tier `row` of table `name` (tiers stay sorted by threshold)."""
    table = doc.scenario.price_tiers[name]
    field = TIER_FIELD[key]
    value, error = coerce(field, parse_input(field, raw))   # the app's own (US) number format
    if error:
        return f"{field.label} {error}"
    rows = _rows(table)
    col = TIER_KEYS.index(key)
    if rows[row][col] == value:
        return None
    if col == 0 and any(r[0] == value for i, r in enumerate(rows) if i != row):
        return f"{field.label} = {value:g}: table {name!r} already has a tier from this tokens/s per user"
    rows[row][col] = value
    tables = dict(doc.scenario.price_tiers)
    tables[name] = _table_from(name, rows, table.source)
    _push_tiers(doc, tables, f"Set {field.label} of tier {row + 1} of price table {name!r} to {value:g}")
    return None


def add_tier(doc: Document, name: str) -> str | None:
    """A tier above the fastest one (threshold x 2, or 10 tokens/s per user; the same price)."""
    table = doc.scenario.price_tiers[name]
    rows = _rows(table)
    top = max((r[0] for r in rows), default=0.0)
    price = rows[-1][1] if rows else 1.0
    rows.append([top * 2 if top > 0 else 10.0, price])
    tables = dict(doc.scenario.price_tiers)
    tables[name] = _table_from(name, rows, table.source)
    _push_tiers(doc, tables, f"Add a tier to price table {name!r}")
    return None


def remove_tier(doc: Document, name: str, row: int) -> str | None:
    table = doc.scenario.price_tiers[name]
    rows = _rows(table)
    if len(rows) <= 1:
        return f"price table {name!r} needs at least one tier (delete the table instead)"
    rows.pop(row)
    tables = dict(doc.scenario.price_tiers)
    tables[name] = _table_from(name, rows, table.source)
    _push_tiers(doc, tables, f"Remove tier {row + 1} of price table {name!r}")
    return None


def add_table(doc: Document, name: str) -> str | None:
    """A new table with one tier from 0 tokens/s per user at the current plan's output price."""
    name = name.strip()
    if not name:
        return "a price table needs a name"
    if name in doc.scenario.price_tiers:
        return f"price table {name!r} already exists"
    plan = doc.current_plan()
    price = float(plan.price_usd_per_million_output_tokens) if plan is not None else 1.0
    tables = dict(doc.scenario.price_tiers)
    tables[name] = PriceTiers(name, (0.0,), (price,), "")
    _push_tiers(doc, tables, f"Add price table {name!r}")
    return None


def delete_table(doc: Document, name: str) -> str | None:
    users = [p.name for p in doc.scenario.plans if p.price_tiers == name]
    if users:
        return f"price table {name!r} is used by plan(s) {', '.join(users)}: choose another for them first"
    tables = {k: v for k, v in doc.scenario.price_tiers.items() if k != name}
    _push_tiers(doc, tables, f"Delete price table {name!r}")
    return None


def set_factor(doc: Document, device: str | None, key: str, raw: Any) -> str | None:
    """Set efficiency factor `key` for every plan (`device` None) or for plans on `device` (its
    calibration column; a device without one starts from the scenario's factors)."""
    field = FACTOR_FIELD_BY_NAME[key]
    value, error = coerce(field, parse_input(field, raw))   # the app's own (US) number format
    problem = error or factor_problem(key, value)
    if problem:
        return f"{field.label} {problem}"
    scenario = doc.scenario
    if device is None:
        if getattr(scenario.factors, key) == value:
            return None
        doc.push(replace(scenario, factors=scenario.factors.with_(**{key: value})),
                 f"Set {field.label} to {value:g} for every plan")
        return None
    merged = dict(scenario.device_factors)
    base = merged.get(device, scenario.factors)
    if getattr(base, key) == value and device in merged:
        return None
    merged[device] = base.with_(**{key: value})
    quality = {k: q for k, q in scenario.calibration_quality.items() if k != device}  # no longer the fit's factors
    doc.push(replace(scenario, device_factors=merged, calibration_quality=quality),
             f"Set {field.label} to {value:g} for plans on {device}")
    return None


def remove_device_factors(doc: Document, device: str) -> str | None:
    merged = {k: v for k, v in doc.scenario.device_factors.items() if k != device}
    if len(merged) == len(doc.scenario.device_factors):
        return None
    quality = {k: q for k, q in doc.scenario.calibration_quality.items() if k != device}
    doc.push(replace(doc.scenario, device_factors=merged, calibration_quality=quality),
             f"Plans on {device} use the scenario's factors")
    return None

