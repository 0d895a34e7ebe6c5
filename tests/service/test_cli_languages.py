"""The command line in the five languages of the catalogues (service/static/i18n): `poison
play` chosen by LANG or --lang, every `cli.` message a command writes from the catalogue,
and every seat's name, in any script, isolated between FSI and PDI (service.i18n.isolated)."""

from __future__ import annotations

import errno
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table

from core.rulesets import RULESETS
from events.codec import Player
from events.play import create_game, play_move
from service import i18n
from service.cli import COMMANDS
from service.commands import replay, serve
from service.commands.screens import Players, screen_for
from service.settings import Settings
from service.views import game_view, scores
from tests.service.command import poison_here

#: A locale of each language, as a terminal's LANG names it.
LOCALES = {"en": "en_GB.UTF-8", "pt": "pt_BR.UTF-8", "zh": "zh_CN.UTF-8", "ru": "ru_RU.UTF-8", "fa": "fa_IR.UTF-8"}
#: No locale variable but the one a test gives.
NO_LOCALE: dict[str, str | None] = dict.fromkeys(i18n.LOCALE_VARIABLES)
#: A game of `poison play` that ends: the person always plays their first move.
PLAY = ("play", "--players", "3", "--rounds", "1", "--seed", "3")
ANSWERS = "1\n" * 60
#: Names in four scripts: Latin, Cyrillic, Chinese, Persian.
NAMES = ("Ada", "Дмитрий", "李华", "سارا")
SOURCE_FILES = sorted((Path(__file__).resolve().parents[2] / "service").rglob("*.py"))


def cli_keys() -> list[str]:
    return [key for key in i18n.catalogue(i18n.SOURCE) if key.startswith("cli.")]


def literal_words(parts: list[Any]) -> list[str]:
    """The words a message writes whatever its arguments: its text outside any placeholder."""
    return [part.strip() for part in parts if isinstance(part, str) and len(re.sub(r"\W", "", part)) >= 4]


def english_left(stdout: str, code: str) -> list[str]:
    """English words of `cli.` messages on the screen that the language's own catalogue does
    not also use (a card code such as 'R5 0' is the same in every language), nor a
    ruleset's name ("ruleset poison")."""
    own = " ".join(i18n.catalogue(code).values())
    return sorted(
        {
            words
            for key in cli_keys()
            for words in literal_words(i18n.parsed(i18n.SOURCE, key))
            if words in stdout and words not in own and words not in RULESETS
        }
    )


