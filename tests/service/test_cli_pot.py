"""The `poison` command with the pot game: simulate, play and replay, and the bots of `play`
seeded as the service seeds them (for Poison too). Run in this process (`service.cli.main`)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from core.pot import reference as pot_reference
from core.rulesets import RULESETS
from events.codec import Player, encode_public, to_public
from events.play import LoggedGame, create_game, play_move
from service import cli
from service.commands import simulate
from service.commands.screens import SCREENS
from tests.service.command import assert_one_line_refusal, assert_tampered_log_refused
from tests.service.command import poison_read as poison_here


def expected_figures(report: dict, simulation) -> None:
    """The seats of a `simulate --json` report are exactly what `simulation` says."""
    games = simulation.games
    assert report["games"] == games
    assert report["moves"] == simulation.moves
    for seat in report["seats"]:
        s = seat["seat"]
        mean = simulation.score_sum[s] / games
        assert seat["wins"] == simulation.wins[s]
        assert seat["win_rate"] == simulation.wins[s] / games
        assert seat["mean"] == pytest.approx(mean)
        assert seat["spread"] == pytest.approx(math.sqrt(simulation.score_squares[s] / games - mean * mean))


# ---- simulate -------------------------------------------------------------------------------


def test_simulate_pot_figures_equal_the_reference_simulation_for_the_same_arguments():
    bots = ["greedy", "random", "random"]
    args = ("--ruleset", "pot", "--players", "3", "--games", "1000", "--bots", ",".join(bots), "--seed", "9")
    result = poison_here("simulate", *args, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ruleset"] == "pot"
    assert report["wins_by"] == "highest total wins"
    assert [seat["bot"] for seat in report["seats"]] == bots
    expected_figures(report, pot_reference.simulate(3, 1000, seed=9, bots=bots))


def test_simulate_pot_in_chunks_adds_up_to_one_reference_call(monkeypatch, capsys):
    monkeypatch.setattr(simulate, "CHUNK", 40)  # 100 games: chunks of 40, 40 and 20
    args = [
        "simulate",
        "--ruleset",
        "pot",
        "--players",
        "2",
        "--games",
        "100",
        "--bots",
        "random,greedy",
        "--seed",
        "3",
    ]
    assert cli.main([*args, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    expected_figures(report, pot_reference.simulate(2, 100, seed=3, bots=["random", "greedy"]))


def test_simulate_pot_shows_the_ruleset_in_its_header_and_that_the_highest_total_wins():
    result = poison_here("simulate", "--ruleset", "pot", "--players", "2", "--games", "300", "--bots", "greedy,random")
    assert result.returncode == 0, result.stderr
    assert "300 games, ruleset pot, 2 players, seed 0" in result.stdout
    assert "highest total wins" in result.stdout
    assert "lowest" not in result.stdout


def test_simulate_poison_echoes_its_options_in_the_header():
    result = poison_here("simulate", "--players", "3", "--games", "200", "--rounds", "2", "--cauldrons", "fixed")
    assert result.returncode == 0, result.stderr
    assert "200 games, ruleset poison, 3 players, seed 0, rounds 2, cauldrons fixed" in result.stdout
    assert "lowest total wins" in result.stdout
    defaults = poison_here("simulate", "--players", "3", "--games", "200")
    assert "ruleset poison, 3 players, seed 0, rounds default, cauldrons dynamic" in defaults.stdout


def test_simulate_and_play_refuse_an_unknown_ruleset_in_one_line():
    for command in ("simulate", "play"):
        result = poison_here(command, "--ruleset", "rummy")
        assert_one_line_refusal(result, command, "'rummy' is not a ruleset: choose one of 'poison', 'pot'")


# ---- play: seat 0 in the terminal, the bots seeded as the service seeds them --------------------


# ---- replay -------------------------------------------------------------------------------------


def export(log: list, path: Path) -> Path:
    path.write_bytes(b"".join(encode_public(to_public(version, event)) + b"\n" for version, event in enumerate(log, 1)))
    return path


@pytest.fixture(scope="module")
def pot_log(tmp_path_factory) -> tuple[Path, list, LoggedGame]:
    players = (
        Player(seat=0, name="[red]eve[/red]"),
        Player(seat=1, name="bob", bot="greedy"),
        Player(seat=2, name="cy", bot="random"),
    )
    log, logged = create_game("pot", "g-pot", players, seed=11, options={})
    while not logged.finished:
        caused, logged = play_move(logged, 0, logged.game.legal_moves()[-1])
        log += caused
    return export(log, tmp_path_factory.mktemp("pot") / "pot.ndjson"), log, logged


def table_rows(stdout: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.split("│")[1:-1]] for line in stdout.splitlines() if line.startswith("│")]


def test_replay_prints_a_pot_log_pot_by_pot_with_its_totals_and_winners(pot_log):
    path, _, logged = pot_log
    result = poison_here("replay", str(path))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    names = ["[red]eve[/red]", "bob [greedy]", "cy [random]"]  # shown as written, never as markup
    assert f"game g-pot: the pot game, 3 players, seed 11; the log is valid up to event {logged.version}" in out
    assert "Pot by pot" in out
    rows = table_rows(out)
    pots = [row for row in rows if row[0].isdigit()]
    expected = [
        [
            str(n),
            str(r.seat),
            names[r.seat],
            r.outcome,
            " ".join(r.cards),
            str(r.toxicity),
            f"{r.points:+d}" if r.outcome == "closed" else "0",
        ]
        for n, r in enumerate(logged.game.results(), start=1)
    ]
    assert pots == expected
    assert {row[1]: row[-1] for row in rows if not row[0].isdigit()} == {
        str(seat): str(total) for seat, total in enumerate(logged.game.totals)
    }
    winners = ", ".join(names[seat] for seat in logged.game.winners)
    assert f"finished: highest total {max(logged.game.totals)}, won by {winners}" in out


def test_replay_of_part_of_a_pot_log_shows_where_the_game_stands(pot_log):
    path, _, _ = pot_log
    result = poison_here("replay", str(path), "--version", "40")
    assert result.returncode == 0, result.stderr
    assert "the log is valid up to event 40" in result.stdout
    assert re.search(r"^in play: seat \d to move$", result.stdout, re.MULTILINE)
    assert re.search(r"^  pot: .*toxicity \d+ of 14; draw pile: \d+ cards$", result.stdout, re.MULTILINE)
    assert "finished" not in result.stdout


@pytest.mark.parametrize(
    ("kind", "tamper"),
    [
        ("pot_closed", lambda data: data.update(points=data["points"] + 1)),
        ("card_played", lambda data: data.update(toxicity=data["toxicity"] + 1)),
        ("cards_drawn", lambda data: data.update(count=data["count"] + 1, cards=[*data["cards"], "T0"])),
    ],
)
def test_replay_of_a_tampered_pot_log_names_the_version_of_the_bad_event_in_one_line(pot_log, tmp_path, kind, tamper):
    assert_tampered_log_refused(pot_log[0], tmp_path, kind, tamper)


def test_replay_refuses_a_log_whose_first_event_names_no_ruleset_we_know(pot_log, tmp_path):
    path, _, _ = pot_log
    lines = path.read_text().splitlines()
    lines[0] = lines[0].replace('"ruleset":"pot"', '"ruleset":"rummy"')
    unknown = tmp_path / "rummy.ndjson"
    unknown.write_text("\n".join(lines) + "\n")
    result = poison_here("replay", str(unknown))
    assert result.returncode == 1
    assert result.stderr.startswith("poison replay: invalid log: event 1: ")
    assert "'rummy'" in result.stderr


def test_every_ruleset_has_a_screen():
    assert set(SCREENS) == set(RULESETS)
    assert all(screen.ruleset is RULESETS[name] for name, screen in SCREENS.items())
