"""`poison play --server` in the lobby (issue 17), against one real `poison serve`: a game made
with an open seat waits and shows who joins as it happens; another terminal finds it with
--list and joins it with --join; both play it to the end and each gets the same next game
with --rematch; Ctrl-C while waiting gives the seat back; every refusal is one line."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import IO

import httpx
import pytest

from events.server import free_port
from tests.service.command import (
    Terminal,
    assert_one_line_refusal,
    interrupted,
    poison,
    read_through_isolates,
    reaped,
    shown_lines,
)
from tests.service.command import poison_read as poison_here
from tests.service.served import serving
from tests.service.test_cli_play import played_lines, said
from tests.waiting import metric, until

ANSWERS = "\n".join(["1"] * 400) + "\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(tmp_path_factory.mktemp("lobby")) as base:
        yield base


def started(*args: str) -> subprocess.Popen[bytes]:
    """`poison ARGS` running, its input a pipe, as a shell starts it (Ctrl-C stops it)."""
    return subprocess.Popen(
        [sys.executable, "-m", "service.cli", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def read_until(stream: IO[bytes], wanted: bytes, seen: bytes = b"") -> bytes:
    while wanted not in seen:
        chunk = stream.read1(65536)  # type: ignore[attr-defined]
        assert chunk, seen[-2000:]
        seen += chunk
    return seen


def waiting_game(seen: bytes) -> str:
    found = re.search(rb"^game (\S+) at http://\S+ waits for players: ", seen, re.MULTILINE)
    assert found, seen[-1000:]
    return found.group(1).decode()


def finished_together(server: str) -> dict[str, object]:
    """A 3-seat game of Poison made by ana with seat 1 open, found and joined by bo, played
    to the end by both terminals (each its first legal move)."""
    ana = started("play", "--server", server, "--players", "3", "--open", "1", "--name", "ana", "--rounds", "1")
    assert ana.stdin is not None
    assert ana.stdout is not None
    try:
        seen = read_until(ana.stdout, b"Ctrl-C leaves your seat")
        game_id = waiting_game(seen)
        listed = poison("play", "--server", server, "--list")
        # ana's answers wait in the pipe (nothing is read while the game waits); her
        # transcript is read on meanwhile, so neither terminal ever waits on the other's pipe.
        ended: dict[str, tuple[bytes, bytes]] = {}
        reader = threading.Thread(target=lambda: ended.setdefault("ana", ana.communicate(ANSWERS.encode(), 120)))
        reader.start()
        bo = poison("play", "--server", server, "--join", game_id, "--name", "bo", stdin=ANSWERS)
        reader.join(120)
        out, err = ended["ana"]
    finally:
        if ana.poll() is None:
            ana.kill()
            ana.communicate()
    return {
        "id": game_id,
        "ana": read_through_isolates((seen + out).decode()),
        "ana_code": ana.returncode,
        "ana_err": err,
        "list": subprocess.CompletedProcess(
            listed.args, listed.returncode, read_through_isolates(listed.stdout), listed.stderr
        ),
        "bo": subprocess.CompletedProcess(bo.args, bo.returncode, read_through_isolates(bo.stdout), bo.stderr),
    }


@pytest.fixture(scope="module")
def together(server: str) -> dict[str, object]:
    return finished_together(server)


@pytest.mark.subprocess
def test_a_game_with_an_open_seat_waits_and_the_list_shows_it_with_its_open_seat(together):
    ana, listed, game_id = together["ana"], together["list"], together["id"]
    assert ana.splitlines()[0] == (
        f"game {game_id} at {ana.split(' at ', 1)[1].split(' ', 1)[0]} waits for players: "
        "seat 0 you, seat 1 (open), seat 2 greedy bot 2"
    )
    assert listed.returncode == 0, listed.stderr
    row = next(line for line in listed.stdout.splitlines() if game_id in line)
    assert "Poison" in row
    assert "2 taken, 1 open" in row
    assert "ana, (open), greedy bot 2" in row
    assert "to join one: poison play --server " in listed.stdout


@pytest.mark.subprocess
def test_the_creator_sees_the_join_and_the_start_and_both_play_the_game_to_the_end(together, server):
    ana, bo, game_id = together["ana"], together["bo"], together["id"]
    assert together["ana_code"] == 0, together["ana_err"]
    assert bo.returncode == 0, bo.stderr
    assert "\nbo joins at seat 1\nevery seat is taken: the game starts\n" in ana
    assert bo.stdout.startswith("Poison: you are seat 1 against ana, greedy bot 2; game ")
    log = httpx.get(f"{server}/v1/games/{game_id}/events", params={"limit": 5000}).json()["events"]
    assert [e["type"] for e in log[:3]] == ["game_created", "seat_joined", "game_started"]
    totals = httpx.get(f"{server}/v1/games/{game_id}/scores").json()["totals"]
    for transcript, names in ((ana, ["you", "bo", "greedy bot 2"]), (bo.stdout, ["ana", "you", "greedy bot 2"])):
        played = [said(names, e["data"]["seat"], e["data"]["card"]) for e in log if e["type"] == "card_played"]
        assert played_lines(transcript) == played  # every card, the other person's too, once and in order
        assert "final totals: " + ", ".join(f"{n} {t}" for n, t in zip(names, totals, strict=True)) in transcript


@pytest.mark.subprocess
def test_each_seat_plays_again_in_one_next_game_with_rematch(together, server):
    again = []
    for transcript in (together["ana"], together["bo"].stdout):
        line = re.search(r"^to play again: poison play (.+) --rematch$", transcript, re.MULTILINE)
        assert line, transcript[-500:]
        # Each seat goes on to the next game; whoever is not to move first waits there, so
        # each command is stopped once it has said which game it plays.
        with reaped(started("play", *line.group(1).split(), "--rematch")) as process:
            assert process.stdout is not None
            headline = read_until(process.stdout, b" wins.").decode()
            _, err = interrupted(process)
        assert err == b"poison play: interrupted\n"
        again.append(re.search(r"; game (\S+) at http", headline).group(1))  # type: ignore[union-attr]
    assert again[0] == again[1] != together["id"]
    assert httpx.get(f"{server}/v1/games/{together['id']}").json()["next_game"] == again[0]
    view = httpx.get(f"{server}/v1/games/{again[0]}").json()
    assert [(p["name"], p["bot"]) for p in view["players"]] == [("ana", None), ("bo", None), ("greedy bot 2", "greedy")]


@pytest.mark.subprocess
def test_in_a_terminal_the_end_of_a_game_asks_to_play_again_and_goes_on_to_the_next_game(together, server):
    line = re.search(r"^to play again: poison play (.+) --rematch$", together["ana"], re.MULTILINE)
    assert line, together["ana"][-500:]
    with Terminal("play", *line.group(1).split(), columns=140) as terminal:  # the finished game, its score sheet
        terminal.read_until(b"play again with the same players? (y/N): ")
        os.write(terminal.master, b"y\n")
        terminal.output = b""  # what follows the answer: the next game's headline
        terminal.read_until(b" wins.")
        terminal.process.send_signal(signal.SIGINT)
        assert terminal.wait() == 130
        headline = re.search(rb"; game (\S+) at http", terminal.output)
    next_game = httpx.get(f"{server}/v1/games/{together['id']}").json()["next_game"]
    assert headline, terminal.output[-500:]
    assert headline.group(1).decode() == next_game


@pytest.mark.subprocess
def test_ctrl_c_while_waiting_gives_the_seat_back_and_says_so(server):
    streams = metric(server, "poison_live_streams")
    args = ("--server", server, "--ruleset", "pot", "--players", "2", "--open", "1", "--name", "ana")
    with reaped(started("play", *args)) as ana:
        assert ana.stdout is not None
        seen = read_until(ana.stdout, b"Ctrl-C leaves your seat")
        game_id = waiting_game(seen)
        until(lambda: metric(server, "poison_live_streams") > streams, what="ana's live stream open")
        out, err = interrupted(ana)
    text = (seen + out).decode()
    assert ana.returncode == 130
    assert err == b"poison play: interrupted\n"
    assert f"you left seat 0 of game {game_id}: it is open again\n" in text
    assert text.endswith(f"to join again: poison play --server {server} --join={game_id} --name NAME\n")
    assert httpx.get(f"{server}/v1/games/{game_id}").json()["status"] == "abandoned"  # nobody named is left


@pytest.mark.subprocess
def test_in_a_terminal_the_list_asks_which_game_to_join_and_the_name(server):
    made = httpx.post(f"{server}/v1/games", json={"ruleset": "pot", "players": [{"name": "ana"}, {"open": True}]})
    game_id = made.json()["game_id"]
    with Terminal("play", "--server", server, "--list", columns=140) as terminal:
        terminal.read_until(b"a game to join (1 to ")
        # A digit that is no number (a superscript two) is asked again, not a traceback.
        os.write(terminal.master, "\u00b2\n".encode())
        terminal.read_until("'\u00b2' is none of them".encode())
        row = next(line for line in shown_lines(terminal.screen()) if game_id in line)
        os.write(terminal.master, row.split()[0].encode() + b"\n")
        terminal.read_until(b"your name at the table: ")
        os.write(terminal.master, b"cy\n")
        terminal.read_until(b"against ana")  # the last seat taken: the game started at once
        terminal.process.send_signal(signal.SIGINT)
        assert terminal.wait() == 130
    players = httpx.get(f"{server}/v1/games/{game_id}").json()["players"]
    assert [player["name"] for player in players] == ["ana", "cy"]


def refused(*args: str) -> subprocess.CompletedProcess:
    """`poison play ARGS` run in this process (a `poison` started anew takes seconds here),
    its input a pipe's: its status and output, as a finished process would give them."""
    return poison_here("play", *args)


