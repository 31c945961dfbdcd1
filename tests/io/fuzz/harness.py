"""The CLI's main run in this process for the fuzzers, bounded in time (a hang is an outcome), and
the check that a refusal is clean (exit 2, only `error: ` lines, nothing on stdout).

The bound is HANG_S seconds of this process's CPU time (a profiling timer, SIGPROF), not of the wall
clock: a hang spins the CPU and is caught alike, while a loaded machine (a parallel test run, other
processes) no longer turns a slow but finite compute (the agentic sample's 11 s of CPU on a quiet machine,
2026-12-07) into a "hang". Hang derives from BaseException, so the CLI's handler of unexpected
errors (exit 3, "internal error") does not take it for one."""
from __future__ import annotations

import contextlib
import io
import os
import signal

from tcoapp.cli import main

HANG_S = 30
MEMORY_HEADROOM_BYTES = 4 << 30   # a mutant may take this much more address space than the process holds


@contextlib.contextmanager
def bounded_memory():
    """A mutant that would take more memory than MEMORY_HEADROOM_BYTES gets a MemoryError (an outcome the
    verdict names) instead of the kernel killing the test process with no word on which mutant it was."""
    try:
        import resource
        with open("/proc/self/statm") as f:
            held = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError):
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = min(v for v in (held + MEMORY_HEADROOM_BYTES, soft, hard) if v != resource.RLIM_INFINITY)  # never looser
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        _cancel_timer()   # (a hang timer must not interrupt the restore below)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


class Hang(BaseException):
    pass


def _cancel_timer():
    signal.setitimer(signal.ITIMER_PROF, 0.0)


def run_cli(args):
    """(exit status, stdout, stderr) of the CLI's main, in this process, bounded in time."""
    out, err = io.StringIO(), io.StringIO()

    def alarm(*_):
        raise Hang()
    previous = signal.signal(signal.SIGPROF, alarm)
    signal.setitimer(signal.ITIMER_PROF, float(HANG_S))
    try:
        with bounded_memory(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(args)
    except Hang:
        status = "hang"
    finally:
        _cancel_timer()
        signal.signal(signal.SIGPROF, previous)
    return status, out.getvalue(), err.getvalue()


def refusal_problem(status, out, err) -> str | None:
    """None when the outcome is exit 0 (checked by the caller) or a clean refusal, else what is wrong."""
    if status == "hang":
        return f"no answer within {HANG_S} s of CPU time"
    if "Traceback" in err or "Traceback" in out:
        return "traceback"
    if status == 2:
        lines = err.strip().splitlines()
        if not lines or not all(line.startswith("error: ") for line in lines):
            return f"exit 2 without clean error lines: {err[:300]!r}"
        return "output on stdout with exit 2" if out.strip() else None
    if status != 0:
        return f"exit {status}: {err[:300]!r}"
    return None
