"""Files that survive a crash: what the service writes to disk besides the store (the
server key, the archive's local files) is written whole, flushed, renamed into place, and
then its folder is flushed too, so that the new name itself survives."""

from __future__ import annotations

import os
from pathlib import Path


def sync_folder(folder: Path | str) -> None:
    """Make a change of names in `folder` (a rename, a link) durable."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


__all__ = ["sync_folder"]
