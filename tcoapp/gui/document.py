"""The open document: the scenario, its file path, the dirty flag and the undo stack.

Every edit is a `ScenarioEdit` on the undo stack (old and new immutable scenarios), so Undo/Redo
covers every change. After each change the document recomputes the plans through
`tcoapp.engine.pipeline.compute` (caching the results of unchanged plans) and emits `scenario_changed`;
views subscribe and redraw. Edits are validated by the engine: a bad value is returned as a
message and the scenario is left unchanged.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from ..engine.pipeline.plan_result import PlanResult
from ..engine.quantities.metrics import Metrics
from ..engine.core.errors import TcoError, ValidationError
from ..engine.quantities.inputs import CURVE_ARRAYS, PLAN_FIELD_BY_NAME, SIZING_KEYS
from ..engine.pipeline.normalize import LABELS as NORMALIZATION_LABELS, NORMALIZATIONS, normalize as engine_normalize
from ..engine.performance.curve import missing_point
from ..engine.performance.measured import make_measured_curve
from ..engine.quantities.records import Plan, make_device, make_model, make_plan
from ..engine.serving.defaults import widest_search
from ..engine.serving.freeze import frozen_plan
from ..engine.plan.scenario import Scenario, reference_problems
from ..engine.uncertainty.plan_rows import rows_copied, rows_renamed, rows_without
from ..io.file_stamp import file_stamp
from .labels import parse_input
from .plan_colors import carried_slots, first_slots, slot_colors



class ScenarioEdit(QUndoCommand):
    """Replace the whole (immutable) scenario and its plans' colour slots; undo puts the old ones back."""

    def __init__(self, document: "Document", old: Scenario, new: Scenario, text: str):
        super().__init__(text)
        self._document, self._old, self._new = document, old, new
        self._old_slots = document.color_slots
        self._new_slots = carried_slots([p.name for p in old.plans], self._old_slots, [p.name for p in new.plans])

    def redo(self) -> None:
        self._document._apply(self._new, self._new_slots)

    def undo(self) -> None:
        self._document._apply(self._old, self._old_slots)


def plan_values(plan: Plan) -> dict[str, Any]:
    values = plan.as_dict()
    values.pop("name")
    values.pop("pools")
    values.pop("workloads", None)    # the plan's request classes are rows of their own, kept as they are
    return values


