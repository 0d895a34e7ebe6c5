"""What the HTTP service needs to know of a ruleset: the interface each one implements.

A ruleset reads the parts of a request that are its own (a new game's options, a move) and
shapes its answers (the view of a game, the score sheet). Handlers and views stay generic:
they look the ruleset up by the game's name (service/rulesets.py) and ask it. A ruleset's
own bodies and views are in its folder (service/<game>/schemas.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from msgspec import UNSET, UnsetType

from core.rulesets import Ruleset
from events.away import seat_fields
from events.codec import Player
from events.play import LoggedGame
from service.schemas import ClockView, PlayCard, Response

if TYPE_CHECKING:
    from service.problems import ApiError


class ServiceRules:
    """A ruleset over HTTP. What every game's answers hold (a view's id, version, status,
    turn, seats, totals, winners and rematch; a score sheet's status, totals and winners;
    a replay's hands) is filled in here, once; a ruleset adds its own fields through the
    hooks (`view_fields`, `seat_fields`, `hidden_fields`, `score_fields`)."""

    ruleset: Ruleset
    #: The body that creates a game of this ruleset (one member of rulesets.CreateGame).
    create_body: type[Any]
    #: Its game's view and score sheet (members of rulesets.AnyGameView and AnyScores).
    view_type: Callable[..., Response]
    scores_type: Callable[..., Response]
    #: A seat as the view shows it, and a replay's every hidden card (the view's `all`).
    seat_type: Callable[..., Response]
    all_type: Callable[..., Response]
    #: The caller's own part of a view (`seat`, `hand`, `legal_moves`), and a legal move as
    #: it shows one (the fields of the ruleset's move, by name).
    you_type: Callable[..., Response]
    move_out_type: type[Response]

    @property
    def name(self) -> str:
        return self.ruleset.name

    def options(self, body: Any) -> dict[str, Any]:
        """The game's options from its create body: none, unless the game has some."""
        return {}

    def move(self, body: PlayCard) -> tuple[Any, ...]:
        """The move's fields (after its seat) from a move request, in the order of the
        ruleset's legal moves (`move_out_type`); ApiError 400 when it names a field of
        another ruleset, or leaves out one of its own that has no default (`left_out`)."""
        own = self.move_out_type.__struct_fields__
        for field in MOVE_FIELDS:
            if field not in own and getattr(body, field) is not UNSET:
                raise foreign(field, self.ruleset)
        values = {field: getattr(body, field) for field in own}
        return tuple(self.left_out(field) if value is UNSET else value for field, value in values.items())

    def left_out(self, field: str) -> Any:
        """The value of a field of the ruleset's move that the request leaves out: refused
        (400), unless the ruleset gives it a default."""
        raise invalid_request(f"a move of {self.ruleset.title} names its {field!r}")

    def public_view(self, logged: LoggedGame, status: str) -> Any:
        """What anyone may see of the game."""
        game = logged.game
        seen = game.view(None)
        return self.view_type(
            game_id=logged.created.game_id,
            version=logged.version,
            status=status,
            turn=None if logged.abandoned else seen.turn,  # nobody moves in an abandoned game
            players=seat_views(logged, self.seat_type, seen.hand_sizes, **self.seat_fields(seen)),
            totals=list(seen.totals),
            winners=list(seen.winners),
            next_game=next_game_of(logged),
            clock=clock_view(logged),
            **self.view_fields(logged, seen),
        )

    def view_fields(self, logged: LoggedGame, seen: Any) -> dict[str, Any]:
        """The public view's fields that are the ruleset's own, from the game and what
        anyone sees of it (`seen`, the engine's view of no seat)."""
        return {}

    def seat_fields(self, seen: Any) -> dict[str, Sequence[Any]]:
        """A seat's fields in the view that are the ruleset's own, each given as its values,
        seat by seat (service.ruleset.seat_views)."""
        return {}

    def with_you(self, view: Any, logged: LoggedGame, seat: int) -> None:
        """Add the caller's own part (`you`) to a copy of the public view: the seat, its hand
        and, when it is to move, its legal moves (each a `move_out_type`)."""
        game = logged.game
        moves = game.legal_moves() if view.turn == seat else ()  # turn is None between rounds
        shown = self.move_out_type
        view.you = self.you_type(seat=seat, hand=list(game.hand(seat)), legal_moves=[move_out(shown, m) for m in moves])

    def with_everything(self, view: Any, logged: LoggedGame) -> None:
        """Add every hidden card (`all`) to a copy of the public view: replays only. Every
        hand, and the ruleset's own hidden cards (`hidden_fields`)."""
        game = logged.game
        hands = [list(game.hand(seat)) for seat in range(game.players)]
        view.all = self.all_type(hands=hands, **self.hidden_fields(game))

    def hidden_fields(self, game: Any) -> dict[str, Any]:
        """The cards besides the hands that only a replay shows (a hand set aside, the draw
        pile's order), by the field of `all_type` that holds them."""
        return {}

    def scores(self, logged: LoggedGame, status: str) -> Any:
        """The score sheet: the totals and winners, and the ruleset's own lines."""
        game = logged.game
        return self.scores_type(
            status=status, totals=list(game.totals), winners=list(game.winners), **self.score_fields(game)
        )

    def score_fields(self, game: Any) -> dict[str, Any]:
        """The score sheet's fields that are the ruleset's own (its rounds, its pots)."""
        return {}


