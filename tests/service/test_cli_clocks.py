"""`poison play --server` with a game clock, on a real `poison serve`: the clock and the time
left shown, a seat whose time ran out taken by the away bot and said so plainly, coming back
to it, resigning, an abandoned game's end; and `poison replay` of an abandoned game's export.

The clocks here are of one second where a clock running out is the point; where the test's
own typing must beat the clock, the clock is long enough that a loaded machine never loses
that race. Other persons at the table are played through the API by `Present`, which moves
for them a while after their turn comes, well within their clock: the game goes on while
the terminal's person is away, and lasts long enough for the terminal to answer.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.service.command import Terminal, poison_read, read_through_isolates, reaped, shown_lines
from tests.service.served import serving
from tests.service.test_play_server import read_until
from tests.waiting import until

pytestmark = pytest.mark.subprocess


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(tmp_path_factory.mktemp("clocks")) as base:
        yield base


def started(*args: str) -> subprocess.Popen[bytes]:
    """`poison ARGS` with a pipe on each side, its input left open (a person who types nothing)."""
    return subprocess.Popen(
        [sys.executable, "-m", "service.cli", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a shell starts it
    )


def typed(process: subprocess.Popen[bytes], line: str) -> None:
    assert process.stdin is not None
    process.stdin.write(f"{line}\n".encode())
    process.stdin.flush()


def finished(process: subprocess.Popen[bytes], seen: bytes) -> tuple[int, str, str]:
    """The command's exit status, all it wrote as a person reads it, and its errors."""
    out, err = process.communicate(timeout=120)
    return process.returncode, read_through_isolates((seen + out).decode()), err.decode()


def game_id_of(written: str) -> str:
    found = re.search(r"; game (\S+) at http://", written)
    assert found, written[:300]
    return found.group(1)


def events_of(server: str, game_id: str) -> list[dict]:
    return httpx.get(f"{server}/v1/games/{game_id}/events").json()["events"]


class Present:
    """Persons at the table who are always there: each seat's first legal move, `after`
    seconds into its turn, whenever a bot does not play it (polled through the API)."""

    def __init__(self, server: str, game_id: str, tokens: list[str], after: float) -> None:
        self.server, self.game_id, self.tokens, self.after = server, game_id, tokens, after
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def __enter__(self) -> Present:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(30)

    def run(self) -> None:
        with httpx.Client(base_url=self.server, timeout=10) as http:
            while not self.stop.is_set():
                for token in self.tokens:
                    headers = {"Authorization": f"Bearer {token}"}
                    view = http.get(f"/v1/games/{self.game_id}", headers=headers).json()
                    if view["status"] != "active":
                        return
                    seat = view["you"]["seat"]
                    if view["turn"] == seat and not view["players"][seat]["away"]:
                        self.stop.wait(self.after)
                        body = {**view["you"]["legal_moves"][0], "expected_version": view["version"]}
                        headers["Idempotency-Key"] = uuid.uuid4().hex
                        http.post(f"/v1/games/{self.game_id}/moves", json=body, headers=headers)  # a 409: too late
                self.stop.wait(0.02)


def test_a_game_created_with_a_clock_shows_its_seconds_per_move_and_the_time_you_have_left(server):
    process = started("play", "--server", server, "--clock", "100", "--players", "3", "--rounds", "1", "--seed", "8")
    with reaped(process):
        seen = read_until(process.stdout, b"left): ")
        typed(process, "q")
        status, written, err = finished(process, seen)
    assert status == 0, err
    headline = written.splitlines()[0]
    assert headline.endswith(f"at {server}, seed 8, 100 seconds a move. Lowest total wins.")
    assert re.search(r"\nclock: 100 seconds a move; you have \d+ seconds left \(until \d\d:\d\d:\d\d\)\n", written)
    assert re.search(r"\nyour move \(\d+ seconds left\): q\n", written)
    game = httpx.get(f"{server}/v1/games/{game_id_of(written)}").json()
    assert game["clock"]["seconds_per_move"] == 100


def test_joining_a_game_with_a_clock_shows_it_and_whose_time_runs_while_others_think(server):
    players = [{"name": "ana"}, {"name": "bo"}, {"name": "cy", "bot": "greedy"}]
    made = httpx.post(f"{server}/v1/games", json={"players": players, "clock": {"seconds_per_move": 90}}).json()
    process = started("play", "--server", server, f"--game={made['game_id']}", f"--token={made['players'][0]['token']}")
    with reaped(process):
        seen = read_until(process.stdout, "waiting for bo to move…\n".encode())
        process.send_signal(signal.SIGINT)
        status, written, _ = finished(process, seen)
    assert status == 130
    assert ", 90 seconds a move. Lowest total wins." in written.splitlines()[0]
    assert re.search(
        r"\nclock: 90 seconds a move; bo has \d+ seconds left \(until \d\d:\d\d:\d\d\)\nwaiting for bo to move…\n",
        written,
    )


