"""The desktop application (PySide6 + pyqtgraph).

Importing this package applies `_pyside_singleton_guard`: PySide6 6.12 treats None, True and False
as immortal (as they are from Python 3.12 on) and does not count its references to them; on
Python 3.11 every signal emission and many virtual-method calls then drop their reference counts
until the interpreter aborts with "deallocating None/True". The guard gives the three singletons
a reference count that cannot reach zero in the life of a process, which is what 3.12 does.
"""
from __future__ import annotations

import sys


def _pyside_singleton_guard() -> bool:
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    try:
        import ctypes

        import PySide6
    except ImportError:
        return False
    major_minor = tuple(int(p) for p in PySide6.__version__.split(".")[:2])
    if major_minor < (6, 12):
        return False
    for obj in (None, True, False):
        ctypes.c_ssize_t.from_address(id(obj)).value += 1 << 48
    return True


PYSIDE_SINGLETON_GUARD = _pyside_singleton_guard()
