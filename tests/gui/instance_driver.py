"""One real tcoapp desktop instance, driven for the multi-instance recovery test (run as a script).

`edit PATH`: open PATH, change the first plan's utilization to 0.42, autosave, print EDITED, then
keep running until killed. `open PATH`: open PATH, print where it ended up and every message
shown, close cleanly. `recover PATH`: open PATH, accept the recovery offered, print the result.
Message boxes are answered by the script and printed (MESSAGE title | text), and so is the problem
the window shows inline.
"""
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication, QMessageBox  # noqa: E402


def _patch_dialogs():
    def record(parent, title, text, *args, **kw):
        print(f"MESSAGE {title} | {text}".replace("\n", " "), flush=True)
        return QMessageBox.Yes
    for name in ("warning", "critical", "information", "question"):
        setattr(QMessageBox, name, staticmethod(record))


def main(action: str, path: str) -> int:
    app = QApplication(sys.argv[:1])
    app.setOrganizationName("tcoapp")
    app.setApplicationName("tcoapp")
    _patch_dialogs()
    from tcoapp.gui.app import create_window, offer_recovery

    window = create_window(path)
    window.show()
    app.processEvents()
    if action == "edit":
        assert window.document.set_plan_value(0, "utilization", 0.42) is None
        assert window.autosave.save_now() is None
        print("EDITED", flush=True)
        return app.exec()
    if action == "recover":
        offer_recovery(window, QMessageBox)
    app.processEvents()
    if window.problems.text():
        print(f"MESSAGE {window.problems.title} | {window.problems.text()}".replace("\n", " "), flush=True)
    plan = window.document.scenario.plans[0]
    print(f"PATH {window.document.path}", flush=True)
    print(f"UTILIZATION {plan.utilization}", flush=True)
    window.document.undo_stack.setClean()
    window.close()
    app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
