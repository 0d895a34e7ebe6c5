"""Property: the compiled engine and the reference are the same game.

Hypothesis draws game settings and a stream of choices; both implementations play the same
random game side by side, with now and then a random (mostly illegal) move thrown in, and
must agree on everything after every move: legal moves, cauldrons, hands, taken piles,
scores, the exact error of every refusal, and what each bot would play (or refuse) at every
step. Some games are played by the bots themselves. `simulate` must give the same figures for
small random arguments.
"""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import SEED_LIMIT, RuleError
from core.poison import engine, reference
from tests.examples import examples

JUNK_CARDS = ["R3", "G1", "", "r1", None, 4]


def state_of(game):
    players = game.players
    return (
        game.status,
        game.round,
        game.rounds,
        game.dealer,
        game.turn,
        game.cauldrons,
        game.hand_sizes,
        game.pile_sizes,
        game.legal_moves(),
        game.results(),
        game.totals,
        game.winners,
        game.set_aside(),
        tuple(game.hand(seat) for seat in range(players)),
        tuple(game.taken(seat) for seat in range(players)),
        tuple(game.view(seat) for seat in range(players)),
        game.view(),
    )


def bot_choices(game, seed):
    """What each bot would play now (`seed` for the random one), or why it refuses."""
    choices = []
    for bot in ("greedy", "random"):
        try:
            choices.append(game.choose(bot, seed))
        except RuleError as refused:
            choices.append(("refused", type(refused), refused.code, str(refused)))
    return choices


def attempt(game, move):
    try:
        return ("played", game.play(*move))
    except RuleError as refused:
        return ("refused", type(refused), refused.code, str(refused))


games = st.fixed_dictionaries(
    {
        "players": st.integers(3, 6),
        "rounds": st.one_of(st.none(), st.integers(1, 4)),
        "cauldrons": st.sampled_from(["dynamic", "fixed"]),
        "seed": st.integers(0, SEED_LIMIT),
        "dealing": st.sampled_from(["seed", "deals", "by hand"]),
        "choices": st.integers(0, 2**32),
        "chaos": st.sampled_from([0.0, 0.05, 0.3]),
        "players_by": st.sampled_from(["hand", "greedy", "random", "mixed"]),
    }
)


def play_side_by_side(players, rounds, cauldrons, seed, dealing, choices, chaos, players_by="hand"):
    options = {"rounds": rounds, "cauldrons": cauldrons}
    n_rounds = rounds or players
    deals = [reference.seeded_deal(seed, players, number) for number in range(1, n_rounds + 1)]
    if dealing == "seed":
        pair = [rules.Game(players, seed=seed, **options) for rules in (engine, reference)]
    elif dealing == "deals":
        pair = [rules.Game(players, deals=deals, **options) for rules in (engine, reference)]
    else:
        pair = [rules.Game(players, **options) for rules in (engine, reference)]
    rng = random.Random(choices)
    compiled, oracle = pair
    assert state_of(compiled) == state_of(oracle)
    while oracle.status != "finished":
        bot_seed = rng.randrange(2**64)
        choices = bot_choices(oracle, bot_seed)
        assert bot_choices(compiled, bot_seed) == choices
        if oracle.status == "dealing":
            deal = deals[oracle.round - 1]
            compiled.deal(*deal)
            oracle.deal(*deal)
        elif rng.random() < chaos:
            move = (rng.randint(-1, 7), rng.choice([*reference.CARD_CODES, *JUNK_CARDS]), rng.randint(-1, 3))
            assert attempt(compiled, move) == attempt(oracle, move)
        else:
            legal = oracle.legal_moves()
            assert legal, "a player to move always has a legal move"
            by = players_by if players_by != "mixed" else ("hand", "greedy", "random")[oracle.turn % 3]
            if by == "hand":
                move = (oracle.turn, *rng.choice(legal))
            else:
                move = (oracle.turn, *choices[0 if by == "greedy" else 1])
                assert move[1:] in legal
            assert compiled.play(*move) == oracle.play(*move)
        assert state_of(compiled) == state_of(oracle)
    assert len(oracle.results()) == n_rounds


# 500 random games (about 40 s here); `make thorough` plays ten times as many.
@settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_engine_and_reference_agree_after_every_move_of_random_games(game):
    play_side_by_side(**game)


# Eight long games (about 6 s here); `make thorough` plays eighty.
@settings(max_examples=examples(8), deadline=None)
@given(st.integers(3, 6), st.sampled_from(["dynamic", "fixed"]), st.integers(0, SEED_LIMIT))
def test_engine_and_reference_agree_over_twenty_rounds(players, cauldrons, seed):
    play_side_by_side(players, 20, cauldrons, seed, "seed", seed % 1000, 0.0)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(3, 6),
    st.integers(0, 3),
    st.integers(0, SEED_LIMIT),
    st.one_of(st.none(), st.integers(1, 2)),
    st.sampled_from(["dynamic", "fixed"]),
    st.one_of(st.none(), st.lists(st.sampled_from(["random", "greedy"]), min_size=6, max_size=6)),
    st.integers(0, 2**62),
)
def test_engine_and_reference_simulate_alike(players, games, seed, rounds, cauldrons, bots, first):
    options = {"seed": seed, "rounds": rounds, "cauldrons": cauldrons, "first": first}
    if bots is not None:
        options["bots"] = bots[:players]
    assert engine.simulate(players, games, **options) == reference.simulate(players, games, **options)
