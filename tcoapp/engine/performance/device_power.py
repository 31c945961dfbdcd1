"""A device's power: the busy-fraction power model, and a device held below its TDP (`power_limit_w`, a
Devices-sheet field; 0: no limit). docs/model.md, "Power limit".

The power model (roofline.py): power_w = idle_w + (full_w - idle_w) x busy^power_gamma, full_w the power the
device draws when its math is busy all the time: its TDP, or its power limit where it has one.

A GPU's boost clock under sustained math is already set by its board power (the rated peak is at the top
clock; eta_compute and the architecture ratios hold what a device sustains at its TDP). Held to a lower
limit, it lowers its clock until its busy power fits: dynamic power grows with clock x voltage^2 and the
voltage with the clock, so the busy power above idle grows as clock^POWER_CLOCK_EXPONENT and

    clock_ratio = ((power_limit_w - idle_w) / (tdp_w - idle_w)) ^ (1 / POWER_CLOCK_EXPONENT)     (1 without a limit)

multiplies the math peaks of the decode step, the drafter and the prefill (roofline.architecture_peaks):
compute-bound work (large batches, prefill) slows by up to 1 / clock_ratio; memory reads, the scale-up and
scale-out links and the host's fixed overheads keep their speed (HBM, GDDR and the links have clocks of their
own), so memory-bound work (small batches, a GDDR device) slows little.

POWER_CLOCK_EXPONENT = 3, an ESTIMATE: the textbook cube law of CMOS dynamic power with voltage proportional
to clock (P = C V^2 f). Against the two power-capped MLPerf Inference v6.0 submissions in the shipped
measurements (docs/model.md gives the figures): an MI355X system capped at 1,000 W of 1,400 W measured 0.84x
the same submitter's uncapped system on Llama-2-70B Offline; RTX PRO 6000 Server Edition systems capped at
450 W of 600 W measured within the spread of the uncapped ones (GDDR7: memory-bound). One vendor's pair of
SKUs of one die, AMD Instinct MI350X (1,000 W, peak engine clock 2,200 MHz) and MI355X (1,400 W, 2,400 MHz),
gives 4.4 on peak clocks; sustained clocks fall faster than the peak ones.
"""
from __future__ import annotations

import numpy as np

from ..quantities.finance import DEVICE_NAMEPLATE_W

POWER_CLOCK_EXPONENT = 3.0


def nameplate_w(device):
    """The power a device draws with its math busy all the time (W): its power limit where it has one (> 0),
    else its TDP, by the rule the server nameplate uses (quantities/finance.py's DEVICE_NAMEPLATE_W, evaluated
    on the device's fields). A number, or an array over Monte Carlo draws."""
    full = np.asarray(DEVICE_NAMEPLATE_W.numpy(lambda key: np.asarray(getattr(device, key), float)), float)
    return float(full) if full.ndim == 0 else full


def clock_ratio(device):
    """The clock the device's math runs at under its power limit, as a fraction of the clock at its TDP
    (module docstring); 1 without a limit. A number, or an array over Monte Carlo draws."""
    tdp, idle = np.asarray(device.tdp_w, float), np.asarray(device.idle_w, float)
    full = np.asarray(nameplate_w(device), float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(full < tdp, ((full - idle) / (tdp - idle)) ** (1.0 / POWER_CLOCK_EXPONENT), 1.0)
    return float(ratio) if ratio.ndim == 0 else ratio


def busy_power_w(device, busy, factors):
    """Power per device (W) at the busy fraction `busy` (0..1): idle_w + (nameplate_w - idle_w) x busy^power_gamma.
    Broadcasts."""
    return device.idle_w + (nameplate_w(device) - device.idle_w) * np.clip(busy, 0.0, 1.0) ** factors.power_gamma
