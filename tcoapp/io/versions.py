"""The versions a file records: this application's release and the workbook schema it writes.

The workbook's About sheet carries both (docs/workbook_format.md); `tcoapp --version`, the About
dialog and the decision report print `APP_VERSION`. Bump `SCHEMA_VERSION` only with a migration in
`migrate.py`.
"""
APP_VERSION = "0.1.0"
SCHEMA_VERSION = 2
