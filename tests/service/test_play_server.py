"""`poison play --server`: a person plays one seat of a game on a real `poison serve`, over
the public HTTP API (service/client.py), creating the game or joining it with its token;
another person at the same game through the API, a proxy that loses answers, a server that
is not there."""

from __future__ import annotations

import contextlib
import re
import select
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import IO

import httpx
import pytest

from core.rulesets import RULESETS
from events.server import free_port
from service.client import ApiProblem, Client
from tests.service.command import interrupted, read_through_isolates, reaped
from tests.service.served import serving
from tests.service.test_cli_play import names_of, played_lines, said, service_game
from tests.waiting import metric, until

pytestmark = pytest.mark.subprocess

ANSWERS = "\n".join(["1"] * 400) + "\n"


def poison(*args: str, stdin: str = ANSWERS) -> subprocess.CompletedProcess:
    """A `poison` command run to its end, what it wrote as a person reads it (names without
    their isolates: tests/service/test_cli_languages.py holds those)."""
    result = subprocess.run(
        [sys.executable, "-m", "service.cli", *args], input=stdin, capture_output=True, text=True, timeout=300
    )
    return subprocess.CompletedProcess(
        result.args, result.returncode, read_through_isolates(result.stdout), read_through_isolates(result.stderr)
    )


def assert_one_line_failure(result: subprocess.CompletedProcess, code: int, says: str) -> None:
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith("poison play: ")
    assert says in result.stderr


def game_id_of(stdout: str) -> str:
    found = re.search(r"; game (\S+) at http://", stdout.splitlines()[0])
    assert found, stdout[:300]
    return found.group(1)


def final_totals(names: list[str], totals: list[int]) -> str:
    return "final totals: " + ", ".join(f"{name} {total}" for name, total in zip(names, totals, strict=True)) + "\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(tmp_path_factory.mktemp("data")) as base:
        yield base


# ---- a game created on the server -------------------------------------------------------------

#: Each ruleset's game, as `poison play` options: three seats, a seed, one round of Poison.
GAMES = {"poison": ["--players", "3", "--rounds", "1", "--seed", "8"], "pot": ["--players", "3", "--seed", "8"]}


def first_answers(ruleset: str) -> str:
    """A card the person does not hold and one that is no card, then their first move each turn."""
    _, _, turns = service_game(ruleset, ["greedy", "greedy"], 8, {"rounds": 1} if ruleset == "poison" else {})
    missing = next(card for card in RULESETS[ruleset].card_codes if card not in turns[0].game.hand(0))
    cauldron = " 0" if ruleset == "poison" else ""
    return f"{missing}{cauldron}\nZ9{cauldron}\n" + ANSWERS


@pytest.fixture(scope="module", params=list(GAMES))
def created(request: pytest.FixtureRequest, server: str) -> tuple[str, subprocess.CompletedProcess, str]:
    ruleset = request.param
    result = poison("play", "--server", server, "--ruleset", ruleset, *GAMES[ruleset], stdin=first_answers(ruleset))
    return ruleset, result, game_id_of(result.stdout)


def test_a_whole_game_created_on_a_server_ends_with_the_totals_the_server_scores(created, server):
    _, result, game_id = created
    assert result.returncode == 0, result.stderr
    scores = httpx.get(f"{server}/v1/games/{game_id}/scores").json()
    assert scores["status"] == "finished"
    assert final_totals(names_of(["greedy", "greedy"]), scores["totals"]) in result.stdout
    log = httpx.get(f"{server}/v1/games/{game_id}/events", params={"limit": 5000}).json()["events"]
    names = names_of(["greedy", "greedy"])
    played = [said(names, e["data"]["seat"], e["data"]["card"]) for e in log if e["type"] == "card_played"]
    assert played_lines(result.stdout) == played  # every card told once, in order


def test_a_game_on_a_server_reads_exactly_as_the_same_game_played_here(created, server):
    ruleset, remote, game_id = created
    here = poison("play", "--ruleset", ruleset, *GAMES[ruleset], stdin=first_answers(ruleset))
    assert here.returncode == 0, here.stderr
    remote_head, remote_rest = remote.stdout.split("\n", 1)
    here_head, here_rest = here.stdout.split("\n", 1)
    assert remote_head == here_head.replace("; seed 8.", f"; game {game_id} at {server}, seed 8.")
    # On a server, one line more at the end: how to play the next game with the same table.
    remote_rest, again = remote_rest.rstrip("\n").rsplit("\n", 1)
    assert again.startswith(f"to play again: poison play --server {server} --game={game_id} --token=")
    assert again.endswith(" --rematch")
    assert remote_rest + "\n" == here_rest  # refusals included: "you hold no ..." from the server's 422 too
    card = first_answers(ruleset).split()[0]
    assert f"you hold no {card} — " in remote_rest


