"""Help > About: the version, the licences of tcoapp and the libraries it runs on (read from the
installed packages' metadata), and where the catalog numbers come from (each device and model
with its source and the fields that are estimates)."""
from __future__ import annotations

import importlib.metadata as metadata
import platform

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTabWidget, QTextBrowser, QVBoxLayout

from ..io.versions import APP_VERSION

PACKAGES = ("tcoapp", "PySide6-Essentials", "pyqtgraph", "numpy", "scipy", "openpyxl", "defusedxml")


def package_license(name: str) -> tuple[str, str]:
    """(version, licence) of an installed package, from its metadata; ("", "not installed") if absent."""
    try:
        meta = metadata.metadata(name)
    except metadata.PackageNotFoundError:
        return "", "not installed"
    text = meta.get("License-Expression") or ""
    if not text:
        classifiers = [c.split("::")[-1].strip() for c in meta.get_all("Classifier") or [] if c.startswith("License")]
        text = classifiers[0] if classifiers else (meta.get("License") or "").splitlines()[0:1]
        text = text if isinstance(text, str) else (text[0] if text else "see the package")
    return metadata.version(name), text


def _esc(text: str) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def about_html() -> str:
    rows = "".join(f"<tr><td>{_esc(n)}</td><td>{_esc(v)}</td><td>{_esc(lic)}</td></tr>"
                   for n in PACKAGES for v, lic in (package_license(n),))
    return (f"<h2>tcoapp {APP_VERSION}</h2><p>TCO and ROI of AI inference hardware: cost per million tokens, "
            f"revenue per rack under a power cap, payback, NPV and IRR of hardware purchase plans.</p>"
            f"<p>Python {platform.python_version()} on {_esc(platform.system())}. The same engine runs headless: "
            f"<code>tcoapp compute FILE.xlsx --json</code>.</p>"
            f"<h3>Licences</h3><table cellspacing='6'><tr><th align='left'>package</th><th align='left'>version</th>"
            f"<th align='left'>licence</th></tr>{rows}</table>"
            f"<p>PySide6 (Qt for Python) is used under the LGPL-3.0; its source is at https://code.qt.io.</p>")


def catalog_html(scenario) -> str:
    def block(title, entries):
        items = "".join(f"<li><b>{_esc(name)}</b>: {_esc(e.source) or 'no source given'}"
                        + (f" <i>(estimated: {_esc(e.estimated_fields)})</i>" if getattr(e, "estimated_fields", "")
                           else "") + "</li>" for name, e in entries.items())
        return f"<h3>{title} ({len(entries)})</h3><ul>{items}</ul>"

    return ("<p>Every shipped catalog row names its source; values that are estimates rather than read in a "
            "primary source are listed as estimated (idle power, prices and server prices are estimates). "
            "Entries of the open workbook's Devices and Models sheets override these by name. "
            "The full table: docs/catalog.md.</p>"
            + block("Devices", scenario.catalog_devices) + block("Models", scenario.catalog_models))


class AboutDialog(QDialog):
    def __init__(self, scenario, parent=None):
        super().__init__(parent)
        self.setWindowTitle("About tcoapp")
        self.resize(720, 560)
        self.tabs = QTabWidget()
        for title, html in (("About", about_html()), ("Catalog sources", catalog_html(scenario))):
            view = QTextBrowser()
            view.setOpenExternalLinks(True)
            view.setHtml(html)
            self.tabs.addTab(view, title)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        layout.addWidget(buttons)
