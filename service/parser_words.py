"""argparse's own words (`usage:`, `options`, `the following arguments are required`, ...)
in the reader's language, from the `cli.argparse.` messages of the catalogues.

argparse asks the standard library's gettext for every word it writes
(`from gettext import gettext as _`): that is its public hook for translations, so nothing
of argparse is touched here. gettext reads compiled catalogues (.mo files) from a directory
(`gettext.bindtextdomain`) for the language the LANGUAGE variable names. `speaking(code)`
writes the one catalogue argparse needs, made with Babel from our ICU messages, into a
private temporary directory, points gettext's current domain at it and sets LANGUAGE, for as
long as a parser is built and reads the command line (every help, usage and error argparse
writes is written then), and puts everything back afterwards. English is argparse's own.
"""

from __future__ import annotations

import contextlib
import gettext
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo

from service import i18n

#: The gettext domain of argparse's words while a parser reads the command line.
DOMAIN = "poison-argparse"
#: Each text argparse asks gettext for that a person can be shown (its own mistakes of
#: configuration, never shown to one, stay as they are), with the catalogue's message for
#: it. A placeholder `%(name)s` is the message's argument `name`; a lone `%s` or `%r` is `value`.
MESSAGES = {
    "usage: ": "cli.argparse.usage",
    "positional arguments": "cli.argparse.positionals",
    "options": "cli.argparse.options",
    "show this help message and exit": "cli.argparse.help",
    "%(prog)s: error: %(message)s\n": "cli.argparse.error",
    "argument %(argument_name)s: %(message)s": "cli.argparse.argument",
    "unrecognized arguments: %s": "cli.argparse.unrecognized",
    "the following arguments are required: %s": "cli.argparse.required",
    "one of the arguments %s is required": "cli.argparse.one_required",
    "not allowed with argument %s": "cli.argparse.not_allowed",
    "ignored explicit argument %r": "cli.argparse.ignored",
    "expected one argument": "cli.argparse.expected_one",
    "expected at most one argument": "cli.argparse.expected_at_most_one",
    "expected at least one argument": "cli.argparse.expected_at_least_one",
    "ambiguous option: %(option)s could match %(matches)s": "cli.argparse.ambiguous",
    "invalid %(type)s value: %(value)r": "cli.argparse.invalid_value",
    "invalid choice: %(value)r (choose from %(choices)s)": "cli.argparse.invalid_choice",
    "unknown parser %(parser_name)r (choices: %(choices)s)": "cli.argparse.unknown_parser",
}
#: A printf-style placeholder of argparse's texts: named, or the lone value.
_PLACEHOLDER = re.compile(r"%(?:\((\w+)\))?[sr]")


def translated(code: str, text: str) -> str:
    """The catalogue's message for argparse's `text`, with argparse's own placeholders where
    the message puts its arguments (and any other % doubled, as printf-style text needs)."""
    marks = {match.group(1) or "value": match.group(0) for match in _PLACEHOLDER.finditer(text)}
    written = i18n.Words(code)(MESSAGES[text], **{name: f"\0{name}\0" for name in marks})
    written = written.replace("%", "%%")
    for name, mark in marks.items():
        written = written.replace(f"\0{name}\0", mark)
    return written


def compiled(code: str) -> bytes:
    """The .mo catalogue of argparse's words in `code`."""
    catalog = Catalog(locale=code, domain=DOMAIN, charset="utf-8")
    for text in MESSAGES:
        catalog.add(text, translated(code, text))
    with tempfile.TemporaryFile() as file:
        write_mo(file, catalog)
        file.seek(0)
        return file.read()


@contextlib.contextmanager
def speaking(code: str) -> Iterator[None]:
    """argparse writes its words in `code` within the block (in English, its own, for English)."""
    if code == i18n.SOURCE:
        yield
        return
    with tempfile.TemporaryDirectory(prefix="poison-argparse-") as root:
        where = Path(root, code, "LC_MESSAGES")
        where.mkdir(parents=True)
        (where / f"{DOMAIN}.mo").write_bytes(compiled(code))
        domain = gettext.textdomain()
        language = os.environ.get("LANGUAGE")
        gettext.bindtextdomain(DOMAIN, root)
        gettext.textdomain(DOMAIN)
        # gettext takes the language from the environment alone; LANGUAGE is read first.
        os.environ["LANGUAGE"] = code
        try:
            yield
        finally:
            gettext.textdomain(domain)
            if language is None:
                os.environ.pop("LANGUAGE", None)
            else:
                os.environ["LANGUAGE"] = language
