"""Generate curve with aiconfigurator: model, system, GPUs, input/output tokens and backend for a
run of NVIDIA aiconfigurator's Python API (tcoapp.io.aiconfigurator_run). The curves it gives go
through the same preview as File > Import curve."""
from __future__ import annotations

from functools import partial

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QSpinBox

from ..io.aiconfigurator_run import BACKENDS, generate_curves, supported


def _spin(value: int, low: int, high: int) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setValue(value)
    return box


class AiconfiguratorDialog(QDialog):
    def __init__(self, input_tokens: int = 4000, output_tokens: int = 1000, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Generate curve with aiconfigurator")
        systems, models = supported()
        form = QFormLayout(self)
        note = QLabel("Runs NVIDIA aiconfigurator offline (its aggregated and disaggregated searches from its "
                      "performance database); its Pareto fronts become measured curves after a preview.")
        note.setWordWrap(True)
        form.addRow(note)
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.addItems(models)
        self.model.setCurrentText("nvidia/Llama-3.1-70B-Instruct-FP8" if "nvidia/Llama-3.1-70B-Instruct-FP8" in models
                                  else models[0])
        self.system = QComboBox()
        self.system.addItems(systems)
        self.system.setCurrentText("h200_sxm" if "h200_sxm" in systems else systems[0])
        self.gpus = _spin(8, 1, 4096)
        self.input_tokens = _spin(input_tokens, 1, 10_000_000)
        self.output_tokens = _spin(output_tokens, 1, 10_000_000)
        self.backend = QComboBox()
        self.backend.addItems(BACKENDS)
        for label, widget in (("Model (Hugging Face id)", self.model), ("System", self.system),
                              ("Total GPUs", self.gpus), ("Input tokens", self.input_tokens),
                              ("Output tokens", self.output_tokens), ("Backend", self.backend)):
            form.addRow(label, widget)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def request(self) -> dict:
        return {"model_path": self.model.currentText().strip(), "system": self.system.currentText(),
                "total_gpus": self.gpus.value(), "input_tokens": self.input_tokens.value(),
                "output_tokens": self.output_tokens.value(), "backend": self.backend.currentText()}


def generate_job(request: dict, scenario):
    """A worker job `f(progress=, should_cancel=) -> CurveFile`, tool names mapped to the scenario's."""
    vendors = {name: scenario.device(name).vendor for name in scenario.all_device_names()}

    def run(progress=None, should_cancel=None):
        progress and progress(0.05)
        return generate_curves(**request, devices=scenario.all_device_names(), models=scenario.all_model_names(),
                               vendors=vendors)
    return partial(run)
