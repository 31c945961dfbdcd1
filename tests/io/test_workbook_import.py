"""Import: a hand-made workbook (golden), the schema version and the migration hook."""
import openpyxl
import pytest

from tcoapp import SCHEMA_VERSION
from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.performance.factors import DEFAULT_FACTORS
from tcoapp.engine.performance.measured import make_measured_curve
from tcoapp.engine.quantities.records import make_device, make_plan
from tcoapp.engine.plan.scenario import PriceTiers
from tcoapp.io import migrate
from tcoapp.io.workbook_read import read_scenario


def hand_made_golden(path):
    """Written cell by cell as a person would, with units, blank rows and optional keys left out."""
    wb = openpyxl.Workbook()
    plans = wb.active
    plans.title = "Plans"
    rows = [
        ("key", "unit", "Big", "Small"),
        ("device", "", "XPU-1", "H100-SXM"),
        ("model", "", "Llama-3.3-70B", "Llama-3.3-70B"),
        ("curve", "", "xpu", "xpu"),
        (None, None, None, None),
        ("batch", "sequences", 32, 8),
        ("device_count", "devices", "64", 30),
        ("attention_dp", "", "yes", False),
        ("weight_precision", "", "NVFP4", "fp8"),
        ("utilization", "fraction", 0.65, "0.5"),
        ("years", "years", 5, 3.0),
        ("price_tiers", "", "tiers", None),
        ("price_usd_per_million_output_tokens", "USD/Mtok", 1.5, 0.2),
    ]
    for row in rows:
        plans.append(list(row))
    devices = wb.create_sheet("Devices")
    devices.append(["name", "memory_gb", "mem_bw_gb_s", "peak_tflops_bf16", "tdp_w", "price_usd", "source"])
    devices.append(["", "GB", "GB/s", "TFLOPS", "W", "USD", ""])
    devices.append(["XPU-1", 96, 4000, 800, 600, 20000, "=not a formula"])
    curves = wb.create_sheet("Curves")
    curves.append(["curve", "device", "model", "batch", "tokens_per_s_per_device", "power_w"])
    curves.append(["", "", "", "sequences", "tokens/s", "W"])
    curves.append(["xpu", "XPU-1", "Llama-3.3-70B", 32, 1800, 540])
    curves.append(["xpu", "XPU-1", "Llama-3.3-70B", 8, 600, None])
    tiers = wb.create_sheet("PriceTiers")
    tiers.append(["price_tiers", "min_tokens_per_s_per_user", "price_usd_per_million_output_tokens"])
    tiers.append(["", "tokens/s", "USD/Mtok"])
    tiers.append(["tiers", 0, 0.5])
    tiers.append(["tiers", 50, 2.0])
    calibration = wb.create_sheet("Calibration")
    calibration.append(["key", "unit", "value"])
    calibration.append(["eta_mem", "fraction", 0.8])
    wb.save(path)
    # a string cell that starts with "=" is text: patch the inline string in (openpyxl would make a formula)
    return path


def test_golden_hand_made_workbook(tmp_path):
    path = tmp_path / "hand.xlsx"
    wb_path = hand_made_golden(path)
    wb = openpyxl.load_workbook(wb_path)
    wb["Devices"]["G3"].data_type = "s"  # openpyxl made it a formula; a hand-made file would hold text
    wb.save(wb_path)
    scenario = read_scenario(wb_path)
    big = make_plan("Big", {"device": "XPU-1", "model": "Llama-3.3-70B", "curve": "xpu", "batch": 32,
                            "device_count": 64, "attention_dp": True, "weight_precision": "nvfp4",
                            "utilization": 0.65, "years": 5, "price_tiers": "tiers",
                            "price_usd_per_million_output_tokens": 1.5})
    small = make_plan("Small", {"device": "H100-SXM", "model": "Llama-3.3-70B", "curve": "xpu", "batch": 8,
                                "device_count": 30, "utilization": 0.5, "years": 3,
                                "price_usd_per_million_output_tokens": 0.2})
    assert scenario.plans == (big, small)
    assert scenario.devices == {"XPU-1": make_device({"name": "XPU-1", "memory_gb": 96, "mem_bw_gb_s": 4000,
                                                      "peak_tflops_bf16": 800, "tdp_w": 600, "price_usd": 20000,
                                                      "source": "=not a formula"})}
    assert scenario.models == {}
    assert scenario.curves == {"xpu": make_measured_curve("xpu", "XPU-1", "Llama-3.3-70B", [8, 32], [600, 1800],
                                                          None, [float("nan"), 540])}
    assert scenario.price_tiers == {"tiers": PriceTiers("tiers", (0.0, 50.0), (0.5, 2.0))}
    assert scenario.factors == DEFAULT_FACTORS.with_(eta_mem=0.8)


def _about(path, version):
    wb = openpyxl.Workbook()
    wb.active.title = "Plans"
    wb["Plans"].append(["key", "unit", "P"])
    wb["Plans"].append(["device", "", "H100-SXM"])
    wb["Plans"].append(["model", "", "Llama-3.3-70B"])
    about = wb.create_sheet("About")
    about.append(["key", "value"])
    about.append(["app", "tcoapp"])
    about.append(["schema_version", version])
    wb.save(path)
    return path


