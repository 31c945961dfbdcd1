"""What a file looked like when it was opened or saved, to notice a change made elsewhere."""
from __future__ import annotations

import os


def file_stamp(path) -> tuple[int, int] | None:
    """(modification time in ns, size), or None when the file does not exist."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size
