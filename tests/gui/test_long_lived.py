"""The app's modules are left out of full garbage collections while its window is open (gui/long_lived.py):
kept once pyqtgraph has loaded, handed back to the collector when the window closes."""
import gc
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_loading_the_charts_keeps_the_modules_out_of_later_collections():
    script = ("import gc; before = gc.get_freeze_count(); import tcoapp.gui.plotting; "
              "print(before, gc.get_freeze_count(), len(gc.get_objects()))")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, QT_QPA_PLATFORM="offscreen"), check=True).stdout.split()
    before, kept, tracked = (int(n) for n in out)
    assert before == 0
    assert kept > 20_000            # Qt's bindings, numpy and pyqtgraph
    assert tracked < kept / 10      # what a full collection still walks: the few objects made since


def test_a_closed_window_hands_its_objects_back_to_the_collector(qtbot):
    from tcoapp.gui import long_lived
    from tcoapp.gui.app import create_window

    window = create_window(None)
    qtbot.addWidget(window)
    window.show()
    long_lived.keep()   # as the first import of the charts does while a window is open
    assert gc.get_freeze_count() > 0
    window.document.undo_stack.setClean()
    window.close()
    assert gc.get_freeze_count() == 0
