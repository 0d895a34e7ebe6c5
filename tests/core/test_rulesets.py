"""The registry of rulesets, and tests written once for every ruleset it holds (as OpenSpiel
runs its generic tests over every registered game): what a ruleset declares is what its
engine and its reference enforce, and any game of it can be played to its end."""

from __future__ import annotations

import random
import re

import pytest

from core import errors
from core.rulesets import DEFAULT_RULESET, RULESETS, Ruleset, bot_seed, get_ruleset

EVERY_RULESET = pytest.mark.parametrize("ruleset", list(RULESETS.values()), ids=list(RULESETS))


def test_the_registry_finds_each_ruleset_by_its_name_and_poison_is_the_default():
    assert set(RULESETS) == {"poison", "pot"}
    assert DEFAULT_RULESET == "poison"
    for name, ruleset in RULESETS.items():
        assert get_ruleset(name) is ruleset


@pytest.mark.parametrize("name", ["chess", "", "POISON", None, 3, ["pot"]])
def test_an_unknown_ruleset_is_refused_naming_those_that_exist(name):
    with pytest.raises(errors.InvalidArgument) as refused:
        get_ruleset(name)
    assert refused.value.code == "unknown_ruleset"
    assert "'poison'" in str(refused.value)
    assert "'pot'" in str(refused.value)


@EVERY_RULESET
def test_what_a_ruleset_declares_is_what_both_implementations_enforce(ruleset: Ruleset):
    for rules in (ruleset.engine, ruleset.reference):
        assert ruleset.card_codes == rules.CARD_CODES
        assert ruleset.bots == rules.BOTS
    low, high = ruleset.players
    for rules in (ruleset.engine, ruleset.reference):
        for players in (low, high):
            assert rules.Game(players, seed=1).players == players
        for players in (low - 1, high + 1):
            with pytest.raises(errors.InvalidArgument) as refused:
                rules.Game(players, seed=1)
            assert refused.value.code == "invalid_players"


@EVERY_RULESET
def test_the_card_pattern_matches_the_card_codes_and_nothing_else(ruleset: Ruleset):
    pattern = re.compile(ruleset.card_pattern)
    assert all(pattern.match(card) for card in ruleset.card_codes)
    others = {a + b for a in "RBPGTX" for b in "0123456789"} - set(ruleset.card_codes)
    assert not [card for card in others if pattern.match(card)]


@EVERY_RULESET
def test_every_refusal_a_ruleset_names_is_a_move_the_rules_refuse(ruleset: Ruleset):
    for code in ruleset.refusals:
        assert isinstance(errors.rule_error(code, "x"), errors.MoveRefused)
    for code in ("not_your_turn", "game_finished"):
        assert isinstance(errors.rule_error(code, "x"), errors.MoveConflict)


@EVERY_RULESET
@pytest.mark.parametrize("seed", range(6))
def test_any_game_plays_to_its_end_alike_in_the_engine_and_the_reference(ruleset: Ruleset, seed: int):
    low, high = ruleset.players
    players = low + seed % (high - low + 1)
    engine, reference = ruleset.engine.Game(players, seed=seed), ruleset.reference.Game(players, seed=seed)
    pick = random.Random(seed)
    moves = 0
    while engine.status == "active":
        legal = engine.legal_moves()
        assert legal, "a seat to move always has a legal move"
        assert legal == reference.legal_moves()
        seat = engine.turn
        move = pick.choice(legal)
        assert engine.play(seat, *move) == reference.play(seat, *move)
        moves += 1
    assert reference.status == "finished"
    assert engine.view() == reference.view()
    best = (min if ruleset.lowest_wins else max)(engine.totals)
    assert engine.winners == tuple(s for s, total in enumerate(engine.totals) if total == best)
    assert moves > 0


@EVERY_RULESET
def test_a_refused_move_changes_nothing(ruleset: Ruleset):
    low, _ = ruleset.players
    for rules in (ruleset.engine, ruleset.reference):
        game = rules.Game(low, seed=5)
        before = [game.view(seat) for seat in range(low)]
        other = (game.turn + 1) % low
        with pytest.raises(errors.MoveConflict):
            game.play(other, *game.legal_moves()[0])
        assert [game.view(seat) for seat in range(low)] == before


@EVERY_RULESET
def test_simulate_gives_the_same_figures_in_the_engine_and_the_reference(ruleset: Ruleset):
    low, _ = ruleset.players
    bots = [ruleset.bots[seat % len(ruleset.bots)] for seat in range(low)]
    engine = ruleset.engine.simulate(low, 12, seed=3, bots=bots)
    assert engine == ruleset.reference.simulate(low, 12, seed=3, bots=bots)
    assert engine.games == 12
    assert sum(engine.wins) >= 12


def test_a_bot_draws_from_the_game_seed_and_the_step_alone():
    assert bot_seed(7, 3) == bot_seed(7, 3)
    assert len({bot_seed(7, step) for step in range(50)}) == 50
    assert bot_seed(7, 3) != bot_seed(8, 3)
