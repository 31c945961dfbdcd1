"""The first computation of a document's plans, off the GUI thread, so the window shows before the
engine has computed (every default plan runs the serving search: most of what start-up would cost).

Until the results arrive every view reads "computing…" for every plan (the document's `computing`
flag, the status bar and the Decision headline say so); an edit before then computes on the spot as
always, and the late results are dropped (`Document.computed`). Uses its own `TaskRunner`, so a sweep
or an open started meanwhile does not cancel it. The worker starts at the next turn of the event
loop, once the window's show has been processed: the engine's compute modules load in the worker
(the window is built and drawn without them), and a thread started earlier would hold the
interpreter while the window draws for the first time.
"""
from __future__ import annotations

from ..engine.core.errors import Cancelled
from ..engine.decision.draws import load_modules
from .document import Document, safe_compute
from .soon import call_soon
from .worker import TaskRunner


class FirstCompute(TaskRunner):
    """The runner of the first computation: a `cancel` before its deferred start (the window closed
    in the same turn as it opened) drops that start too."""

    def __init__(self, document: Document):
        super().__init__(document)
        self.dropped = False

    def cancel(self) -> None:
        self.dropped = True
        super().cancel()


def compute_off_thread(document: Document) -> TaskRunner:
    """Compute `document`'s plans in a worker thread started at the next turn of the event loop; the
    runner (its `finished` signal is emitted once the results are in the document, or were dropped)."""
    scenario = document.scenario
    runner = FirstCompute(document)

    def job(progress, should_cancel):
        results = []
        for i, plan in enumerate(scenario.plans):
            if should_cancel():   # the window is closing
                raise Cancelled("the first computation of the plans was cancelled")
            results.append(safe_compute(scenario, plan))
            progress((i + 1) / max(len(scenario.plans), 1))
        try:   # the Decision tab's paired draws run on the GUI thread once the results are in
            load_modules()
        except Exception:  # noqa: BLE001 - the results stand; the same import fails again, with its
            pass           # traceback, where the Decision tab first draws
        return tuple(results)

    def start() -> None:
        if runner.dropped or not document.computing or document.scenario is not scenario:
            runner.finished.emit()   # closed, or an edit computed the plans meanwhile: nothing left to do
            return
        runner.start("Computing the plans…", job, kind="compute",
                     on_success=lambda results: document.computed(scenario, results))

    call_soon(runner, start)
    return runner
