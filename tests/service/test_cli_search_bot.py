"""`poison play` against the search bot (`--bots mcts` or `mcts:N`, N playouts a move): here,
the bot plays with its playouts exactly as the service plays it; its strength is said once
beside its name; in a terminal, a search that takes visibly long shows who is thinking until
the answer comes; on a real `poison serve`, the seat is created with its playouts and the
waiting room says them."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import get_args

import httpx
import msgspec
import pytest

from core.rulesets import RULESETS
from events.codec import Player
from events.play import create_game, play_move
from service.cli import main
from service.commands.play import THINKING_AFTER
from service.schemas import Playouts
from tests.service.command import Terminal, assert_one_line_refusal, shown_lines
from tests.service.served import serving

ANSWERS = "\n".join(["1"] * 400) + "\n"


def played(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str
) -> subprocess.CompletedProcess:
    """`poison play ARGS` run in this process (a subprocess's start takes seconds here), the
    person answering 1 to every question through a pipe: its status and output."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(ANSWERS))
    status = main(["play", *args])
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(args, status, out, err)


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
def test_a_person_plays_a_whole_game_here_against_the_search_bot_as_the_service_plays_it(
    args, bots, options, shown, capsys, monkeypatch
):
    seed = 31
    result = played(capsys, monkeypatch, *args, "--seed", str(seed))
    assert result.returncode == 0, result.stderr
    ruleset = args[args.index("--ruleset") + 1] if "--ruleset" in args else "poison"
    assert expected_totals(ruleset, bots, seed, options) in result.stdout
    headline = result.stdout.splitlines()[0]
    for words in shown:
        assert words in headline
    # The strength is said once, in the headline; a pipe's transcript has no spinner.
    assert result.stdout.count(" playouts)") == 1
    assert "thinking" not in result.stdout


@pytest.mark.subprocess
def test_in_a_terminal_a_long_search_shows_who_is_thinking_until_its_move_comes():
    assert THINKING_AFTER < 0.2  # a search of the size below takes longer
    # 60,000 playouts a move (the engine's bounds, here) take about half a second on this
    # machine, past the moment (150 ms) after which the terminal says who it waits for.
    args = ("play", "--ruleset", "pot", "--players", "2", "--bots", "mcts:60000", "--seed", "5")
    with Terminal(*args, columns=100, lines=30) as terminal:
        terminal.read_until(b"your move: ")
        before = len(terminal.output)
        os.write(terminal.master, b"1\n")
        deadline = time.monotonic() + 30
        while b"mcts bot 1 is thinking" not in terminal.output[before:]:
            assert time.monotonic() < deadline, terminal.output[before:][-500:]
            terminal._read(1)
        assert "mcts bot 1 is thinking…" in shown_lines(terminal.screen())[-1]
        # Then its move is told and the spinner is gone from the redrawn board.
        while b"your move: " not in terminal.output[before:]:
            assert time.monotonic() < deadline, terminal.output[before:][-500:]
            terminal._read(1)
        seen = shown_lines(terminal.screen())
        assert not any("thinking" in line for line in seen), seen
        assert any(re.match(r"mcts bot 1 plays T\d", line) for line in seen), seen
        os.write(terminal.master, b"q\n")
        assert terminal.wait(30) == 0


@pytest.mark.parametrize(
    ("bots", "says"),
    [
        ("mcts:0", "'mcts:0': mcts:N searches N playouts a move, 1 to 200,000"),
        ("mcts:lots", "not 'lots'"),
        ("greedy:50", "'greedy:50': only mcts takes a strength"),
        ("clever", "unknown bot 'clever': choose from random, greedy, mcts"),
    ],
)
def test_play_refuses_a_bad_search_bot_or_strength_in_one_line(bots, says, capsys):
    status = main(["play", "--players", "3", "--bots", bots])
    out, err = capsys.readouterr()
    assert_one_line_refusal(subprocess.CompletedProcess([], status, out, err), "play", says)


def test_play_help_says_how_the_search_bot_s_strength_is_written(capsys):
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "mcts:N searches N playouts a move, 1 to 200,000" in out


# ---- on a server ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(tmp_path_factory.mktemp("search-bot")) as base:
        yield base


@pytest.mark.subprocess
def test_on_a_server_the_search_bot_s_seat_is_created_with_its_playouts_and_played_to_the_end(
    server, capsys, monkeypatch
):
    monkeypatch.setattr(sys, "stdin", io.StringIO(ANSWERS))
    status = main(["play", "--server", server, "--ruleset", "pot", "--players", "3", "--bots", "mcts:150,mcts"])
    out, err = capsys.readouterr()
    assert status == 0, err
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
        first = seen.decode().splitlines()[0]
        assert first.endswith("waits for players: seat 0 you, seat 1 (open), seat 2 mcts bot 2 (300 playouts)")
        waiting.send_signal(signal.SIGINT)  # gives the seat back
        out, _ = waiting.communicate(timeout=30)
        assert b"you left seat 0" in out
    finally:
        if waiting.poll() is None:
            waiting.kill()
            waiting.communicate()


@pytest.mark.subprocess
def test_a_strength_beyond_the_server_s_bounds_is_the_server_s_refusal_in_one_line(server, capsys):
    bounds = get_args(Playouts)[1]  # the service's, below the engine's
    fewest, most = bounds.ge, bounds.le
    args = ["play", "--server", server, "--ruleset", "pot", "--players", "2", "--bots", f"mcts:{most + 1}"]
    status = main(args)
    out, err = capsys.readouterr()
    assert_one_line_refusal(subprocess.CompletedProcess(args, status, out, err), "play", "playouts")
    assert f"playouts must be a whole number from {fewest} to {most:,}, not {most + 1}" in err


@pytest.mark.subprocess
def test_on_a_server_the_terminal_says_who_is_thinking_while_the_service_searches(server):
    # Five search bots at the service's most playouts: the answer to a move waits for five
    # searches (about half a second here), past the moment the terminal names them.
    most = get_args(Playouts)[1].le
    args = ("play", "--server", server, "--ruleset", "pot", "--players", "6", "--bots", f"mcts:{most}", "--seed", "2")
    with Terminal(*args, columns=120, lines=30) as terminal:
        terminal.read_until(b"your move: ")
        before = len(terminal.output)
        os.write(terminal.master, b"1\n")
        deadline = time.monotonic() + 30
        while b"are thinking" not in terminal.output[before:]:
            assert time.monotonic() < deadline, terminal.output[before:][-500:]
            terminal._read(1)
        thinking = "mcts bot 1, mcts bot 2, mcts bot 3, mcts bot 4, mcts bot 5 are thinking…"
        assert thinking in shown_lines(terminal.screen())[-1]
        while b"your move: " not in terminal.output[before:]:
            assert time.monotonic() < deadline, terminal.output[before:][-500:]
            terminal._read(1)
        assert not any("thinking" in line for line in shown_lines(terminal.screen()))
        os.write(terminal.master, b"q\n")
        assert terminal.wait(30) == 0