# ---- joining a game with its token --------------------------------------------------------------


def following(server: str) -> float:
    """The live streams open on the server: a terminal waiting for another seat follows one."""
    return metric(server, "poison_live_streams")


def play_seat(server: str, game_id: str, token: str, stop: threading.Event) -> None:
    """Another person at the game: their first legal move whenever it is their turn, once
    the terminal is seen waiting for it (following the game's live stream)."""
    with httpx.Client(base_url=server, headers={"Authorization": f"Bearer {token}"}) as http:
        while not stop.is_set():
            view = http.get(f"/v1/games/{game_id}").json()
            if view["status"] == "finished":
                return
            if view["turn"] == view["you"]["seat"]:
                # Then moves all the same: the test's own checks say what went wrong.
                with contextlib.suppress(AssertionError):
                    until(lambda: stop.is_set() or following(server) >= 1, what="the terminal following the game")
                move = view["you"]["legal_moves"][0]
                assert http.post(f"/v1/games/{game_id}/moves", json=move).status_code == 201
            else:
                time.sleep(0.05)


@pytest.mark.parametrize("ruleset", list(GAMES))
def test_joining_a_game_with_a_token_shows_others_moves_as_they_happen_and_hostile_names_as_they_are(server, ruleset):
    players = [
        {"name": "[/]", "bot": "random"},
        {"name": "ana"},
        {"name": "ada [greedy]", "bot": "greedy"},
        {"name": "[bold]bo\x1b[2J"},  # markup, and an escape that would clear the screen
    ]
    body = {"ruleset": ruleset, "players": players, "seed": 11} | ({"rounds": 1} if ruleset == "poison" else {})
    made = httpx.post(f"{server}/v1/games", json=body).json()
    game_id, tokens = made["game_id"], [player.get("token") for player in made["players"]]
    stop = threading.Event()
    other = threading.Thread(target=play_seat, args=(server, game_id, tokens[3], stop))
    other.start()
    try:
        result = poison("play", "--server", server, "--game", game_id, "--token", tokens[1])
    finally:
        stop.set()
        other.join(30)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    names = ["[/]", "you", "ada [greedy]", "[bold]bo\\x1b[2J"]  # the escape written out, not obeyed
    assert "\x1b" not in out
    assert out.startswith(
        f"{RULESETS[ruleset].title}: you are seat 1 against {', '.join(names[0:1] + names[2:])}; game "
    )
    assert f"waiting for {names[3]} to move…" in out
    log = httpx.get(f"{server}/v1/games/{game_id}/events", params={"limit": 5000}).json()["events"]
    played = [said(names, e["data"]["seat"], e["data"]["card"]) for e in log if e["type"] == "card_played"]
    assert played_lines(out) == played  # the other person's moves too, each once, in order
    assert any(line.startswith("[/] plays") for line in played)
    assert any(line.startswith("ada [greedy] plays") for line in played)
    # What each card caused is told with it, whether it came in a move's answer or down the stream.
    caused = Counter(event["type"] for event in log)
    if ruleset == "poison":
        assert out.count("— overflow! ") == caused["cauldron_overflowed"] > 0
    else:
        assert out.count("— the pot explodes! ") == caused["pot_exploded"] > 0
        closings = len(re.findall(r" — \S.* scores? [+-]\d+ for ", out)) + out.count("the last card is in:")
        assert closings == caused["pot_closed"] > 0
    scores = httpx.get(f"{server}/v1/games/{game_id}/scores").json()
    assert final_totals(names, scores["totals"]) in out


def test_leaving_a_game_on_a_server_says_how_to_come_back_and_coming_back_finishes_it(server):
    first = poison("play", "--server", server, *GAMES["poison"], stdin="1\nq\n")
    assert first.returncode == 0, first.stderr
    left = re.search(
        r"^you left the game at version (\d+); to come back: poison play --server (\S+) --game=(\S+) --token=(\S+)$",
        first.stdout,
        re.MULTILINE,
    )
    assert left, first.stdout[-500:]
    version, url, game_id, token = left.groups()
    assert url == server
    assert httpx.get(f"{server}/v1/games/{game_id}").json()["version"] == int(version)
    again = poison("play", "--server", url, "--game", game_id, "--token", token)
    assert again.returncode == 0, again.stderr
    # Coming back, the story starts with the person's own last move, then the bots' answers.
    first_move = played_lines(first.stdout)[2]
    assert first_move.startswith("you play ")
    assert again.stdout.split("\n", 2)[1].startswith(first_move)
    log = httpx.get(f"{server}/v1/games/{game_id}/events", params={"limit": 5000}).json()["events"]
    names = names_of(["greedy", "greedy"])
    played = [said(names, e["data"]["seat"], e["data"]["card"]) for e in log if e["type"] == "card_played"]
    assert played_lines(first.stdout) + played_lines(again.stdout)[3:] == played
    scores = httpx.get(f"{server}/v1/games/{game_id}/scores").json()
    assert final_totals(names, scores["totals"]) in again.stdout


