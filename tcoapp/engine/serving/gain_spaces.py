"""The restricted search spaces of the configuration gains (docs/model.md, "Configuration gains";
pipeline/config_gains.py): the search's space held to a KV cache that is not FP4, and to that without draft
tokens. Each maps the sweep's configuration columns to a bool per configuration. The serving search
re-evaluates their shortlists with its own (serving/fleet.py), so the gains evaluate nothing again."""
from __future__ import annotations

import numpy as np

FP4_KV = ("nvfp4", "mxfp4")


def no_fp4_kv(configurations) -> np.ndarray:
    """Configurations whose KV cache is not FP4."""
    return ~np.isin(configurations["kv_precision"], FP4_KV)


def no_fp4_kv_no_draft(configurations) -> np.ndarray:
    """Configurations whose KV cache is not FP4, without draft tokens."""
    return no_fp4_kv(configurations) & (configurations["spec_decode_draft_tokens"] == 0)


GAIN_SPACES = (no_fp4_kv_no_draft, no_fp4_kv)
