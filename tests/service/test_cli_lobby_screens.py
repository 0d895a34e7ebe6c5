"""The lobby's terminal lines, drawn from the API's bodies: who sits where, and the list of
waiting games, whatever a server lists."""

from __future__ import annotations

from types import SimpleNamespace

from rich.console import Console

from service.commands.screens.lobby import room, waiting_games
from tests.service.command import read_through_isolates


def shown(renderable: object) -> str:
    console = Console(width=200, record=True, color_system=None)
    console.print(renderable)
    return read_through_isolates(console.export_text())


def test_a_bot_is_named_once_when_its_name_says_what_it_is_and_in_brackets_when_not() -> None:
    players = [
        SimpleNamespace(name="ana", bot=None),
        SimpleNamespace(name=None, bot=None, open=True),
        SimpleNamespace(name="greedy bot 2", bot="greedy"),
        SimpleNamespace(name="robo", bot="random"),
    ]
    line = shown(room(players, 0))
    assert "seat 2 greedy bot 2," in line
    assert "(greedy)" not in line
    assert "seat 3 robo (random)" in line


def test_a_waiting_game_of_a_ruleset_this_client_does_not_know_is_listed_by_its_name() -> None:
    games = [
        SimpleNamespace(game_id="g1", ruleset="pot", players=["ana", None]),
        SimpleNamespace(game_id="g2", ruleset="newgame", players=["bo", None, None]),
    ]
    table = shown(waiting_games(games))
    assert "The pot game" in table
    assert "newgame" in table
    assert "1 taken, 2 open" in table
