"""The exceptions of the rules engine, shared by the compiled core and the reference.

Every refusal carries a stable, machine-readable `code` (the service maps these codes to
its problem+json errors) and a message a person can act on. A function that raises one of
these has changed nothing.
"""

from __future__ import annotations

from collections.abc import Sequence


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
    `invalid_move`, `invalid_games`, `invalid_bot`, `unknown_ruleset`, `invalid_option`,
    `invalid_threads`, `invalid_budget`.
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

#: The most characters of a sent value that a message repeats: a refusal shows what was
#: sent, so that it can be put right, but never hands unbounded input back (a field name of
#: 100 KiB, a whole log line) to the client, the logs or the terminal.
QUOTED_CHARACTERS = 64


def clipped(text: str) -> str:
    """`text` as a message repeats it: whole when it is short, else its first characters
    and "…", QUOTED_CHARACTERS characters in all."""
    return text if len(text) <= QUOTED_CHARACTERS else text[: QUOTED_CHARACTERS - 1] + "…"


def quoted(value: object) -> str:
    """A sent value as a message quotes it, its text `clipped`: a string in quotes
    (`'Z9'`), anything else as Python writes it (`3.5`, `None`). Every message that repeats
    input quotes it here, in every layer."""
    if isinstance(value, str):
        return repr(clipped(value))
    try:
        text = repr(value)
    except ValueError:  # an integer of more digits than Python converts to text
        return "a number too long to show"
    return clipped(text)


def seat_out_of_range(seat: object, players: int) -> RuleError:
    return rule_error("seat_out_of_range", f"seat {quoted(seat)} is not a seat of this game (0 to {players - 1})")


def cards_listed(codes: Sequence[str]) -> str:
    """Card codes as a person reads them, a group per letter: `R1 R2 R4 R5 R7, B1 … and G4`."""
    groups: dict[str, list[str]] = {}
    for code in codes:
        groups.setdefault(code[:1], []).append(code)
    words = [" ".join(group) for group in groups.values()]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def unknown_card(card: object, codes: Sequence[str]) -> RuleError:
    """`codes` are the game's card codes (each implementation passes its own)."""
    return rule_error("unknown_card", f"{quoted(card)} is not a card code: the cards are {cards_listed(codes)}")


def cauldron_out_of_range(cauldron: object) -> RuleError:
    return rule_error("cauldron_out_of_range", f"cauldron {quoted(cauldron)} is not 0, 1 or 2")


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


def illegal_cauldron(card: str, cauldron: int, colour: str, colours: Sequence[str | None], fixed: bool) -> RuleError:
    """A potion of `colour` refused by `cauldron`, saying which cauldron would take it
    (docs/poison.md, "A turn"). `colours` are the cauldrons' colours as they stand (None:
    colourless); a cauldron of the potion's colour is its only one, and without one it
    opens a colourless cauldron (there is always one: three cauldrons, and the potion's
    colour is none of theirs)."""
    if colour in colours:
        home = colours.index(colour)
        why = " (the cauldrons are fixed)" if fixed else ""
        return rule_error(
            "illegal_cauldron", f"{card} must go into cauldron {home}, the {colour} one{why}, not cauldron {cauldron}"
        )
    open_ = [str(index) for index, held in enumerate(colours) if held is None]
    where = open_[0] if len(open_) == 1 else f"{', '.join(open_[:-1])} or {open_[-1]}"
    return rule_error(
        "illegal_cauldron",
        f"{card} may not go into cauldron {cauldron}, the {colours[cauldron]} one: no cauldron is {colour} yet, "
        f"so it must go into a colourless one (cauldron {where})",
    )


def cannot_close(card: str, reason: str) -> RuleError:
    """The pot game: a closing the rules refuse (`reason` says why, e.g. the pot explodes)."""
    return rule_error("cannot_close", f"the pot may not be closed with {card}: {reason}")


# ---- the pot game (rules.md, "The pot game") ----------------------------------------------


def unknown_pot_card(card: object, codes: Sequence[str]) -> RuleError:
    """`codes` are the pot game's card codes (each implementation passes its own)."""
    return rule_error(
        "unknown_card", f"{quoted(card)} is not a card code of the pot game: the cards are {cards_listed(codes)}"
    )


def invalid_close(close: object) -> RuleError:
    return rule_error("invalid_move", f"close must be True or False, not {quoted(close)}")


def pot_game_finished() -> RuleError:
    return rule_error("game_finished", "the game is finished: every card has gone into the pot")


