"""Whole game logs for the event tests, made through events.play."""

from __future__ import annotations

from events.play import LoggedGame, move, new_game
from events.schema import Event, Player, Rules


def players(n: int) -> tuple[Player, ...]:
    return tuple(Player(seat=seat, name=f"player{seat}") for seat in range(n))


def game_log(
    n: int = 4, *, seed: int = 1, rounds: int | None = None, cauldrons: str = "dynamic", moves: int | None = None
) -> tuple[list[Event], LoggedGame]:
    """The log of a game played with the last legal move each turn, to its end or for
    `moves` moves."""
    log, logged = new_game("g-test", players(n), rounds=rounds, rules=Rules(cauldrons=cauldrons), seed=seed)
    played = 0
    while not logged.finished and (moves is None or played < moves):
        card, cauldron = logged.game.legal_moves()[-1]
        caused, logged = move(logged, logged.game.turn, card, cauldron)
        log += caused
        played += 1
    return log, logged


def numbered(log: list[Event]) -> list[tuple[int, Event]]:
    return list(enumerate(log, start=1))
