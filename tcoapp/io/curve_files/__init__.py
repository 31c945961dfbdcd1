"""Measured-curve files from the field's own tools (docs/curves.md): InferenceX exports,
aiconfigurator pareto.csv / best_config_topn.csv, plain CSV. `read_curve_file` is the one entry
point the CLI, the GUI and the Python API call."""
from .read import CurveFile, read_curve_file

__all__ = ["CurveFile", "read_curve_file"]