class Document(QObject):
    scenario_changed = Signal()        # scenario and results are updated
    current_changed = Signal(int)      # index of the plan the views focus on
    path_changed = Signal(str)
    dirty_changed = Signal(bool)

    def __init__(self, scenario: Scenario, path: str | None = None, parent=None, compute: bool = True):
        """`compute` False: the plans are not computed here; every result reads "computing" until
        `computed()` brings them (first_compute.py computes them off the GUI thread)."""
        super().__init__(parent)
        self.undo_stack = QUndoStack(self)
        self.undo_stack.cleanChanged.connect(self._on_clean_changed)
        self._cache: dict[Plan, PlanResult] = {}
        self._cache_context: tuple = ()
        self._scenario = scenario
        self._slots = first_slots(len(scenario.plans))
        self.computing = not compute
        self._results = self._compute(scenario) if compute else tuple(_computing_result(p) for p in scenario.plans)
        self._path = path
        self.copy_of: str | None = None   # the file this unsaved document is a copy of (open in another tcoapp)
        self._disk_stamp = file_stamp(path) if path else None
        self._current = 0
        self._entered_sizing: dict[str, dict[str, Any]] = {}

    def _on_clean_changed(self, clean: bool) -> None:
        self.dirty_changed.emit(not clean)

    # --- state -------------------------------------------------------------------------------
    @property
    def scenario(self) -> Scenario:
        return self._scenario

    @property
    def results(self) -> tuple[PlanResult, ...]:
        return self._results

    @property
    def color_slots(self) -> tuple[int, ...]:
        """Each plan's palette slot (plan_colors.py): stable across deletions, renames and undo."""
        return self._slots

    @property
    def plan_colors(self) -> tuple[str, ...]:
        """Each plan's chart colour, in plan order (every view colours plan i with plan_colors[i])."""
        return slot_colors(self._slots)

    def color_of(self, name: str, default: str = "#7f7f7f") -> str:
        """The colour of the plan called `name` (a plan no longer in the document: `default`)."""
        names = [p.name for p in self._scenario.plans]
        return self.plan_colors[names.index(name)] if name in names else default

    @property
    def path(self) -> str | None:
        return self._path

    @property
    def is_dirty(self) -> bool:
        return not self.undo_stack.isClean()

    @property
    def current_index(self) -> int:
        return min(self._current, max(0, len(self._scenario.plans) - 1))

    def set_current_index(self, index: int) -> None:
        index = max(0, min(index, len(self._scenario.plans) - 1))
        if index != self._current:
            self._current = index
            self.current_changed.emit(index)

    def current_plan(self) -> Plan | None:
        plans = self._scenario.plans
        return plans[self.current_index] if plans else None

    # --- whole-document operations (not undoable: they start a new history) ------------------
    def reset(self, scenario: Scenario, path: str | None, copy_of: str | None = None) -> None:
        """Show `scenario` as the file `path` (None: unsaved; `copy_of`: an unsaved copy of that file)."""
        self.copy_of = copy_of
        self.undo_stack.clear()
        self._entered_sizing = {}
        self._current = 0
        if self.computing and scenario is self._scenario:   # its results are being computed (first_compute.py)
            self.scenario_changed.emit()
        else:
            self._apply(scenario, first_slots(len(scenario.plans)))
        self.set_path(path)
        self.undo_stack.setClean()
        self.current_changed.emit(0)

    def set_path(self, path: str | None) -> None:
        if path:
            self.copy_of = None
        self._path = path
        self._disk_stamp = file_stamp(path) if path else None
        self.path_changed.emit(path or "")

    def mark_saved(self, path: str) -> None:
        self.set_path(path)
        self.undo_stack.setClean()

    def changed_on_disk(self) -> bool:
        """The document's file was changed (or removed) by someone else since it was opened or saved here."""
        return bool(self._path) and file_stamp(self._path) != self._disk_stamp

    def accept_disk_version(self) -> None:
        """Stop reporting the change seen on disk (the user chose to keep this version)."""
        self._disk_stamp = file_stamp(self._path) if self._path else None

    # --- edits (each one undoable) ----------------------------------------------------------
    def push(self, new: Scenario, text: str) -> None:
        self.undo_stack.push(ScenarioEdit(self, self._scenario, new, text))

    def set_plan_values(self, index: int, changes: Mapping[str, Any], text: str | None = None) -> str | None:
        """Change inputs of plan `index`; returns an error message (nothing changed) or None."""
        keys = ", ".join(PLAN_FIELD_BY_NAME[k].label if k in PLAN_FIELD_BY_NAME else k for k in changes)
        return self.set_plans_values([index], changes, text or f"Set {keys} of {self._scenario.plans[index].name!r}")

    def set_plans_values(self, indices, changes: Mapping[str, Any], text: str) -> str | None:
        """Change the same inputs of every plan in `indices`, in one undoable step; returns an error message
        naming the plan (nothing changed) or None."""
        new = self._scenario
        changes = {k: parse_input(PLAN_FIELD_BY_NAME[k], v) if k in PLAN_FIELD_BY_NAME else v
                   for k, v in changes.items()}   # '70%' for a fraction, a choice's label
        for index in indices:
            new, error = _with_plan_values(new, index, changes)
            if error:
                return error if len(indices) == 1 else f"{new.plans[index].name}: {error}"
        if new != self._scenario:
            self.push(new, text)
        return None

    def set_uncertainty(self, rows, text: str) -> str | None:
        """Replace the Uncertainty rows (validated: every problem's text, or None when applied)."""
        from ..engine.uncertainty.references import uncertainty_problems
        new = replace(self._scenario, uncertainty=tuple(rows))
        problems = uncertainty_problems(new)
        if problems:
            return "\n".join(str(p) for p in problems)
        if new != self._scenario:
            self.push(new, text)
        return None

    def set_plan_value(self, index: int, key: str, raw: Any) -> str | None:
        return self.set_plan_values(index, {key: raw})

    def freeze_serving(self, index: int) -> None:
        """Type in what the serving search chose for plan `index` and turn the search off (one undo step)."""
        plan = self._scenario.plans[index]
        result = self.results[index]   # a search that chose prefill/decode pools freezes them (searched_plan)
        new_plan = frozen_plan(getattr(result, "searched_plan", None) or plan, result.searches)
        if new_plan != plan:
            self.push(self._scenario.replace_plan(index, new_plan), f"Freeze the searched configuration of {plan.name!r}")

    def search_widest(self, indices) -> None:
        """Make plans `indices` search the widest serving space their devices run (serving_search =
        auto, engine/serving/defaults.py), in one undoable step."""
        plans, names = list(self._scenario.plans), []
        for i in indices:
            plan = plans[i]
            searched = plan.with_(**widest_search(plan_values(plan)))
            if searched != plan:
                plans[i] = searched
                names.append(plan.name)
        if names:
            self.push(self._scenario.with_plans(plans),
                      f"Search {', '.join(repr(n) for n in names)} at {'its' if len(names) == 1 else 'their'} best")

    def add_plan(self, source_index: int | None = None) -> None:
        plans = list(self._scenario.plans)
        if source_index is None:
            template = plans[-1] if plans else None
            base = "Plan"
        else:
            template = plans[source_index]
            base = f"{template.name} copy"
        name = self.unique_name(base)
        if template is None:
            device = next(iter(self._scenario.all_device_names()))
            model = next(iter(self._scenario.all_model_names()))
            plan = make_plan(name, {"device": device, "model": model})
        else:
            plan = renamed_plan(template, name)
        if source_index is None:   # a new plan searches the widest space (a duplicate stays a copy)
            plan = plan.with_(**widest_search(plan_values(plan)))
        plans.append(plan)
        new = self._scenario.with_plans(plans)
        if source_index is not None:
            new = replace(new, uncertainty=rows_copied(new.uncertainty, template.name, name))
        self.push(new, f"Add plan {name!r}" if source_index is None else f"Duplicate plan {template.name!r}")
        self.set_current_index(len(plans) - 1)

    LAST_PLAN = ("A scenario keeps at least one plan: this is the last one, so it is not deleted. Add another "
                 "plan first (Edit > Add plan), or change this one.")

    def delete_plan(self, index: int) -> str | None:
        """Delete plan `index` (undoable); the last plan is kept, and the message says why."""
        plans = list(self._scenario.plans)
        if len(plans) <= 1:
            return self.LAST_PLAN
        removed = plans.pop(index)
        new = self._scenario.with_plans(plans)
        self.push(replace(new, uncertainty=rows_without(new.uncertainty, removed.name)), f"Delete plan {removed.name!r}")
        self.set_current_index(min(index, len(plans) - 1))
        self.current_changed.emit(self.current_index)
        return None

    def rename_plan(self, index: int, name: str) -> str | None:
        name = name.strip()
        plan = self._scenario.plans[index]
        if not name:
            return "a plan needs a name"
        if name == plan.name:
            return None
        if any(p.name == name for p in self._scenario.plans):
            return f"plan name {name!r} is already used"
        renamed = renamed_plan(plan, name)
        new = self._scenario.replace_plan(index, renamed)
        new = replace(new, uncertainty=rows_renamed(new.uncertainty, plan.name, name))
        self.push(new, f"Rename plan {plan.name!r} to {name!r}")
        return None

    def unique_name(self, base: str) -> str:
        names = {p.name for p in self._scenario.plans}
        if base not in names:
            return base
        n = 2
        while f"{base} {n}" in names:
            n += 1
        return f"{base} {n}"

    def set_device(self, name: str, values: Mapping[str, Any]) -> str | None:
        """Add or override a device (the scenario's Devices sheet)."""
        return self._set_entry("devices", make_device, name, values, "device")

    def set_model(self, name: str, values: Mapping[str, Any]) -> str | None:
        return self._set_entry("models", make_model, name, values, "model")

    def _set_entry(self, attr, make, old_name, values, what) -> str | None:
        try:
            entry = make(values)
        except ValidationError as exc:
            return str(exc)
        entries = dict(getattr(self._scenario, attr))
        if entry.name != old_name and old_name in entries:
            return f"renaming {what}s is not supported: add a new {what} instead"
        entries[entry.name] = entry
        self.push(replace(self._scenario, **{attr: entries}), f"Edit {what} {entry.name!r}")
        return None

    def set_curve_point(self, name: str, i: int, key: str, value) -> str | None:
        """Change one measured number of point i of curve `name` (None/NaN: not measured)."""
        curve = self._scenario.curves[name]
        columns = {k: np.array(getattr(curve, k), float) for k in CURVE_ARRAYS}
        columns[key][i] = np.nan if value is None else float(value)
        if not np.isfinite(columns["batch"][i]) or not np.isfinite(columns["tokens_per_s_per_device"][i]):
            return f"{key}: a measured point needs a batch and tokens/s per device"
        order = np.argsort(columns["batch"], kind="stable")
        sources = tuple(curve.point_sources[j] for j in order) if len(curve.point_sources) == order.size else \
            curve.point_sources
        try:
            new = make_measured_curve(name, curve.device, curve.model, *(columns[k][order] for k in columns),
                                      precision=curve.precision, tensor_parallel=curve.tensor_parallel,
                                      source=curve.source, point_sources=sources, config=curve.config)
        except ValueError as exc:
            return str(exc)
        curves = dict(self._scenario.curves)
        curves[name] = new
        self.push(replace(self._scenario, curves=curves), f"Edit {key} of curve {name!r}")
        return None

    def delete_curve(self, name: str) -> str | None:
        users = [p.name for p in self._scenario.plans if p.curve == name]
        if users:
            return f"curve {name!r} is used by plan(s) {', '.join(users)}: choose another curve for them first"
        curves = {k: v for k, v in self._scenario.curves.items() if k != name}
        self.push(replace(self._scenario, curves=curves), f"Delete curve {name!r}")
        return None

    def set_device_factors(self, device: str, factors, quality=None) -> None:
        """Use `factors` for plans in scope `device` (a device, or `DEVICE | MODEL_CLASS | STACK`; a
        calibration, saved as a Calibration sheet column with its fit quality)."""
        from ..io.calibration_book import with_scope_factors
        self.push(with_scope_factors(self._scenario, device, factors, quality), f"Calibrate factors for {device}")

    def add_curve(self, curve) -> None:
        curves = dict(self._scenario.curves)
        curves[curve.name] = curve
        self.push(replace(self._scenario, curves=curves), f"Import curve {curve.name!r}")

    # --- normalization (engine.normalize re-sizes; the document keeps the sizing as entered) ---
    def normalization(self) -> tuple[str, float | None]:
        """(engine normalization mode, common value): "as_entered" unless every plan is sized the same way."""
        plans = self._scenario.plans
        for mode, spec in NORMALIZATIONS.items():
            if spec is None:
                continue
            sizing_mode, key = spec
            if plans and all(p.sizing_mode == sizing_mode for p in plans):
                values = {getattr(p, key) for p in plans}
                if len(values) == 1:
                    return mode, values.pop()
        return "as_entered", None

    def normalize(self, mode: str, value: float | None = None) -> str | None:
        """Re-size every plan to the same facility power, capex or demand (the current plan's unless
        `value` is given); "as_entered" puts back the sizing the plans had before. Undoable."""
        plans = self._scenario.plans
        if mode == "as_entered":
            if not self._entered_sizing:
                return None
            new = [p.with_(**self._entered_sizing.get(p.name, {})) for p in plans]
            self.push(self._scenario.with_plans(new), "Sizing as entered")
            return None
        if not self._entered_sizing:   # the sizing before the first normalization of this document
            self._entered_sizing = {p.name: {k: getattr(p, k) for k in SIZING_KEYS} for p in plans}
        try:
            new = engine_normalize(self._scenario, mode, value, reference_index=self.current_index)
        except (ValueError, TcoError) as exc:
            return str(exc)
        if new == self._scenario:
            return None
        _, common = NORMALIZATIONS[mode]
        self.push(new, f"{NORMALIZATION_LABELS[mode]}: {getattr(new.plans[0], common):g}")
        return None

    # --- recomputation -------------------------------------------------------------------------
    def computed(self, scenario: Scenario, results: tuple[PlanResult, ...]) -> bool:
        """The results of `scenario` computed elsewhere (off the GUI thread); False (and nothing
        changes) when the document moved on since (an edit computed its own)."""
        if not self.computing or scenario is not self._scenario or len(results) != len(scenario.plans):
            return False
        self.computing = False
        self._cache_context = self._context(scenario)
        self._cache = dict(zip(scenario.plans, results))
        self._results = tuple(results)
        self.scenario_changed.emit()
        return True

    def _apply(self, scenario: Scenario, slots: tuple[int, ...]) -> None:
        self._scenario, self._slots = scenario, slots
        self.computing = False
        self._results = self._compute(scenario)
        if self._current >= len(scenario.plans):
            self._current = max(0, len(scenario.plans) - 1)
            self.current_changed.emit(self._current)
        self.scenario_changed.emit()

    @staticmethod
    def _context(scenario: Scenario) -> tuple:
        """What every plan's result depends on besides the plan (a change drops the cache)."""
        return (scenario.devices, scenario.models, scenario.curves, scenario.price_tiers, scenario.factors,
                scenario.device_factors, scenario.catalog_devices, scenario.catalog_models)

    def _compute(self, scenario: Scenario) -> tuple[PlanResult, ...]:
        context = self._context(scenario)
        if len(context) != len(self._cache_context) or any(a is not b for a, b in zip(context, self._cache_context)):
            self._cache = {}
            self._cache_context = context
        results = []
        for plan in scenario.plans:
            result = self._cache.get(plan)
            if result is None:
                result = safe_compute(scenario, plan)
                self._cache[plan] = result
            results.append(result)
        if len(self._cache) > 4 * len(scenario.plans) + 16:
            keep = set(scenario.plans)
            self._cache = {p: r for p, r in self._cache.items() if p in keep}
        return tuple(results)