def pot_awaiting_deal() -> RuleError:
    return rule_error("awaiting_deal", "the game has not been dealt yet")


def pot_not_awaiting_deal() -> RuleError:
    return rule_error("not_awaiting_deal", "the game has been dealt: a pot game is dealt once")


def invalid_pot_players(players: object) -> RuleError:
    return rule_error("invalid_players", f"a pot game has 2 to 6 players, not {quoted(players)}")


# ---- the bounds and messages every ruleset's batch functions share ------------------------

#: The highest seed of a game or of a simulation, in every layer (core, events, API, CLI): a
#: signed 64-bit integer, what every client language holds and JSON Schema's int64 says.
SEED_LIMIT = 2**63 - 1
#: The highest value a bot draws from (`Game.choose`) and `derive_seed` takes: splitmix64's
#: whole state. Derived seeds (core.rulesets.bot_seed) are such states, so they may exceed
#: SEED_LIMIT; no person types one.
DRAW_LIMIT = 2**64 - 1
MAX_GAMES = 10**9  # games one simulate call plays at most
MAX_FIRST = 2**62  # the highest first game number of a simulate call


def invalid_seed(seed: object) -> RuleError:
    return rule_error(
        "invalid_seed", f"a seed is a whole number from 0 to {SEED_LIMIT:,} (2**63 - 1), not {quoted(seed)}"
    )


def invalid_draw(seed: object) -> RuleError:
    return rule_error(
        "invalid_seed", f"a bot's draw is a whole number from 0 to {DRAW_LIMIT:,} (2**64 - 1), not {quoted(seed)}"
    )


#: The fewest and the most threads one `simulate` call plays its games on.
THREAD_BOUNDS = (1, 64)


def invalid_threads(threads: object) -> RuleError:
    fewest, most = THREAD_BOUNDS
    return rule_error(
        "invalid_threads", f"threads must be a whole number from {fewest} to {most}, not {quoted(threads)}"
    )


def unknown_bot(bot: object, bots: tuple[str, ...]) -> RuleError:
    return rule_error("invalid_bot", f"{quoted(bot)} is not a bot: choose one of {', '.join(bots)}")


def bots_per_seat(players: int) -> RuleError:
    return rule_error("invalid_bot", f"bots must name one bot per seat ({players})")


def invalid_games(games: object) -> RuleError:
    return rule_error("invalid_games", f"games must be 0 to 10**9, not {quoted(games)}")


def invalid_first(first: object) -> RuleError:
    return rule_error("invalid_games", f"first must be a game number from 0, not {quoted(first)}")


# ---- the search bot's budget (core/search.pyx) ------------------------------------------------

#: The search bot's name: the compiled engines play it (after their other bots); the plain
#: references do not.
SEARCH_BOT = "mcts"
#: The fewest and the most playouts one decision of the `mcts` bot may make.
PLAYOUT_BOUNDS = (1, 200_000)
#: A game clock's seconds per move, from one second to a day: what the HTTP body and the
#: stored game_created both accept.
CLOCK_BOUNDS = (1, 86_400)
#: The fewest and the most milliseconds one decision of the `mcts` bot may be given.
MILLISECOND_BOUNDS = (1, 60_000)


def invalid_playouts(playouts: object) -> RuleError:
    fewest, most = PLAYOUT_BOUNDS
    return rule_error(
        "invalid_budget", f"playouts must be a whole number from {fewest} to {most:,}, not {quoted(playouts)}"
    )


def invalid_milliseconds(milliseconds: object) -> RuleError:
    fewest, most = MILLISECOND_BOUNDS
    return rule_error(
        "invalid_budget",
        f"milliseconds must be a whole number from {fewest} to {most:,} (or None), not {quoted(milliseconds)}",
    )


def refused_bot(bot: object, bots: tuple[str, ...]) -> RuleError:
    """A plain reference's refusal of a bot outside `bots`: every bot is named, and the
    search bot is said to be the compiled engine's alone."""
    if bot == SEARCH_BOT and type(bot) is str:
        return rule_error("invalid_bot", f"{quoted(bot)} is played by the compiled engine only, not by the reference")
    return unknown_bot(bot, (*bots, SEARCH_BOT))


def budget_without_search(bot: object) -> RuleError:
    return rule_error(
        "invalid_budget", f"playouts and milliseconds are the mcts bot's budget; {quoted(bot)} takes none"
    )


def playouts_per_seat(players: int) -> RuleError:
    return rule_error("invalid_budget", f"playouts must be one number, or one per seat ({players})")