def test_alone_at_the_table_your_time_running_out_hands_your_seat_to_the_bot_and_abandons_the_game(server, tmp_path):
    process = started("play", "--server", server, "--clock", "1", "--players", "3", "--rounds", "1")
    with reaped(process):  # nothing is typed (the input stays open): the clock runs out
        seen = read_until(process.stdout, b"the game was abandoned: nobody wins\n")
        status, written, err = finished(process, seen)
    assert status == 0, err
    assert ", 1 second a move. Lowest total wins." in written.splitlines()[0]
    told = written.splitlines()
    assert "your time ran out: the greedy bot plays your seat" in told, written
    assert "the game is abandoned: no person is left to play it, and nobody wins" in told
    assert told[-2:] == ["final totals: you 0, greedy bot 1 0, greedy bot 2 0", "the game was abandoned: nobody wins"]
    assert "to play again" not in written
    game_id = game_id_of(written)
    assert [event["type"] for event in events_of(server, game_id)][-2:] == ["seat_timed_out", "game_abandoned"]

    exported = tmp_path / "abandoned.ndjson"
    exported.write_bytes(httpx.get(f"{server}/v1/games/{game_id}/export").content)
    replayed = poison_read("replay", str(exported))
    assert replayed.returncode == 0, replayed.stderr
    lines = replayed.stdout.splitlines()
    assert lines[-2:] == [
        "seat 0 you: away, the greedy bot plays it",
        "abandoned: no person was left to play it; nobody wins",
    ]
    assert "in play" not in replayed.stdout


def ana_between_bo_and_cy(server: str, seconds: int) -> tuple[str, list[str]]:
    """A one-round game of bo, ana (seat 1, who moves first: the terminal's person) and cy,
    with a clock of `seconds` a move: its id and the three tokens."""
    players = [{"name": "bo"}, {"name": "ana"}, {"name": "cy"}]
    body = {"players": players, "rounds": 1, "seed": 4, "clock": {"seconds_per_move": seconds}}
    made = httpx.post(f"{server}/v1/games", json=body).json()
    return made["game_id"], [player["token"] for player in made["players"]]


def test_a_seat_whose_time_ran_out_is_said_taken_and_coming_back_plays_it_again(server):
    # ana, at the terminal, moves first; bo and cy are always there, so the game goes on.
    game_id, tokens = ana_between_bo_and_cy(server, 4)
    with Present(server, game_id, [tokens[0], tokens[2]], after=1):
        process = started("play", "--server", server, f"--game={game_id}", f"--token={tokens[1]}")
        with reaped(process):
            seen = read_until(process.stdout, b"r, resign or q: ")
            typed(process, "r")
            seen = read_until(process.stdout, b"you are back: you play your seat again\n", seen)
            typed(process, "q")
            status, written, err = finished(process, seen)
    assert status == 0, err
    told = written.splitlines()
    assert "your time ran out: the greedy bot plays your seat" in told
    assert "while you are away, the greedy bot plays your seat" in told
    assert any(line.startswith("1     you (away) ") for line in told), written
    assert any(line.startswith("the greedy bot, for you, plays ") for line in told), written
    assert f"to come back: poison play --server {server} --game={game_id} --token={tokens[1]}" in written
    returned = [event for event in events_of_seat(server, game_id, tokens[0]) if event["type"] == "seat_returned"]
    assert [event["data"] for event in returned][:1] == [{"seat": 1}]


def test_while_you_are_away_the_game_goes_on_before_your_eyes_to_its_end(server):
    # Nothing is typed: ana's time runs out, and bo and cy play the game to its end.
    game_id, tokens = ana_between_bo_and_cy(server, 3)
    with Present(server, game_id, [tokens[0], tokens[2]], after=0.2):
        process = started("play", "--server", server, f"--game={game_id}", f"--token={tokens[1]}")
        with reaped(process):
            seen = read_until(process.stdout, b"r, resign or q: ")
            seen = read_until(process.stdout, b"final totals: ", seen, patience=90)
            status, written, err = finished(process, seen)
    assert status == 0, err
    after_prompt = written.split("r, resign or q: ", 1)[1]
    assert re.search(r"^bo plays ", after_prompt, re.MULTILINE), after_prompt[:2000]
    assert re.search(r"^cy plays ", after_prompt, re.MULTILINE), after_prompt[:2000]
    assert re.search(r"^the greedy bot, for you, plays ", after_prompt, re.MULTILINE), after_prompt[:2000]
    assert after_prompt.count("r, resign or q: ") >= 2  # asked again after each look that found moves
    assert httpx.get(f"{server}/v1/games/{game_id}").json()["status"] == "finished"


