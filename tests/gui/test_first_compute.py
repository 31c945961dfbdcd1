"""The first computation of the plans runs off the GUI thread after the window shows: until it
arrives every plan reads "computing…"; its results are the engine's; an edit made meanwhile
computes on the spot and the late results are dropped."""
from __future__ import annotations

import json

from tcoapp.gui.document import COMPUTING, Document
from tcoapp.gui.first_compute import compute_off_thread
from tcoapp.io.default_scenario import default_scenario


def _text(results):
    return [json.dumps(r.as_json(), sort_keys=True, default=str) for r in results]


def test_results_arrive_from_the_worker_and_equal_the_engines(qtbot):
    scenario = default_scenario()
    doc = Document(scenario, compute=False)
    assert doc.computing and all(r.warnings == (COMPUTING,) for r in doc.results)
    runner = compute_off_thread(doc)
    with qtbot.waitSignal(doc.scenario_changed, timeout=120000):
        pass
    assert not doc.computing and not runner.running
    assert _text(doc.results) == _text(Document(scenario).results)


def test_an_edit_while_computing_wins_over_the_late_results(qtbot):
    doc = Document(default_scenario(), compute=False)
    runner = compute_off_thread(doc)
    assert doc.set_plan_value(0, "utilization", 0.5) is None    # computes on the spot
    assert not doc.computing and doc.results[0].inputs is not None
    mine = doc.results
    with qtbot.waitSignal(runner.finished, timeout=120000):
        pass
    assert doc.results is mine and doc.scenario.plans[0].utilization == 0.5


def test_the_worker_starts_at_the_next_turn_and_not_at_all_once_cancelled(qtbot):
    doc = Document(default_scenario(), compute=False)
    runner = compute_off_thread(doc)
    started = []
    runner.started.connect(started.append)
    assert not runner.running                     # the window shows first; the worker starts at the next turn
    runner.cancel()                               # the window closed in the same turn as it opened
    with qtbot.waitSignal(runner.finished, timeout=5000):
        pass
    assert started == [] and not runner.running and doc.computing   # nothing started for a closed window


def test_an_edit_before_the_start_leaves_nothing_to_compute(qtbot):
    doc = Document(default_scenario(), compute=False)
    runner = compute_off_thread(doc)
    started = []
    runner.started.connect(started.append)
    assert doc.set_plan_value(0, "utilization", 0.5) is None   # computes on the spot
    with qtbot.waitSignal(runner.finished, timeout=5000):
        pass
    assert started == [] and not runner.running and not doc.computing
