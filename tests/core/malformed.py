"""Every malformed shape fed to the batch functions (`replay`, `simulate`, `score_round`,
`seeded_deal`) and to `Game(..., deals=...)` / `Game.deal`, one line of outcome per case.

Run as `python -m tests.core.malformed engine|reference` (tests/core/test_malformed.py does,
in a subprocess, so that a crash of the compiled core fails a test instead of killing
pytest). Each case's name is printed before it runs, so a crash shows which case it was.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType

from core.errors import RuleError


def split_deck(rules: ModuleType, sizes: tuple[int, ...], aside: int = 0) -> tuple:
    deck = [card for card in rules.CARD_CODES for _ in range(3 if card[1] != "4" else 2)]
    deck += ["G4"] * 6  # eight poisons: the two "4" copies counted above, and six more
    hands = []
    for size in sizes:
        hands.append(tuple(deck[:size]))
        del deck[:size]
    assert len(deck) == aside
    return (tuple(hands), tuple(deck))


def recorded(rules: ModuleType, players: int = 4, rounds: int = 2):
    """Deals (sized by hand for dealers 0 and 1) and the moves of a whole game, always the
    first legal move."""
    sizes = {
        3: [((12, 13, 13), 12), ((13, 12, 13), 12)],
        4: [((12, 13, 13, 12), 0), ((12, 12, 13, 13), 0)],
    }[players]
    deals = [split_deck(rules, hand_sizes, aside) for hand_sizes, aside in sizes[:rounds]]
    game = rules.Game(players, rounds=rounds, deals=deals)
    moves = []
    while game.status == "active":
        card, cauldron = game.legal_moves()[0]
        moves.append((game.turn, card, cauldron))
        game.play(game.turn, card, cauldron)
    return deals, moves


def bad_deals(rules: ModuleType, players: int, number: int = 0) -> dict[str, object]:
    """Deals of every wrong shape for round `number` (0 or 1) of a game of `players`."""
    deals = recorded(rules, players)[0]
    (good_hands, good_aside), (other_hands, other_aside) = deals[number], deals[1 - number]
    hands = [list(hand) for hand in good_hands]
    short, long_ = [h[:] for h in hands], [h[:] for h in hands]
    short[1] = short[1][1:]
    long_[1] = [*long_[1], "G4"]
    doubled = [h[:] for h in hands]
    doubled[0][0] = "G4"
    return {
        "not a pair": good_hands,
        "a one-tuple": (good_hands,),
        "a triple": (good_hands, good_aside, ()),
        "None": None,
        "an int": 7,
        "a string": "R1 R2",
        "a dict": {"hands": good_hands, "set_aside": good_aside},
        "hands None": (None, good_aside),
        "hands a string": ("R1" * 25, good_aside),
        "one hand short": (hands[:-1], good_aside),
        "one hand too many": ([*hands, []], good_aside),
        "a hand None": ([None, *hands[1:]], good_aside),
        "a hand an int": ([5, *hands[1:]], good_aside),
        "a hand a string": (["".join(hands[0]), *hands[1:]], good_aside),
        "a hand a set": ([set(hands[0]), *hands[1:]], good_aside),
        "a hand of lists": ([[[card] for card in hands[0]], *hands[1:]], good_aside),
        "a card None": ([[None, *hands[0][1:]], *hands[1:]], good_aside),
        "a card an int": ([[4, *hands[0][1:]], *hands[1:]], good_aside),
        "a card bytes": ([[b"R1", *hands[0][1:]], *hands[1:]], good_aside),
        "a card lower case": ([["r1", *hands[0][1:]], *hands[1:]], good_aside),
        "a hand a card short": (short, good_aside),
        "a hand a card long": (long_, good_aside),
        "a hand of 300 cards": ([["R1"] * 300, *hands[1:]], good_aside),
        "a hand of 259 cards": ([["R1"] * 256 + hands[0][:3], *hands[1:]], good_aside),
        "the deal of the other round": (other_hands, other_aside),
        "a ninth poison": (doubled, good_aside),
        "set_aside a string": (hands, "R1"),
        "set_aside an int": (hands, 3),
        "set_aside a card of a hand": (hands, [*good_aside, hands[0][0]]),
        "set_aside missing" if players == 3 else "set_aside with four players": (
            (hands, ()) if players == 3 else (hands, ("R1",))
        ),
    }


def deal_by_hand(game, deal) -> None:
    """`game.deal` given a deal's two parts when it has two, else the whole as the hands."""
    if isinstance(deal, (list, tuple)) and len(deal) == 2:
        game.deal(deal[0], deal[1])
    else:
        game.deal(deal)


