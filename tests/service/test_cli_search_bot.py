"""`poison play` against the search bot (`--bots mcts` or `mcts:N`, N playouts a move): here,
the bot plays with its playouts exactly as the service plays it; its strength is said once
beside its name; in a terminal, a search that takes visibly long shows who is thinking until
the answer comes; on a real `poison serve`, the seat is created with its playouts and the
waiting room says them. A bad bot or strength is refused alike by `play` and `simulate`."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import get_args

import httpx
import msgspec
import pyte
import pytest
from rich.console import Console
from rich.text import Text

from core.rulesets import RULESETS
from events.codec import Player
from events.play import create_game, play_move
from service import cli
from service.client import Client
from service.commands import play
from service.commands.arguments import Seat
from service.commands.play import LocalSeat, patiently
from service.commands.remote import RemoteSeat
from service.commands.screens import screen_for
from service.commands.screens.seat import Refused
from service.schemas import Playouts
from tests.service.command import Terminal, assert_one_line_refusal, read_through_isolates, shown_lines
from tests.service.command import poison_read as poison_here
from tests.service.served import serving

ANSWERS = "\n".join(["1"] * 400) + "\n"


def expected_totals(ruleset: str, bots: list[tuple[str, int | None]], seed: int, options: dict) -> str:
    """The final totals line of the game `poison play` must play when the person (seat 0)
    always picks their first legal move: played through events.play, as the service plays it."""
    names = ["you", *(f"{bot} bot {seat}" for seat, (bot, _) in enumerate(bots, 1))]
    players = (
        Player(seat=0, name="you"),
        *(
            Player(seat=seat, name=names[seat], bot=bot, playouts=msgspec.UNSET if playouts is None else playouts)
            for seat, (bot, playouts) in enumerate(bots, 1)
        ),
    )
    _, logged = create_game(ruleset, "expected", players, seed=seed, options=options)
    while not logged.finished:
        _, logged = play_move(logged, 0, logged.game.legal_moves()[0])
    totals = logged.game.totals
    return "final totals: " + ", ".join(f"{name} {total}" for name, total in zip(names, totals, strict=True))


@pytest.mark.parametrize(
    ("args", "bots", "options", "shown"),
    [
        (
            ["--ruleset", "pot", "--players", "2", "--bots", "mcts:200"],
            [("mcts", 200)],
            {},
            ["mcts bot 1 (200 playouts)"],
        ),
        (
            ["--players", "3", "--rounds", "1", "--bots", "greedy,mcts:150"],
            [("greedy", None), ("mcts", 150)],
            {"rounds": 1},
            ["greedy bot 1, mcts bot 2 (150 playouts)"],
        ),
        (
            ["--ruleset", "pot", "--players", "2", "--bots", "mcts"],
            [("mcts", None)],
            {},
            [f"mcts bot 1 ({RULESETS['pot'].default_playouts:,} playouts)"],
        ),
    ],
    ids=["pot-200", "poison-150-beside-greedy", "pot-default"],
)
def test_a_person_plays_a_whole_game_here_against_the_search_bot_as_the_service_plays_it(args, bots, options, shown):
    seed = 31
    result = poison_here("play", *args, "--seed", str(seed), stdin=ANSWERS)
    assert result.returncode == 0, result.stderr
    ruleset = args[args.index("--ruleset") + 1] if "--ruleset" in args else "poison"
    assert expected_totals(ruleset, bots, seed, options) in result.stdout
    headline = result.stdout.splitlines()[0]
    for words in shown:
        assert words in headline
    # The strength is said once, in the headline; a pipe's transcript has no spinner.
    assert result.stdout.count(" playouts)") == 1
    assert "thinking" not in result.stdout


# ---- the spinner: what a terminal shows while a move's answer takes long --------------------
#
# `patiently` is tested here with work the test holds for as long as it likes, never with a
# search long enough on this machine: how fast a search runs is no part of the behaviour.

#: What the spinner says, as a person waits for a search bot.
THINKING = "mcts bot 1 is thinking…"


def terminal_console(width: int = 60) -> Console:
    """A console that is a terminal, writing into a string the test reads."""
    return Console(file=io.StringIO(), force_terminal=True, width=width, height=10)


def written(out: Console) -> str:
    return out.file.getvalue()  # type: ignore[attr-defined]


def screen_of(out: Console) -> pyte.Screen:
    """What a terminal would show after everything written to `out`."""
    screen = pyte.Screen(out.width, 10)
    pyte.Stream(screen).feed(written(out))
    return screen


class Held:
    """Work that runs until the test lets it end (`release`), then returns `result` or raises
    `error`; `patiently(...)` run on a thread of the test's, its outcome kept."""

    def __init__(self, out: Console, *, result: object = None, error: BaseException | None = None) -> None:
        self.release = threading.Event()
        self.result, self.error = result, error
        self.outcome: list[tuple[str, object]] = []
        self.worked_on: list[int] = []
        self.caller = threading.Thread(target=self._call, args=(out,), daemon=True)
        self.caller.start()

    def work(self) -> object:
        self.worked_on.append(threading.get_ident())
        assert self.release.wait(60), "the test never released the work"
        if self.error is not None:
            raise self.error
        return self.result

    def _call(self, out: Console) -> None:
        try:
            self.outcome.append(("returned", patiently(out, lambda: Text(THINKING), self.work)))
        except BaseException as error:
            self.outcome.append(("raised", error))

    def finish(self) -> tuple[str, object]:
        self.release.set()
        self.caller.join(60)
        assert not self.caller.is_alive()
        return self.outcome[0]


