"""The scenario: plans plus the devices, models, curves and price tiers they name.

`devices` and `models` hold the scenario's own entries (a workbook's Devices/Models sheets): they
add to or override the shipped catalog by name. `catalog_devices`/`catalog_models` are the shipped
catalog the scenario was built against.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Mapping

import numpy as np

from ..core.errors import Problem, ValidationError, shown
from ..performance.factors import DEFAULT_FACTORS, EfficiencyFactors
from ..performance.measured import MeasuredCurve
from ..quantities.records import Device, ModelSpec, Plan, ServingConfig, context_problem, field_locator
from ..quantities.dates import CATALOG_DATE, month_plus_years
from ..quantities.spec_acceptance import SpecAcceptance


@dataclass(frozen=True)
class PriceTiers:
    """Price per million output tokens as a step function of tokens/s per user."""

    name: str
    min_tokens_per_s_per_user: tuple[float, ...]
    price_usd_per_million_output_tokens: tuple[float, ...]
    source: str = ""

    def prices_at(self, tokens_per_s_per_user) -> np.ndarray:
        """Output price [USD per million output tokens] at each interactivity [tokens/s per user] (any
        shape; a leading draw axis in Monte Carlo): the fastest tier reached; 0 below the slowest tier
        (no output revenue); NaN where the interactivity is not a finite number."""
        thresholds = np.asarray(self.min_tokens_per_s_per_user, float)
        prices = np.asarray(self.price_usd_per_million_output_tokens, float)
        order = np.argsort(thresholds)
        per_user = np.asarray(tokens_per_s_per_user, float)
        index = np.searchsorted(thresholds[order], per_user, side="right") - 1
        price = np.where(index >= 0, prices[order][np.maximum(index, 0)], 0.0)
        return np.where(np.isfinite(per_user), price, np.nan)

    def price_at(self, tokens_per_s_per_user: float) -> float:
        """`prices_at` of one interactivity [tokens/s per user], as a number [USD per million output tokens]."""
        return float(self.prices_at(tokens_per_s_per_user))

    def below_slowest(self, tokens_per_s_per_user: float) -> bool:
        """True where the interactivity [tokens/s per user] reaches no tier (the plan sells no output)."""
        return bool(tokens_per_s_per_user < min(self.min_tokens_per_s_per_user))


@dataclass(frozen=True)
class Scenario:
    """A scenario: its plans and the devices, models, measured curves, price tiers and efficiency
    factors they name (a workbook's sheets; docs/workbook_format.md). Frozen: change it with
    `with_plan`, which validates every change as reading a workbook does.

    Attributes
    ----------
    plans : tuple of Plan
        One plan per Plans column (device, model, workload, serving, sizing, finance inputs; units in
        the keys: `capex_usd`, `power_w`, fractions 0..1).
    devices, models : mapping of str to Device / ModelSpec
        The scenario's own entries (added to or overriding the shipped catalog by name).
    curves : mapping of str to MeasuredCurve
        Measured throughput curves (batch [sequences], tokens/s per device, tokens/s per user,
        TTFT [s], power [W]).
    price_tiers : mapping of str to PriceTiers
        Output price [USD per million output tokens] by interactivity [tokens/s per user].
    factors : EfficiencyFactors
        The performance model's efficiency factors (dimensionless), and `device_factors` the
        calibrated sets per scope.

    Examples
    --------
    >>> import tcoapp
    >>> scenario = tcoapp.load_scenario()
    >>> scenario.with_plan("H200", utilization=0.5).plan("H200").utilization
    0.5
    >>> scenario.with_plan("H200", utilization=1.7)
    Traceback (most recent call last):
    ...
    tcoapp.engine.core.errors.ValidationError: Plan 'H200' utilization = 1.7: must be a number between 0.001 and 1
    """

    plans: tuple[Plan, ...]
    devices: Mapping[str, Device] = field(default_factory=dict)
    models: Mapping[str, ModelSpec] = field(default_factory=dict)
    curves: Mapping[str, MeasuredCurve] = field(default_factory=dict)
    price_tiers: Mapping[str, PriceTiers] = field(default_factory=dict)
    factors: EfficiencyFactors = DEFAULT_FACTORS
    # Factors calibrated for one scope (the Calibration sheet's columns after `value`): keyed by the
    # scope's header, `DEVICE` or `DEVICE | MODEL_CLASS | STACK` (plan/calibration_scope.py); plans in
    # that scope use them (`for_plan`), every other plan `factors`.
    device_factors: Mapping[str, EfficiencyFactors] = field(default_factory=dict)
    # What each calibration was fitted on and how well (the Calibration sheet's fit_* rows), by scope key
    calibration_quality: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    # The Uncertainty sheet's rows (uncertainty/inputs.py UncertainInput): what Monte Carlo draws
    uncertainty: tuple = ()
    catalog_devices: Mapping[str, Device] = field(default_factory=dict, compare=False, repr=False)
    catalog_models: Mapping[str, ModelSpec] = field(default_factory=dict, compare=False, repr=False)
    # Published speculative-decoding acceptance by model name (resources/catalog/spec_acceptance.csv)
    spec_acceptance: Mapping[str, SpecAcceptance] = field(default_factory=dict, compare=False, repr=False)
    # The analyst's own sheets and Plans rows of the workbook read (io/kept_work.py), written back on save
    kept: object = field(default=None, compare=False, repr=False)

    def device(self, name: str) -> Device:
        """The device of that name: the scenario's own, else the catalog's (KeyError if neither)."""
        return self.devices.get(name) or self.catalog_devices[name]

    def published_acceptance(self, model_name: str) -> SpecAcceptance | None:
        """The model's published speculative-decoding acceptance (None: none published): the scenario's
        table, else the one the catalog's models carry (quantities/spec_acceptance.py ModelCatalog)."""
        return self.spec_acceptance.get(model_name) or getattr(self.catalog_models, "spec_acceptance", {}).get(model_name)

    def acceptance_for(self, model_name: str) -> float:
        """The per-token acceptance a plan of this model takes where it leaves spec_decode_acceptance
        empty: the published one, 0 where none is published."""
        published = self.published_acceptance(model_name)
        return published.acceptance if published is not None else 0.0

    def serving_of(self, plan) -> ServingConfig:
        """The plan's own serving configuration with an empty spec_decode_acceptance filled
        (`acceptance_for`)."""
        serving = plan.serving
        if serving.spec_decode_acceptance is None:
            serving = serving.with_(spec_decode_acceptance=self.acceptance_for(plan.model))
        return serving

    def model(self, name: str) -> ModelSpec:
        """The model of that name: the scenario's own, else the catalog's (KeyError if neither)."""
        return self.models.get(name) or self.catalog_models[name]

    def factors_for(self, device_name: str) -> EfficiencyFactors:
        """The efficiency factors of plans on `device_name` (its calibrated set, else the scenario's)."""
        return self.device_factors.get(device_name, self.factors)

    def for_plan(self, plan) -> "Scenario":
        """The scenario as `plan` sees it: calibrations resolved to the plan's model class and serving
        stack, so that `factors_for(device)` is the plan's (plan/calibration_scope.py)."""
        from .calibration_scope import scenario_for_plan
        return scenario_for_plan(self, plan)

    def workload_of_curve(self, curve_name: str):
        """The workload of the first plan that uses curve `curve_name` (None if no plan does)."""
        return next((plan.workload for plan in self.plans if plan.curve == curve_name), None)

    def all_device_names(self) -> list[str]:
        """Every device name the plans may use (catalog first, then the scenario's own)."""
        return list(dict.fromkeys([*self.catalog_devices, *self.devices]))

    def all_model_names(self) -> list[str]:
        """Every model name the plans may use (catalog first, then the scenario's own)."""
        return list(dict.fromkeys([*self.catalog_models, *self.models]))

    def plan(self, name: str) -> Plan:
        """The plan of that name (KeyError if none)."""
        for plan in self.plans:
            if plan.name == name:
                return plan
        raise KeyError(name)

    def with_plans(self, plans) -> "Scenario":
        """A copy with these plans, each validated field by field as a workbook's Plans column is (the
        same messages, naming the plan; the devices, models and curves they name are checked when the
        scenario is computed): ValidationError with every problem at once."""
        return replace(self, plans=checked_plan_fields(plans))

    def with_plan(self, name: str, **changes) -> "Scenario":
        """A copy with plan `name`'s inputs changed, validated exactly as reading a workbook validates a
        Plans column (the same messages, each naming the plan instead of a cell).

        Parameters
        ----------
        name : str
            The plan to change (KeyError if the scenario has none of that name).
        **changes
            Plan keys and their new values, in the keys' units (`utilization=0.5`: a fraction 0..1;
            `price_usd_per_million_output_tokens=2.0`: USD per million output tokens). Text is read as
            a workbook cell's text is (`"50%"`, `"1,200,000"`); None gives the key's default.

        Returns
        -------
        Scenario
            The scenario with the changed plan (its pools and request classes kept); this one is unchanged.

        Raises
        ------
        tcoapp.engine.core.errors.ValidationError
            Every problem at once: an unknown key, a value outside its allowed range (named with the
            range), a device, model or curve the scenario does not have.

        Examples
        --------
        >>> import tcoapp
        >>> scenario = tcoapp.load_scenario()
        >>> scenario.with_plan("H100", utilization="50%", years=4).plan("H100").years
        4

        `workloads=[...]` sets the plan's request classes (docs/model.md, "Request classes"), each a dict of
        Workloads columns (`{"class": "chat", "share": 0.5, "input_tokens": 1000, "output_tokens": 300,
        "min_tokens_per_s_per_user": 50}`; `plan` may be left out) or a RequestClass; `workloads=[]` clears
        them. Each class is checked as a Workloads row is, and the shares must add to 1.
        """
        from ..quantities.inputs import PLAN_FIELDS
        from ..quantities.records import make_plan

        index = next((i for i, plan in enumerate(self.plans) if plan.name == name), None)
        if index is None:
            raise KeyError(name)
        old = self.plans[index]
        classes = request_classes(name, changes.pop("workloads")) if "workloads" in changes else old.workloads
        raw = {f.name: getattr(old, f.name) for f in PLAN_FIELDS} | changes
        plan = make_plan(name, raw)   # raises ValidationError, as a workbook's Plans column would
        return check_scenario(self.replace_plan(index, replace(plan, pools=old.pools, workloads=classes)))

    def replace_plan(self, index: int, plan: Plan) -> "Scenario":
        """A copy with the plan at `index` replaced, validated field by field as a workbook's Plans
        column is (the same messages, naming the plan; the devices, models and curves it names are
        checked when the scenario is computed): ValidationError with every problem at once."""
        plans = list(self.plans)
        plans[index] = plan
        return replace(self, plans=checked_plan_fields(plans))


def request_classes(plan: str, classes) -> tuple:
    """Request classes for plan `plan` from dicts of Workloads columns or RequestClass records (a dict's
    `plan` may be left out): each built unchecked here, checked with the plan (`replace_plan`)."""
    from ..quantities.records import RequestClass
    out = []
    for k, c in enumerate(classes or ()):
        if isinstance(c, RequestClass):
            out.append(c)
            continue
        if not isinstance(c, Mapping):
            raise ValidationError([Problem(f"Plan {plan!r} workloads[{k}]", "workloads",
                                           f"= {shown(c)}: a request class is a dict of Workloads columns "
                                           "(class, share, input_tokens, output_tokens, ...)")])
        values = {("class_" if key == "class" else key): v for key, v in c.items()}
        values.setdefault("plan", plan)
        values.setdefault("class_", f"class {k + 1}")
        values.setdefault("share", None)
        values.setdefault("output_tokens", None)
        unknown = sorted(set(values) - set(RequestClass.__dataclass_fields__))
        if unknown:
            raise ValidationError([Problem(f"Plan {plan!r} class {values['class_']!r}", unknown[0],
                                           f"unknown Workloads column {unknown[0]!r}")])
        out.append(RequestClass(**values))
    for c in out:
        if c.plan != plan:
            raise ValidationError([Problem(f"Plan {plan!r} class {c.class_!r}", "plan",
                                           f"= {shown(c.plan)}: a class given to plan {plan!r} names another plan "
                                           "(leave plan out, or name this one)")])
    return tuple(out)


PlanLocator = Callable[[int, str], str]


def default_plan_locator(scenario: Scenario) -> PlanLocator:
    """Locates a plan's problem as `Plan 'NAME'` (no workbook cell known)."""
    return lambda index, key: f"Plan {scenario.plans[index].name!r}"


PoolLocator = Callable[[int, int, str], str]


def default_pool_locator(scenario: Scenario) -> PoolLocator:
    """Locates a pool's problem as `Plan 'NAME' pool 'POOL'` (no workbook cell known)."""
    return lambda index, pool_index, key: (f"Plan {scenario.plans[index].name!r} pool "
                                           f"{scenario.plans[index].pools[pool_index].pool!r}")


def reference_problems(scenario: Scenario, where: PlanLocator | None = None,
                       pool_where: PoolLocator | None = None, unbuilt: frozenset[str] = frozenset()) -> list[Problem]:
    """Dangling names and duplicated plans, each located by plan (or pool) and key. `unbuilt`: names of
    entries that exist but are invalid (reported already): a reference to one is not dangling."""
    where = where or default_plan_locator(scenario)
    pool_where = pool_where or default_pool_locator(scenario)
    problems: list[Problem] = []
    seen: set[str] = set()
    devices, models = set(scenario.all_device_names()), set(scenario.all_model_names())
    for index, plan in enumerate(scenario.plans):
        if plan.name in seen:
            problems.append(Problem(where(index, "name"), "", f"plan name {plan.name!r} is used twice"))
        seen.add(plan.name)
        checks = (("device", devices, "device"), ("model", models, "model"),
                  ("prefill_device", devices, "device"), ("decode_device", devices, "device"),
                  ("curve", set(scenario.curves), "measured curve"),
                  ("price_tiers", set(scenario.price_tiers), "price-tier table"))
        for key, names, what in checks:
            value = getattr(plan, key)
            if value and value not in names and value not in unbuilt:
                problems.append(Problem(where(index, key), key, f"= {shown(value)}: no {what} of that name{_known(names)}"))
        too_long = context_problem(scenario.model(plan.model), plan.input_tokens, plan.output_tokens) \
            if plan.model in models else None
        if too_long:
            problems.append(Problem(where(index, "input_tokens"), "input_tokens", too_long))
        if plan.model in models and scenario.model(plan.model).n_experts == 0:
            problems += _dense_precision_problems(plan, lambda key, i=index: where(i, key))
            for k, pool in enumerate(plan.pools):
                problems += _dense_precision_problems(pool, lambda key, i=index, k=k: pool_where(i, k, key), plan.model)
        problems += availability_problems(scenario, index, devices, where, pool_where)
        for k, pool in enumerate(plan.pools):
            for key, names, what in (("device", devices, "device"), ("curve", set(scenario.curves), "measured curve")):
                value = getattr(pool, key)
                if value and value not in names and value not in unbuilt:
                    problems.append(Problem(pool_where(index, k, key), key,
                                            f"= {shown(value)}: no {what} of that name{_known(names)}"))
    return problems


def availability_problems(scenario: Scenario, index: int, devices, where, pool_where) -> list[Problem]:
    """A tranche may not buy an announced device before its `available_from` month: year 0 of a plan is
    CATALOG_DATE, a pool's tranche is bought purchase_year years later; a plan without Pools rows buys
    its devices in year 0. Each refusal is located at the device cell."""
    plan = scenario.plans[index]
    if plan.pools:
        bought = [(pool.device, pool.purchase_year, lambda k=k: pool_where(index, k, "device"))
                  for k, pool in enumerate(plan.pools)]
    else:
        bought = [(getattr(plan, key), 0, lambda key=key: where(index, key))
                  for key in ("device", "prefill_device", "decode_device") if getattr(plan, key)]
    problems = []
    for device, year, locate in bought:
        if device not in devices:
            continue
        available = getattr(scenario.device(device), "available_from", "") or ""
        month = month_plus_years(CATALOG_DATE, year)
        if available and month < available:
            needed = next(y for y in range(0, 100) if month_plus_years(CATALOG_DATE, y) >= available)
            problems.append(Problem(locate(), "device", (
                f"= {shown(device)}: available from {available} (announced, not yet shipping; its catalog row is an "
                f"estimate), but this tranche is bought in {month} (year 0 is {CATALOG_DATE}, the catalog's date; "
                f"purchase_year {year}): buy it in year {needed} or later (a Pools row with purchase_year >= "
                f"{needed}), or choose a device that ships")))
    return problems


def _dense_precision_problems(entry, where, model: str | None = None) -> list[Problem]:
    """attention_weight_precision splits an MoE checkpoint (experts at weight_precision, the rest at
    this); on a plan (or pool) of a dense model it has no meaning, and every operating point would be
    refused: a problem at its cell."""
    value = getattr(entry, "attention_weight_precision", "")
    if not value:
        return []
    return [Problem(where("attention_weight_precision"), "attention_weight_precision",
                    f"= {shown(value)}: only for MoE models (experts at weight_precision, the other weights at "
                    f"this); {model or entry.model} is dense: clear the cell (its weights are at weight_precision)")]


def _known(names) -> str:
    listed = sorted(names)
    if not listed:
        return ""
    shown = ", ".join(listed[:12]) + (", ..." if len(listed) > 12 else "")
    return f" (known: {shown})"


def _checked_plan(index: int, plan, problems: list[Problem]):
    """`plan` validated field by field as a Plans column (and its pools as Pools rows) is; None with
    the problems where it is not valid."""
    from ..quantities.inputs import PLAN_FIELDS, POOL_FIELDS, REQUEST_CLASS_FIELDS
    from ..quantities.records import attribute, make_plan, make_pool, make_request_class, request_class_problems
    if not isinstance(plan, Plan):
        problems.append(Problem(f"plans[{index}]", "", f"= {shown(plan)}: not a plan (build plans with "
                                                       "Scenario.with_plan or tcoapp.load_scenario)"))
        return None
    name = plan.name
    if not isinstance(name, str) or not name.strip():
        problems.append(Problem(f"plans[{index}]", "name", f"= {shown(name)}: a plan's name must be text"))
        return None
    start = len(problems)
    checked = make_plan(name, {f.name: getattr(plan, f.name) for f in PLAN_FIELDS}, problems=problems)
    pools = []
    for k, pool in enumerate(plan.pools):
        where = f"Plan {name!r} pool {getattr(pool, 'pool', k)!r}"
        pools.append(make_pool({f.name: getattr(pool, f.name, None) for f in POOL_FIELDS},
                               field_locator(where), problems))
    classes = []
    for k, rc in enumerate(plan.workloads):
        where = f"Plan {name!r} class {getattr(rc, 'class_', k)!r}"
        raw = {f.name: getattr(rc, attribute(f.name), None) for f in REQUEST_CLASS_FIELDS}
        classes.append(make_request_class(raw, field_locator(where), problems))
    if len(problems) == start:
        problems.extend(request_class_problems(name, classes))
    return None if len(problems) > start else replace(checked, pools=tuple(pools), workloads=tuple(classes))


def checked_plan_fields(plans) -> tuple[Plan, ...]:
    """The plans, each validated field by field as a Plans column is (and its pools as Pools rows);
    else ValidationError with every problem, each naming the plan and the field. What
    `Scenario.with_plans` and `replace_plan` check."""
    problems: list[Problem] = []
    checked = [_checked_plan(i, plan, problems) for i, plan in enumerate(plans)]
    if problems:
        raise ValidationError(problems)
    return tuple(checked)


def checked_plans(scenario: Scenario) -> Scenario:
    """The scenario with every plan validated as reading a workbook validates it (fields and ranges,
    pools, references: devices, models, curves, price tiers); else ValidationError with every problem,
    each naming the plan and the field. What the notebook API's `compute` and `simulate` check, so no
    plan built by hand reaches the engine unchecked."""
    return check_scenario(replace(scenario, plans=checked_plan_fields(scenario.plans)))


def check_scenario(scenario: Scenario, where: PlanLocator | None = None) -> Scenario:
    """The scenario, if its pools and references are valid; else ValidationError with every problem."""
    from .pools import pool_problems
    problems = []
    for index, plan in enumerate(scenario.plans):
        problems += pool_problems(plan, lambda k, key, i=index: default_pool_locator(scenario)(i, k, key))
    problems += reference_problems(scenario, where)
    if problems:
        raise ValidationError(problems)
    return scenario
