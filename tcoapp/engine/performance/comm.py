"""Collective communication over the scale-up fabric (NVLink / Infinity Fabric), per device.

Ring all-reduce of M bytes over n devices moves 2 (n - 1) / n x M bytes per device. Time = bytes /
(link bytes/s) + latency per collective. Broadcasts over numpy arrays; n = 1 costs nothing. The
all-to-all of attention-DP, with its scale-out share and per-peer messages, is
roofline.alltoall_with_scale_out_s.
"""
from __future__ import annotations

import numpy as np


def allreduce_s(message_bytes, n_devices, link_bytes_per_s, latency_s):
    """Time of one ring all-reduce of `message_bytes` over `n_devices` (s); 0 for one device."""
    n = np.asarray(n_devices, float)
    moved = 2.0 * (n - 1.0) / n * message_bytes
    return np.where(n > 1, moved / link_bytes_per_s + latency_s, 0.0)
