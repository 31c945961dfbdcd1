import os
import random

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("tcoapp", deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("tcoapp")

# The fuzzers' seed: TCOAPP_FUZZ_SEED, else a new one per run (printed in the header, so a failure
# can be replayed with TCOAPP_FUZZ_SEED=<seed>). Set in the environment so every fuzzer of the run
# (and any subprocess) uses the same one.
if not os.environ.get("TCOAPP_FUZZ_SEED", "").strip():
    os.environ["TCOAPP_FUZZ_SEED"] = str(random.SystemRandom().randrange(2 ** 32))
FUZZ_SEED = int(os.environ["TCOAPP_FUZZ_SEED"])


def pytest_report_header(config):
    return f"fuzz seed: {FUZZ_SEED} (replay a fuzz failure with TCOAPP_FUZZ_SEED={FUZZ_SEED})"
