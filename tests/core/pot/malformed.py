"""Every malformed shape fed to the pot game's batch functions (`replay`, `simulate`,
`seeded_deal`), to `Game(players, seed=, deal=)`, `Game.deal`, `Game.play`, `Game.check`,
`Game.choose` (and `Game.hand` / `Game.view`), one line of outcome per case.

Run as `python -m tests.core.pot.malformed engine|reference` (tests/core/pot/test_malformed.py
does, in a subprocess, so that a crash of the compiled core fails a test instead of killing
pytest). Each case's name is printed before it runs, so a crash shows which case it was. The
outcome of a case is `tests.core.malformed.outcome`'s: `raised <code>: <message>`,
`reported <code> at move <i>: <message>` for a replay that stopped, `accepted`, or
`EXCEPTION ...` for anything that is not a RuleError. The controls (`control: ...`), right
inputs next to the wrong ones, print `accepted: ` and what the call returned.

The recorded game and its deal come from the implementation under test (never from the
other one), so a run of the reference never loads core.pot.engine (the `core` package
itself still loads Poison's compiled engine). No value here has a repr that holds an
address, so both runs print the same text for the same outcome.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType

from core.errors import SEED_LIMIT, RuleError
from core.results import PotDeal
from tests.core.malformed import outcome
from tests.core.recorded import middle_moves

SEED = 41  # the recorded three-player game: its deal and its moves
PLAYERS = (2, 3, 6)  # the counts whose deals are broken in every way


class Code(str):
    """A card code that is a str only by inheritance."""

    def __repr__(self) -> str:
        return f"Code({str.__repr__(self)})"


class Seat(int):
    """A seat that is an int only by inheritance: a seat like any other for both."""

    def __repr__(self) -> str:
        return f"Seat({int(self)})"


#: Values that are no card code of the pot game.
BAD_CARDS: dict[str, object] = {
    "None": None,
    "'T9'": "T9",
    "'T7'": "T7",
    "'t3'": "t3",
    "'T'": "T",
    "'T33'": "T33",
    "''": "",
    "'3T'": "3T",
    "' T3'": " T3",
    "fullwidth 'Ｔ3'": "Ｔ3",
    "arabic-indic 'T٣'": "T\u0663",
    "b'T3'": b"T3",
    "3": 3,
    "2**70": 2**70,
    "['T3']": ["T3"],
    "('T3',)": ("T3",),
    "a str subclass": Code("T3"),
}

#: Values that are no seat of a three-player game (the players' count itself among them).
BAD_SEATS: dict[str, object] = {
    "None": None,
    "'0'": "0",
    "0.0": 0.0,
    "True": True,
    "False": False,
    "-1": -1,
    "3": 3,
    "7": 7,
    "255": 255,
    "256": 256,
    "2**31": 2**31,
    "2**32": 2**32,
    "2**63": 2**63,
    "2**64": 2**64,
    "2**70": 2**70,
    "-2**70": -(2**70),
    "(0,)": (0,),
    "b'0'": b"0",
}

#: Values that are no `close` (a bool and nothing else).
BAD_CLOSES: dict[str, object] = {
    "None": None,
    "1": 1,
    "0": 0,
    "2": 2,
    "-1": -1,
    "1.0": 1.0,
    "'yes'": "yes",
    "'True'": "True",
    "''": "",
    "[True]": [True],
    "2**70": 2**70,
}

#: Values that are no integer argument (players, games, seed, first).
BAD_INTS: dict[str, object] = {
    "None": None,
    "'2'": "2",
    "2.0": 2.0,
    "True": True,
    "False": False,
    "[2]": [2],
    "b'2'": b"2",
}

#: Integers past either end of a 64-bit word: refused, never wrapped.
PAST_64_BITS: dict[str, object] = {"2**63": 2**63, "2**64": 2**64, "2**70": 2**70, "-2**70": -(2**70)}

#: Values that are no count of players (the game seats 2 to 6).
BAD_PLAYER_COUNTS: dict[str, object] = {**BAD_INTS, "1": 1, "7": 7, "0": 0, "-1": -1, "2**70": 2**70}

#: Values that are no seed (a whole number from 0 to 2**63 - 1).
BAD_SEEDS: dict[str, object] = {**BAD_INTS, "-1": -1, "1.5": 1.5, **PAST_64_BITS}


# ---- the recorded game ------------------------------------------------------------------------


def recorded(rules: ModuleType, players: int = 3, seed: int = SEED) -> tuple[PotDeal, list[tuple[int, str, bool]]]:
    """The deal of a seeded game and its moves to the end, always the middle legal move (so
    that it closes now and then), played by `rules` itself."""
    return rules.seeded_deal(seed, players), middle_moves(rules.Game(players, seed=seed))


def played(rules: ModuleType, moves: list[tuple[int, str, bool]], count: int, players: int = 3):
    """The recorded game after its first `count` moves."""
    game = rules.Game(players, seed=SEED)
    for seat, card, close in moves[:count]:
        game.play(seat, card, close)
    return game


def illegal_moves(rules: ModuleType, moves: list[tuple[int, str, bool]]) -> dict[str, tuple[int, object]]:
    """Well-formed moves the rules refuse, each with the index it replaces: a seat not to move,
    a card not in hand, a closing once the pile is empty, a closing that explodes the pot."""
    found: dict[str, tuple[int, object]] = {}
    seat, card, close = moves[7]
    found["a seat not to move"] = (7, ((seat + 1) % 3, card, close))
    game = played(rules, moves, 7)
    missing = next(code for code in rules.CARD_CODES if code not in game.hand(seat))
    found["a card not in hand"] = (7, (seat, missing, close))
    seat, card, _ = moves[-1]
    found["a closing once the pile is empty"] = (len(moves) - 1, (seat, card, True))
    game = rules.Game(3, seed=SEED)
    for index, (seat, card, close) in enumerate(moves):
        exploding = [code for code in game.hand(seat) if game.toxicity + int(code[1]) > 14]
        if exploding and game.draw_pile:
            found["a closing that explodes the pot"] = (index, (seat, exploding[0], True))
            break
        game.play(seat, card, close)
    return found


# ---- deals ------------------------------------------------------------------------------------


def bad_deals(rules: ModuleType, players: int, every_card: bool) -> dict[str, object]:
    """Deals of every wrong shape for a game of `players`: not a triple, wrong hands, a wrong
    pot card, a wrong draw pile, cards missing or doubled, nested wrong types. With
    `every_card`, each of BAD_CARDS in a hand, as the pot's card and in the pile."""
    good = rules.seeded_deal(SEED, players)
    other = rules.seeded_deal(SEED, 3 if players == 2 else 2)
    hands = [list(hand) for hand in good.hands]
    pile = list(good.draw_pile)

    def with_hands(change: Callable[[list[list[str]]], object]) -> tuple:
        changed = [hand[:] for hand in hands]
        result = change(changed)
        return (changed if result is None else result, good.pot, good.draw_pile)

    def with_pile(change: Callable[[list[str]], object]) -> tuple:
        changed = pile[:]
        result = change(changed)
        return (good.hands, good.pot, changed if result is None else result)

    def put(where: list, index: int, value: object) -> None:
        where[index] = value

    def unlike(*cards: str) -> str:
        """A kind none of `cards` is: put in their place, one kind has 9 copies and one 7."""
        return next(code for code in rules.CARD_CODES if code not in cards)

    other_kind = next(code for code in rules.CARD_CODES if code != good.pot)
    deals: dict[str, object] = {
        # not a triple (None is no deal, which is no mistake: Game.deal is given it below)
        "an int": 3,
        "a string": "T0 T1 T2",
        "a 3-char string": "T0T",
        "bytes of 3": b"T0T",
        "a dict": {"hands": good.hands, "pot": good.pot, "draw_pile": good.draw_pile},
        "a dict of 3 keys": {0: good.hands, 1: good.pot, 2: good.draw_pile},
        "the hands alone": good.hands,
        "a one-tuple": (good,),
        "a pair": (good.hands, good.pot),
        "a quadruple": (*good, ()),
        "an empty tuple": (),
        "a range": range(3),
        # hands
        "hands None": (None, good.pot, good.draw_pile),
        "hands a string": ("T0" * 4 * players, good.pot, good.draw_pile),
        "hands an int": (players, good.pot, good.draw_pile),
        "hands a dict": (dict(enumerate(good.hands)), good.pot, good.draw_pile),
        "hands empty": ((), good.pot, good.draw_pile),
        "one hand short": with_hands(lambda h: h[:-1]),
        "one hand too many": with_hands(lambda h: [*h, h[0]]),
        "hands nested once more": with_hands(lambda h: [h]),
        "a hand None": with_hands(lambda h: put(h, 0, None)),
        "a hand an int": with_hands(lambda h: put(h, 0, 4)),
        "a hand a string of 4": with_hands(lambda h: put(h, 0, "T0T1")),
        "a hand a string of its cards": with_hands(lambda h: put(h, 0, "".join(h[0]))),
        "a hand a set": with_hands(lambda h: put(h, 0, {"T0", "T1", "T2", "T3"})),
        "a hand a dict": with_hands(lambda h: put(h, 0, dict.fromkeys(h[0]))),
        "a hand of lists": with_hands(lambda h: put(h, 0, [[card] for card in h[0]])),
        "a hand empty": with_hands(lambda h: put(h, 0, [])),
        "a hand a card short": with_hands(lambda h: put(h, 1, h[1][:-1])),
        "a hand a card long": with_hands(lambda h: put(h, 1, [*h[1], pile[0]])),
        "the last hand a card long": with_hands(lambda h: put(h, -1, [*h[-1], "T0"])),
        "a hand of 300 cards": with_hands(lambda h: put(h, 0, ["T0"] * 300)),
        "a hand of 260 cards": with_hands(lambda h: put(h, 0, ["T0"] * 256 + h[0])),
        # the pot's first card
        "the pot a card of a hand (doubled)": (good.hands, good.hands[0][0], good.draw_pile),
        "the pot another kind": (good.hands, other_kind, good.draw_pile),
        "the pot a list": (good.hands, [good.pot], good.draw_pile),
        "the pot a tuple": (good.hands, (good.pot,), good.draw_pile),
        # the draw pile
        "draw_pile None": (good.hands, good.pot, None),
        "draw_pile a string": (good.hands, good.pot, "".join(pile)),
        "draw_pile an int": (good.hands, good.pot, len(pile)),
        "draw_pile a set": (good.hands, good.pot, set(pile)),
        "draw_pile a dict": (good.hands, good.pot, dict(enumerate(pile))),
        "draw_pile empty": (good.hands, good.pot, ()),
        "draw_pile a card short": with_pile(lambda p: p[:-1]),
        "draw_pile a card long": with_pile(lambda p: [*p, "T0"]),
        "draw_pile of 300 cards": with_pile(lambda p: p + ["T0"] * (300 - len(p))),
        "draw_pile of lists": with_pile(lambda p: [[card] for card in p]),
        "draw_pile nested once more": with_pile(lambda p: [p]),
        # cards missing or doubled
        "a card of seat 1's hand another kind": with_hands(lambda h: put(h[1], 0, unlike(h[1][0]))),
        "the pile's last card another kind": with_pile(lambda p: put(p, -1, unlike(p[-1]))),
        "the pile's first card another kind": with_pile(lambda p: put(p, 0, unlike(p[0]))),
        "a card of seat 0's hand and the pile's first swapped for a third kind": with_pile(
            lambda p: put(p, 0, unlike(p[0], hands[0][0]))
        ),
        "every card T0": (
            [["T0"] * 4 for _ in range(players)],
            "T0",
            ["T0"] * len(pile),
        ),
        "hands and pile swapped": (good.draw_pile, good.pot, good.hands),
        "the deal of a game of another count": tuple(other),
        "the deal as its three parts, each the deal": (good, good, good),
    }
    if every_card:
        for name, card in BAD_CARDS.items():
            deals[f"a card {name} first in seat 0's hand"] = with_hands(lambda h, c=card: put(h[0], 0, c))
            deals[f"a card {name} last in the last hand"] = with_hands(lambda h, c=card: put(h[-1], -1, c))
            deals[f"the pot {name}"] = (good.hands, card, good.draw_pile)
            deals[f"a card {name} first in the pile"] = with_pile(lambda p, c=card: put(p, 0, c))
            deals[f"a card {name} last in the pile"] = with_pile(lambda p, c=card: put(p, -1, c))
    return deals


