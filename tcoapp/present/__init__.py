"""Results as a person reads them, shared by the command line, the desktop app and the report.

- `values`: one metric value as text (units, thousands separators, percentages, "never")
- `report_html`: the decision report's HTML (the GUI lays it out and prints it to PDF)
"""
