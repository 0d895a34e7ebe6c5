"""Property: the compiled pot engine and the reference are the same game.

Hypothesis draws a game and a stream of choices; both implementations play the same random
game side by side, with now and then a random (mostly illegal) move thrown in, and must
agree after every move on what every seat and the public see, on the draw pile's order, on
the score sheet, on both bots' choices and on the exact error of every refusal.
"""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import SEED_LIMIT, RuleError
from core.pot import engine, reference
from tests.examples import examples

JUNK_CARDS = ["T7", "T", "t1", "", "R1", None, 3]
JUNK_CLOSES = [None, 0, 1, 2, "True"]


def state_of(game):
    return (
        game.status,
        game.turn,
        game.endgame,
        game.pot,
        game.toxicity,
        game.draw_pile,
        game.hand_sizes,
        game.totals,
        game.winners,
        game.legal_moves(),
        game.results(),
        game.draw_order(),
        tuple(game.hand(seat) for seat in range(game.players)),
        tuple(game.view(seat) for seat in range(game.players)),
        game.view(),
    )


def attempt(call, *args):
    try:
        return ("done", call(*args))
    except RuleError as refused:
        return ("refused", type(refused), refused.code, str(refused))


games = st.fixed_dictionaries(
    {
        "players": st.integers(2, 6),
        "seed": st.integers(0, SEED_LIMIT),
        "dealing": st.sampled_from(["seed", "deal", "by hand"]),
        "choices": st.integers(0, 2**32),
        "chaos": st.sampled_from([0.0, 0.1, 0.4]),
        "bots": st.sampled_from([0.0, 0.5, 1.0]),
    }
)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_engine_and_reference_agree_after_every_move_of_random_games(game):
    players, seed, rng = game["players"], game["seed"], random.Random(game["choices"])
    deal = reference.seeded_deal(seed, players)
    if game["dealing"] == "seed":
        pair = [rules.Game(players, seed=seed) for rules in (engine, reference)]
    elif game["dealing"] == "deal":
        pair = [rules.Game(players, deal=deal) for rules in (engine, reference)]
    else:
        pair = [rules.Game(players) for rules in (engine, reference)]
    compiled, oracle = pair
    assert state_of(compiled) == state_of(oracle)
    while oracle.status != "finished":
        if oracle.status == "dealing":
            move = (rng.randint(-1, players), rng.choice(reference.CARD_CODES), False)
            assert attempt(compiled.play, *move) == attempt(oracle.play, *move)
            compiled.deal(*deal)
            oracle.deal(*deal)
        elif rng.random() < game["chaos"]:
            move = (
                rng.randint(-1, players),
                rng.choice([*reference.CARD_CODES, *JUNK_CARDS]),
                rng.choice([True, False, *JUNK_CLOSES]),
            )
            assert attempt(compiled.check, *move) == attempt(oracle.check, *move)
            assert attempt(compiled.play, *move) == attempt(oracle.play, *move)
        else:
            bot_seed = rng.getrandbits(64)
            for bot in ("random", "greedy"):
                assert compiled.choose(bot, bot_seed) == oracle.choose(bot, bot_seed)
            if rng.random() < game["bots"]:
                move = (oracle.turn, *oracle.choose(rng.choice(["random", "greedy"]), bot_seed))
            else:
                move = (oracle.turn, *rng.choice(oracle.legal_moves()))
            assert compiled.play(*move) == oracle.play(*move)
        assert state_of(compiled) == state_of(oracle)
    move = (0, "T0", False)
    assert attempt(compiled.play, *move) == attempt(oracle.play, *move)
    assert sum(len(result.cards) for result in oracle.results()) == 56
