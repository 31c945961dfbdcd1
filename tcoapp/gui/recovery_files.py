"""Recovery files in the autosave folder: one per open document, keyed by the document's path.

`<key>.pickle` holds the document's scenario (the immutable engine objects as they were, catalog
overrides and imported curves included) and its path; `<key>.lock` is held by the running tcoapp
that has the document open (doc_lock). A recovery file whose lock is free was left by a session
that ended without saving: it is offered back. Two instances never share a file: a document
without a path gets a key of its own per instance, and a path open in one instance opens in
another as an unsaved copy. Files are written atomically and fsync'ed (io.atomic); one that cannot
be read is kept aside (`.unreadable`), never deleted.
"""
from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import pickle
import re
import time
from dataclasses import dataclass
from typing import Any

from ..io.atomic import atomic_write
from .doc_lock import DocumentLock

FORMAT = 2
SUFFIX = ".pickle"


@dataclass(frozen=True)
class Recovery:
    key: str
    scenario: Any
    path: str | None
    saved_at: float


def document_key(path: str | None, instance: str) -> str:
    """The file's path (normalised) for a saved document; this instance's own key otherwise."""
    if not path:
        return f"untitled-{instance}"
    full = os.path.normcase(os.path.abspath(path))
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", os.path.basename(full))[:40]
    return f"{stem}-{hashlib.sha256(full.encode()).hexdigest()[:16]}"


def recovery_file(directory: str, key: str) -> str:
    return os.path.join(directory, key + SUFFIX)


def lock_for(directory: str, key: str) -> DocumentLock:
    return DocumentLock(os.path.join(directory, key + ".lock"))


def write(directory: str, key: str, scenario, path: str | None) -> None:
    """Atomic and fsync'ed: a crash mid-write leaves the previous recovery file whole."""
    os.makedirs(directory, exist_ok=True)
    data = {"format": FORMAT, "scenario": scenario, "path": path, "pid": os.getpid(), "saved_at": time.time()}
    atomic_write(recovery_file(directory, key),
                 lambda handle: pickle.dump(data, handle, protocol=pickle.HIGHEST_PROTOCOL))


def discard(directory: str, key: str) -> None:
    """Remove the recovery file, and the lock file a crashed owner left (a held lock stays)."""
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):   # (no file, or no usable data folder)
        os.remove(recovery_file(directory, key))
    lock = lock_for(directory, key)
    if lock.is_free():
        with contextlib.suppress(OSError):
            os.remove(lock.path)


def read(directory: str, key: str) -> Recovery:
    """The recovery file's content; raises ValueError (the file kept aside) when it cannot be read."""
    file = recovery_file(directory, key)
    try:
        with open(file, "rb") as handle:
            data = pickle.load(handle)  # noqa: S301 - our own file in the user's data directory
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError("written by another version of tcoapp")
        return Recovery(key, data["scenario"], data.get("path"), float(data.get("saved_at") or os.path.getmtime(file)))
    except Exception as exc:  # noqa: BLE001 - any unpickling failure: keep the file for the user, say so
        aside = f"{file}.unreadable"
        with contextlib.suppress(OSError):
            os.replace(file, aside)
        raise ValueError(f"the recovery file could not be read ({type(exc).__name__}: {exc}); it is kept as "
                         f"{aside}") from None


def orphans(directory: str, own_key: str | None = None) -> tuple[list[Recovery], list[str]]:
    """Recovery files no other running tcoapp holds (newest first), and a message per unreadable one.
    `own_key`: the caller's document, whose lock it holds itself (a file it just opened)."""
    found, problems = [], []
    for file in glob.glob(os.path.join(glob.escape(directory), "*" + SUFFIX)):
        key = os.path.basename(file)[: -len(SUFFIX)]
        if key != own_key and not lock_for(directory, key).is_free():
            continue   # the document is open in a running instance: not a crash
        try:
            found.append(read(directory, key))
        except ValueError as exc:
            problems.append(str(exc))
    found.sort(key=lambda r: r.saved_at, reverse=True)
    return found, problems
