"""Adapters from the GUI to tcoapp.io: read and write scenario workbooks, import curve files.

Each turns a missing io module into a user-facing message (TcoError) instead of a crash, and an
OS error into a message naming the file.
"""
from __future__ import annotations

import os
from functools import partial

from ..engine.core.errors import TcoError


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


def workbook_notes(scenario) -> tuple[str, ...]:
    """How the opened workbook was read (io/kept_work.kept_notes: the analyst's own sheets and rows, renamed input
    sheets), the notes the command line prints."""
    from ..io.kept_work import kept_notes
    return kept_notes(scenario)


def write_workbook(scenario, path: str, results=None) -> None:
    from ..io.workbook_write import write_scenario
    if results is not None and any(r.inputs is None for r in results):
        results = None   # a plan the engine could not compute: let the writer report it
    try:
        write_scenario(scenario, path, results)
    except TcoError:
        raise
    except Exception as exc:  # noqa: BLE001 - shown to the user as a message naming the file
        raise FileProblem(f"cannot write {path}: {exc}") from exc


def _run_import(path, names, progress=None, should_cancel=None):
    from ..io.curve_files import read_curve_file

    progress and progress(0.1)
    result = read_curve_file(path, "auto", *names)
    progress and progress(1.0)
    if not result.curves:
        raise FileProblem(f"{os.path.basename(path)}: no curve points found")
    return result


def import_curve_job(path: str, scenario=None):
    """A worker job `f(progress=, should_cancel=) -> CurveFile` (the same reader as `tcoapp curves`).
    Tool names (h200_sxm, gb300) are mapped to the scenario's devices and models."""
    names = (None, None, None)
    if scenario is not None:
        vendors = {}
        for name in scenario.all_device_names():
            vendors[name] = scenario.device(name).vendor
        names = (scenario.all_device_names(), scenario.all_model_names(), vendors)
    return partial(_run_import, path, names)
