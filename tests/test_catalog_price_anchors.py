"""The catalog's device prices follow their anchor (docs/catalog.md, "Device prices and their anchors"): each
SemiAnalysis-covered device costs per GPU-hour, relative to HGX B200, what SemiAnalysis' AI Cloud TCO says, and a
GB200 NVL72 GPU-hour is dearer than an HGX B200 one."""
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import anchor_prices  # noqa: E402

from tcoapp.io.catalog import load_catalog  # noqa: E402


def test_every_covered_device_costs_what_semianalysis_says_relative_to_b200():
    devices = load_catalog().devices
    anchor = anchor_prices.cost_per_gpu_hour(devices["B200"], devices["B200"].price_usd)
    sa = anchor_prices.SA_TCO_USD_PER_GPU_HOUR
    for name, tco in sa.items():
        device = devices[name]
        ratio = anchor_prices.cost_per_gpu_hour(device, device.price_usd) / anchor
        assert math.isclose(ratio, tco / sa["B200"], rel_tol=2e-3), name   # prices are rounded to $100
        assert "price_usd DERIVED" in device.source or name == "B200", name
        assert "2026-12-06" in device.source, name


def test_gb200_nvl72_is_dearer_per_gpu_hour_than_hgx_b200():
    devices = load_catalog().devices
    b200 = anchor_prices.cost_per_gpu_hour(devices["B200"], devices["B200"].price_usd)
    gb200 = anchor_prices.cost_per_gpu_hour(devices["GB200-NVL72"], devices["GB200-NVL72"].price_usd)
    assert 1.12 < gb200 / b200 < 1.15


def test_the_derived_price_is_the_root_of_the_cost_equation():
    """Cost per device-hour is affine in price_usd: the derived price reproduces its target exactly."""
    device = load_catalog().devices["MI300X"]
    price = anchor_prices.derived_price_usd(device, 1.5)
    assert math.isclose(anchor_prices.cost_per_gpu_hour(device, price), 1.5, rel_tol=1e-12)
