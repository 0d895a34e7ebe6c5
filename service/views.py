"""What a caller may see of a game: views, scores and event logs, redacted by seat.

The rule of hidden information lives here and only here: a hand is shown only to its own
seat; taken piles only as sizes; the hand set aside with three players, and the seed that
deals every hand, never while the game is active. Once a game is finished its whole log
is public, so anyone can replay it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

import msgspec

from core import Move
from events.play import LoggedGame
from events.schema import Event, GameCreated, RoundStarted, event_data, event_type
from service.schemas import (
    AllHands,
    CauldronView,
    EventOut,
    GameView,
    MoveOut,
    PlayerView,
    RoundScores,
    RulesOut,
    Scores,
    TakenOut,
    You,
)


def status_of(logged: LoggedGame) -> str:
    # A game between rounds (only ever seen through time travel) is still active.
    return "finished" if logged.finished else "active"


def game_view(logged: LoggedGame, *, seat: int | None = None, everything: bool = False) -> GameView:
    public = public_view(logged)
    if seat is None and not everything:
        return public
    game = logged.game
    result = msgspec.structs.replace(public)  # a shallow copy: the public part is shared
    if seat is not None:
        moves = game.legal_moves() if public.turn == seat else ()  # turn is None between rounds
        result.you = You(
            seat=seat,
            hand=list(game.hand(seat)),
            legal_moves=[_move_out(move) for move in moves],
        )
    if everything:
        result.all = AllHands(hands=[list(game.hand(s)) for s in range(game.players)], set_aside=list(game.set_aside()))
    return result


@functools.cache
def _move_out(move: Move) -> MoveOut:
    # A few dozen moves exist (card x cauldron): each is made once, then shared.
    return MoveOut(card=move.card, cauldron=move.cauldron)


def public_view(logged: LoggedGame) -> GameView:
    """What anyone may see of the game, made once per state: every move's answer and the
    reads after it share it, and only the caller's own part is made per request. Being
    shared, it is never changed: `game_view` adds a caller's part to a copy."""
    view = logged.memo.get("public_view")
    if view is None:
        view = logged.memo["public_view"] = _public_view(logged)
    assert isinstance(view, GameView)
    return view


def _public_view(logged: LoggedGame) -> GameView:
    game = logged.game
    view = game.view(None)
    created = logged.created
    players = [
        PlayerView(
            seat=player.seat,
            name=player.name,
            bot=player.bot,
            hand_size=view.hand_sizes[player.seat],
            taken=view.taken[player.seat],
        )
        for player in created.players
    ]
    return GameView(
        game_id=created.game_id,
        version=logged.version,
        status=status_of(logged),
        rules=RulesOut(cauldrons=created.rules.cauldrons),
        rounds=game.rounds,
        round=game.round,
        dealer=game.dealer,
        turn=view.turn,
        players=players,
        cauldrons=[CauldronView(color=c.colour, total=c.total, cards=list(c.cards)) for c in view.cauldrons],
        scores=[list(row) for row in view.scores],
        totals=list(view.totals),
        winners=list(view.winners),
    )


def scores(logged: LoggedGame) -> Scores:
    game = logged.game
    return Scores(
        status=status_of(logged),
        totals=list(game.totals),
        winners=list(game.winners),
        rounds=[
            RoundScores(
                round=result.round,
                dealer=result.dealer,
                scores=list(result.scores),
                taken=[TakenOut(**pile._asdict()) for pile in result.taken],
                discarded=[list(colours) for colours in result.discarded],
            )
            for result in game.round_results()
        ],
    )


def redact(event: Event, seat: int | None, finished: bool) -> Event:
    """The event as `seat` (None: the public) may read it. While the game is active the
    seed is hidden too: every deal (and every random bot's choice) follows from it."""
    if finished:
        return event
    if isinstance(event, GameCreated):
        return msgspec.structs.replace(event, seed=None)
    if not isinstance(event, RoundStarted):
        return event
    return RoundStarted(
        round=event.round,
        dealer=event.dealer,
        hands=tuple(hand if index == seat else None for index, hand in enumerate(event.hands)),
        set_aside=None,
    )


def public_events(events: Iterable[tuple[int, Event]], seat: int | None, finished: bool) -> list[EventOut]:
    return [
        EventOut(version=version, type=event_type(event), data=event_data(redact(event, seat, finished)))
        for version, event in events
    ]
