"""The app's modules kept out of Python's full garbage collections while its window is open.

A full collection walks every object the cyclic collector tracks. The modules the window loads (Qt's
bindings, numpy, pyqtgraph, the engine and its quantity tables) are most of them: about 75,000 of the
100,000 of a window with 8 plans and its chart tabs built, and none of them ever becomes garbage. The
allocations of edits start such a collection every few dozen edits; with the window's modules loaded it
took 70-90 ms of CPU in the edit it fell in, and collected nothing.

`keep()` moves every object tracked at that moment into the collector's permanent generation
(`gc.freeze`), which later collections skip (reference counting still frees those objects as ever):
called once, when pyqtgraph, the last and largest of those modules, has loaded (gui/plotting.py); the
full collection then walks the objects made since (about 10 ms). The window and its document exist by
then and are kept with the modules, so `release()` (`gc.unfreeze`) hands everything back to the collector
when the window closes: a closed window's document and results, tens to hundreds of MB, are freed as before.
"""
from __future__ import annotations

import gc


def keep() -> None:
    """Leave every object tracked now out of later collections (module docstring)."""
    gc.freeze()


def release() -> None:
    """Collect the kept objects again, as any other (the window closes)."""
    gc.unfreeze()