def renamed_plan(plan: Plan, name: str) -> Plan:
    """`plan` under `name`, its Pools and Workloads rows naming it too."""
    return replace(plan, name=name, pools=tuple(p.with_(plan=name) for p in plan.pools),
                   workloads=tuple(c.with_(plan=name) for c in plan.workloads))


def _with_plan_values(scenario: Scenario, index: int, changes: Mapping[str, Any]) -> tuple[Scenario, str | None]:
    """(the scenario with plan `index`'s inputs changed, None), or (the scenario unchanged, the error)."""
    plan = scenario.plans[index]
    values = plan_values(plan)
    values.update(changes)
    try:
        new_plan = make_plan(plan.name, values).with_(pools=plan.pools, workloads=plan.workloads)
    except ValidationError as exc:
        return scenario, "; ".join(f"{p.field} {p.message}".strip() for p in exc.problems)
    if new_plan == plan:
        return scenario, None
    new = scenario.replace_plan(index, new_plan)
    new = replace(new, plans=kept_plans(scenario.plans, new.plans))
    # a model edit also answers for the precision split it may void (dense models have none)
    touched = set(changes) | ({"attention_weight_precision"} if "model" in changes else set())
    problems = [p for p in reference_problems(new) if p.field in touched]
    if "device" in changes:  # a `*` Uncertainty row of a device field needs one device for every plan
        from ..engine.uncertainty.references import star_device_problems
        problems += star_device_problems(new)
    if problems:  # a problem of another field than the edited one names its field
        return scenario, "; ".join(p.message if p.field in changes else f"{p.field} {p.message}" for p in problems)
    return new, None


