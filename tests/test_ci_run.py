""".ci/run runs the README's two test commands, the fast one first, and fails when either fails or
passes no test (run on a copy with stand-in commands)."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _ci(tmp_path, fast: str, slow: str):
    (tmp_path / ".ci").mkdir()
    shutil.copy(ROOT / ".ci" / "run", tmp_path / ".ci" / "run")
    (tmp_path / "README.md").write_text(f"# x\n\n<!-- test-command -->\n```sh\n{fast}\n```\n\n"
                                        f"<!-- slow-test-command -->\n```sh\n{slow}\n```\n")
    env = dict(os.environ, PATH=f"{tmp_path}:{os.environ['PATH']}")
    (tmp_path / "sudo").write_text('#!/bin/sh\nexec "$@"\n')
    (tmp_path / "sudo").chmod(0o755)
    return subprocess.run(["bash", str(tmp_path / ".ci" / "run")], capture_output=True, text=True, env=env, timeout=60)


def test_both_commands_run_fast_first(tmp_path):
    done = _ci(tmp_path, "echo fast; echo '3 passed'", "echo slow; echo '2 passed'")
    assert done.returncode == 0, done.stderr
    assert done.stdout.index("fast") < done.stdout.index("slow")


@pytest.mark.parametrize("fast, slow, message", [
    ("echo '3 passed'; exit 1", "echo '2 passed'", ""),
    ("echo '3 passed'", "echo 'no tests ran'; exit 5", "collected no tests"),
    ("echo '3 passed'", "echo '16 deselected'", "no test passed"),
    ("echo 'no tests ran'; exit 0", "echo '2 passed'", "no test passed"),
])
def test_a_failing_or_empty_command_fails_ci(tmp_path, fast, slow, message):
    done = _ci(tmp_path, fast, slow)
    assert done.returncode != 0 and message in done.stderr