# ---- what can go wrong ----------------------------------------------------------------------------


def test_a_bad_token_or_an_unknown_game_is_one_line_and_status_2(server):
    made = httpx.post(f"{server}/v1/games", json={"players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}).json()
    bad_token = poison("play", "--server", server, "--game", made["game_id"], "--token", "not-a-token")
    assert_one_line_failure(bad_token, 2, "token")
    assert bad_token.stdout == ""
    unknown = poison("play", "--server", server, "--game", "no-such-game", "--token", made["players"][0]["token"])
    assert_one_line_failure(unknown, 2, "no game 'no-such-game'")
    assert unknown.stdout == ""


def test_options_of_a_new_game_are_refused_when_joining_one(server):
    for flag in (["--seat", "1"], ["--players", "3"], ["--rounds", "2"], ["--seed", "3"], ["--ruleset", "pot"]):
        result = poison("play", "--server", server, "--game", "g", "--token", "t", *flag)
        assert_one_line_failure(result, 2, f"{flag[0]} is for a new game: a game joined with --game keeps its own")


def test_a_server_that_cannot_be_reached_is_one_line_and_status_1():
    result = poison("play", "--server", f"http://127.0.0.1:{free_port()}")
    assert_one_line_failure(result, 1, "cannot reach http://127.0.0.1:")
    assert result.stdout == ""


# ---- a retried move never plays twice ----------------------------------------------------------


class LosingProxy(BaseHTTPRequestHandler):
    """Forwards every request to the server; of every `lose_every`-th move, the server's
    answer is lost: the connection closes before it is sent back, as when a network drops."""

    upstream: str
    lose_every: int
    moves = 0
    lost = 0

    def handle_one_request(self) -> None:
        self.raw_requestline = self.rfile.readline(65537)
        if not self.raw_requestline or not self.parse_request():
            self.close_connection = True
            return
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        headers = {k: v for k, v in self.headers.items() if k.lower() not in {"host", "content-length"}}
        answer = httpx.request(self.command, self.upstream + self.path, headers=headers, content=body, timeout=30)
        if self.command == "POST" and self.path.endswith("/moves"):
            type(self).moves += 1
            if type(self).moves % self.lose_every == 1 or self.lose_every == 1:
                type(self).lost += 1
                self.close_connection = True  # the move was played; its answer never arrives
                return
        self.send_response(answer.status_code)
        for name, value in answer.headers.items():
            if name.lower() not in {"content-length", "transfer-encoding", "connection", "content-encoding"}:
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(answer.content)))
        self.end_headers()
        self.wfile.write(answer.content)

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass


@pytest.fixture
def losing_proxy(server: str) -> Iterator[tuple[str, type[LosingProxy]]]:
    handler = type("Losing", (LosingProxy,), {"upstream": server, "lose_every": 3, "moves": 0, "lost": 0})
    proxy = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{proxy.server_address[1]}", handler
    finally:
        proxy.shutdown()
        proxy.server_close()
        thread.join()


def test_a_move_whose_answer_is_lost_is_retried_with_its_key_and_played_once(server, losing_proxy):
    url, proxy = losing_proxy
    made = httpx.post(
        f"{server}/v1/games",
        json={"players": [{"name": "a"}, {"name": "b", "bot": "greedy"}, {"name": "c", "bot": "greedy"}], "seed": 5},
    ).json()
    game_id, token = made["game_id"], made["players"][0]["token"]
    with Client(url) as client:
        view = client.game(game_id, token)
        move = {"card": view.you.legal_moves[0].card, "cauldron": view.you.legal_moves[0].cauldron}
        played = client.move(game_id, token, move, expected_version=view.version, key="the-first-move")
    assert (proxy.moves, proxy.lost) == (2, 1)  # sent twice: the first answer was lost
    log = httpx.get(f"{server}/v1/games/{game_id}/events", params={"limit": 5000}).json()
    mine = [e for e in log["events"] if e["type"] == "card_played" and e["data"]["seat"] == 0]
    assert len(mine) == 1  # played once
    assert played.version == log["version"]
    assert played.events[0].data == mine[0]["data"]