def cases(rules: ModuleType) -> dict[str, Callable[[], object]]:
    found: dict[str, Callable[[], object]] = {}
    deals, moves = recorded(rules)
    first_round = len(moves) // 2  # 50 moves a round with four players
    for players in (3, 4):
        for name, deal in bad_deals(rules, players).items():
            found[f"Game({players}, deals=[{name}])"] = lambda p=players, d=deal: rules.Game(p, deals=[d])
            if name != "not a pair":  # as `deal`'s hands, a deal's hands are no mistake
                found[f"Game({players}).deal({name})"] = lambda p=players, d=deal: deal_by_hand(rules.Game(p), d)
            found[f"replay({players}, [], deals=[{name}])"] = lambda p=players, d=deal: rules.replay(p, [], deals=[d])
    three_deals, three_moves = recorded(rules, 3)
    cut = len(three_moves) // 2  # 38 moves a round with three players
    for name, deal in bad_deals(rules, 3, 1).items():
        # The second round's deal is the bad one; the moves stop exactly where it is due, or go on.
        found[f"replay(3, round 1, deals=[good, {name}])"] = lambda d=deal: rules.replay(
            3, three_moves[:cut], rounds=2, deals=[three_deals[0], d]
        )
        found[f"replay(3, all moves, deals=[good, {name}])"] = lambda d=deal: rules.replay(
            3, three_moves, rounds=2, deals=[three_deals[0], d]
        )
    for name, deal in bad_deals(rules, 4, 1).items():
        found[f"replay(4, round 1, deals=[good, {name}])"] = lambda d=deal: rules.replay(
            4, moves[:first_round], rounds=2, deals=[deals[0], d]
        )
    found["Game(4, deals=[round 1, round 1])"] = lambda: rules.Game(4, rounds=2, deals=[deals[0], deals[0]])
    found["Game(4, deals=too many)"] = lambda: rules.Game(4, rounds=2, deals=[deals[0], deals[1], deals[0]])
    found["Game(4, deals=a string)"] = lambda: rules.Game(4, deals="deals")
    found["Game(4, deals=a dict)"] = lambda: rules.Game(4, deals={0: deals[0]})
    found["Game(4, deals=an int)"] = lambda: rules.Game(4, deals=1)
    found["Game(4, seed and deals)"] = lambda: rules.Game(4, seed=1, deals=[deals[0]])
    # replay: the moves and deals themselves of every wrong shape.
    for name, value in {"None": None, "a string": "moves", "an int": 3, "a dict": {0: (1, "R1", 0)}}.items():
        found[f"replay(moves={name})"] = lambda v=value: rules.replay(4, v, deals=deals)
        found[f"replay(deals={name})"] = lambda v=value: rules.replay(4, moves, deals=v)
    entries = {
        "None": None,
        "an int": 5,
        "a string": "R1",
        "a one-tuple": (1,),
        "a pair": (1, "R1"),
        "a quadruple": (1, "R1", 0, 0),
        "a dict": {"seat": 1, "card": "R1", "cauldron": 0},
        "a seat tuple": ((1,), "R1", 0),
        "a seat float": (1.0, "R1", 0),
        "a seat bool": (True, "R1", 0),
        "a seat 2**70": (2**70, "R1", 0),
        "a seat -2**70": (-(2**70), "R1", 0),
        "a seat -1": (-1, "R1", 0),
        "a card list": (1, ["R1"], 0),
        "a card bytes": (1, b"R1", 0),
        "a card None": (1, None, 0),
        "a cauldron None": (1, "R1", None),
        "a cauldron list": (1, "R1", [0]),
        "a cauldron 2**70": (1, "R1", 2**70),
        "a cauldron -1": (1, "R1", -1),
        "a cauldron 3": (1, "R1", 3),
    }
    for name, entry in entries.items():
        for at in (0, 7, first_round, len(moves) - 1):
            found[f"replay(move {at} is {name})"] = lambda e=entry, a=at: rules.replay(
                4, [*moves[:a], e, *moves[a + 1 :]], rounds=2, deals=deals
            )
    found["replay(moves after the end)"] = lambda: rules.replay(4, [*moves, moves[0]], rounds=2, deals=deals)
    found["replay(moves past the deals)"] = lambda: rules.replay(4, moves, rounds=2, deals=deals[:1])
    found["replay(an illegal last move)"] = lambda: rules.replay(4, [*moves[:-1], (0, "R9", 0)], rounds=2, deals=deals)
    found["replay(seed and deals)"] = lambda: rules.replay(4, moves, seed=1, deals=deals)
    for name, options in {
        "players None": {"players": None},
        "players '4'": {"players": "4"},
        "players 2": {"players": 2},
        "rounds 0": {"rounds": 0},
        "rounds '2'": {"rounds": "2"},
        "cauldrons 5": {"cauldrons": 5},
        "seed -1": {"seed": -1},
        "seed 2**63": {"seed": 2**63},
        "seed 2**64": {"seed": 2**64},
    }.items():
        arguments = {"players": 4, **options}
        found[f"replay({name})"] = lambda a=arguments: rules.replay(a.pop("players"), [], **a)
    # simulate
    for name, options in {
        "players None": {"players": None},
        "players 7": {"players": 7},
        "games None": {"games": None},
        "games -1": {"games": -1},
        "games 1.5": {"games": 1.5},
        "games '3'": {"games": "3"},
        "games 10**12": {"games": 10**12},
        "seed None": {"seed": None},
        "seed -1": {"seed": -1},
        "seed 2**63": {"seed": 2**63},
        "seed 2**64": {"seed": 2**64},
        "seed '1'": {"seed": "1"},
        "rounds 21": {"rounds": 21},
        "rounds '2'": {"rounds": "2"},
        "cauldrons None": {"cauldrons": None},
        "cauldrons 'Fixed'": {"cauldrons": "Fixed"},
        "bots a string": {"bots": "greedy"},
        "bots too few": {"bots": ["greedy"] * 3},
        "bots too many": {"bots": ["greedy"] * 5},
        "bots with None": {"bots": ["greedy", None, "random", "random"]},
        "bots nested": {"bots": [["greedy"]] * 4},
        "bots a dict": {"bots": {0: "greedy", 1: "greedy", 2: "greedy", 3: "greedy"}},
        "first -1": {"first": -1},
        "first '0'": {"first": "0"},
        "first None": {"first": None},
        "first 2**63": {"first": 2**63},
    }.items():
        arguments = {"players": 4, "games": 1, **options}
        found[f"simulate({name})"] = lambda a=arguments: rules.simulate(a.pop("players"), a.pop("games"), **a)
    # score_round
    for name, piles in {
        "None": None,
        "a string": "abcd",
        "an int": 4,
        "no seats": [],
        "two seats": [(0, 0, 0, 0)] * 2,
        "seven seats": [(0, 0, 0, 0)] * 7,
        "three counts": [(0, 0, 0)] * 3,
        "five counts": [(0, 0, 0, 0, 0)] * 3,
        "a pile None": [None, (0, 0, 0, 0), (0, 0, 0, 0)],
        "a pile a string": ["0000", (0, 0, 0, 0), (0, 0, 0, 0)],
        "a count a string": [("1", 0, 0, 0)] * 3,
        "a count None": [(None, 0, 0, 0)] * 3,
        "a count a float": [(0.5, 0, 0, 0)] * 3,
        "a count a bool": [(True, 0, 0, 0)] * 3,
        "a count nested": [([0], 0, 0, 0)] * 3,
        "a count -1": [(-1, 0, 0, 0)] * 3,
        "a count 15": [(15, 0, 0, 0)] * 3,
        "a count 2**70": [(2**70, 0, 0, 0)] * 3,
        "nine poisons": [(0, 0, 0, 9)] * 3,
    }.items():
        found[f"score_round({name})"] = lambda p=piles: rules.score_round(p)
    # seeded_deal
    for name, arguments in {
        "seed None": (None, 4, 1),
        "seed 2**63": (2**63, 4, 1),
        "players 2": (1, 2, 1),
        "round 0": (1, 4, 0),
        "round 21": (1, 4, 21),
        "round '1'": (1, 4, "1"),
        "round None": (1, 4, None),
    }.items():
        found[f"seeded_deal({name})"] = lambda a=arguments: rules.seeded_deal(*a)
    return found


def outcome(call: Callable[[], object]) -> str:
    try:
        result = call()
    except RuleError as refused:
        return f"raised {refused.code}: {refused}"
    except Exception as other:  # any other exception is what this looks for
        return f"EXCEPTION {type(other).__name__}: {other}"
    error = getattr(result, "error", None)
    if error is not None:
        return f"reported {error.code} at move {result.illegal_at}: {error}"
    return "accepted"


def main(argv: list[str]) -> int:
    from core.poison import engine, reference

    rules = {"engine": engine, "reference": reference}[argv[0]]
    for name, call in cases(rules).items():
        print(f"{name}\t", end="", flush=True)
        print(outcome(call), flush=True)
    print("done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