def wait_until(seen: Callable[[], bool], what: str, timeout: float = 30) -> None:
    """Poll until `seen()` (a generous deadline, never a fixed sleep)."""
    deadline = time.monotonic() + timeout
    while not seen():
        assert time.monotonic() < deadline, f"never saw {what}"
        time.sleep(0.01)


def test_in_a_terminal_long_work_shows_the_spinner_s_words_until_it_ends_then_none_of_it():
    out = terminal_console()
    held = Held(out, result=42)
    wait_until(lambda: THINKING in written(out), "the spinner's words")
    assert held.outcome == []  # the words show while the work still runs
    assert THINKING in "\n".join(screen_of(out).display)
    assert held.finish() == ("returned", 42)
    # rich put the spinner away as it stopped: not a trace on the screen, the cursor back.
    screen = screen_of(out)
    assert all(not line.strip() for line in screen.display), screen.display
    assert not screen.cursor.hidden
    assert held.worked_on != [threading.get_ident()]  # on a thread of its own, as said


@pytest.mark.parametrize(
    "error", [Refused("no such move"), MemoryError("no tree"), KeyboardInterrupt()], ids=["refused", "memory", "ctrl-c"]
)
def test_the_work_s_exception_reaches_the_caller_and_the_spinner_is_put_away(error):
    out = terminal_console()
    held = Held(out, error=error)
    wait_until(lambda: THINKING in written(out), "the spinner's words")
    assert held.finish() == ("raised", error)
    assert all(not line.strip() for line in screen_of(out).display)


def test_work_that_ends_before_the_threshold_shows_nothing():
    out = terminal_console()
    assert patiently(out, lambda: Text(THINKING), lambda: "answer", after=60) == "answer"
    assert written(out) == ""
    with pytest.raises(Refused):
        patiently(out, lambda: Text(THINKING), partial(raise_refused, "taken"), after=60)
    assert written(out) == ""


def raise_refused(why: str) -> None:
    raise Refused(why)


def test_into_a_pipe_the_work_runs_as_it_is_called_and_nothing_is_added():
    out = Console(file=io.StringIO(), force_terminal=False)
    caller: list[int] = []
    assert patiently(out, lambda: Text(THINKING), lambda: caller.append(threading.get_ident()) or 7, after=0) == 7
    assert caller == [threading.get_ident()]  # no thread, no spinner, whatever it takes
    assert written(out) == ""


