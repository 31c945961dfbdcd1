"""A closed and deleted window lets go of its document and results (each holds tens to hundreds of MB):
nothing deferred on its behalf keeps it alive, and no signal connection of the document holds its views."""
import gc
import weakref

from PySide6.QtCore import QCoreApplication, QEvent


def _delete(window) -> None:
    window.document.undo_stack.setClean()
    window.close()
    window.deleteLater()
    for _ in range(3):   # the deletion, then the queued ends of the threads it waited for
        QCoreApplication.processEvents()
        QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)
    gc.collect()


def test_a_closed_window_frees_its_document_and_results(qtbot):
    from tcoapp.gui.app import create_window

    window = create_window(None)
    window.show()
    qtbot.waitExposed(window)
    window.performance, window.economics   # every chart view built, each connected to the document
    document, results = weakref.ref(window.document), weakref.ref(window.document.results[0])
    _delete(window)
    del window
    gc.collect()
    assert document() is None and results() is None


def test_work_deferred_for_a_window_closed_at_once_does_nothing(qtbot):
    """The Decision chart is built two turns after the window shows; a window closed before then builds
    no chart (one built then had no parent and kept the document alive)."""
    from tcoapp.gui.app import create_window

    window = create_window(None)
    window.show()          # the chart build is now queued
    document = weakref.ref(window.document)
    _delete(window)
    del window
    gc.collect()
    assert document() is None
