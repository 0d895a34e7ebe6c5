"""`poison play`: a person at the terminal against bots, both games, through a pipe (in this
process: `service.cli.main`, its input a pipe's) and in a real pseudo-terminal read through a
terminal emulator (a process of its own, as Ctrl-C's tests); its bots seeded as the service
seeds them."""

from __future__ import annotations

import itertools
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pytest

from core.poison.reference import OVERFLOW_LIMIT, value_of
from core.rulesets import RULESETS
from events.codec import Player
from events.play import LoggedGame, create_game, play_move
from events.poison.schema import CardPlayed, CauldronOverflowed
from events.pot.schema import PotCardPlayed, PotClosed
from tests.service.command import Terminal, assert_one_line_refusal, shown_lines
from tests.service.command import poison_read as poison_here
from tests.waiting import reading_input, until


def names_of(bots: list[str], you: int = 0) -> list[str]:
    """The seats' names `poison play` gives: "you", and each bot by its kind and seat."""
    others = iter(bots)
    return ["you" if seat == you else f"{next(others)} bot {seat}" for seat in range(len(bots) + 1)]


def service_game(
    ruleset: str, bots: list[str], seed: int, options: dict, you: int = 0
) -> tuple[list, LoggedGame, list]:
    """The game `poison play` must play when the person always picks their first legal
    move, played through events.play as the service plays it; and the person's game before
    each of their moves (its `version` is what leaving then would say)."""
    names = names_of(bots, you)
    players = tuple(
        Player(seat=seat, name=name, bot=None if seat == you else name.split()[0]) for seat, name in enumerate(names)
    )
    log, logged = create_game(ruleset, "expected", players, seed=seed, options=options)
    turns = []
    while not logged.finished:
        assert logged.game.turn == you
        turns.append(logged)  # never changed: play_move makes a new one
        caused, logged = play_move(logged, you, logged.game.legal_moves()[0])
        log += caused
    return log, logged, turns


def played_lines(stdout: str) -> list[str]:
    """'<name> play(s) <card>' for every card the transcript says was played, in order."""
    return re.findall(r"^(.+? plays? [A-Z]\d)\b", stdout, flags=re.MULTILINE)


def said(names: list[str], seat: int, card: str) -> str:
    return f"you play {card}" if names[seat] == "you" else f"{names[seat]} plays {card}"


# ---- Poison through a pipe ------------------------------------------------------------------


def test_a_person_plays_a_whole_game_in_the_terminal():
    answers = "\n".join(["Z9 0", "99", "hello", "R5 7", *["1"] * 60]) + "\n"
    result = poison_here("play", "--players", "3", "--rounds", "1", "--seed", "8", stdin=answers)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "your hand:" in out
    assert "cauldron 0:" in out
    assert "taken (face down)" in out
    assert "your move: Z9 0\n'Z9' is not a card code of Poison: R1 R2 R4 R5 R7 B1" in out
    assert "there is no move 99: choose 1 to " in out
    assert "'hello' is not a move" in out
    assert "there is no cauldron 7: they are 0, 1, 2" in out
    assert "round 1 scored" in out
    assert re.search(r"^winners?: ", out, re.MULTILINE)


def test_poison_play_seeds_its_bots_as_the_service_does_and_tells_each_round_with_running_totals():
    bots, seed = ["random", "random"], 8
    answers = "\n".join(["1"] * 60) + "\n"
    args = ("--players", "3", "--rounds", "2", "--bots", "random", "--seed", str(seed))
    result = poison_here("play", *args, stdin=answers)
    assert result.returncode == 0, result.stderr
    log, logged, _ = service_game("poison", bots, seed, {"rounds": 2})
    names = names_of(bots)
    expected = [said(names, e.seat, e.card) for e in log if isinstance(e, CardPlayed)]
    assert played_lines(result.stdout) == expected
    totals = [0, 0, 0]
    for result_of in logged.game.results():
        table = result.stdout.split(f"round {result_of.round} scored\n", 1)[1]
        for seat, name in enumerate(names):
            totals[seat] += result_of.scores[seat]
            taken = " +".join(str(count) for count in result_of.taken[seat])
            discarded = ", ".join(result_of.discarded[seat]) or "-"
            row = rf"^{name} +{taken} +{re.escape(discarded)} +{result_of.scores[seat]} +{totals[seat]}$"
            assert re.search(row, table, re.MULTILINE), (row, table[:600])
    assert "round 2 is dealt by random bot 1" in result.stdout
    assert f"final totals: {', '.join(f'{n} {t}' for n, t in zip(names, totals, strict=True))}\n" in result.stdout


