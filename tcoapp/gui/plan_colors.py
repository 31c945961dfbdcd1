"""Which palette colour each plan wears: given when the plan first appears in the document and kept
by the plan (by its name, or by its place when it is renamed) through deletions, insertions,
reorders and renames; a new plan takes the first palette colour no other plan wears. The document
stores the slots with each undo step, so Undo gives a plan back the very colour it had."""
from __future__ import annotations

from collections import Counter

from .colors import PLAN_COLORS


def first_slots(n_plans: int) -> tuple[int, ...]:
    """The slots of a freshly opened document: the palette in order."""
    return tuple(i % len(PLAN_COLORS) for i in range(n_plans))


def carried_slots(old_names, old_slots, new_names) -> tuple[int, ...]:
    """Palette slots for the plans `new_names` after an edit of the plans `old_names` (wearing
    `old_slots`): a plan keeps the slot of the old plan of its name; a renamed plan (its place held
    an old name that is gone) keeps that plan's slot; any other plan takes the least-worn slot,
    the first one in palette order among equals (so the first free colour while there is one)."""
    old_names, new_names = list(old_names), list(new_names)
    by_name = dict(zip(old_names, old_slots))
    kept = set(new_names)
    slots: list[int | None] = []
    for i, name in enumerate(new_names):
        if name in by_name:
            slots.append(by_name[name])
        elif i < len(old_names) and old_names[i] not in kept:
            slots.append(by_name[old_names[i]])
        else:
            slots.append(None)
    worn = Counter(s for s in slots if s is not None)
    for i, slot in enumerate(slots):
        if slot is None:
            slots[i] = min(range(len(PLAN_COLORS)), key=lambda s: (worn[s], s))
            worn[slots[i]] += 1
    return tuple(slots)


def slot_colors(slots) -> tuple[str, ...]:
    return tuple(PLAN_COLORS[s] for s in slots)
