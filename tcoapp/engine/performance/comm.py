"""Collective communication over the scale-up fabric (NVLink / Infinity Fabric), per device.

Ring all-reduce of M bytes over n devices moves 2 (n - 1) / n x M bytes per device;
an all-to-all where each device sends M bytes of which (n - 1) / n leave the device moves
(n - 1) / n x M. Time = bytes / (interconnect_gb_s x 1e9 x eta_comm) + latency per collective.
All functions broadcast over numpy arrays; n = 1 costs nothing.
"""
from __future__ import annotations

import numpy as np


def allreduce_s(message_bytes, n_devices, link_bytes_per_s, latency_s):
    """Time of one ring all-reduce of `message_bytes` over `n_devices` (s); 0 for one device."""
    n = np.asarray(n_devices, float)
    moved = 2.0 * (n - 1.0) / n * message_bytes
    return np.where(n > 1, moved / link_bytes_per_s + latency_s, 0.0)


def alltoall_s(bytes_sent_per_device, n_devices, link_bytes_per_s, latency_s):
    """Time of one all-to-all where each device sends `bytes_sent_per_device` (s); 0 for one device."""
    n = np.asarray(n_devices, float)
    moved = (n - 1.0) / n * bytes_sent_per_device
    return np.where(n > 1, moved / link_bytes_per_s + latency_s, 0.0)