def forms(deal: object) -> dict[str, object]:
    """A deal as the tuple, the PotDeal and the list it may be (a triple), or as it is."""
    if isinstance(deal, (tuple, list)) and len(deal) == 3 and not isinstance(deal, PotDeal):
        return {"a tuple": tuple(deal), "a PotDeal": PotDeal(*deal), "a list": list(deal)}
    return {"": deal}


def named(name: str, form: str) -> str:
    return f"{name} as {form}" if form else name


def dealt_by_hand(rules: ModuleType, game, deal) -> None:
    """`game.deal` given a deal's three parts when it has three, else the whole as the
    hands (with the pot card and the pile of the seeded deal)."""
    if isinstance(deal, (list, tuple)) and len(deal) == 3:
        game.deal(*deal)
    else:
        good = rules.seeded_deal(SEED, game.players)
        game.deal(deal, good.pot, good.draw_pile)


# ---- refusals leave the game as it was ---------------------------------------------------------


def unchanged(game, call: Callable[[object], object]) -> object:
    """Call `call(game)`; when it raises, demand that the game is exactly as it was."""
    before = (game.view(), [game.view(seat) for seat in range(game.players)], game.draw_order())
    try:
        return call(game)
    except RuleError:
        after = (game.view(), [game.view(seat) for seat in range(game.players)], game.draw_order())
        if after != before:
            raise AssertionError("the refusal changed the game") from None
        raise


