"""The bots of the compiled core (`random`, `greedy`), checked against the reference: Poison's
rules, and what every ruleset's bots share (the pot game's greedy rule: tests/core/pot/test_bots.py)."""

import pytest

from core.errors import RuleError
from core.poison import engine, reference
from tests.rulesets import EVERY_IMPLEMENTATION, EVERY_RULESET

OVERFLOW = 13


def overflows(game, card, cauldron):
    return game.cauldrons[cauldron].total + int(card[1]) > OVERFLOW


def play_with(game, bot, seed=0):
    while game.status == "active":
        yield game.choose(bot, seed)
        game.play(game.turn, *game.choose(bot, seed))


def test_greedy_never_overflows_when_it_has_a_safe_move(rules):
    for seed in range(20):
        game = rules.Game(4, rounds=1, seed=seed)
        for move in play_with(game, "greedy"):
            safe = [m for m in game.legal_moves() if not overflows(game, *m)]
            assert not safe or not overflows(game, *move)


def pile_cost(game, seat, cauldron, *, mind_leads=True):
    """What taking a cauldron costs the greedy bot: poison 2, a potion 1, and nothing for a
    colour `seat` already leads in this round (it would discard that colour)."""
    suits = {"R": 0, "B": 1, "P": 2}
    piles = [game.taken(s) for s in range(game.players)]
    cost = 0
    for card in game.cauldrons[cauldron].cards:
        if card == "G4":
            cost += 2
            continue
        mine = piles[seat][suits[card[0]]]
        leads = mine > 0 and all(p[suits[card[0]]] < mine for s, p in enumerate(piles) if s != seat)
        cost += 0 if (leads and mind_leads) else 1
    return cost


def test_greedy_forced_to_overflow_takes_the_cheapest_pile_counting_colours_it_leads_in(rules):
    forced = lead_mattered = 0
    for seed in range(40):
        game = rules.Game(5, rounds=1, seed=seed)
        for move in play_with(game, "greedy"):
            legal = game.legal_moves()
            if any(not overflows(game, *m) for m in legal):
                continue
            forced += 1
            costs = {m: pile_cost(game, game.turn, m.cauldron) for m in legal}
            naive = {m: pile_cost(game, game.turn, m.cauldron, mind_leads=False) for m in legal}
            assert costs[move] == min(costs.values())
            lead_mattered += naive[move] != min(naive.values())
    assert forced > 10
    assert lead_mattered > 0


@EVERY_IMPLEMENTATION
def test_the_random_bot_plays_a_legal_move_drawn_from_its_seed(ruleset, rules):
    game = rules.Game(ruleset.players[1], seed=3)
    assert game.choose("random", 5) in game.legal_moves()
    assert game.choose("random", 5) == game.choose("random", 5)
    assert len({game.choose("random", seed) for seed in range(60)}) > 1


@EVERY_RULESET
def test_engine_and_reference_bots_choose_alike(ruleset):
    fewest, most = ruleset.players
    for seed in range(15):
        players = fewest + seed % (most - fewest + 1)
        one, two = ruleset.engine.Game(players, seed=seed), ruleset.reference.Game(players, seed=seed)
        while one.status == "active":
            for bot in ruleset.bots:
                assert one.choose(bot, seed) == two.choose(bot, seed)
            move = one.choose("random", seed + sum(one.hand_sizes))
            one.play(one.turn, *move)
            two.play(two.turn, *move)
        assert two.status == "finished"


def test_greedy_beats_random_by_far():
    result = engine.simulate(4, 2000, seed=9, bots=["greedy", "random", "random", "random"])
    assert result.wins[0] > 0.9 * 2000
    assert result.score_sum[0] * 4 < min(result.score_sum[1:])


def test_simulate_with_bots_agrees_with_the_reference():
    bots = ["random", "greedy", "random"]
    assert engine.simulate(3, 10, seed=4, bots=bots) == reference.simulate(3, 10, seed=4, bots=bots)


@pytest.mark.parametrize("bot", ["smart", "", None, "Greedy"])
def test_an_unknown_bot_is_refused(rules, bot):
    with pytest.raises(RuleError) as refused:
        rules.Game(4, seed=1).choose(bot)
    assert refused.value.code == "invalid_bot"
    with pytest.raises(RuleError) as refused:
        rules.simulate(4, 1, bots=[bot] * 4)
    assert refused.value.code == "invalid_bot"


def test_bots_refuse_to_move_when_no_round_is_played(rules):
    with pytest.raises(RuleError) as refused:
        rules.Game(4).choose("greedy")
    assert refused.value.code == "awaiting_deal"