def test_the_person_is_you_and_the_verbs_agree():
    answers = "\n".join(["1"] * 60) + "\n"
    out = poison_here("play", "--players", "3", "--rounds", "3", "--seed", "8", stdin=answers).stdout
    assert re.search(r"^you play [RBPG]\d into cauldron \d: total \d+", out, re.MULTILINE)
    assert re.search(r"^greedy bot 1 plays [RBPG]\d into cauldron", out, re.MULTILINE)
    assert re.search(r"— overflow! you take \d+ cards?: ([RBPG]\d ?)+$", out, re.MULTILINE)
    assert re.search(r"— overflow! greedy bot \d takes \d+ cards?: ", out, re.MULTILINE)
    assert "round 2 is dealt by greedy bot 1" in out
    assert "round 3 is dealt by greedy bot 2" in out
    assert "dealt by you" in out
    for wrong in ("you plays", "you takes", "you holds", "seat 0 holds", "bot 1 play ", "bot 2 take "):
        assert wrong not in out


def test_an_overflow_is_told_as_the_sum_that_went_over_the_limit_for_you_and_the_bots():
    # "total 2 — overflow!" read as if 2 overflowed: the line says what went over, and by what.
    answers = "\n".join(["1"] * 60) + "\n"
    out = poison_here("play", "--players", "3", "--rounds", "3", "--seed", "8", stdin=answers).stdout
    log, _, _ = service_game("poison", ["greedy", "greedy"], 8, {"rounds": 3})
    names = names_of(["greedy", "greedy"])
    expected = []
    for played, caused in itertools.pairwise(log):
        if isinstance(played, CardPlayed) and isinstance(caused, CauldronOverflowed):
            before, value = sum(map(value_of, caused.taken)), value_of(played.card)
            expected.append(
                f"{said(names, played.seat, played.card)} into cauldron {played.cauldron}: "
                f"{before} + {value} = {before + value} > {OVERFLOW_LIMIT} — overflow! "
            )
    assert {line.split()[0] for line in expected} == {"you", "greedy"}  # the person and the bots
    told = [line[: line.index("overflow! ") + len("overflow! ")] for line in out.splitlines() if "overflow!" in line]
    assert told == expected
    assert not re.search(r"total \d+ — overflow!", out)


def test_a_card_you_do_not_hold_is_refused_in_your_words_and_you_choose_again():
    _, _, turns = service_game("poison", ["greedy", "greedy"], 8, {"rounds": 1})
    hand = turns[0].game.hand(0)
    missing = next(card for card in RULESETS["poison"].card_codes if card not in hand)
    answers = "\n".join([f"{missing} 0", *["1"] * 60]) + "\n"
    result = poison_here("play", "--players", "3", "--rounds", "1", "--seed", "8", stdin=answers)
    assert result.returncode == 0
    assert f"your move: {missing} 0\nyou hold no {missing} — a move is its number in the list" in result.stdout


def test_you_choose_your_seat_and_the_bots_fill_the_others():
    bots, seed = ["greedy", "random", "greedy"], 3
    answers = "\n".join(["1"] * 60) + "\n"
    args = ("--players", "4", "--rounds", "1", "--seat", "2", "--bots", ",".join(bots), "--seed", str(seed))
    result = poison_here("play", *args, stdin=answers)
    assert result.returncode == 0, result.stderr
    names = names_of(bots, you=2)
    assert names == ["greedy bot 0", "random bot 1", "you", "greedy bot 3"]
    header = "Poison: you are seat 2 against greedy bot 0, random bot 1, greedy bot 3; seed 3. Lowest total wins."
    assert result.stdout.startswith(header + "\n")
    log, _, _ = service_game("poison", bots, seed, {"rounds": 1}, you=2)
    assert played_lines(result.stdout) == [said(names, e.seat, e.card) for e in log if isinstance(e, CardPlayed)]
    assert re.search(r"^2 +you +\d+ +0 +0 *$", result.stdout, re.MULTILINE)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--seat", "4"], "--seat 4 is not a seat of a 4-player game: choose 0 to 3"),
        (["--seat", "-1", "--players", "3"], "--seat -1 is not a seat of a 3-player game: choose 0 to 2"),
        (["--ruleset", "pot", "--players", "2", "--seat", "2"], "--seat 2 is not a seat of a 2-player game"),
        (["--players", "7"], "3 to 6 players"),
        (["--bots", "clever"], "unknown bot 'clever'"),
        (["--ruleset", "pot", "--rounds", "2"], "--rounds is not an option"),
        (["--ruleset", "pot", "--players", "7"], "2 to 6 players, not 7"),
        (["--game", "abc", "--token", "t"], "--game and --token join a game on a server: give its --server URL too"),
        (["--server", "http://127.0.0.1:1", "--game", "abc"], "--game and --token go together"),
    ],
)
def test_play_refuses_bad_options_in_one_line(args, says):
    assert_one_line_refusal(poison_here("play", *args), "play", says)


