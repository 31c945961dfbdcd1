"""Adapters from the GUI to tcoapp.io: read and write scenario workbooks, import curve files.

Each turns a missing io module into a user-facing message (TcoError) instead of a crash, and an
OS error into a message naming the file.
"""
from __future__ import annotations

import os
from functools import partial

from ..engine.errors import TcoError


class FileProblem(TcoError):
    """A file could not be read or written (the message names it)."""


def read_workbook(path: str):
    from ..io.load import load_scenario
    if not os.path.exists(path):
        raise FileProblem(f"{path}: no such file")
    try:
        return load_scenario(path)
    except TcoError:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever a broken file raises, the app stays up with a message
        raise FileProblem(f"{os.path.basename(path)} is not a readable scenario workbook "
                          f"({type(exc).__name__}: {exc})") from exc


def write_workbook(scenario, path: str, results=None) -> None:
    try:
        from ..io.workbook_write import write_scenario
    except ImportError as exc:
        raise FileProblem(f"Saving workbooks is not available in this build ({exc}).") from exc
    if results is not None and any(not r.details for r in results):
        results = None   # a plan the engine could not compute: let the writer report it
    try:
        write_scenario(scenario, path, results)
    except TcoError:
        raise
    except Exception as exc:  # noqa: BLE001 - shown to the user as a message naming the file
        raise FileProblem(f"cannot write {path}: {exc}") from exc


def _as_curves(result) -> list:
    if result is None:
        return []
    if isinstance(result, dict):
        return list(result.values())
    if isinstance(result, (list, tuple)):
        return list(result)
    return [result]


def _run_import(func, path, progress=None, should_cancel=None):
    progress and progress(0.1)
    curves = _as_curves(func(path))
    progress and progress(1.0)
    if not curves:
        raise FileProblem(f"{os.path.basename(path)}: no curve points found")
    return curves


def import_curve_job(path: str):
    """A worker job `f(progress=, should_cancel=) -> [MeasuredCurve]`, or an error message."""
    try:
        from ..io import curve_import
    except ImportError as exc:
        return f"Importing curves is not available in this build ({exc})."
    for name in ("import_curves", "import_curve", "read_curve_file", "read_curves", "load_curve"):
        func = getattr(curve_import, name, None)
        if callable(func):
            return partial(_run_import, func, path)
    return "Importing curves is not available in this build (no import function in tcoapp.io.curve_import)."