def kept_plans(old: tuple[Plan, ...], new: tuple[Plan, ...]) -> tuple[Plan, ...]:
    """`new`, with each plan equal to the one before it at its place kept as that object: the views redraw
    what changed by identity (gui/redraw.py), and an edit of one plan revalidates them all into new objects."""
    if len(old) != len(new):
        return new
    return tuple(a if a == b else b for a, b in zip(old, new))


def safe_compute(scenario: Scenario, plan: Plan) -> PlanResult:
    """The engine's result, or an empty result carrying the engine's message (never a traceback)."""
    from ..engine.pipeline.compute import compute_plan   # loaded with the first computation, after the window shows
    from ..engine.pipeline.anchor import with_anchor
    try:
        return with_anchor(scenario, compute_plan(scenario, plan), published_rows())
    except TcoError as exc:   # the engine's own refusal of this plan: the others still compute
        return _empty_result(plan, "error", str(exc))


_published: list = []


def published_rows() -> list[dict]:
    """The shipped measurements (read once): a generated plan's published anchor is the nearest of them
    (docs/model.md, "Published anchor"), as on the command line."""
    if not _published:
        from ..io.measurements import read_measurements
        _published.extend(row for _, row in read_measurements())
    return _published


COMPUTING = "computing…"


def _computing_result(plan: Plan) -> PlanResult:
    """The result a plan shows until its computation (off the GUI thread) arrives."""
    return _empty_result(plan, "computing", COMPUTING)


def _empty_result(plan: Plan, source: str, message: str) -> PlanResult:
    return PlanResult(plan.name, missing_point(source, message), Metrics.nan(), warnings=(message,))
