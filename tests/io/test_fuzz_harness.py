"""The fuzzers' hang guard: a spinning CLI is stopped after HANG_S seconds of CPU time and named a
hang; a run that sleeps (no CPU) is not cut short by it, so a loaded machine cannot fake a hang."""
from __future__ import annotations

import signal
import time

import pytest

from tests.io.fuzz import harness

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGPROF"), reason="the hang guard needs SIGPROF (POSIX)")


def test_a_spinning_run_is_a_hang_and_the_timer_is_cancelled(monkeypatch):
    monkeypatch.setattr(harness, "HANG_S", 1)

    def spin(_args):
        while True:
            pass
    monkeypatch.setattr(harness, "main", spin)
    status, _, _ = harness.run_cli([])
    assert status == "hang"
    assert harness.refusal_problem(status, "", "").startswith("no answer within 1 s of CPU time")
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)


def test_waiting_without_cpu_is_not_a_hang(monkeypatch):
    monkeypatch.setattr(harness, "HANG_S", 1)

    def wait(_args):
        time.sleep(1.5)
        return 0
    monkeypatch.setattr(harness, "main", wait)
    assert harness.run_cli([])[0] == 0
