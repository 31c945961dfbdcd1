"""Generate curves with NVIDIA aiconfigurator, when its package is installed (an optional extra:
`pip install 'tcoapp[aiconfigurator]'`).

`generate_curves` runs aiconfigurator's Python API (`aiconfigurator.cli.api.cli_default`: the
aggregated and disaggregated searches of `aiconfigurator cli default`, offline, from its shipped
performance database), writes each Pareto table as the `pareto.csv` the CLI would write, and reads
it with the same reader as `tcoapp curves` (so every rule of docs/curves.md applies). Without
the package, `missing()` says how to install it.
"""
from __future__ import annotations

import importlib.util
import logging
import pathlib
import re
import tempfile
import warnings as python_warnings
from dataclasses import replace

from ..engine.core.errors import TcoError
from .curve_files import CurveFile, read_curve_file

INSTALL = "pip install 'tcoapp[aiconfigurator]'   (or: pip install aiconfigurator)"
BACKENDS = ("trtllm", "sglang", "vllm")


class AiconfiguratorError(TcoError):
    """aiconfigurator is missing, or could not run the request (the message says which)."""


def missing() -> str | None:
    """None when aiconfigurator can be imported, else the message saying how to install it."""
    try:
        found = importlib.util.find_spec("aiconfigurator") is not None
    except (ImportError, ValueError):
        found = False
    if found:
        return None
    return f"Generating curves needs NVIDIA's aiconfigurator package, which is not installed. Install it with:\n{INSTALL}"


def supported() -> tuple[list[str], list[str]]:
    """(systems, Hugging Face model ids) aiconfigurator supports out of the box."""
    _require()
    from aiconfigurator.sdk import common
    return sorted(common.SupportedSystems), sorted(common.DefaultHFModels)


def _require() -> None:
    message = missing()
    if message:
        raise AiconfiguratorError(message)


def _quiet() -> None:
    """aiconfigurator logs every database fallback at INFO/WARNING: keep errors only."""
    logging.getLogger("aiconfigurator").setLevel(logging.ERROR)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "_", text.split("/")[-1]).strip("_")


def generate_curves(model_path: str, system: str, total_gpus: int, input_tokens: int, output_tokens: int,
                    backend: str = "trtllm", devices=None, models=None, vendors=None) -> CurveFile:
    """Curves of aiconfigurator's aggregated and disaggregated Pareto fronts for one model on
    `total_gpus` GPUs of `system` at the given input/output lengths."""
    _require()
    import aiconfigurator
    from aiconfigurator.cli.api import cli_default

    try:
        with python_warnings.catch_warnings():  # its deprecation and pandas notices are not the user's concern
            python_warnings.simplefilter("ignore")
            _quiet()
            result = cli_default(model_path=model_path, total_gpus=int(total_gpus), system=system, backend=backend,
                                 isl=int(input_tokens), osl=int(output_tokens))
    except Exception as exc:  # noqa: BLE001 - a third-party failure, shown to the user as a message
        raise AiconfiguratorError(f"aiconfigurator could not run {model_path} on {total_gpus} x {system} "
                                  f"({backend}): {type(exc).__name__}: {exc}") from None
    run = (f"aiconfigurator {aiconfigurator.__version__} run: cli_default({model_path}, {total_gpus} x {system}, "
           f"{backend}, ISL {input_tokens} / OSL {output_tokens})")
    curves, warnings = [], [run]
    with tempfile.TemporaryDirectory() as folder:
        for experiment, frame in (result.pareto_fronts or {}).items():
            if frame is None or frame.empty:
                warnings.append(f"aiconfigurator found no {experiment} configuration")
                continue
            path = pathlib.Path(folder) / f"aiconfigurator_{_slug(model_path)}_{system}_{experiment}_pareto.csv"
            frame.to_csv(path, index=False)
            read = read_curve_file(path, "aiconfigurator", devices, models, vendors)
            curves += [replace(c, source=f"{run}, {experiment} Pareto front") for c in read.curves]
            warnings += list(read.warnings)
    if not curves:
        raise AiconfiguratorError(f"aiconfigurator found no feasible configuration for {model_path} on "
                                  f"{total_gpus} x {system}")
    return CurveFile(run, "aiconfigurator", tuple(curves), tuple(dict.fromkeys(warnings)))