@pytest.mark.parametrize(
    ("bots", "words"),
    [
        ([Seat("mcts", 60_000)], "mcts bot 1 is thinking…"),
        ([Seat("greedy"), Seat("mcts")], "mcts bot 2 is thinking…"),
        ([Seat("mcts", 300)] * 5, "mcts bot 1, mcts bot 2, mcts bot 3, mcts bot 4, mcts bot 5 are thinking…"),
        ([Seat("greedy"), Seat("random")], "waiting for the game's answer…"),
    ],
    ids=["one", "one-of-two", "five", "none"],
)
def test_the_spinner_names_the_search_bots_the_person_waits_for(bots, words):
    seat = LocalSeat(RULESETS["pot"], bots, 0, 5, {})
    board = play.Terminal(seat, screen_for("pot"), terminal_console(), RULESETS["pot"].title)
    assert read_through_isolates(board.thinking().plain) == words


@pytest.mark.subprocess
def test_in_a_terminal_a_search_bot_s_move_is_told_on_the_redrawn_board_and_no_spinner_is_left():
    # Whether this search outlasts THINKING_AFTER (and the spinner shows) depends on the
    # machine: the tests above show the spinner; this one, that either way a real terminal
    # ends up with the bot's move told and nothing of the spinner left.
    args = ("play", "--ruleset", "pot", "--players", "2", "--bots", "mcts:60000", "--seed", "5")
    with Terminal(*args, columns=100, lines=30) as terminal:
        terminal.read_until(b"your move: ")
        terminal.answer(b"1\n", until=b"your move: ")
        seen = shown_lines(terminal.screen())
        assert not any("thinking" in line for line in seen), seen
        assert seen[0].startswith("The pot game: you are seat 0 against mcts bot 1 (60,000 playouts); seed 5.")
        assert any(re.match(r"mcts bot 1 plays T\d", line) for line in seen), seen
        assert sum(line.startswith("your hand:") for line in seen) == 1  # one board: redrawn, not added
        assert not terminal.screen().cursor.hidden
        os.write(terminal.master, b"q\n")
        assert terminal.wait(30) == 0


@pytest.mark.parametrize("command", [["play", "--players", "3"], ["simulate", "--games", "10"]], ids=" ".join)
@pytest.mark.parametrize(
    ("bots", "says"),
    [
        ("mcts:0", "'mcts:0': mcts:N searches N playouts a move, 1 to 200,000"),
        ("mcts:lots", "not 'lots'"),
        ("greedy:50", "'greedy:50': only mcts takes a strength"),
        ("random:5", "'random:5': only mcts takes a strength"),
        ("clever", "unknown bot 'clever': choose from random, greedy, mcts"),
    ],
)
def test_play_and_simulate_refuse_a_bad_search_bot_or_strength_in_one_line(command, bots, says):
    assert_one_line_refusal(poison_here(*command, "--bots", bots), command[0], says)


def test_play_help_says_how_the_search_bot_s_strength_is_written():
    helped = poison_here("play", "--help")
    assert helped.returncode == 0
    out = " ".join(helped.stdout.split())
    assert "mcts:N searches N playouts a move, 1 to 200,000" in out


@pytest.mark.parametrize("command", ["play", "simulate", "ladder"])
def test_the_help_of_a_command_with_the_search_bot_gives_its_default_playouts_and_no_time_of_its_own(command):
    # A time in the help ("about 50 ms a move") disagreed with the documents and would rot:
    # how long a move takes depends on the playouts and the machine, measured in one place.
    out = " ".join(poison_here(command, "--help").stdout.split())
    defaults = ", ".join(f"{ruleset.name} {ruleset.default_playouts:,}" for ruleset in RULESETS.values())
    assert f"(default: {defaults}; a move's time grows with N: docs/performance.md)" in out
    assert not re.search(r"\d\s*ms\b", out)


# ---- on a server ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(tmp_path_factory.mktemp("search-bot")) as base:
        yield base