# ---- the cases --------------------------------------------------------------------------------


def deal_cases(rules: ModuleType) -> dict[str, Callable[[], object]]:
    found: dict[str, Callable[[], object]] = {}
    moves = recorded(rules)[1]
    for players in PLAYERS:
        for name, deal in bad_deals(rules, players, every_card=players == 3).items():
            for form, shaped in forms(deal).items():
                label = named(name, form)
                found[f"Game({players}, deal={label})"] = lambda p=players, d=shaped: rules.Game(p, deal=d)
                found[f"replay({players}, [], deal={label})"] = lambda p=players, d=shaped: rules.replay(p, [], deal=d)
            if name != "the hands alone":  # as `deal`'s hands, a deal's hands are no mistake
                found[f"Game({players}).deal({name})"] = lambda p=players, d=deal: unchanged(
                    rules.Game(p), lambda game: dealt_by_hand(rules, game, d)
                )
        found[f"Game({players}).deal(hands None)"] = lambda p=players: unchanged(
            rules.Game(p), lambda game: dealt_by_hand(rules, game, None)
        )
    for name, deal in bad_deals(rules, 3, every_card=False).items():
        found[f"replay(3, all moves, deal={name})"] = lambda d=deal: rules.replay(3, moves, deal=d)
    good = rules.seeded_deal(SEED, 3)
    found["Game(3, seed and deal)"] = lambda: rules.Game(3, seed=SEED, deal=good)
    found["Game(3, seed and a bad deal)"] = lambda: rules.Game(3, seed=SEED, deal=(None, None, None))
    found["Game(3, a bad seed and a deal)"] = lambda: rules.Game(3, seed=-1, deal=good)
    found["Game(bad players, a bad deal)"] = lambda: rules.Game(7, deal=(None, None, None))
    found["replay(3, seed and deal)"] = lambda: rules.replay(3, moves, seed=SEED, deal=good)
    found["Game(3, seed).deal(good) (dealt already)"] = lambda: unchanged(
        rules.Game(3, seed=SEED), lambda game: game.deal(*good)
    )
    found["Game(3, seed).deal(a bad deal) (dealt already)"] = lambda: unchanged(
        rules.Game(3, seed=SEED), lambda game: game.deal(None, None, None)
    )
    found["finished game.deal(good)"] = lambda: unchanged(
        rules.replay(3, moves, seed=SEED).game, lambda game: game.deal(*good)
    )
    found["finished game.deal(a bad deal)"] = lambda: unchanged(
        rules.replay(3, moves, seed=SEED).game, lambda game: game.deal(None, None, None)
    )
    return found


