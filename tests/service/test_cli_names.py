"""Any text from outside (a player's name, a game id) reaches a console through
`service.commands.literal` and is shown exactly as written, wherever the markup around it puts
it, with the characters a terminal would obey written out instead."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from service.commands import console, literal, visible

#: What a screen may put right after a name, as markup, and what it shows.
AFTER = {"": "", " (dealer)": " (dealer)", "[red]![/red]": "!", "[/bold]": ""}


def shown(markup: str, emoji: bool) -> str:
    out = console(width=10_000, emoji=emoji)
    with out.capture() as captured:
        out.print(markup, end="")
    return captured.get()


@given(st.text(), st.sampled_from(sorted(AFTER)), st.booleans())
@example("[/]", "", False)
@example("ada [greedy]", " (dealer)", False)
@example("zed\\", "[red]![/red]", False)
@example("\\\\", "", False)
@example(":smile: :+1:", "", True)
@example("a\x1b[2Jb\nc\u202ed", "", False)
def test_a_name_is_shown_exactly_as_written_whatever_follows_it(name, after, emoji):
    assert shown(f"[bold]{literal(name)}{after}", emoji) == visible(name) + AFTER[after]


@given(st.text())
def test_visible_text_holds_no_character_a_terminal_would_act_on(text):
    made = visible(text)
    assert all(ord(c) >= 0x20 and not 0x7F <= ord(c) <= 0x9F for c in made)
    assert not set(made) & set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029")
    assert visible(made) == made


def test_visible_leaves_printable_names_alone_and_writes_controls_out():
    assert visible("ada [greedy] :smile: ünïcödé 名前") == "ada [greedy] :smile: ünïcödé 名前"
    assert visible("a\x1b[31mb\tc\nd\u202ee\x9b") == "a\\x1b[31mb\\tc\\nd\\u202ee\\x9b"