# ---- leaving, and Ctrl-C --------------------------------------------------------------------


def test_the_end_of_input_leaves_the_game_saying_at_which_version_with_status_0():
    _, _, turns = service_game("poison", ["greedy"] * 3, 1, {})
    result = poison_here("play", "--players", "4", "--seed", "1", stdin="")
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith(f"your move: \nyou left the game at version {turns[0].version}\n")
    assert result.stderr == ""


@pytest.mark.parametrize("word", ["q", "quit", "Q"])
def test_q_leaves_the_game_saying_at_which_version_with_status_0(word):
    _, _, turns = service_game("poison", ["greedy", "greedy"], 8, {"rounds": 1})
    result = poison_here("play", "--players", "3", "--rounds", "1", "--seed", "8", stdin=f"1\n{word}\nnever read\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith(f"your move: {word}\nyou left the game at version {turns[1].version}\n")
    assert turns[1].version > turns[0].version


def test_help_says_how_to_leave_and_what_each_exit_status_means():
    out = " ".join(poison_here("play", "--help").stdout.split())  # as filled to any width
    assert "'q' (or 'quit', or the end of the input) leaves the game" in out
    assert "Exit status: 0 when the game ends or you leave it; 1 when the server cannot be reached" in out
    assert "130 on Ctrl-C" in out
    for flag in ("--seat N", "--server URL", "--game ID", "--token TOKEN"):
        assert flag in out


@pytest.mark.subprocess
def test_ctrl_c_while_play_waits_for_a_move_ends_it_with_one_line_and_status_130():
    process = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "play", "--seed", "2"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # As a shell starts a program: Ctrl-C interrupts it, even if this test runner was
        # started with SIGINT ignored (as background jobs of a script are).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stdout is not None
    assert process.stdin is not None
    seen = b""
    while b"your move: " not in seen:  # the prompt ends without a newline: read what comes
        chunk = process.stdout.read1(65536)
        assert chunk, seen
        seen += chunk
    until(lambda: reading_input(process.pid), what="play waiting for a move")
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    process.stdin.close()
    assert process.returncode == 130
    assert err == b"poison play: interrupted\n"
    assert b"Traceback" not in seen + out


# ---- in a real terminal ------------------------------------------------------------------------


@pytest.fixture
def terminal() -> Iterator[Callable[..., Terminal]]:
    """Start `poison play ARGS` in a pseudo-terminal; whatever still runs at the end is killed."""
    started: list[Terminal] = []

    def start(*args: str, columns: int = 100, lines: int = 40) -> Terminal:
        started.append(Terminal("play", *args, columns=columns, lines=lines))
        return started[-1]

    yield start
    for each in started:
        if each.process.poll() is None:
            each.process.kill()
            each.process.wait()


def read_until_seen(terminal: Terminal, wanted: bytes, times: int) -> None:
    """Read until `wanted` has been written `times` times in all."""
    deadline = time.monotonic() + 60
    while terminal.output.count(wanted) < times:
        assert time.monotonic() < deadline, terminal.output[-2000:]
        terminal._read(1)


@pytest.mark.subprocess
def test_in_a_terminal_the_board_is_redrawn_each_turn_with_what_happened_since_your_move(terminal):
    start = terminal
    terminal = start("--players", "3", "--rounds", "1", "--seed", "8")
    terminal.read_until(b"your move: ")
    os.write(terminal.master, b"1\r")
    read_until_seen(terminal, b"your move: ", 2)
    screen = terminal.screen()
    lines = shown_lines(screen)
    # A fresh screen: the headline on top, then only this turn's story and one board.
    assert lines[0].startswith("Poison: you are seat 0 against greedy bot 1, greedy bot 2; seed 8.")
    assert re.match(r"you play [RBPG]\d into cauldron \d: total \d+", lines[1])
    assert sum(line.startswith("your hand:") for line in lines) == 1
    assert sum(line.startswith("round 1 of 1") for line in lines) == 1
    os.write(terminal.master, b"q\r")
    assert terminal.wait() == 0
    assert "you left the game at version" in shown_lines(terminal.screen())[-1]


@pytest.mark.subprocess
def test_in_a_terminal_cards_have_their_suit_s_colour_beside_their_code(terminal):
    terminal = terminal("--players", "3", "--rounds", "1", "--seed", "8")
    terminal.read_until(b"your move: ")
    screen = terminal.screen()
    row = next(y for y, line in enumerate(screen.display) if line.startswith("your hand:"))
    text = screen.display[row]
    colours = {"R": "red", "B": "blue", "P": "magenta", "G": "green"}
    cards = list(re.finditer(r"\b([RBPG])\d\b", text))
    assert cards
    for card in cards:
        assert screen.buffer[row][card.start()].fg == colours[card.group(1)], card.group(0)
        assert screen.buffer[row][card.start() + 1].fg == colours[card.group(1)]
    assert screen.buffer[row][0].fg == "default"  # "your hand:" itself is not coloured
    until(lambda: reading_input(terminal.process.pid), what="play waiting for a move")
    terminal.process.send_signal(signal.SIGINT)
    assert terminal.wait() == 130


@pytest.mark.subprocess
@pytest.mark.parametrize("columns", [30, 45])
def test_in_a_narrow_terminal_the_moves_wrap_between_moves_never_inside_one(terminal, columns):
    terminal = terminal("--players", "3", "--rounds", "1", "--seed", "8", columns=columns, lines=60)
    terminal.read_until(b"your move: ")
    lines = shown_lines(terminal.screen())
    start = lines.index("your moves:") + 1
    rows = lines[start : next(i for i, line in enumerate(lines) if line.startswith("your move:"))]
    assert len(rows) > 1  # the list did have to wrap
    for row in rows:  # every row holds whole moves, and nothing else
        assert re.fullmatch(r"(\d+\) [RBPG]\d→\d *)+", row), row
    numbers = [int(number) for row in rows for number in re.findall(r"(\d+)\)", row)]
    assert sorted(numbers) == list(range(1, len(numbers) + 1))
    until(lambda: reading_input(terminal.process.pid), what="play waiting for a move")
    terminal.process.send_signal(signal.SIGINT)
    assert terminal.wait() == 130


@pytest.mark.subprocess
def test_ctrl_c_in_a_terminal_leaves_one_line_and_no_traceback(terminal):
    terminal = terminal("--seed", "2")
    terminal.read_until(b"your move: ")
    until(lambda: reading_input(terminal.process.pid), what="play waiting for a move")
    terminal.process.send_signal(signal.SIGINT)
    assert terminal.wait() == 130
    assert shown_lines(terminal.screen())[-1] == "poison play: interrupted"
    assert b"Traceback" not in terminal.output
    assert b"KeyboardInterrupt" not in terminal.output


# ---- the pot game --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pot_played() -> tuple[subprocess.CompletedProcess, list, LoggedGame, dict[str, str]]:
    """A whole pot game in the terminal, the person taking their first legal move each turn;
    on their first turn they first try a card they do not hold and words that are no move,
    and on their first endgame turn they first try to close the pot."""
    bots, seed = ["greedy", "random"], 4
    log, logged, turns = service_game("pot", bots, seed, {})
    missing = next(card for card in RULESETS["pot"].card_codes if card not in turns[0].game.hand(0))
    endgame = next(number for number, turn in enumerate(turns) if turn.game.endgame)
    closing = f"{turns[endgame].game.hand(0)[0]} close"
    answers = [missing, "T9", "T3 maybe", "99", *["1"] * endgame, closing, *["1"] * (len(turns) - endgame)]
    args = ("--ruleset", "pot", "--players", "3", "--bots", ",".join(bots), "--seed", str(seed))
    result = poison_here("play", *args, stdin="\n".join(answers) + "\n")
    return result, log, logged, {"missing": missing, "closing": closing}


def test_a_person_plays_a_whole_pot_game_to_the_totals_the_service_reaches(pot_played):
    result, log, logged, _ = pot_played
    assert result.returncode == 0, result.stderr
    names = names_of(["greedy", "random"])
    totals = ", ".join(f"{name} {total}" for name, total in zip(names, logged.game.totals, strict=True))
    assert f"final totals: {totals}\n" in result.stdout
    best = max(logged.game.totals)
    winners = ", ".join(names[seat] for seat in logged.game.winners)
    assert re.search(rf"^winners?: {re.escape(winners)} \(highest total {best}\)$", result.stdout, re.MULTILINE)
    expected = [said(names, e.seat, e.card) for e in log if isinstance(e, PotCardPlayed)]
    assert played_lines(result.stdout) == expected


def test_play_pot_shows_the_pot_the_pile_the_hands_and_numbered_moves(pot_played):
    out = pot_played[0].stdout
    assert "The pot game: you are seat 0 against greedy bot 1, random bot 2; seed 4. Highest total wins." in out
    assert re.search(r"^pot: T\d, toxicity \d+ of 14; draw pile: 43 cards$", out, re.MULTILINE)
    assert "draw pile: 0 cards (endgame: no more closing, no more drawing)" in out
    assert re.search(r"^seat +player +in hand +total$", out, re.MULTILINE)
    assert re.search(r"^your hand: (T\d ?){4}$", out, re.MULTILINE)
    assert re.search(r"^your moves: 1\) (T\d) {2}2\) \1 close", out, re.MULTILINE)
    assert "The game, pot by pot" in out


def test_play_pot_tells_what_each_move_did_in_agreeing_words_and_shows_only_your_drawn_cards(pot_played):
    out, log = pot_played[0].stdout, pot_played[1]
    assert re.search(r"^ +you draw( T\d)+$", out, re.MULTILINE)
    assert re.search(r"^ +(greedy bot 1|random bot 2) draws \d cards?$", out, re.MULTILINE)
    assert not re.search(r"bot \d draws T\d", out)
    assert re.search(r"— the pot explodes! (T\d ?)+ are discarded$", out, re.MULTILINE)
    assert re.search(r"^.+ bot \d plays T\d and closes the pot: toxicity \d+ — .+ scores [+-]\d+ for", out, re.M)
    assert re.search(r"^ +a new pot starts with T\d from the draw pile$", out, re.MULTILINE)
    closings = sum(1 for event in log if isinstance(event, PotClosed))
    assert out.count(" scores ") + out.count(" you score ") + out.count("the last card is in") == closings
    for wrong in ("you plays", "you draws", "you scores", "you closes"):
        assert wrong not in out


def test_play_pot_says_you_close_the_pot_and_you_score():
    result = poison_here("play", "--ruleset", "pot", "--players", "2", "--seed", "4", stdin="2\nq\n")
    assert result.returncode == 0, result.stderr
    assert re.search(
        r"^you play T\d and close the pot: toxicity \d+ — you score [+-]\d+ for( T\d)+$", result.stdout, re.M
    )


def test_play_pot_refuses_what_is_no_legal_move_and_waits_for_another(pot_played):
    out, tried = pot_played[0].stdout, pot_played[3]
    assert f"you hold no {tried['missing']}" in out
    assert "'T9' is not a card code of The pot game: T0 T1 T2 T3 T4 T5 T6" in out
    assert "'T3 maybe' is not a move" in out
    assert re.search(r"there is no move 99: choose 1 to \d+", out)
    card = tried["closing"].split()[0]
    assert f"the pot may not be closed with {card}: no pot may be closed once the draw pile is empty" in out


def test_a_superscript_digit_as_a_move_or_a_cauldron_is_refused_and_you_choose_again():
    # "²".isdigit() is true but int("²") fails: this once ended play with a traceback.
    answers = "\n".join(["²", "R1 ²", *["1"] * 60]) + "\n"
    result = poison_here("play", "--players", "3", "--rounds", "1", "--seed", "8", stdin=answers)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "your move: ²\n" in result.stdout
    assert "your move: R1 ²\n" in result.stdout
