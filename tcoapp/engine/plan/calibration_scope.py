"""Which calibrated factor set a plan uses: a calibration is scoped to device x model class x
serving stack (docs/curves.md, "What a calibration applies to").

A fit to one curve says how one serving stack runs one kind of model on one device: the factors
of TensorRT-LLM serving a mixture-of-experts model on B200 say little about vLLM serving a dense
model there. So a Calibration sheet column is headed by a scope, `DEVICE | MODEL_CLASS | STACK`
(`B200 | moe | trtllm`); `*` for "any", and a bare `DEVICE` (the older form) is `DEVICE | * | *`.
The model class is `moe` for a model with routed experts, else `dense`; the stack is the inference
server (`trtllm`, `vllm`, `sglang`, ...) as the plan's `serving_stack` names it. A plan uses the
most specific scope that matches it (stack and class > class > device); a scope that names a stack
applies only to plans that name the same stack.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Mapping

SEPARATOR = " | "
ANY = "*"
MODEL_CLASSES = ("dense", "moe")
_STACK_ALIASES = {"trtllm": "trtllm", "tensorrtllm": "trtllm", "trt": "trtllm", "vllm": "vllm", "sglang": "sglang"}


def stack_name(text: str) -> str:
    """A serving stack as the scope writes it: lower-case letters and digits, TensorRT-LLM spellings
    (`TRT-LLM`, `tensorrt_llm`, `trtllm`) as `trtllm`; "" for none."""
    key = re.sub(r"[^a-z0-9]", "", str(text or "").lower())
    if key.startswith("dynamo") and len(key) > 6:  # InferenceX `dynamo-sglang`: Dynamo in front of SGLang
        key = key[6:]
    return _STACK_ALIASES.get(key, key)


def model_class(model) -> str:
    """`moe` for a model with routed experts (n_experts > 0), else `dense`."""
    return "moe" if getattr(model, "n_experts", 0) else "dense"


@dataclass(frozen=True)
class CalibrationScope:
    device: str
    model_class: str = ""      # "dense" / "moe"; "" any model
    serving_stack: str = ""    # "trtllm", "vllm", ...; "" any stack

    @property
    def key(self) -> str:
        """The Calibration sheet's column header: `DEVICE` when the scope is the whole device."""
        if not self.model_class and not self.serving_stack:
            return self.device
        return SEPARATOR.join((self.device, self.model_class or ANY, self.serving_stack or ANY))

    def matches(self, device: str, klass: str, stack: str) -> bool:
        """Whether a plan on `device` with model class `klass` and serving stack `stack` falls in this scope."""
        return (self.device == device and self.model_class in ("", klass)
                and self.serving_stack in ("", stack_name(stack)))

    @property
    def specificity(self) -> int:
        """How narrow the scope is (model class counts 2, serving stack 1): the narrowest matching scope wins."""
        return 2 * bool(self.model_class) + bool(self.serving_stack)


def curve_scope(curve, models) -> CalibrationScope:
    """The scope a fit to `curve` applies to: its device, its model's class, its serving stack
    (config `serving_stack`, else aiconfigurator's `backend` or InferenceX's `Framework`)."""
    config = curve.config_dict
    stack = config.get("serving_stack") or config.get("backend") or config.get("Framework") or ""
    model = models.get(curve.model)
    return CalibrationScope(curve.device, model_class(model) if model is not None else "", stack_name(stack))


def parse_scope(text: str) -> tuple[CalibrationScope | None, str]:
    """(scope, "") from a column header, or (None, why it is not one)."""
    parts = [p.strip() for p in str(text).split("|")]
    if len(parts) not in (1, 3) or not parts[0]:
        return None, ("a Calibration column is headed 'DEVICE' or 'DEVICE | MODEL_CLASS | STACK' (e.g. "
                      "'B200 | moe | trtllm'; '*' for any)")
    if len(parts) == 1:
        return CalibrationScope(parts[0]), ""
    klass = "" if parts[1] in (ANY, "") else parts[1].lower()
    if klass and klass not in MODEL_CLASSES:
        return None, f"model class {parts[1]!r}: one of {', '.join(MODEL_CLASSES)} or '*'"
    stack = "" if parts[2] in (ANY, "") else stack_name(parts[2])
    return CalibrationScope(parts[0], klass, stack), ""


def scope_of_key(key: str) -> CalibrationScope:
    """The scope a Calibration sheet column header names (`DEVICE` or `DEVICE | MODEL_CLASS | STACK`)."""
    scope, _ = parse_scope(key)
    return scope or CalibrationScope(key)


def factors_in_scope(device_factors: Mapping, device: str, klass: str, stack: str):
    """The factor set of the most specific scope matching (device, model class, stack), or None."""
    best, rank = None, -1
    for key, factors in device_factors.items():
        scope = scope_of_key(key)
        if scope.matches(device, klass, stack) and scope.specificity > rank:
            best, rank = factors, scope.specificity
    return best


def scenario_for_plan(scenario, plan):
    """`scenario` as `plan` sees it: its device_factors resolved, per device, to the scope matching
    the plan's model class and serving stack (so `scenario.factors_for(device)` gives the plan's
    factors). The scenario itself when it has no scoped column."""
    if not any("|" in key for key in scenario.device_factors):
        return scenario
    try:
        klass = model_class(scenario.model(plan.model))
    except KeyError:  # a dangling model name is reported by validation; whole-device columns still apply
        klass = ""
    stack = getattr(plan, "serving_stack", "") or ""
    devices = {scope_of_key(key).device for key in scenario.device_factors}
    resolved = {}
    for device in devices:
        factors = factors_in_scope(scenario.device_factors, device, klass, stack)
        if factors is not None:
            resolved[device] = factors
    return replace(scenario, device_factors=resolved)


# What a calibration was fitted on and how well: rows of the Calibration sheet after the factors,
# filled in the scope's column by `tcoapp calibrate --write` (key: (unit, kind, help)).
QUALITY_ROWS: dict[str, tuple[str, str, str]] = {
    "fit_curve": ("", "str", "The measured curve the factors were fitted to."),
    "fit_points": ("points", "int", "Points of the curve the factors were fitted to (all of them)."),
    "fit_median_abs_pct_error": ("%", "float", "Median |error| of tokens/s per device at those points after the fit."),
    "heldout_points": ("points", "int", "Points held out of the check fit (every other point in batch order)."),
    "heldout_median_abs_pct_error": ("%", "float", "Median |error| at the held-out points of a fit to the others."),
    "heldout_max_abs_pct_error": ("%", "float", "Largest |error| at the held-out points of a fit to the others."),
}