def test_current_schema_version_reads(tmp_path):
    assert read_scenario(_about(tmp_path / "v.xlsx", SCHEMA_VERSION)).plans[0].name == "P"


@pytest.mark.parametrize("bad", ["one", 0, -1, 1.5, True])
def test_bad_schema_version_names_the_cell(tmp_path, bad):
    with pytest.raises(ValidationError, match=r"About!B3 schema_version"):
        read_scenario(_about(tmp_path / "v.xlsx", bad))


def test_newer_schema_refused(tmp_path):
    with pytest.raises(ValidationError, match="newer tcoapp"):
        read_scenario(_about(tmp_path / "v.xlsx", SCHEMA_VERSION + 1))


def test_older_schema_without_migration_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(migrate, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(ValidationError, match=f"no migration from schema {SCHEMA_VERSION}"):
        read_scenario(_about(tmp_path / "v.xlsx", SCHEMA_VERSION))


def test_migration_hook_upgrades_an_older_workbook(tmp_path, monkeypatch):
    """A pretend schema bump: the old layout called the row `gpu`; the migration renames it."""
    def rename_gpu(sheets):
        plans = sheets["Plans"]
        plans.values = [("device",) + row[1:] if row and row[0] == "gpu" else row for row in plans.values]
        plans.formulas = [("device",) + row[1:] if row and row[0] == "gpu" else row for row in plans.formulas]
        return sheets

    monkeypatch.setattr(migrate, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    monkeypatch.setitem(migrate.MIGRATIONS, SCHEMA_VERSION, rename_gpu)
    path = _about(tmp_path / "old.xlsx", SCHEMA_VERSION)
    wb = openpyxl.load_workbook(path)
    wb["Plans"]["A2"] = "gpu"
    wb.save(path)
    assert read_scenario(path).plans[0].device == "H100-SXM"


def test_missing_about_reads_as_current(tmp_path):
    path = _about(tmp_path / "v.xlsx", SCHEMA_VERSION)
    wb = openpyxl.load_workbook(path)
    del wb["About"]
    wb.save(path)
    assert read_scenario(path).plans[0].device == "H100-SXM"


def test_a_devices_sheet_without_the_architecture_column_keeps_the_catalog_architecture(tmp_path):
    """A Devices sheet written before the `architecture` column (or typed without it): a row naming a
    catalog device computes with that device's architecture; a device of the user's own has none."""
    path = tmp_path / "old_devices.xlsx"
    wb = openpyxl.Workbook()
    plans = wb.active
    plans.title = "Plans"
    for row in (("key", "unit", "A", "B"), ("device", "", "H200-SXM", "XPU-1"),
                ("model", "", "Llama-3.3-70B", "Llama-3.3-70B"), ("device_count", "devices", 8, 8)):
        plans.append(list(row))
    devices = wb.create_sheet("Devices")
    devices.append(["name", "memory_gb", "mem_bw_gb_s", "peak_tflops_bf16", "peak_tflops_fp8", "tdp_w", "price_usd"])
    devices.append(["", "GB", "GB/s", "TFLOPS", "TFLOPS", "W", "USD"])
    devices.append(["H200-SXM", 141, 4800, 989, 1979, 700, 35000])
    devices.append(["XPU-1", 96, 4000, 800, 1600, 600, 20000])
    wb.save(path)
    scenario = read_scenario(path)
    assert scenario.devices["H200-SXM"].architecture == "Hopper"
    assert scenario.devices["XPU-1"].architecture == ""
    devices.cell(1, 8, "architecture")
    devices.cell(3, 8, "Blackwell")   # a column typed by the user is the user's
    wb.save(path)
    assert read_scenario(path).devices["H200-SXM"].architecture == "Blackwell"


def test_a_calibration_sheet_with_eta_compute_and_no_ratios_keeps_its_eta_compute_for_every_architecture(tmp_path):
    """A Calibration sheet saved before the architecture ratios (it states eta_compute, no
    arch_compute_* row) computes every device at its eta_compute, as when it was saved."""
    path = tmp_path / "old_calibration.xlsx"
    wb = openpyxl.Workbook()
    plans = wb.active
    plans.title = "Plans"
    for r in (("key", "unit", "A"), ("device", "", "H200-SXM"), ("model", "", "Llama-3.3-70B"), ("device_count", "devices", 8)):
        plans.append(list(r))
    calibration = wb.create_sheet("Calibration")
    calibration.append(["key", "unit", "value"])
    calibration.append(["eta_compute", "fraction", 0.677])
    wb.save(path)
    factors = read_scenario(path).factors
    assert factors.eta_compute == 0.677 and factors.arch_compute_hopper == 1.0 and factors.arch_compute_cdna4 == 1.0
    calibration.append(["arch_compute_hopper", "ratio", 1.2])
    wb.save(path)
    factors = read_scenario(path).factors
    assert factors.arch_compute_hopper == 1.2 and factors.arch_compute_cdna4 == DEFAULT_FACTORS.arch_compute_cdna4
