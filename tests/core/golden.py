"""Golden files that a generator may not overwrite silently, for both games' playthroughs.

A generator writes a missing file and leaves an equal one alone; a file that differs is
refused (naming its first changed line) unless the person running it says `--accept`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from pathlib import Path


def first_difference(old: str, new: str) -> str | None:
    """The first line where two renderings differ, said for a person; None if equal."""
    if old == new:
        return None
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    for number, (was, now) in enumerate(zip(old_lines, new_lines, strict=False), start=1):
        if was != now:
            return f"line {number}: recorded {was!r}, now {now!r}"
    number = min(len(old_lines), len(new_lines)) + 1
    return f"line {number}: one rendering ends there ({len(old_lines)} recorded lines, {len(new_lines)} now)"


def write(files: Iterable[tuple[Path, str]], *, accept: bool) -> int:
    """Write each (path, text); 1 if a file that differs was refused, else 0."""
    refused = 0
    for path, text in files:
        if path.exists():
            difference = first_difference(path.read_text(), text)
            if difference is None:
                print(f"unchanged {path}")
                continue
            if not accept:
                print(f"REFUSED {path} differs at {difference} (read the diff; --accept to overwrite)")
                refused += 1
                continue
        path.write_text(text)
        print(f"wrote {path}")
    return 1 if refused else 0


def main(
    argv: list[str] | None, description: str, folder: Path, files: Callable[[Path], Iterable[tuple[Path, str]]]
) -> int:
    """A generator's command line: `files(folder)` gives each file's path and text."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--accept", action="store_true", help="overwrite files that differ (read the diff first)")
    parser.add_argument("--dir", type=Path, default=folder, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.dir.mkdir(exist_ok=True)
    return write(files(args.dir), accept=args.accept)