@pytest.mark.subprocess
def test_joining_refusals_are_one_line_each(server):
    players = [{"name": "ana"}, {"open": True}, {"open": True}]
    made = httpx.post(f"{server}/v1/games", json={"ruleset": "pot", "players": players}).json()
    game_id = made["game_id"]
    join = ["--server", server, "--join", game_id]
    assert httpx.post(f"{server}/v1/games/{game_id}/seats/1", json={"name": "bo"}).status_code == 201
    assert_one_line_refusal(refused(*join, "--seat", "1", "--name", "cy"), "play", "seat 1 is not open")
    assert_one_line_refusal(refused(*join, "--name", "bo"), "play", "'bo' already sits at this table")
    assert httpx.post(f"{server}/v1/games/{game_id}/seats/2", json={"name": "cy"}).status_code == 201
    full = refused(*join, "--name", "dee")
    assert_one_line_refusal(full, "play", f"game {game_id} is active: it has no open seat")
    assert_one_line_refusal(refused(*join, "--seat", "2", "--name", "dee"), "play", "has started")
    unknown = refused("--server", server, "--join", "no-such-game", "--name", "dee")
    assert_one_line_refusal(unknown, "play", "no game 'no-such-game'")
    stale = refused("--server", server, "--game", game_id, "--token", "x" * 43, "--rematch")
    assert_one_line_refusal(stale, "play", "token")


