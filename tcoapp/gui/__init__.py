"""The desktop application (PySide6 + pyqtgraph). Qt lives here and nowhere else in tcoapp."""
