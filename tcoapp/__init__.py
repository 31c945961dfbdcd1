"""tcoapp: TCO and ROI of AI inference hardware."""
__version__ = "0.1.0"
SCHEMA_VERSION = 2
