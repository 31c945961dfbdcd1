"""The command line (and the desktop app it starts) runs numpy's OpenBLAS on one thread unless the
user set OPENBLAS_NUM_THREADS: its thread pool costs start-up time and no tcoapp matrix is large
enough for OpenBLAS to split (the numbers are the same either way: tests/cli compare outputs)."""
from __future__ import annotations

import os
import subprocess
import sys

PROBE = ("import os, sys; from tcoapp.cli import main; sys.argv = ['tcoapp', '--version']\n"
         "try:\n    main()\nexcept SystemExit:\n    pass\n"
         "import numpy\nprint(os.environ.get('OPENBLAS_NUM_THREADS'))")


def _probe(**env) -> str:
    environ = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", PROBE], env={**environ, **env}, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


def test_one_blas_thread_by_default():
    assert _probe() == "1"


def test_a_thread_count_the_user_set_is_kept():
    assert _probe(OPENBLAS_NUM_THREADS="2") == "2"
