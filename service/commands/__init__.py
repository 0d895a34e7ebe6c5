"""The subcommands of `poison`: serve, replay, simulate, play. Each module has `add(parser)`
to declare its arguments and `run(args) -> exit code`; errors go to stderr, one line each.

Every text that comes from outside (a player's name, a game id, what a person typed) is
shown through `literal` before rich reads it as markup (or `visible` before it is printed
plainly): rich would take `[/]` or `ada [greedy]` as markup and `:smile:` as an emoji, and
the terminal would obey an escape sequence in a name.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Protocol

from rich.console import Console
from rich.markup import escape

from service.i18n import words


class Commands(Protocol):
    """What each module's `add` is given: the `poison` parser's subcommands, as
    `add_subparsers()` returns them (argparse names their class only privately)."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser: ...


def add_command(
    commands: Commands, name: str, described: dict[str, Any] | None = None, **parser: Any
) -> argparse.ArgumentParser:
    """The subcommand `name`, with its help and description in the catalogue's words
    (`cli.help.<name>`, and `cli.help.<name>.description` given `described`'s arguments)."""
    said = words()
    description = said(f"cli.help.{name}.description", **(described or {}))
    return commands.add_parser(name, help=said(f"cli.help.{name}"), description=description, **parser)


class CommandError(Exception):
    """A clear message for the user and an exit code (2: bad usage or input, 1: failure)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def fail(command: str, error: Exception | str, code: int) -> int:
    # The message may carry text from outside (a server's detail, a log's names): seen, not obeyed.
    print(f"poison {command}: {visible(str(error))}", file=sys.stderr)
    return code


#: Characters that reorder the text after them (bidirectional controls): shown, not obeyed,
#: so a name cannot make the rest of a line read backwards.
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
#: Line and paragraph separators: a name must not start a line of its own.
_SEPARATORS = frozenset("\u2028\u2029")


def _obeyed(character: str) -> bool:
    """Whether a terminal would act on the character rather than draw it: C0 and C1
    controls (escape, carriage return, newline, bell, ...), and the characters above."""
    code = ord(character)
    return code < 0x20 or 0x7F <= code <= 0x9F or character in _BIDI_CONTROLS or character in _SEPARATORS


def visible(text: str) -> str:
    """`text` with every character a terminal would obey written out as Python writes it
    (`\\x1b`, `\\n`, `\\u202e`), so that it is seen rather than acted on."""
    if not any(_obeyed(character) for character in text):
        return text
    return "".join(
        character.encode("unicode_escape").decode("ascii") if _obeyed(character) else character for character in text
    )


#: Markup for an empty span: it shows nothing, but rich reads the text on either side of it
#: as two runs, so neither an emoji code nor a run of backslashes spans it.
_NOTHING = "[bold][/bold]"


def literal(text: str) -> str:
    """Markup that rich shows as exactly `text` (its controls made visible) wherever it is
    put, with emoji codes on or off: how every name and id from outside reaches a console."""
    shown = visible(text)
    body = shown.rstrip("\\")
    trailing = len(shown) - len(body)
    # `:smile:` is an emoji only within one run of text: split it after each colon.
    markup = escape(body).replace(":", ":" + _NOTHING)
    if trailing:
        # rich.markup.escape doubles one trailing backslash, for a tag that may follow,
        # but shown alone it stays doubled. Backslashes before a tag are halved: twice as
        # many, then a tag of our own, whatever follows.
        markup += "\\" * (2 * trailing) + _NOTHING
    return markup


def console(*, stderr: bool = False, **options: Any) -> Console:
    """A rich console that never breaks lines of text and never turns `:name:` into an
    emoji (a player may well be called `:smile:`); into a pipe or a file it is 120 columns
    wide rather than rich's 80, so tables stay readable in logs."""
    if "width" not in options:
        options["width"] = None if Console(stderr=stderr).is_terminal else 120
    options.setdefault("emoji", False)
    return Console(stderr=stderr, soft_wrap=True, **options)
