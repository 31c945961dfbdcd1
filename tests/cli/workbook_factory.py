"""Hand-made scenario workbooks (openpyxl, docs/workbook_format.md layout) for CLI tests."""
import openpyxl

DEVICE_KEYS = ["name", "vendor", "memory_gb", "mem_bw_gb_s", "peak_tflops_bf16", "peak_tflops_fp8",
               "peak_tflops_fp4", "tdp_w", "idle_w", "price_usd", "devices_per_server", "server_price_usd",
               "server_overhead_w", "scale_up_domain", "interconnect_gb_s", "source"]
DEVICE_UNITS = ["", "", "GB", "GB/s", "TFLOPS", "TFLOPS", "TFLOPS", "W", "W", "USD", "devices", "USD", "W",
                "devices", "GB/s", ""]
CUSTOM_DEVICE = ["XPU-1", "Acme", 96, 4000, 800, 1600, 0, 600, 80, 20000, 4, 30000, 1500, 4, 300,
                 "hand-made test device"]
MODEL_KEYS = ["name", "total_params_b", "active_params_b", "n_layers", "hidden_size", "n_kv_heads", "head_dim", "source"]
CUSTOM_MODEL = ["Tiny-13B", 13, 13, 40, 5120, 8, 128, "hand-made test model"]
CURVE_KEYS = ["curve", "device", "model", "batch", "tokens_per_s_per_device", "tokens_per_s_per_user", "power_w", "source"]
CURVE_POINTS = [(1, 90, 90, 300), (8, 600, 75, 420), (32, 1800, 56.25, 540), (128, 4000, 31.25, 590)]

PLAN_ROWS = [
    ("device", "", "XPU-1", "XPU-1"),
    ("model", "", "Tiny-13B", "Tiny-13B"),
    ("curve", "", "xpu-tiny", "xpu-tiny"),
    ("batch", "sequences", 32, 8),
    ("input_tokens", "tokens", 2000, 1000),
    ("output_tokens", "tokens", 500, 1000),
    ("device_count", "devices", 64, 30),
    ("rack_power_cap_kw", "kW", 20, 12),
    ("servers_per_rack_max", "servers", 4, 4),
    ("other_capex_fraction", "fraction", 0.1, 0.2),
    ("pue", "ratio", 1.25, 1.4),
    ("electricity_usd_per_kwh", "USD/kWh", 0.08, 0.15),
    ("colocation_usd_per_kw_month", "USD/kW/month", 120, 0),
    ("maintenance_fraction_per_year", "fraction/yr", 0.04, 0.0),
    ("software_usd_per_device_year", "USD/device/yr", 1000, 0),
    ("staff_usd_per_year", "USD/yr", 100000, 50000),
    ("utilization", "fraction", 0.65, 0.5),
    ("years", "years", 5, 3),
    ("discount_rate", "fraction/yr", 0.09, 0.0),
    ("residual_value_fraction", "fraction", 0.1, 0.0),
    ("price_usd_per_million_output_tokens", "USD/Mtok", 1.5, 0.2),
    ("price_usd_per_million_input_tokens", "USD/Mtok", 0.3, 0.05),
]


def write_workbook(path, plan_rows=PLAN_ROWS, drop_sheet=None, extra_sheet=None):
    wb = openpyxl.Workbook()
    plans = wb.active
    plans.title = "Plans"
    plans.append(["key", "unit", "Acme big", "Acme small"])
    for row in plan_rows:
        plans.append(list(row))
    devices = wb.create_sheet("Devices")
    devices.append(DEVICE_KEYS)
    devices.append(DEVICE_UNITS)
    devices.append(CUSTOM_DEVICE)
    models = wb.create_sheet("Models")
    models.append(MODEL_KEYS)
    models.append(["", "B params", "B params", "layers", "", "heads", "", ""])
    models.append(CUSTOM_MODEL)
    curves = wb.create_sheet("Curves")
    curves.append(CURVE_KEYS)
    curves.append(["", "", "", "sequences", "tokens/s", "tokens/s", "W", ""])
    for batch, tps, tpu, power in CURVE_POINTS:
        curves.append(["xpu-tiny", "XPU-1", "Tiny-13B", batch, tps, tpu, power, "hand-made test curve"])
    if extra_sheet:
        wb.create_sheet(extra_sheet)
    if drop_sheet:
        del wb[drop_sheet]
    wb.save(path)
    return path
