"""Redraw only what changed: the one mechanism every view of the GUI uses.

A view declares its *parts*: a name, a function returning what the part is drawn from (its
signature: the document's objects, compared by identity, and plain values, compared by value), and
the function that draws it from exactly those values. `Redraw.update()` draws the parts whose
signature differs from the one they were last drawn from, and nothing else. The document keeps the
result object of every plan an edit did not touch, so an edit redraws the parts (and, through
`changed()`, the per-plan items) of the plans it changed.

A view that cannot be seen (its tab is hidden while the window is shown) is not drawn: it is marked
stale and catches up when it is next shown. A window that is not shown at all (before its first
show, or exports and tests without a display) has no later show to wait for, so its views draw at
once.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Hashable

import numpy as np
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget

PLAIN = (int, float, str, bool, type(None), np.bool_, np.number)
NUMERIC = "biufc"   # the array kinds compared by value


def same(a: Any, b: Any) -> bool:
    """True when a part drawn from `a` needs no redraw to show `b`: the same objects (identity),
    equal plain values (NaN equals NaN), numeric arrays of equal values (one comparison, not one call per
    element), tuples and lists of those element by element (first by identity alone, in one pass in C: most
    of a signature's elements are the same objects as last time, the results and brushes of the plans an edit
    left)."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype.kind in NUMERIC and b.dtype.kind in NUMERIC:
        return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc" or b.dtype.kind in "fc"))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and (all(map(operator.is_, a, b)) or all(map(same, a, b)))
    if isinstance(a, PLAIN) and isinstance(b, PLAIN) and isinstance(a, str) == isinstance(b, str):
        return bool(a == b or (a != a and b != b))
    return False


class Signatures:
    """What each drawn thing was last drawn from, by key: `changed(key, signature)` is True (and
    remembers the signature) unless the thing already shows that signature."""

    def __init__(self):
        self._drawn: dict[Hashable, Any] = {}

    def changed(self, key: Hashable, signature: Any) -> bool:
        if key in self._drawn and same(self._drawn[key], signature):
            return False
        self._drawn[key] = signature
        return True

    def forget(self, key: Hashable | None = None) -> None:
        """Draw `key` (or everything) again at the next check."""
        if key is None:
            self._drawn.clear()
        else:
            self._drawn.pop(key, None)


class Redraw(QObject):
    """The parts of one view and when to draw them (see the module docstring)."""

    def __init__(self, view: QWidget, *signals):
        super().__init__(view)
        self._view = view
        self._parts: list[tuple[str, Callable[[], tuple], Callable[..., None]]] = []
        self.signatures = Signatures()
        self.stale = False   # the view shows older data than the document; update() clears it
        view.installEventFilter(self)
        for signal in signals:
            signal.connect(self.update)

    def part(self, name: str, inputs: Callable[[], tuple], draw: Callable[..., None]) -> None:
        """`draw(*inputs())` draws part `name`; parts draw in the order they were declared."""
        self._parts.append((name, inputs, draw))

    def changed(self, key: Hashable, signature: Any) -> bool:
        """For the items inside a part (one line per plan): True when item `key` must be drawn again."""
        return self.signatures.changed(key, signature)

    def can_be_seen(self) -> bool:
        return self._view.isVisible() or not self._view.window().isVisible()

    def update(self, *_) -> list[str]:
        """Draw the parts whose inputs changed, if the view can be seen; the names of those drawn."""
        if not self.can_be_seen():
            self.stale = True
            return []
        self.stale = False
        drawn = []
        for name, inputs, draw in self._parts:
            signature = inputs()
            if self.signatures.changed(("part", name), signature):
                draw(*signature)
                drawn.append(name)
        return drawn

    def redraw(self, name: str) -> None:
        """Draw part `name` again at the next update, whatever its inputs (a state the inputs do not carry)."""
        self.signatures.forget(("part", name))

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        # (getattr: Qt may still send the view's last events while the Python side is torn down)
        if watched is getattr(self, "_view", None) and event.type() == QEvent.Show and self.stale:
            self.update()
        return False
