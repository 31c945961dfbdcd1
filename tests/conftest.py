import os
import pathlib
import random
import re
import subprocess

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("tcoapp", deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("tcoapp")

# The fuzzers' seed (printed in the header, so a failure can be replayed with TCOAPP_FUZZ_SEED=<seed>):
# TCOAPP_FUZZ_SEED=<seed>, or TCOAPP_FUZZ_SEED=random for a new one each run; else one drawn from the checkout's
# commit, so a commit's test run (CI's included) reproduces, and each new commit fuzzes new mutants (a new seed
# each run where there is no git checkout). Set in the environment so every fuzzer of the run (and any
# subprocess) uses the same one.
ROOT = pathlib.Path(__file__).resolve().parents[1]


def _commit_seed() -> int | None:
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return int(head[:8], 16) if re.fullmatch(r"[0-9a-f]{40}", head) else None


_given = os.environ.get("TCOAPP_FUZZ_SEED", "").strip()
if not _given or _given.lower() == "random":
    _seed = None if _given else _commit_seed()
    os.environ["TCOAPP_FUZZ_SEED"] = str(random.SystemRandom().randrange(2 ** 32) if _seed is None else _seed)
FUZZ_SEED = int(os.environ["TCOAPP_FUZZ_SEED"])


def pytest_report_header(config):
    return f"fuzz seed: {FUZZ_SEED} (replay a fuzz failure with TCOAPP_FUZZ_SEED={FUZZ_SEED})"
