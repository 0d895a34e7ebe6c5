"""What a caller may see of a game: views, scores and event logs, redacted by seat.

The rule of hidden information is applied here, for every ruleset, and decided by the
rulesets' event layer (events.ruleset.EventRules.visible): a hand is shown only to its own
seat; taken piles only as sizes; the hand set aside with three players, the draw pile's
order, the seed that deals every hand and the salt of the game's commitment to it never
while the game is active. Once a game is over (finished or abandoned) its whole log is
public, so anyone can replay it and check its commitment.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from events.codec import Event, event_data, event_type
from events.play import LoggedGame
from events.ruleset import EventRules
from service.answers import MovePlayed
from service.rulesets import AnyGameView, AnyScores, service_rules_of
from service.schemas import EventOut


def status_of(logged: LoggedGame) -> str:
    # A game between rounds (only ever seen through time travel) is still active.
    return logged.status


def game_view(logged: LoggedGame, *, seat: int | None = None, everything: bool = False) -> AnyGameView:
    public = public_view(logged)
    if seat is None and not everything:
        return public
    rules = service_rules_of(logged)
    result = msgspec.structs.replace(public)  # a shallow copy: the public part is shared
    if seat is not None:
        rules.with_you(result, logged, seat)
    if everything:
        rules.with_everything(result, logged)
    return result


def public_view(logged: LoggedGame) -> AnyGameView:
    """What anyone may see of the game, made once per state: every move's answer and the
    reads after it share it, and only the caller's own part is made per request. Being
    shared, it is never changed: `game_view` adds a caller's part to a copy."""
    view = logged.memo.get("public_view")
    if view is None:
        view = with_playouts(service_rules_of(logged).public_view(logged, status_of(logged)), logged)
        if logged.created.seed_commitment is not None:  # a game created before commitments has none
            view.seed_commitment = logged.created.seed_commitment
        logged.memo["public_view"] = view
    return view


def with_playouts(view: AnyGameView, logged: LoggedGame) -> AnyGameView:
    """`view` with each search bot's seat showing its playouts, for every ruleset (before
    the view is shared); no other seat gets the key."""
    seats: list[Any] = list(view.players)  # each ruleset's seat view; every one has `playouts`
    for seen, player in zip(seats, logged.players, strict=True):
        if player.playouts is not msgspec.UNSET:
            seen.playouts = player.playouts
    return view


def scores(logged: LoggedGame) -> AnyScores:
    return service_rules_of(logged).scores(logged, status_of(logged))


def public_events(
    events: Iterable[tuple[int, Event]], seat: int | None, over: bool, rules: EventRules
) -> list[EventOut]:
    """The events as `seat` may read them: everything once the game is `over`."""
    return [
        EventOut(version=version, type=event_type(event), data=event_data(rules.visible(event, seat, over)))
        for version, event in events
    ]


def move_played(after: LoggedGame, first_version: int, caused: list[Event], seat: int | None) -> MovePlayed:
    """A move's answer: the events it caused (numbered from `first_version`), as the mover
    may see them, and the game after them with the mover's `you`."""
    numbered = [(first_version + i, event) for i, event in enumerate(caused)]
    return MovePlayed(
        version=after.version,
        events=public_events(numbered, seat, after.over, after.rules),
        game=game_view(after, seat=seat),
    )