def test_a_whole_game_through_a_network_that_loses_answers_plays_each_move_once(server, losing_proxy):
    url, proxy = losing_proxy
    result = poison("play", "--server", url, *GAMES["poison"])
    assert result.returncode == 0, result.stderr
    assert proxy.lost >= 3
    game_id = game_id_of(result.stdout)
    log = httpx.get(f"{server}/v1/games/{game_id}/events", params={"limit": 5000}).json()["events"]
    names = names_of(["greedy", "greedy"])
    played = [said(names, e["data"]["seat"], e["data"]["card"]) for e in log if e["type"] == "card_played"]
    assert played_lines(result.stdout) == played
    scores = httpx.get(f"{server}/v1/games/{game_id}/scores").json()
    assert final_totals(names, scores["totals"]) in result.stdout


def test_the_client_reads_a_problem_as_its_code_and_detail(server):
    with Client(server) as client, pytest.raises(ApiProblem) as refused:
        client.game("no-such-game")
    assert (refused.value.status, refused.value.code) == (404, "game_not_found")
    assert "no-such-game" in refused.value.detail


def read_until(stream: IO[bytes], wanted: bytes, seen: bytes = b"", patience: float = 60.0) -> bytes:
    """What the command wrote, read until it has written `wanted` (a prompt ends no line),
    as a person reads it (names without their isolates); a failure, not a hang, when it has
    not within `patience` seconds."""
    deadline = time.monotonic() + patience
    while wanted.decode() not in read_through_isolates(seen.decode(errors="replace")):
        left = deadline - time.monotonic()
        assert left > 0, f"{wanted!r} not written within {patience} s; written: {seen[-2000:]!r}"
        if not select.select([stream], [], [], left)[0]:
            continue
        chunk = stream.read1(65536)  # type: ignore[attr-defined]
        assert chunk, seen[-2000:]
        seen += chunk
    return seen


def test_a_move_chosen_on_a_board_the_game_has_left_is_refused_and_the_board_brought_up_to_date(server):
    made = httpx.post(
        f"{server}/v1/games",
        json={
            "players": [{"name": "ana"}, {"name": "bob", "bot": "greedy"}, {"name": "cy", "bot": "greedy"}],
            "seed": 6,
            "rounds": 1,
        },
    ).json()
    game_id, token = made["game_id"], made["players"][0]["token"]
    process = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "play", "--server", server, "--game", game_id, "--token", token],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    try:
        seen = read_until(process.stdout, b"your move: ")
        # The same seat plays elsewhere (another window, another client) meanwhile.
        http = httpx.Client(base_url=server, headers={"Authorization": f"Bearer {token}"})
        view = http.get(f"/v1/games/{game_id}").json()
        elsewhere = view["you"]["legal_moves"][0]
        assert http.post(f"/v1/games/{game_id}/moves", json=elsewhere).status_code == 201
        now = http.get(f"/v1/games/{game_id}").json()["version"]
        http.close()
        process.stdin.write(b"1\n")
        process.stdin.flush()
        seen = read_until(process.stdout, b"your move: ", read_until(process.stdout, b"your move: 1\n", seen))
        process.stdin.write(b"q\n")
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    text = (seen + out).decode()
    assert process.returncode == 0, err
    after = text.split("your move: 1\n", 1)[1]
    refusal, rest = after.split("\n", 1)
    assert f"version {now}" in refusal, refusal  # the service's detail: the game is at version {now}
    assert refusal.endswith(" — a move is its number in the list, or a card and a cauldron like 'R5 0'; 'q' quits")
    # The move made elsewhere is told as the person's own, then the board as it is now.
    assert rest.startswith(f"you play {elsewhere['card']} into cauldron {elsewhere['cauldron']}: ")
    assert text.endswith(
        f"your move: q\nyou left the game at version {now}; to come back: "
        f"poison play --server {server} --game={game_id} --token={token}\n"
    )


def test_ctrl_c_while_waiting_for_another_player_says_how_to_come_back_and_ends_with_130(server):
    players = [{"name": "ana"}, {"name": "bo"}, {"name": "cy", "bot": "greedy"}]
    made = httpx.post(f"{server}/v1/games", json={"players": players, "seed": 3}).json()
    game_id, token = made["game_id"], made["players"][0]["token"]
    assert made["game"]["turn"] == 1  # bo moves first, and never does
    streams = following(server)
    process = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "play", "--server", server, "--game", game_id, "--token", token],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a shell starts it
    )
    with reaped(process):
        assert process.stdout is not None
        seen = read_until(process.stdout, "waiting for bo to move…\n".encode())
        until(lambda: following(server) > streams, what="the terminal's live stream open")
        out, err = interrupted(process)
    assert process.returncode == 130
    assert err == b"poison play: interrupted\n"
    come_back = f"to come back: poison play --server {server} --game={game_id} --token={token}\n"
    assert read_through_isolates((seen + out).decode()).endswith(come_back)
