"""The answers that hold a game's view or scores, whatever its ruleset: a new game, a seat
taken, a move played, a replayed log.

Their `game` (and `scores`) is the union of every registered ruleset's view (service/rulesets.py
makes it from the registry), so a ruleset added to the registry is answered here unchanged.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from events.commitment import CommitmentStatus
from service.rulesets import AnyGameView, AnyScores
from service.schemas import EventOut, GameId, Name, Response, Seat, SeatToken, Token, Version


class GameCreatedOut(Response):
    """The new game: its id, each seat's token (for people), and the public view (bots that
    move first have already played)."""

    game_id: GameId
    players: list[SeatToken]
    game: AnyGameView


class SeatTakenOut(Response):
    """A seat taken: by a join (the seat of a waiting game), or by a rematch (the same seat
    in the next game). Its token is shown here; `game` is that game with your `you`."""

    seat: Seat
    name: Name
    token: Token
    game: AnyGameView


class MovePlayed(Response):
    """A move's answer: the events it appended (yours, what followed, the bots' moves after
    it, as your seat may see them) and the game after them, with your `you`."""

    version: Version
    events: list[EventOut]
    game: AnyGameView


class Replayed(Response):
    """A replayed log: the game it describes, showing everything (`all`), its scores, and
    whether its commitment to its deals holds."""

    version: Version
    game: AnyGameView
    scores: AnyScores
    commitment: Annotated[
        CommitmentStatus,
        msgspec.Meta(
            description='"holds": game_created\'s seed_commitment is the SHA-256 of its "<seed>:<salt>" (a log whose '
            'commitment does not hold is 422 invalid_log); "none": the log makes no commitment to check (it was '
            "written before games committed to their deals)"
        ),
    ]
