"""`poison play`: a person at the terminal against bots, both games, driven as a subprocess;
its bots seeded as the service seeds them."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from core.rulesets import RULESETS
from events.codec import Player
from events.play import LoggedGame, create_game, play_move
from events.pot.schema import PotCardPlayed, PotClosed
from events.schema import CardPlayed


def poison(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "service.cli", *args], input=stdin, capture_output=True, text=True, timeout=120
    )


def assert_one_line_refusal(result: subprocess.CompletedProcess, command: str, says: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith(f"poison {command}: ")
    assert says in result.stderr


def test_a_person_plays_a_whole_game_in_the_terminal():
    answers = "\n".join(["Z9 0", "99", "hello", *["1"] * 60]) + "\n"
    result = poison("play", "--players", "3", "--rounds", "1", "--seed", "8", stdin=answers)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "your hand:" in out
    assert "cauldron 0:" in out
    assert "cards taken (face down)" in out
    assert "'Z9' is not a card code" in out
    assert "there is no move 99" in out
    assert "'hello' is not a move" in out
    assert "round 1 scored" in out
    assert "winner" in out


def test_play_stops_cleanly_when_input_ends():
    result = poison("play", "--players", "4", "--seed", "1", stdin="")
    assert result.returncode == 1
    assert "game abandoned" in result.stdout


def test_play_refuses_bad_options():
    result = poison("play", "--players", "7")
    assert result.returncode == 2
    assert "3 to 6 players" in result.stderr
    result = poison("play", "--bots", "clever")
    assert result.returncode == 2
    assert "unknown bot 'clever'" in result.stderr


def test_play_pot_refuses_rounds_and_seven_players_in_one_line():
    assert_one_line_refusal(poison("play", "--ruleset", "pot", "--rounds", "2"), "play", "--rounds is not an option")
    assert_one_line_refusal(poison("play", "--ruleset", "pot", "--players", "7"), "play", "2 to 6 players, not 7")


def service_game(ruleset: str, bots: list[str], seed: int, options: dict) -> tuple[list, LoggedGame, list]:
    """The game `poison play` must play when seat 0 always picks its first legal move,
    played through events.play as the service plays it; and seat 0's game before each of
    its moves."""
    names = ["you", *(f"{bot} bot {seat}" for seat, bot in enumerate(bots, start=1))]
    players = (
        Player(seat=0, name="you"),
        *(Player(seat=seat, name=names[seat], bot=bot) for seat, bot in enumerate(bots, start=1)),
    )
    log, logged = create_game(ruleset, "expected", players, seed=seed, options=options)
    turns = []
    while not logged.finished:
        assert logged.game.turn == 0
        turns.append(logged.game.copy())
        caused, logged = play_move(logged, 0, logged.game.legal_moves()[0])
        log += caused
    return log, logged, turns


def played_lines(stdout: str) -> list[str]:
    """'<name> plays <card>' for every card the terminal says was played, in order (after
    the prompts on the same line: what the person typed is not echoed into a pipe)."""
    return re.findall(r"^(?:your move: )*(.+? plays [A-Z]\d)\b", stdout, flags=re.MULTILINE)


@pytest.fixture(scope="module")
def pot_played() -> tuple[subprocess.CompletedProcess, list, LoggedGame, dict[str, str]]:
    """A whole pot game in the terminal, seat 0 taking its first legal move each turn; on its
    first turn it first tries a card it does not hold and words that are no move, and on its
    first endgame turn it first tries to close the pot."""
    bots, seed = ["greedy", "random"], 4
    log, logged, turns = service_game("pot", bots, seed, {})
    missing = next(card for card in RULESETS["pot"].card_codes if card not in turns[0].hand(0))
    endgame = next(number for number, game in enumerate(turns) if game.endgame)
    closing = f"{turns[endgame].hand(0)[0]} close"
    answers = [missing, "T9", "T3 maybe", "99", *["1"] * endgame, closing, *["1"] * (len(turns) - endgame)]
    args = ("--ruleset", "pot", "--players", "3", "--bots", ",".join(bots), "--seed", str(seed))
    result = poison("play", *args, stdin="\n".join(answers) + "\n")
    return result, log, logged, {"missing": missing, "closing": closing}


def test_a_person_plays_a_whole_pot_game_to_the_totals_the_service_reaches(pot_played):
    result, log, logged, _ = pot_played
    assert result.returncode == 0, result.stderr
    names = ["you", "greedy bot 1", "random bot 2"]
    totals = ", ".join(f"{name} {total}" for name, total in zip(names, logged.game.totals, strict=True))
    assert f"final totals: {totals}\n" in result.stdout
    best = max(logged.game.totals)
    winners = ", ".join(names[seat] for seat in logged.game.winners)
    assert re.search(rf"^winners?: {re.escape(winners)} \(highest total {best}\)$", result.stdout, re.MULTILINE)
    expected = [f"{names[e.seat]} plays {e.card}" for e in log if isinstance(e, PotCardPlayed)]
    assert played_lines(result.stdout) == expected


def test_play_pot_shows_the_pot_the_pile_the_hands_and_numbered_moves(pot_played):
    out = pot_played[0].stdout
    assert "The pot game: you are seat 0 against greedy bot 1, random bot 2; seed 4. Highest total wins." in out
    assert re.search(r"^pot: T\d, toxicity \d+ of 14; draw pile: 43 cards$", out, re.MULTILINE)
    assert "draw pile: 0 cards (endgame: no more closing, no more drawing)" in out
    assert re.search(r"cards in hand\s+total", out)
    assert re.search(r"^your hand: (T\d ?){4}$", out, re.MULTILINE)
    assert re.search(r"^your moves: 1\) (T\d) {2}2\) \1 close", out, re.MULTILINE)
    assert "The game, pot by pot" in out


def test_play_pot_tells_what_each_move_did_and_shows_only_your_drawn_cards(pot_played):
    out, log = pot_played[0].stdout, pot_played[1]
    assert re.search(r"^ +you draws( T\d)+$", out, re.MULTILINE)
    assert re.search(r"^ +(greedy bot 1|random bot 2) draws \d cards?$", out, re.MULTILINE)
    assert not re.search(r"bot \d draws T\d", out)
    assert re.search(r"— the pot explodes! (T\d ?)+ are discarded$", out, re.MULTILINE)
    assert re.search(r"and closes the pot: toxicity \d+ — .+ scores [+-]\d+ for", out)
    assert re.search(r"^ +a new pot starts with T\d from the draw pile$", out, re.MULTILINE)
    closings = sum(1 for event in log if isinstance(event, PotClosed))
    assert out.count(" scores ") + out.count("the last card is in") == closings


def test_play_pot_refuses_what_is_no_legal_move_and_waits_for_another(pot_played):
    out, tried = pot_played[0].stdout, pot_played[3]
    assert f"seat 0 holds no {tried['missing']}" in out
    assert "'T9' is not a card code of the pot game" in out
    assert "'T3 maybe' is not a move" in out
    assert re.search(r"there is no move 99: choose 1 to \d+", out)
    card = tried["closing"].split()[0]
    assert f"the pot may not be closed with {card}: no pot may be closed once the draw pile is empty" in out


def test_poison_play_seeds_its_bots_as_the_service_does():
    bots, seed = ["random", "random"], 8
    answers = "\n".join(["1"] * 60) + "\n"
    result = poison("play", "--players", "3", "--rounds", "1", "--bots", "random", "--seed", str(seed), stdin=answers)
    assert result.returncode == 0, result.stderr
    log, logged, _ = service_game("poison", bots, seed, {"rounds": 1})
    names = ["you", "random bot 1", "random bot 2"]
    expected = [f"{names[e.seat]} plays {e.card}" for e in log if isinstance(e, CardPlayed)]
    assert played_lines(result.stdout) == expected
    scores = ", ".join(f"{names[s]} {score}" for s, score in enumerate(logged.game.round_results()[0].scores))
    assert f"round 1 scored: {scores}" in result.stdout
