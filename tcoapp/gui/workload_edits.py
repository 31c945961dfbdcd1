"""Undoable edits of a plan's request classes (its Workloads rows) through the document, validated as a Workloads
sheet row is (make_request_class) and as a plan's classes together (request_class_problems: shares adding to 1,
names unique).

A plan without classes is one class of its own keys. Adding the first class makes that class two rows of half the
share each (the same requests: the plan's numbers do not move until a row is edited); adding another splits the
chosen class's share in two. Removing a class gives its share to the others in proportion (the undo text says so);
removing the last but one returns the plan to its own keys. Each function returns an error message (nothing
changed) or None.
"""
from __future__ import annotations

from typing import Any

from ..engine.core.errors import ValidationError
from ..engine.quantities.inputs import REQUEST_CLASS_FIELDS, by_name
from ..engine.quantities.records import Plan, RequestClass, attribute, make_request_class, request_class_problems
from .document import Document
from .labels import parse_input

CLASS_FIELD = by_name(REQUEST_CLASS_FIELDS)


def class_values(rc: RequestClass) -> dict[str, Any]:
    """A class's values by Workloads key (`class`, not the attribute `class_`)."""
    return {f.name: getattr(rc, attribute(f.name)) for f in REQUEST_CLASS_FIELDS}


def class_of_plan(plan: Plan, name: str, share: float) -> RequestClass:
    """The plan's own single class as a Workloads row: its lengths, every other key the plan's (empty)."""
    return make_request_class({"plan": plan.name, "class": name, "share": share, "input_tokens": plan.input_tokens,
                               "output_tokens": plan.output_tokens,
                               "min_tokens_per_s_per_user": plan.min_tokens_per_s_per_user,
                               "max_ttft_s": plan.max_ttft_s})


def edited_class(rc: RequestClass, key: str, raw: Any) -> tuple[RequestClass | None, str | None]:
    """(the class with `key` set to what was typed ("" or None: empty), None), or (None, the problem naming the
    field)."""
    values = class_values(rc)
    text = raw.strip() if isinstance(raw, str) else raw
    values[key] = parse_input(CLASS_FIELD[key], text) if text not in ("", None) else None
    try:
        return make_request_class(values), None
    except ValidationError as exc:
        return None, "; ".join(f"{p.field} {p.message}".strip() for p in exc.problems)


def classes_problem(plan: Plan, classes) -> tuple[str | None, str | None]:
    """(the shares problem, any other problem) of a plan's classes taken together, each None when there is none."""
    problems = request_class_problems(plan.name, tuple(classes), lambda key: "")
    shares = next((p.message for p in problems if p.field == "share"), None)
    other = "; ".join(f"{p.field} {p.message}" for p in problems if p.field != "share") or None
    return shares, other


def apply_classes(doc: Document, index: int, classes, text: str) -> str | None:
    """Replace plan `index`'s classes in one undoable step (validated); an error message, or None when done."""
    plan = doc.scenario.plans[index]
    classes = tuple(c.with_(plan=plan.name) for c in classes)
    if classes == plan.workloads:
        return None
    try:
        new = doc.scenario.replace_plan(index, plan.with_(workloads=classes))
    except ValidationError as exc:
        return "; ".join(p.message for p in exc.problems)
    doc.push(new, text)
    return None


def add_class(doc: Document, index: int, row: int | None = None) -> str | None:
    """A new class, a copy of class `row` (default the last) taking half its share; a plan without classes: its own
    class as two rows of half the share each."""
    plan = doc.scenario.plans[index]
    classes = list(plan.workloads)
    if not classes:
        classes = [class_of_plan(plan, "class 1", 0.5), class_of_plan(plan, "class 2", 0.5)]
        return apply_classes(doc, index, classes, f"Split the requests of {plan.name!r} into classes 'class 1' and "
                                                  "'class 2' (half the share each)")
    row = len(classes) - 1 if row is None else row
    source = classes[row]
    name = _free({c.class_ for c in classes}, len(classes) + 1)
    half = source.share / 2
    classes[row] = source.with_(share=half)
    classes.insert(row + 1, source.with_(class_=name, share=half))
    return apply_classes(doc, index, classes, f"Add class {name!r} to {plan.name!r} (half the share of "
                                              f"{source.class_!r})")


def remove_class(doc: Document, index: int, row: int) -> str | None:
    """Remove class `row`; its share goes to the other classes in proportion (the last but one: the plan returns to
    its own keys)."""
    plan = doc.scenario.plans[index]
    classes = list(plan.workloads)
    removed = classes.pop(row)
    if len(classes) <= 1:
        return apply_classes(doc, index, (), f"Remove class {removed.class_!r} from {plan.name!r} (the plan serves "
                                             "its own keys again)")
    rest = sum(c.share for c in classes)
    classes = [c.with_(share=c.share / rest) for c in classes]
    return apply_classes(doc, index, classes, f"Remove class {removed.class_!r} from {plan.name!r} (its share "
                                              f"{removed.share:g} goes to the others in proportion)")


def _free(names: set, n: int) -> str:
    while f"class {n}" in names:
        n += 1
    return f"class {n}"
