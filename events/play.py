"""Turning a new game and each move into the events they cause, through the core.

The consequences of a move (an overflow, a scored round, the end of the game) are derived
here and only here: the live service records them, and replay demands that a log holds
exactly these, so a log can never say something the rules did not.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core import Game, Played, derive_seed, seeded_deal
from events.schema import (
    CardPlayed,
    CauldronOverflowed,
    Event,
    GameCreated,
    GameFinished,
    Player,
    RoundScored,
    RoundStarted,
    Rules,
    TakenCounts,
)


class CannotDeal(RuntimeError):
    """A game without a seed cannot deal its next round by itself: its log must say."""


@dataclass
class LoggedGame:
    """A game as its log makes it: the creation facts, the engine's state, the version
    (number of events) and the events the log still owes after the last move.

    Once made, a LoggedGame is never changed (moves and replay work on a copy), so readers
    may keep what they derive from it in `memo` (the service keeps its public view there)."""

    created: GameCreated
    game: Game
    version: int
    pending: tuple[Event, ...] = field(default=())
    memo: dict[str, object] = field(default_factory=dict, compare=False, repr=False)

    @property
    def finished(self) -> bool:
        return self.game.status == "finished"

    def copy(self) -> LoggedGame:
        return LoggedGame(self.created, self.game.copy(), self.version, self.pending)


def round_started(game: Game) -> RoundStarted:
    """The event of the round just dealt, with every hand: the store keeps all facts."""
    return RoundStarted(
        round=game.round,
        dealer=game.dealer,
        hands=tuple(game.hand(seat) for seat in range(game.players)),
        set_aside=game.set_aside(),
    )


def deal_next_round(game: Game, seed: int | None) -> RoundStarted:
    if seed is None:
        raise CannotDeal(f"round {game.round} of a game without a seed must be dealt by its log")
    game.deal(*seeded_deal(seed, game.players, game.round))
    return round_started(game)


def new_game(
    game_id: str, players: tuple[Player, ...], *, rounds: int | None, rules: Rules, seed: int
) -> tuple[list[Event], LoggedGame]:
    """The first events of a game (its creation, the first deal, and the moves of bots
    whose turn it is) and its state. Raises core.RuleError for invalid options."""
    game = Game(len(players), rounds=rounds, cauldrons=rules.cauldrons)
    created = GameCreated(game_id=game_id, players=players, rounds=game.rounds, rules=rules, seed=seed)
    first_deal = deal_next_round(game, seed)
    logged = LoggedGame(created, game, 2)
    bot_events, logged = bots_play(logged)
    return [created, first_deal, *bot_events], logged


def consequences(game: Game, round: int, played: Played) -> list[Event]:
    """The events a move that was just applied to `game` causes, its own first; a round
    that starts afterwards is not among them (its deal is a fact of its own)."""
    caused: list[Event] = [
        CardPlayed(round=round, seat=played.seat, card=played.card, cauldron=played.cauldron, total=played.total)
    ]
    if played.taken:
        caused.append(CauldronOverflowed(round=round, seat=played.seat, cauldron=played.cauldron, taken=played.taken))
    if played.round_over:
        result = game.round_results()[-1]
        caused.append(
            RoundScored(
                round=result.round,
                scores=result.scores,
                taken=tuple(TakenCounts(**pile._asdict()) for pile in result.taken),
                discarded=result.discarded,
            )
        )
    if played.game_over:
        caused.append(GameFinished(totals=game.totals, winners=game.winners))
    return caused


def _apply(after: LoggedGame, seat: int, card: str, cauldron: int) -> list[Event]:
    round_now = after.game.round
    played = after.game.play(seat, card, cauldron)
    caused = consequences(after.game, round_now, played)
    if after.game.status == "dealing":
        caused.append(deal_next_round(after.game, after.created.seed))
    after.version += len(caused)
    return caused


def bot_of(logged: LoggedGame, seat: int) -> str | None:
    return logged.created.players[seat].bot


def bots_play(logged: LoggedGame) -> tuple[list[Event], LoggedGame]:
    """Every move the bots make while it is a bot's turn; `logged` is left as it was.
    A random bot draws from the game's seed and version, so its choices are reproducible."""
    after = logged.copy()
    caused: list[Event] = []
    seed = after.created.seed or 0
    while after.game.status == "active" and (bot := bot_of(after, after.game.turn)) is not None:
        card, cauldron = after.game.choose(bot, derive_seed(seed, after.version))
        caused += _apply(after, after.game.turn, card, cauldron)
    return caused, after


def move(logged: LoggedGame, seat: int, card: str, cauldron: int) -> tuple[list[Event], LoggedGame]:
    """The events of one move, and of the bot moves that follow it, and the game after
    them; `logged` is left as it was. Raises core.RuleError when the rules refuse the move."""
    after = logged.copy()
    caused = _apply(after, seat, card, cauldron)
    bot_events, after = bots_play(after)
    return caused + bot_events, after
