"""Terms the roofline kernel computes once and shares (performance/roofline.py) give the numbers computing them
again would: the experts touched once per draft count of a sweep's chunk, bit for bit."""
import numpy as np

from tcoapp.engine.performance.memory import architecture, experts_touched
from tcoapp.engine.performance.roofline import _experts_touched
from tcoapp.engine.serving.operating import search_batches
from tcoapp.io.default_scenario import default_scenario


def test_experts_touched_once_per_draft_count_equals_every_row():
    arch = architecture(default_scenario().model("DeepSeek-R1"))
    batch = search_batches(65536)[None, :]
    draft = np.array([0, 1, 2, 1, 0, 2, 2, 0, np.nan])[:, None]
    tokens = batch * (np.asarray(draft, float) + 1.0)
    shared = _experts_touched(arch, batch, draft, tokens)
    every = experts_touched(arch.n_experts, arch.experts_per_token, tokens)
    assert shared.shape == every.shape and shared.tobytes() == every.tobytes()
    # rows of their own batches (an exact re-evaluation), a scalar draft count (the drafter): computed directly
    rows = np.vstack([batch[:, :50], 2 * batch[:, :50]])
    own = rows * (draft[:2] + 1.0)
    assert _experts_touched(arch, rows, draft[:2], own).tobytes() == experts_touched(
        arch.n_experts, arch.experts_per_token, own).tobytes()
    assert _experts_touched(arch, batch, 0.0, batch).tobytes() == experts_touched(
        arch.n_experts, arch.experts_per_token, batch).tobytes()