def test_lobby_options_out_of_place_are_refused_before_anything_is_sent():
    nowhere = f"http://127.0.0.1:{free_port()}"  # nothing listens: any request would fail otherwise
    refusals = {
        "--list plays on a server: give its --server URL too": ["--list"],
        "--join needs --name: the name the other players see": ["--server", nowhere, "--join", "g"],
        "--players is for a new game": ["--server", nowhere, "--join", "g", "--name", "a", "--players", "3"],
        "--join and --list are two ways to a seat: give one": ["--server", nowhere, "--join", "g", "--list"],
        "--rematch plays again after a finished game: give its --game": ["--server", nowhere, "--rematch"],
        "--open 3: a 3-player game has 2 other seats": ["--server", nowhere, "--players", "3", "--open", "3"],
        "--seed 5 with --open 1: a game with an open seat is dealt from a seed the service draws": [
            "--server",
            nowhere,
            "--players",
            "3",
            "--open",
            "1",
            "--seed",
            "5",
        ],
        "--name is for a seat taken with --join": ["--server", nowhere, "--game", "g", "--token", "t", "--name", "a"],
        "--join is empty: give the game's id": ["--server", nowhere, "--join", "", "--name", "a"],
        "--game is empty: give the game's id": ["--server", nowhere, "--game", " ", "--token", "t"],
        "--token is empty": ["--server", nowhere, "--game", "g", "--token", ""],
    }
    for says, args in refusals.items():
        assert_one_line_refusal(refused(*args), "play", says)
