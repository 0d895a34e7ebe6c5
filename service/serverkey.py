"""Where the server key comes from: the `secret_key` setting (POISON_SECRET_KEY) when it is
given; else, for the service proper (`poison serve` and its workers), a key file in the
data directory, made once and read by every worker and every restart, so that tokens
outlive the process; else (an application built in-process, as the tests build it) a key
drawn once per process.

The key file is made atomically: written whole under a name of its own (mode 0600), then
linked to its place, which fails if another process linked one first, whose key is then
read instead. So workers starting at once, or two services on one data directory, agree.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from events.durable import sync_folder
from service.tokens import KEY_BYTES, MIN_KEY_LENGTH, ServerKey, url_safe

#: The key file's name in the data directory.
KEY_FILE = "secret-key"

#: The key of applications built in-process without one: the same for every application
#: of this process (so two of them agree on tokens), and gone with it.
_PROCESS_KEY = url_safe(KEY_BYTES)


class KeyFileError(Exception):
    """The data directory's key file cannot be read or made, or holds no key."""


def process_key() -> ServerKey:
    return ServerKey(_PROCESS_KEY)


def key_file(data_dir: Path) -> Path:
    return data_dir / KEY_FILE


def read_or_make(data_dir: Path) -> tuple[str, bool]:
    """The key in `data_dir`'s key file, made first if there is none; and whether it was
    made now. KeyFileError, in words, when it cannot be."""
    path = key_file(data_dir)
    made = False
    if not path.exists():
        made = _make(path)
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as error:
        raise KeyFileError(f"cannot read the server key {path}: {error}") from None
    if len(text) < MIN_KEY_LENGTH:
        raise KeyFileError(f"the server key file {path} holds fewer than {MIN_KEY_LENGTH} characters")
    return text, made


def too_open(data_dir: Path) -> bool:
    """Whether the key file may be read by anyone but its owner."""
    return bool(key_file(data_dir).stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO))


def _make(path: Path) -> bool:
    """Write a new key to `path` unless another process did first; True if this one did."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        draft = path.with_name(f".{path.name}.{os.getpid()}.{url_safe(6)}")
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(descriptor, "w", encoding="ascii") as written:
                written.write(url_safe(KEY_BYTES) + "\n")
                written.flush()
                os.fsync(written.fileno())
            try:
                os.link(draft, path)  # atomic, and refused if a key is there already
            except FileExistsError:
                return False
            sync_folder(path.parent)  # the link itself survives a crash
            return True
        finally:
            with contextlib.suppress(FileNotFoundError):
                draft.unlink()
    except OSError as error:
        raise KeyFileError(f"cannot make the server key {path}: {error}") from None