def replay_cases(rules: ModuleType) -> dict[str, Callable[[], object]]:
    found: dict[str, Callable[[], object]] = {}
    deal, moves = recorded(rules)
    last = len(moves) - 1
    positions = {"0": 0, "7": 7, "mid": len(moves) // 2, "last": last}

    def replace(index: int, entry: object) -> list[object]:
        return [*moves[:index], entry, *moves[index + 1 :]]

    for name, value in {
        "None": None,
        "a string": "moves",
        "a string of 3": "T0T",
        "bytes": b"\x00\x01\x00",
        "an int": 3,
        "a dict": dict(enumerate(moves)),
        "a set": {(0, "T0", False)},
        "a range": range(3),
        "a frozenset": frozenset(),
    }.items():
        found[f"replay(3, moves={name})"] = lambda v=value: rules.replay(3, v, deal=deal)
        found[f"replay(3, moves={name}, no deal)"] = lambda v=value: rules.replay(3, v)
    found["replay(3, moves=the deal)"] = lambda: rules.replay(3, deal, deal=deal)
    found["replay(3, moves=a list of the moves)"] = lambda: rules.replay(3, [moves], deal=deal)
    entries: dict[str, Callable[[tuple[int, str, bool]], object]] = {
        "None": lambda m: None,
        "an int": lambda m: 5,
        "a card code": lambda m: m[1],
        "a string of 3": lambda m: "0T0",
        "bytes of 3": lambda m: b"0T0",
        "a dict of 3": lambda m: {"seat": m[0], "card": m[1], "close": m[2]},
        "a set of 3": lambda m: {1, 2, 3},
        "a range of 3": lambda m: range(3),
        "empty": lambda m: (),
        "a one-tuple": lambda m: m[:1],
        "a pair": lambda m: m[:2],
        "a quadruple": lambda m: (*m, m[2]),
        "a quintuple": lambda m: (*m, None, None),
        "the move nested": lambda m: (m,),
        "three moves": lambda m: (m, m, m),
        "None three times": lambda m: (None, None, None),
    }
    for name, seat in BAD_SEATS.items():
        entries[f"a seat {name}"] = lambda m, s=seat: (s, m[1], m[2])
    for name, card in BAD_CARDS.items():
        entries[f"a card {name}"] = lambda m, c=card: (m[0], c, m[2])
    for name, close in BAD_CLOSES.items():
        entries[f"close {name}"] = lambda m, c=close: (m[0], m[1], c)
    entries["a bad seat and a bad card"] = lambda m: (-1, "T9", m[2])
    entries["a bad card and a bad close"] = lambda m: (m[0], "T9", 1)
    entries["a bad seat and a bad close"] = lambda m: (3, m[1], None)
    for name, make in entries.items():
        for where, index in positions.items():
            entry = make(moves[index])
            found[f"replay(move {where} is {name})"] = lambda e=entry, i=index: rules.replay(
                3, replace(i, e), deal=deal
            )
            if isinstance(entry, tuple) and len(entry) > 0:
                found[f"replay(move {where} is {name}, a list)"] = lambda e=list(entry), i=index: rules.replay(
                    3, replace(i, e), deal=deal
                )
    for name, (index, entry) in illegal_moves(rules, moves).items():
        found[f"replay({name})"] = lambda e=entry, i=index: rules.replay(3, replace(i, e), deal=deal)
        found[f"replay({name}, a list)"] = lambda e=list(entry), i=index: rules.replay(3, replace(i, e), deal=deal)
        found[f"replay({name}, the moves a tuple)"] = lambda e=entry, i=index: rules.replay(
            3, tuple(replace(i, e)), deal=deal
        )
        found[f"replay({name}, then a malformed move)"] = lambda e=entry, i=index: rules.replay(
            3, [*replace(i, e)[: i + 1], None, *moves[i + 1 :]], deal=deal
        )
    # The order of the two passes: a malformed move before an illegal one, and after it.
    seat, card, close = moves[20]
    turn_wrong = ((seat + 1) % 3, card, close)
    found["replay(malformed at 5, illegal at 20)"] = lambda: rules.replay(
        3, [*moves[:5], (0, "T9", False), *moves[6:20], turn_wrong, *moves[21:]], deal=deal
    )
    found["replay(illegal at 5, malformed at 20)"] = lambda: rules.replay(
        3, [*moves[:5], ((moves[5][0] + 1) % 3, *moves[5][1:]), *moves[6:20], None, *moves[21:]], deal=deal
    )
    found["replay(a malformed move after the end)"] = lambda: rules.replay(3, [*moves, None], deal=deal)
    found["replay(a bad seat after the end)"] = lambda: rules.replay(3, [*moves, (3, "T0", False)], deal=deal)
    found["replay(a move after the end)"] = lambda: rules.replay(3, [*moves, moves[0]], deal=deal)
    found["replay(the moves twice)"] = lambda: rules.replay(3, moves * 2, deal=deal)
    found["replay(1000 moves after the end)"] = lambda: rules.replay(3, moves + [moves[-1]] * 1000, deal=deal)
    found["replay(moves, no deal)"] = lambda: rules.replay(3, moves)
    found["replay(moves, no deal, a malformed first move)"] = lambda: rules.replay(3, [None, *moves])
    found["replay(moves of another seed)"] = lambda: rules.replay(3, moves, seed=SEED + 1)
    found["replay(the moves of 3 players with 2)"] = lambda: rules.replay(2, moves, seed=SEED)
    found["replay(the moves of 3 players with 6)"] = lambda: rules.replay(6, moves, seed=SEED)
    found["replay(a seat 5 after a legal first move)"] = lambda: rules.replay(
        3, [moves[0], (5, "T0", False)], deal=deal
    )
    # replay's other arguments
    for name, value in BAD_PLAYER_COUNTS.items():
        found[f"replay(players {name})"] = lambda v=value: rules.replay(v, moves, deal=deal)
        found[f"replay(players {name}, no deal)"] = lambda v=value: rules.replay(v, [])
    for name, value in BAD_SEEDS.items():
        if value is not None:
            found[f"replay(seed {name})"] = lambda v=value: rules.replay(3, moves, seed=v)
            found[f"replay(seed {name}, and a deal)"] = lambda v=value: rules.replay(3, moves, seed=v, deal=deal)
    return found


def simulate_cases(rules: ModuleType) -> dict[str, Callable[[], object]]:
    found: dict[str, Callable[[], object]] = {}
    arguments: dict[str, dict[str, object]] = {}
    for name, value in BAD_PLAYER_COUNTS.items():
        arguments[f"players {name}"] = {"players": value}
    for name, value in {
        **BAD_INTS,
        "-1": -1,
        "1.5": 1.5,
        "10**9 + 1": 10**9 + 1,
        "10**12": 10**12,
        **PAST_64_BITS,
    }.items():
        arguments[f"games {name}"] = {"games": value}
    for name, value in BAD_SEEDS.items():
        arguments[f"seed {name}"] = {"seed": value}
    for name, value in {**BAD_INTS, "-1": -1, "2**62 + 1": 2**62 + 1, **PAST_64_BITS}.items():
        arguments[f"first {name}"] = {"first": value}
    for name, value in {
        "a string": "greedy",
        "a string as long as the seats": "random",  # six letters for six seats
        "bytes": b"greedy",
        "an int": 3,
        "empty": [],
        "too few": ["greedy"] * 5,
        "too many": ["greedy"] * 7,
        "with None": ["greedy", None, "random", "random", "random", "random"],
        "nested": [["greedy"]] * 6,
        "a dict": dict.fromkeys(range(6), "greedy"),
        "a set": {"greedy", "random"},
        "unknown 'smart'": ["smart", *["random"] * 5],
        "unknown 'Greedy'": ["random"] * 5 + ["Greedy"],
        "unknown 'greedy '": ["greedy "] * 6,
        "unknown ''": [""] * 6,
        "an int bot": [0] * 6,
        "a bool bot": [True] * 6,
        "a bytes bot": [b"greedy"] * 6,
        "a str subclass bot": [Code("greedy")] * 6,
        "a generator": (bot for bot in ["greedy"] * 6),
    }.items():
        arguments[f"bots {name}"] = {"bots": value}
    for name, options in arguments.items():
        full = {"players": 6, "games": 1, **options}
        found[f"simulate({name})"] = lambda a=full: rules.simulate(a.pop("players"), a.pop("games"), **a)
    found["simulate(players 1, games -1: players first)"] = lambda: rules.simulate(1, -1)
    found["simulate(games -1, seed -1: seed first)"] = lambda: rules.simulate(3, -1, seed=-1)
    found["simulate(games -1, first -1: games first)"] = lambda: rules.simulate(3, -1, first=-1)
    found["simulate(first -1, bots unknown: first first)"] = lambda: rules.simulate(3, 1, first=-1, bots=["x"] * 3)
    found["simulate(seed -1, bots unknown: seed first)"] = lambda: rules.simulate(3, 1, seed=-1, bots=["x"] * 3)
    return found


def seeded_deal_cases(rules: ModuleType) -> dict[str, Callable[[], object]]:
    found: dict[str, Callable[[], object]] = {}
    for name, value in BAD_SEEDS.items():
        found[f"seeded_deal(seed {name})"] = lambda v=value: rules.seeded_deal(v, 3)
    for name, value in BAD_PLAYER_COUNTS.items():
        found[f"seeded_deal(players {name})"] = lambda v=value: rules.seeded_deal(1, v)
    found["seeded_deal(seed -1, players 7: seed first)"] = lambda: rules.seeded_deal(-1, 7)
    return found


def game_cases(rules: ModuleType) -> dict[str, Callable[[], object]]:
    """`Game(...)`'s arguments; `play`, `check`, `choose`, `hand` and `view` of every wrong
    type, on a game that waits for its deal, one in play, one in its endgame, one finished."""
    found: dict[str, Callable[[], object]] = {}
    for name, value in BAD_PLAYER_COUNTS.items():
        found[f"Game(players {name})"] = lambda v=value: rules.Game(v)
        found[f"Game(players {name}, seed=1)"] = lambda v=value: rules.Game(v, seed=1)
    for name, value in BAD_SEEDS.items():
        if value is not None:
            found[f"Game(3, seed {name})"] = lambda v=value: rules.Game(3, seed=v)
    moves = recorded(rules)[1]
    endgame_at = next(i for i in range(len(moves)) if played(rules, moves, i).endgame)
    states: dict[str, Callable[[], object]] = {
        "dealing": lambda: rules.Game(3),
        "active": lambda: played(rules, moves, 7),
        "endgame": lambda: played(rules, moves, endgame_at),
        "finished": lambda: played(rules, moves, len(moves)),
    }
    for state, make in states.items():
        probe = make()
        if state in ("active", "endgame"):
            seat, card, _ = moves[7 if state == "active" else endgame_at]
        else:
            seat, card = 0, "T0"
        wrongs: dict[str, tuple[object, object, object]] = {}
        for name, value in BAD_SEATS.items():
            wrongs[f"seat {name}"] = (value, card, False)
        for name, value in BAD_CARDS.items():
            wrongs[f"card {name}"] = (seat, value, False)
        for name, value in BAD_CLOSES.items():
            wrongs[f"close {name}"] = (seat, card, value)
        wrongs["a bad seat, card and close"] = (None, None, None)
        wrongs["a bad card and close"] = (seat, None, None)
        if probe.status == "active":
            wrongs["a seat not to move"] = ((seat + 1) % 3, card, False)
            missing = next(code for code in rules.CARD_CODES if code not in probe.hand(seat))
            wrongs["a card not in hand"] = (seat, missing, False)
            wrongs["a card not in hand, closing"] = (seat, missing, True)
            wrongs["a seat not to move, closing"] = ((seat + 1) % 3, card, True)
            if probe.endgame:
                wrongs["closing"] = (seat, card, True)
        else:
            wrongs["a well-formed move"] = (seat, card, False)
        for name, (s, c, close) in wrongs.items():
            for method in ("play", "check"):
                found[f"{state} game.{method}({name})"] = lambda m=make, f=method, a=(s, c, close): unchanged(
                    m(), lambda game: getattr(game, f)(*a)
                )
        found[f"{state} game.play(seat, bad card), close left out"] = lambda m=make, s=seat: unchanged(
            m(), lambda game: game.play(s, "T9")
        )
        for name, bot in {
            "'smart'": "smart",
            "'Greedy'": "Greedy",
            "''": "",
            "None": None,
            "0": 0,
            "1": 1,
            "b'greedy'": b"greedy",
            "['greedy']": ["greedy"],
            "'random '": "random ",
            "a str subclass": Code("greedy"),
        }.items():
            found[f"{state} game.choose({name})"] = lambda m=make, b=bot: unchanged(m(), lambda game: game.choose(b))
        for name, value in {**BAD_INTS, "-1": -1, "2**64": 2**64, "2**70": 2**70}.items():
            found[f"{state} game.choose('random', seed {name})"] = lambda m=make, v=value: unchanged(
                m(), lambda game: game.choose("random", v)
            )
        found[f"{state} game.choose(unknown, seed -1: bot first)"] = lambda m=make: unchanged(
            m(), lambda game: game.choose("x", -1)
        )
        if state in ("dealing", "finished"):
            found[f"{state} game.choose('greedy')"] = lambda m=make: unchanged(m(), lambda game: game.choose("greedy"))
        for name, value in BAD_SEATS.items():
            found[f"{state} game.hand({name})"] = lambda m=make, v=value: m().hand(v)
            if value is not None:
                found[f"{state} game.view({name})"] = lambda m=make, v=value: m().view(v)
    return found


def controls(rules: ModuleType) -> dict[str, Callable[[], object]]:
    """Inputs that are right, close to the wrong ones: each must be `accepted` (with the same
    result in both implementations), so that the cases above are refused for what they claim
    and not for something else."""
    found: dict[str, Callable[[], object]] = {}
    deal, moves = recorded(rules)
    for players in PLAYERS:
        good = rules.seeded_deal(SEED, players)
        shapes = {
            **forms(tuple(good)),
            "lists": ([list(hand) for hand in good.hands], good.pot, list(good.draw_pile)),
            "the hands unsorted": (tuple(hand[::-1] for hand in good.hands), good.pot, good.draw_pile),
        }
        for name, shaped in shapes.items():
            found[f"control: Game({players}, deal={name})"] = lambda p=players, d=shaped: rules.Game(p, deal=d)
            found[f"control: Game({players}).deal({name})"] = lambda p=players, d=shaped: rules.Game(p).deal(*d)
    for name, shaped in forms(tuple(deal)).items():
        found[f"control: replay(3, moves, deal={name})"] = lambda d=shaped: rules.replay(3, moves, deal=d)
    found["control: replay(3, moves of lists)"] = lambda: rules.replay(3, [list(move) for move in moves], deal=deal)
    found["control: replay(3, moves a tuple)"] = lambda: rules.replay(3, tuple(moves), seed=SEED)
    found["control: replay(3, seats an int subclass)"] = lambda: rules.replay(
        3, [(Seat(seat), card, close) for seat, card, close in moves], seed=SEED
    )
    found["control: replay(3, seats an int subclass, a list)"] = lambda: rules.replay(
        3, [[Seat(seat), card, close] for seat, card, close in moves], seed=SEED
    )
    found["control: replay(3, [], no deal)"] = lambda: rules.replay(3, [])
    found["control: replay(3, [], seed 2**63 - 1)"] = lambda: rules.replay(3, [], seed=SEED_LIMIT)
    found["control: Game(3, seed 0)"] = lambda: rules.Game(3, seed=0)
    found["control: Game(3, seed 2**63 - 1)"] = lambda: rules.Game(3, seed=SEED_LIMIT)
    found["control: Game(3, seed=None, deal=None)"] = lambda: rules.Game(3, seed=None, deal=None)
    found["control: seeded_deal(2**63 - 1, 6)"] = lambda: rules.seeded_deal(SEED_LIMIT, 6)
    found["control: seeded_deal(0, 2)"] = lambda: rules.seeded_deal(0, 2)
    found["control: simulate(2, 0)"] = lambda: rules.simulate(2, 0)
    found["control: simulate(2, 1, first 2**62)"] = lambda: rules.simulate(2, 1, first=2**62)
    found["control: simulate(6, 1, seed 2**63 - 1, bots a tuple)"] = lambda: rules.simulate(
        6, 1, seed=SEED_LIMIT, bots=("greedy", "random") * 3
    )
    found["control: game.choose('greedy', a derived seed 2**64 - 1)"] = lambda: rules.Game(3, seed=SEED).choose(
        "greedy", 2**64 - 1
    )
    found["control: game.play(an int-subclass seat, close left out)"] = lambda: rules.Game(3, seed=SEED).play(
        Seat(moves[0][0]), moves[0][1]
    )
    found["control: game.view(None)"] = lambda: rules.Game(3).view(None)
    return found


def cases(rules: ModuleType) -> dict[str, Callable[[], object]]:
    found: dict[str, Callable[[], object]] = {}
    for part in (deal_cases, replay_cases, simulate_cases, seeded_deal_cases, game_cases, controls):
        for name, call in part(rules).items():
            assert name not in found, name
            assert "\t" not in name, name
            found[name] = call
    return found


def summary(result: object) -> str:
    """What an accepted call returned, in the words both implementations share: a game by
    its public view and its draw pile, a replay by its count and game, the rest by repr."""
    game = getattr(result, "game", result)
    shown = f"{tuple(game.view())} {game.draw_order()}" if hasattr(game, "draw_order") else repr(result)
    return f"{result.applied} moves, {shown}" if hasattr(result, "applied") else shown


def control_outcome(call: Callable[[], object]) -> str:
    """`outcome`, and when the call was accepted, what it returned."""
    returned: list[object] = []
    shown = outcome(lambda: returned.append(call()) or returned[0])
    return f"{shown}: {summary(returned[0])}" if shown == "accepted" else shown


def main(argv: list[str]) -> int:
    if argv[0] == "engine":
        from core.pot import engine as rules
    else:
        from core.pot import reference as rules
    for name, call in cases(rules).items():
        print(f"{name}\t", end="", flush=True)
        print(control_outcome(call) if name.startswith("control: ") else outcome(call), flush=True)
    print("done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