@pytest.mark.subprocess
def test_on_a_server_the_search_bot_s_seat_is_created_with_its_playouts_and_played_to_the_end(server):
    result = poison_here(
        "play", "--server", server, "--ruleset", "pot", "--players", "3", "--bots", "mcts:150,mcts", stdin=ANSWERS
    )
    out = result.stdout
    assert result.returncode == 0, result.stderr
    headline = out.splitlines()[0]
    game_id = re.search(r"; game (\S+) at http://", headline).group(1)  # type: ignore[union-attr]
    default = RULESETS["pot"].default_playouts
    assert f"against mcts bot 1 (150 playouts), mcts bot 2 ({default:,} playouts);" in headline
    view = httpx.get(f"{server}/v1/games/{game_id}").json()
    assert view["status"] == "finished"
    assert [(p["bot"], p.get("playouts")) for p in view["players"]] == [(None, None), ("mcts", 150), ("mcts", default)]
    assert "final totals: you " in out


@pytest.mark.subprocess
def test_the_waiting_room_says_each_search_bot_s_strength_once(server):
    args = ["play", "--server", server, "--ruleset", "pot", "--players", "3", "--open", "1", "--bots", "mcts:300"]
    waiting = subprocess.Popen(
        [sys.executable, "-m", "service.cli", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert waiting.stdout is not None
    try:
        seen = b""
        while b"Ctrl-C leaves your seat" not in seen:
            chunk = waiting.stdout.read1(65536)  # type: ignore[attr-defined]
            assert chunk, seen
            seen += chunk
        first = read_through_isolates(seen.decode()).splitlines()[0]
        assert first.endswith("waits for players: seat 0 you, seat 1 (open), seat 2 mcts bot 2 (300 playouts)")
        waiting.send_signal(signal.SIGINT)  # gives the seat back
        out, _ = waiting.communicate(timeout=30)
        assert b"you left seat 0" in out
    finally:
        if waiting.poll() is None:
            waiting.kill()
            waiting.communicate()


@pytest.mark.subprocess
def test_a_strength_beyond_the_server_s_bounds_is_the_server_s_refusal_in_one_line(server):
    bounds = get_args(Playouts)[1]  # the service's, below the engine's
    fewest, most = bounds.ge, bounds.le
    args = ["play", "--server", server, "--ruleset", "pot", "--players", "2", "--bots", f"mcts:{most + 1}"]
    refused = poison_here(*args)
    assert_one_line_refusal(refused, "play", "playouts")
    assert f"playouts must be a whole number from {fewest} to {most:,}, not {most + 1}" in refused.stderr


@pytest.mark.subprocess
def test_on_a_server_the_spinner_names_every_search_bot_the_person_waits_for(server):
    # The words of the spinner, from the server's view of the seats (in this process: the
    # spinner itself is tested above, with work held as long as the test likes).
    args = cli.parser().parse_args(
        ["play", "--server", server, "--ruleset", "pot", "--players", "6", "--bots", "greedy,mcts:300,mcts,random,mcts"]
    )
    with Client(server) as client:
        seat = RemoteSeat.create(client, args)
        board = play.Terminal(seat, seat.screen, terminal_console(), seat.screen.ruleset.title)
        assert read_through_isolates(board.thinking().plain) == "mcts bot 2, mcts bot 3, mcts bot 5 are thinking…"


@pytest.mark.subprocess
def test_on_a_server_in_a_terminal_the_search_bots_moves_are_told_and_no_spinner_is_left(server):
    # Five search bots at the service's most playouts: the answer waits for five searches,
    # which may or may not outlast THINKING_AFTER here (and show the spinner); either way
    # the board is redrawn with their moves and nothing of the spinner is left.
    most = get_args(Playouts)[1].le
    args = ("play", "--server", server, "--ruleset", "pot", "--players", "6", "--bots", f"mcts:{most}", "--seed", "2")
    with Terminal(*args, columns=120, lines=30) as terminal:
        terminal.read_until(b"your move: ")
        terminal.answer(b"1\n", until=b"your move: ")
        seen = shown_lines(terminal.screen())
        assert not any("thinking" in line for line in seen), seen
        assert [bot for bot in range(1, 6) if any(line.startswith(f"mcts bot {bot} plays T") for line in seen)] == [
            1,
            2,
            3,
            4,
            5,
        ], seen
        os.write(terminal.master, b"q\n")
        assert terminal.wait(30) == 0
