"""The cyclic garbage collector paused while a reader builds many small objects.

Reading a 100,000-row curve file makes a few hundred thousand tuples, dicts and lists, none in a
reference cycle; the collector, run every 700 allocations, walks them again and again (a fifth of the
read's time) and frees nothing. A workbook's cells read are the same on a smaller scale.
Reference counting still frees everything as usual; the collector runs again when the block ends
(a function decorated with `@paused_gc()`, as read_scenario is, is one block per call).
"""
from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def paused_gc():
    """Pause the cyclic collector for the block (it stays off if it was off: blocks nest)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
