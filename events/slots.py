"""Which of a Redis Cluster's 16384 hash slots a command belongs to, computed here.

A key's slot is the CRC16 (XMODEM: `binascii.crc_hqx` from 0) of its hash tag (the text
between its first `{` and the first `}` after it, when that is not empty) or else of the
whole key, modulo 16384. Every key of a game carries the tag `{game_id}`, so a game's
commands and scripts all go to one slot and one node.

A command's key is its first argument, except for scripts (their first key), XREAD (the
first stream) and the commands that name no key (sent to any node).
"""

from __future__ import annotations

import binascii
from functools import lru_cache

#: One word of a command: hiredis packs each as its bulk string.
Argument = str | bytes | memoryview | int | float
Command = tuple[Argument, ...]

SLOTS = 16384  # the hash slots of every Redis Cluster

SCRIPTS = frozenset({"EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO"})
STREAM_READS = frozenset({"XREAD", "XREADGROUP"})
KEYLESS = frozenset(
    {
        "ASKING",
        "AUTH",
        "CLIENT",
        "CLUSTER",
        "COMMAND",
        "CONFIG",
        "DBSIZE",
        "ECHO",
        "FLUSHALL",
        "FLUSHDB",
        "FUNCTION",
        "HELLO",
        "INFO",
        "LASTSAVE",
        "PING",
        "READONLY",
        "SCRIPT",
        "SELECT",
        "TIME",
        "WAIT",
        "WAITAOF",
    }
)


def _word(argument: Argument) -> bytes:
    if isinstance(argument, bytes):
        return argument
    if isinstance(argument, memoryview):
        return argument.tobytes()
    return str(argument).encode()


def slot_of(key: Argument) -> int:
    """The hash slot of a key."""
    return _slot_of_text(key) if isinstance(key, str) else _slot_of_bytes(_word(key))


@lru_cache(maxsize=65536)
def _slot_of_text(key: str) -> int:
    # A game's few keys are used over and over: their slots are remembered.
    return _slot_of_bytes(key.encode())


def _slot_of_bytes(data: bytes) -> int:
    start = data.find(b"{")
    if start >= 0:
        end = data.find(b"}", start + 1)
        if end > start + 1:
            data = data[start + 1 : end]
    return binascii.crc_hqx(data, 0) % SLOTS


def routing_key(command: Command) -> Argument | None:
    """The key that decides where a command goes; None for a command that names none."""
    name = command[0]
    name = name.upper() if isinstance(name, str) else _word(name).decode(errors="replace").upper()
    if name in SCRIPTS:
        return command[3] if len(command) > 3 and int(command[2]) > 0 else None
    if name in STREAM_READS:
        words = [_word(word).upper() for word in command]
        return command[words.index(b"STREAMS") + 1] if b"STREAMS" in words[:-1] else None
    if name in KEYLESS or len(command) < 2:
        return None
    return command[1]


def slot_of_command(command: Command) -> int | None:
    """The slot a command must be sent to, or None when any node will do."""
    key = routing_key(command)
    return None if key is None else slot_of(key)
