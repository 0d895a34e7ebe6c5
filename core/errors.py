"""The exceptions of the rules engine, shared by the compiled core and the reference.

Every refusal carries a stable, machine-readable `code` (the service maps these codes to
its problem+json errors) and a message a person can act on. A function that raises one of
these has changed nothing.
"""

from __future__ import annotations


class RuleError(ValueError):
    """Base of every refusal of the engine; `code` names the reason."""

    code: str

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {str(self)!r})"


class IllegalMove(RuleError):
    """A well-formed request that the rules forbid in the game's present state. It is one
    of two kinds, and callers (the HTTP service) answer by the kind, never by the code."""


class MoveConflict(IllegalMove):
    """The game's state stands in the way, whatever the move: `not_your_turn`,
    `game_finished`, `awaiting_deal` (a move while the next deal is due) and
    `not_awaiting_deal` (a deal while cards are being played). Asking again later, or as
    another seat, may succeed."""


class MoveRefused(IllegalMove):
    """The seat may move, but not this move: `card_not_in_hand`, `illegal_cauldron`
    (Poison's colour rules), `cannot_close` (the pot game's closing rules)."""


class InvalidArgument(RuleError):
    """A value no game could accept: wrong type, out of range, malformed.

    Codes: `invalid_players`, `invalid_rounds`, `invalid_rule`, `invalid_seed`,
    `seat_out_of_range`, `unknown_card`, `cauldron_out_of_range`, `invalid_deal`,
    `invalid_move`, `invalid_games`, `invalid_bot`, `unknown_ruleset`, `invalid_option`.
    """


#: The codes of each kind of illegal move; every other code is an InvalidArgument.
CONFLICT_CODES = frozenset({"not_your_turn", "game_finished", "awaiting_deal", "not_awaiting_deal"})
REFUSED_CODES = frozenset({"card_not_in_hand", "illegal_cauldron", "cannot_close"})
ILLEGAL_MOVE_CODES = CONFLICT_CODES | REFUSED_CODES


def rule_error(code: str, message: str) -> RuleError:
    """The exception of the right class for `code`."""
    if code in CONFLICT_CODES:
        return MoveConflict(code, message)
    if code in REFUSED_CODES:
        return MoveRefused(code, message)
    return InvalidArgument(code, message)


# ---- the messages, built in one place so both implementations say the same thing -------


def seat_out_of_range(seat: object, players: int) -> RuleError:
    return rule_error("seat_out_of_range", f"seat {seat!r} is not a seat of this game (0 to {players - 1})")


def unknown_card(card: object) -> RuleError:
    return rule_error("unknown_card", f"{card!r} is not a card code (R1 R2 R4 R5 R7, B…, P… or G4 for poison)")


def cauldron_out_of_range(cauldron: object) -> RuleError:
    return rule_error("cauldron_out_of_range", f"cauldron {cauldron!r} is not 0, 1 or 2")


def game_finished() -> RuleError:
    return rule_error("game_finished", "the game is finished: every round has been scored")


def awaiting_deal(round: int) -> RuleError:
    return rule_error("awaiting_deal", f"round {round} has not been dealt yet")


def not_awaiting_deal(round: int) -> RuleError:
    return rule_error("not_awaiting_deal", f"round {round} is being played: deal only before a round")


def not_your_turn(seat: int, turn: int) -> RuleError:
    return rule_error("not_your_turn", f"seat {seat} may not play now: it is seat {turn}'s turn")


def card_not_in_hand(seat: int, card: str) -> RuleError:
    return rule_error("card_not_in_hand", f"seat {seat} holds no {card}")


def illegal_cauldron(card: str, cauldron: int, home: int | None, fixed: bool) -> RuleError:
    """`home` is the cauldron the potion must go into, or None when it needs a colourless one."""
    if fixed:
        reason = f"with fixed cauldrons it goes only into cauldron {home}"
    elif home is not None:
        reason = f"cauldron {home} holds its colour, so it must go there"
    else:
        reason = f"cauldron {cauldron} holds another colour, and its colour opens only a colourless one"
    return rule_error("illegal_cauldron", f"{card} may not go into cauldron {cauldron}: {reason}")


def cannot_close(card: str, reason: str) -> RuleError:
    """The pot game: a closing the rules refuse (`reason` says why, e.g. the pot explodes)."""
    return rule_error("cannot_close", f"the pot may not be closed with {card}: {reason}")


# ---- the pot game (rules.md, "The pot game") ----------------------------------------------


def unknown_pot_card(card: object) -> RuleError:
    return rule_error("unknown_card", f"{card!r} is not a card code of the pot game (T0 T1 T2 T3 T4 T5 T6)")


def invalid_close(close: object) -> RuleError:
    return rule_error("invalid_move", f"close must be True or False, not {close!r}")


def pot_game_finished() -> RuleError:
    return rule_error("game_finished", "the game is finished: every card has gone into the pot")


def pot_awaiting_deal() -> RuleError:
    return rule_error("awaiting_deal", "the game has not been dealt yet")


def pot_not_awaiting_deal() -> RuleError:
    return rule_error("not_awaiting_deal", "the game has been dealt: a pot game is dealt once")


def invalid_pot_players(players: object) -> RuleError:
    return rule_error("invalid_players", f"a pot game has 2 to 6 players, not {players!r}")


# ---- the bounds and messages every ruleset's batch functions share ------------------------

SEED_LIMIT = 2**64 - 1  # seeds are unsigned 64-bit integers (splitmix64's state)
MAX_GAMES = 10**9  # games one simulate call plays at most
MAX_FIRST = 2**62  # the highest first game number of a simulate call


def invalid_seed(seed: object) -> RuleError:
    return rule_error("invalid_seed", f"a seed is an integer from 0 to 2**64 - 1, not {seed!r}")


def unknown_bot(bot: object, bots: tuple[str, ...]) -> RuleError:
    return rule_error("invalid_bot", f"{bot!r} is not a bot: choose one of {', '.join(bots)}")


def bots_per_seat(players: int) -> RuleError:
    return rule_error("invalid_bot", f"bots must name one bot per seat ({players})")


def invalid_games(games: object) -> RuleError:
    return rule_error("invalid_games", f"games must be 0 to 10**9, not {games!r}")


def invalid_first(first: object) -> RuleError:
    return rule_error("invalid_games", f"first must be a game number from 0, not {first!r}")