#: The fields of a move request (service.schemas.PlayCard) after its card that some
#: ruleset's moves have: a ruleset whose moves lack one refuses it.
MOVE_FIELDS = tuple(field for field in PlayCard.__struct_fields__ if field not in ("card", "expected_version"))


def invalid_request(detail: str) -> ApiError:
    """A 400 `invalid_request` problem. Its class is Litestar's HTTPException: imported
    here, when a request is refused, so that `poison play` draws a game's view through this
    module without importing Litestar (only `poison serve` needs it)."""
    from service.problems import ApiError

    return ApiError(400, "invalid_request", detail)


def foreign(field: str, ruleset: Ruleset) -> ApiError:
    return invalid_request(f"{ruleset.title} has no {field!r}: leave it out")


def open_mark(player: Player) -> bool | UnsetType:
    """A view's `open` of a seat: true on an open seat, absent on any other."""
    return True if player.name is None else UNSET


@functools.cache
def move_out(shown: type[Response], move: NamedTuple) -> Response:
    """A legal move as a view shows it. A game has a few dozen moves (card x cauldron, card
    x close), so each is made once and shared; the cache is keyed by the shown type too, as
    two games' moves can be equal tuples."""
    return shown(**move._asdict())


def seat_views(
    logged: LoggedGame, seat_type: Callable[..., Response], hand_sizes: Sequence[int], **own: Sequence[Any]
) -> list[Any]:
    """A view's `players`: each seat's name, bot, open mark and hand size as every game shows
    them, whether it is away, and the game's `own` fields of a seat (each given as its
    values, seat by seat)."""
    own = {**seat_fields(logged), **own}
    return [
        seat_type(
            seat=player.seat,
            name=player.name,
            open=open_mark(player),
            bot=player.bot,
            hand_size=hand_sizes[player.seat],
            **{field: values[player.seat] for field, values in own.items()},
        )
        for player in logged.players
    ]


def clock_view(logged: LoggedGame) -> ClockView | None:
    """A view's `clock`: its seconds per move and the deadline of the seat to move (as the
    live store set it; null in a replay or a past version, which know no time)."""
    clock = logged.clock
    if clock is None:
        return None
    deadline = logged.deadline_ms if logged.status == "active" else None
    return ClockView(seconds_per_move=clock.seconds_per_move, deadline=None if deadline is None else rfc3339(deadline))


def rfc3339(ms: int) -> str:
    """A moment (ms since the epoch) in RFC 3339, UTC, to the millisecond."""
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def next_game_of(logged: LoggedGame) -> str | UnsetType:
    """A view's `next_game`: the rematch's id once one exists, absent before."""
    return logged.next_game if logged.next_game is not None else UNSET