def events_of_seat(server: str, game_id: str, token: str) -> list[dict]:
    """The log as a seat of the game reads it (the game may still be going on)."""
    headers = {"Authorization": f"Bearer {token}"}
    return httpx.get(f"{server}/v1/games/{game_id}/events", headers=headers).json()["events"]


def test_resigning_asks_first_then_hands_the_seat_to_a_bot_and_a_game_nobody_plays_is_abandoned(server, tmp_path):
    process = started("play", "--server", server, "--clock", "600", "--players", "3", "--rounds", "1")
    with reaped(process):
        seen = read_until(process.stdout, b"left): ")
        typed(process, "resign")
        seen = read_until(process.stdout, b"(y/N): ", seen)
        typed(process, "n")
        seen = read_until(process.stdout, b"you keep your seat\n", seen)
        typed(process, "resign")
        seen = read_until(process.stdout, b"resign\nresign? a bot plays your seat to the end", seen)
        typed(process, "y")
        status, written, err = finished(process, seen)
    assert status == 0, err
    told = written.splitlines()
    assert "(or type resign to give your seat up to a bot for the rest of the game)" in told
    assert "you resign: the greedy bot plays your seat to the end" in told
    assert told[-1] == "the game was abandoned: nobody wins"
    game_id = game_id_of(written)
    kinds = [event["type"] for event in events_of(server, game_id)]
    assert kinds.count("seat_resigned") == 1
    assert kinds[-2:] == ["seat_resigned", "game_abandoned"]

    exported = tmp_path / "resigned.json"
    exported.write_bytes(httpx.get(f"{server}/v1/games/{game_id}/export").content)
    replayed = poison_read("replay", str(exported))
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout.splitlines()[-2:] == [
        "seat 0 you: resigned, the greedy bot plays it",
        "abandoned: no person was left to play it; nobody wins",
    ]


def test_in_a_terminal_the_time_left_counts_down_above_the_prompt_while_you_think(server):
    args = ("play", "--server", server, "--clock", "120", "--players", "3", "--rounds", "1")
    with Terminal(*args, columns=110, lines=40) as terminal:
        terminal.read_until(b"your move: ")

        def left() -> int:
            """The seconds the clock's line shows now (0: no such line), after what came meanwhile."""
            terminal._read(0.1)
            for line in shown_lines(terminal.screen()):
                if found := re.fullmatch(
                    r"clock: 120 seconds a move; you have (\d+) seconds left \(until ..:..:..\)", line
                ):
                    return int(found.group(1))
            return 0

        first = until(left, what="the clock's line above the prompt")
        until(lambda: 0 < left() < first, what="the clock's line counting down")
        assert shown_lines(terminal.screen())[-1] == "your move:"  # the cursor stayed where you type
        terminal.answer(b"q\r", b"you left the game")
        assert terminal.wait() == 0


def test_a_clock_is_refused_out_of_its_bounds_off_a_server_and_for_a_game_joined(tmp_path: Path):
    zero = poison_read("play", "--server", "http://127.0.0.1:9", "--clock", "0")
    assert zero.returncode == 2
    assert "argument --clock: seconds per move are a whole number from 1 to 86,400, not '0'" in zero.stderr
    here = poison_read("play", "--clock", "30")
    assert (here.returncode, here.stderr) == (2, "poison play: --clock plays on a server: give its --server URL too\n")
    joined = poison_read("play", "--server", "http://127.0.0.1:9", "--game=g", "--token=t", "--clock", "30")
    assert joined.returncode == 2
    assert joined.stderr == "poison play: --clock is for a new game: a game joined with --game keeps its own\n"


def test_a_game_played_here_takes_resign_too_and_ends_abandoned_with_nobody_left_to_play_it():
    result = poison_read("play", "--players", "3", "--rounds", "1", "--seed", "1", stdin="resign\nn\nresign\ny\n")
    assert result.returncode == 0, result.stderr
    told = result.stdout.splitlines()
    assert "you keep your seat" in told
    assert "you resign: the greedy bot plays your seat to the end" in told
    assert told[-2:] == ["final totals: you 0, greedy bot 1 0, greedy bot 2 0", "the game was abandoned: nobody wins"]