@pytest.mark.parametrize("code", list(LOCALES))
def test_poison_play_speaks_the_language_lang_names(code):
    result = poison_here(*PLAY, stdin=ANSWERS, env={**NO_LOCALE, "LANG": LOCALES[code]})
    words = i18n.Words(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(words("poison.title"))
    assert words("cli.final", totals="") in result.stdout
    assert words("cli.play.hand", cards="") in result.stdout
    if code != i18n.SOURCE:
        assert english_left(result.stdout, code) == []


def test_persian_numbers_are_written_in_persian_digits():
    result = poison_here(*PLAY, stdin=ANSWERS, env={**NO_LOCALE, "LANG": LOCALES["fa"]})
    header = result.stdout.splitlines()[0]
    assert "در جای ۰ هستید" in header  # seat 0, in Persian digits
    assert re.search(r"جمع‌های نهایی: .*[۰-۹]", result.stdout)


def test_russian_plurals_take_their_three_forms():
    words = i18n.Words("ru")
    assert [words("cli.pot.cards", count=n) for n in (1, 3, 5)] == ["1 карта", "3 карты", "5 карт"]
    assert [words("cli.playouts", count=n) for n in (21, 22, 2000)] == [
        "21 симуляция",
        "22 симуляции",
        "2\xa0000 симуляций",
    ]


def test_lang_wins_over_the_locale_variables():
    result = poison_here(*PLAY, "--lang", "pt", stdin=ANSWERS, env={**NO_LOCALE, "LC_ALL": LOCALES["ru"]})
    assert result.returncode == 0, result.stderr
    assert i18n.Words("pt")("cli.final", totals="") in result.stdout
    assert "итоговые" not in result.stdout


def test_lc_all_wins_over_lang_and_c_means_english():
    russian = poison_here(*PLAY, stdin=ANSWERS, env={**NO_LOCALE, "LC_ALL": LOCALES["ru"], "LANG": LOCALES["zh"]})
    assert "итоговые суммы: " in russian.stdout
    english = poison_here(*PLAY, stdin=ANSWERS, env={**NO_LOCALE, "LC_ALL": "C", "LANG": LOCALES["zh"]})
    assert "final totals: " in english.stdout


@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_unknown_lang_is_refused_by_every_command_naming_the_five(command):
    result = poison_here(command, "--lang", "de")
    assert result.returncode == 2
    assert result.stdout == ""
    assert "no language 'de': choose one of en (English), pt (Português), zh (简体中文), ru (Русский), fa (فارسی)" in (
        result.stderr
    )


def played_to_the_end() -> tuple[list[Any], Any]:
    """A game of four seats named in four scripts, played through as the service plays it;
    every event of it, and the finished game."""
    players = tuple(Player(seat=seat, name=name) for seat, name in enumerate(NAMES))
    log, logged = create_game("poison", "scripts", players, seed=11, options={"rounds": 2})
    while not logged.finished:
        caused, logged = play_move(logged, logged.game.turn, logged.game.legal_moves()[0])
        log += caused
    return log, logged


def shown(*renderables: Any) -> str:
    out = Console(file=io.StringIO(), width=200, emoji=False, highlight=False)
    for renderable in renderables:
        out.print(renderable)
    return out.file.getvalue()  # type: ignore[attr-defined]


@pytest.mark.parametrize("code", list(LOCALES))
def test_every_name_in_four_scripts_is_isolated_in_a_sentence_and_alone_in_a_cell(code):
    log, logged = played_to_the_end()
    i18n.use(code)
    try:
        screen = screen_for("poison")
        view = game_view(logged, seat=None)
        players = Players.of(NAMES, None)
        screens = [
            *screen.narrate(log, players, view),
            *screen.board(view, players),
            screen.score_sheet(scores(logged), players),
            *screen.ending(scores(logged), players),
        ]
        sentences = shown(*(renderable for renderable in screens if not isinstance(renderable, Table)))
        cells = shown(*(renderable for renderable in screens if isinstance(renderable, Table)))
    finally:
        i18n.use(i18n.SOURCE)
    for name in NAMES:
        assert sentences.count(name) > 0
        assert sentences.count(name) == sentences.count(i18n.isolated(name)), name
        assert cells.count(name) > 0
    assert i18n.FSI not in cells
    assert i18n.PDI not in cells


def test_every_cli_message_is_used_and_every_one_used_exists():
    source = "\n".join(path.read_text(encoding="utf-8") for path in SOURCE_FILES)
    named = set(re.findall(r"\"(cli\.[a-z_.]+[a-z_])\"", source))
    # A key made from a column's or a colour's name: f"cli.column.{column}".
    prefixes = set(re.findall(r"f\"(cli\.[a-z_.]+\.)\{", source))
    # A key of each ruleset's screen: f"cli.{self.ruleset.name}.help".
    named |= {
        f"cli.{ruleset}.{rest}"
        for rest in re.findall(r"f\"cli\.\{self\.ruleset\.name\}\.([a-z_]+)\"", source)
        for ruleset in RULESETS
    }
    keys = set(cli_keys())
    assert named - keys == set()
    assert {key for key in keys if key not in named and not key.startswith(tuple(prefixes))} == set()


@pytest.mark.parametrize("code", [code for code in LOCALES if code != i18n.SOURCE])
@pytest.mark.parametrize(
    "args",
    [
        ("simulate", "--games", "20", "--players", "3", "--seed", "1"),
        ("ladder", "--games", "4", "--players", "3", "--bots", "random,greedy", "--seed", "1"),
    ],
    ids=["simulate", "ladder"],
)
def test_simulate_and_ladder_speak_the_language_lang_names(code, args):
    result = poison_here(*args, env={**NO_LOCALE, "LANG": LOCALES[code]})
    assert result.returncode == 0, result.stderr
    assert i18n.Words(code)("cli.column.wins") in result.stdout
    assert english_left(result.stdout, code) == []


def test_a_refused_move_is_said_in_the_language_from_its_code():
    hand = create_game("poison", "hand", tuple(Player(seat=s, name=f"p{s}") for s in range(3)), seed=8, options={})[1]
    missing = next(card for card in RULESETS["poison"].card_codes if card not in hand.game.hand(0))
    answers = "\n".join([f"{missing} 0", *["1"] * 60]) + "\n"
    result = poison_here(*PLAY[:-1], "8", "--lang", "ru", stdin=answers)
    assert result.returncode == 0
    assert f"ваш ход: {missing} 0\nУ вас нет этой карты — ход — это его номер в списке" in result.stdout


def drawn(line: str) -> str:
    """`line` as a terminal that draws FSI and PDI as one-cell marks (tmux) lays it out: one
    character a cell, a wide one (李) followed by a filler ("\0") for its second cell."""
    cells = []
    for character in line:
        width = 1 if character in (i18n.FSI, i18n.PDI) else cell_len(character)
        cells.append(character + "\0" * (width - 1) if width else "")
    return "".join(cells)


def rows_out_of_line(table: Any, column: str) -> list[str]:
    """The rows of a borderless table whose value in the column headed `column` does not
    start in the cell where that header does, as tmux lays them out."""
    out = Console(file=io.StringIO(), width=120, emoji=False, highlight=False)
    out.print(table)
    header, *rows = map(drawn, out.file.getvalue().splitlines())  # type: ignore[attr-defined]
    start = header.index(column)
    return [row for row in rows if row[start - 1] != " " or row[start] in " \0"]


@pytest.mark.parametrize("code", ["ru", "fa"])
def test_the_seat_tables_columns_line_up_where_the_terminal_draws_isolates_as_marks(code):
    """tmux draws FSI and PDI as a cell each: a name alone in a cell goes without them, so
    every row's "in hand" starts under its header, whatever script the names are in."""
    _, logged = played_to_the_end()
    i18n.use(code)
    try:
        seats = screen_for("poison").board(game_view(logged, seat=None), Players.of(NAMES, None))[-1]
        hand = i18n.words()("cli.column.hand")
    finally:
        i18n.use(i18n.SOURCE)
    assert rows_out_of_line(seats, hand) == []


@pytest.mark.parametrize("code", [code for code in LOCALES if code != i18n.SOURCE])
@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_is_in_the_language_lang_names(code, command):
    """`poison --help` and each command's: argparse's own words too ("usage:", "options")."""
    result = poison_here(*([command] if command else []), "--help", env={**NO_LOCALE, "LANG": LOCALES[code]})
    words = i18n.Words(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(words("cli.argparse.usage") + "poison")
    assert words("cli.argparse.options") in result.stdout
    shown = result.stdout.replace(replay.LOG_SHAPE, "")  # a log's JSON, as it is written
    if command == "serve":
        # The settings' descriptions (the flags' help and the list after them) are docs/serve.md's, in English.
        shown = shown.split(words("cli.argparse.options"))[0]
        assert words("cli.help.serve.settings") in result.stdout
    assert english_left(shown, code) == []


@pytest.mark.parametrize("code", list(LOCALES))
def test_argparses_own_errors_are_in_the_language_lang_names(code):
    words = i18n.Words(code)
    missing = poison_here("replay", "--lang", code)
    assert missing.returncode == 2
    assert missing.stderr.startswith(words("cli.argparse.usage") + "poison replay")
    required = words("cli.argparse.one_required", value="log --game --archive")
    assert missing.stderr.endswith(words("cli.argparse.error", prog="poison replay", message=required))
    unknown = poison_here("simulate", "--lang", code, "--bogus")
    message = words("cli.argparse.unrecognized", value="--bogus")
    assert unknown.stderr.endswith(words("cli.argparse.error", prog="poison simulate", message=message))
    wrong = poison_here("simulate", "--games", "many", env={**NO_LOCALE, "LANG": LOCALES[code]})
    value = words("cli.error.whole_number", text="many")
    message = words("cli.argparse.argument", argument_name="--games", message=value)
    assert wrong.stderr.endswith(words("cli.argparse.error", prog="poison simulate", message=message))


@pytest.mark.parametrize("code", list(LOCALES))
def test_a_refused_option_is_said_in_the_language_lang_names(code):
    words = i18n.Words(code)
    result = poison_here("simulate", "--lang", code, "--games", "0")
    assert result.returncode == 2
    refusal = words("cli.error.simulate.games", low=1, high=1_000_000_000, games=0)
    assert result.stderr == f"poison simulate: {refusal}\n"
    ruleset = poison_here("simulate", "--ruleset", "pot", "--rounds", "2", env={**NO_LOCALE, "LANG": LOCALES[code]})
    assert ruleset.stderr == "poison simulate: {}\n".format(
        words("cli.error.not_an_option", name="rounds", ruleset="pot", options="none")
    )
    if code != i18n.SOURCE:
        assert english_left(result.stderr + ruleset.stderr, code) == []


@pytest.mark.parametrize("code", list(LOCALES))
def test_serve_says_where_to_open_the_table_in_the_readers_language(code, capsys):
    settings = Settings.from_environment(port=8123)
    i18n.use(code)
    try:
        serve.said_as = "text"
        serve.say_listening(settings)
        refused = serve.CannotListen.of(settings, OSError(errno.EADDRINUSE, "Address already in use"))
        serve.tell(refused.key, **refused.fields)
        serve.said_as = "json"
        serve.say_listening(settings)
    finally:
        serve.said_as = "text"
        i18n.use(i18n.SOURCE)
    listening, in_use, record = capsys.readouterr().err.splitlines()
    words = i18n.Words(code)
    table = "http://127.0.0.1:8123/"
    expected = words("cli.serve.listening", url=table[:-1], workers=1, table=table, docs=f"{table}schema/swagger")
    assert listening == f"poison serve: {expected}"
    assert in_use.startswith("poison serve: ")
    assert "8123" in in_use
    assert "--port" in in_use
    assert in_use.removeprefix("poison serve: ") == words("cli.serve.in_use", **refused.fields)
    if code != i18n.SOURCE:
        assert english_left(listening + in_use, code) == []
    # A JSON record is for an operator's tools: in English, whatever the reader's language.
    assert json.loads(record)["message"].startswith("listening on http://127.0.0.1:8123 (1 worker)")
