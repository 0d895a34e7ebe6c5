"""The search bot (`mcts`) in the event layer: its seats record their playouts, its moves are
the searches those playouts make (replay re-runs them and refuses any other move), rematch
keeps them, and a log without it is stored byte for byte as before. Small budgets keep the
searches quick: each takes well under a millisecond."""

from __future__ import annotations

import msgspec
import pytest

from core.rulesets import POT
from events.codec import Player
from events.commitment import seed_commitment
from events.play import LoggedGame, create_game, play_move, rematch_game
from events.replay import InvalidLog, rebuild, search_work
from events.rulesets import rules_for

#: The pot game, a person and two search bots: one with its own budget, one with the default.
TABLE = (
    Player(seat=0, name="ana"),
    Player(seat=1, name="bob", bot="mcts", playouts=200),
    Player(seat=2, name="cy", bot="mcts"),
)


def whole_game(players: tuple[Player, ...] = TABLE, seed: int = 11) -> tuple[list, LoggedGame]:
    """A whole pot game, the person always playing the first legal move."""
    log, logged = create_game("pot", "g-search", players, seed=seed, options={})
    while not logged.finished:
        caused, logged = play_move(logged, logged.game.turn, tuple(logged.game.legal_moves()[0]))
        log += caused
    return log, logged


@pytest.fixture(scope="module")
def played() -> tuple[list, LoggedGame]:
    return whole_game()


def numbered(log: list) -> list:
    return list(enumerate(log, start=1))


def test_a_search_bot_seat_records_its_playouts_and_the_default_when_none_is_given(played):
    log, _ = played
    created = log[0]
    assert [player.playouts for player in created.players] == [msgspec.UNSET, 200, POT.default_playouts]
    public = msgspec.to_builtins(created.players)
    assert "playouts" not in public[0]
    assert public[1]["playouts"] == 200
    assert public[2]["playouts"] == POT.default_playouts


def test_replay_accepts_the_game_the_search_bots_played(played):
    log, logged = played
    rebuilt = rebuild(numbered(log))
    assert rebuilt.finished
    assert rebuilt.version == logged.version == len(log)
    assert rebuilt.game.view(None).totals == logged.game.view(None).totals


def test_a_search_bots_moves_are_what_its_playouts_search(played):
    """The same table with another budget plays another game: the budget is part of the bot."""
    log, _ = played
    other, _ = whole_game(tuple(msgspec.structs.replace(p, playouts=5) if p.bot else p for p in TABLE))
    assert other[: len(log)] != log


def tampered_search_move(log: list) -> tuple[int, list]:
    """The log with the first move of seat 1 (an mcts seat) replaced by another legal move."""
    rules = rules_for("pot")
    logged = rebuild(numbered(log[:1]))
    for version, event in numbered(log)[1:]:
        if isinstance(event, rules.played_type) and rules.move_of(event)[0] == 1:
            game = logged.game
            other = next(move for move in game.legal_moves() if tuple(move) != tuple(rules.move_of(event)[1]))
            forged = rules.play(game.copy(), 1, tuple(other))
            return version, [*log[: version - 1], *forged]
        logged = rebuild(numbered(log[:version]))
    raise AssertionError("seat 1 never moved")


def test_replay_refuses_a_search_bots_move_it_would_not_have_made(played):
    log, _ = played
    version, forged = tampered_search_move(log)
    with pytest.raises(InvalidLog) as refused:
        rebuild(numbered(forged))
    assert refused.value.at_version == version
    assert "seat 1 is the mcts bot, which plays" in refused.value.reason


def test_a_log_whose_search_bot_has_no_playouts_is_refused(played):
    log, _ = played
    bare = msgspec.structs.replace(
        log[0], players=tuple(msgspec.structs.replace(p, playouts=msgspec.UNSET) for p in log[0].players)
    )
    with pytest.raises(InvalidLog) as refused:
        rebuild(numbered([bare, *log[1:]]))
    assert refused.value.at_version == 1
    assert "seat 1 is the mcts bot's: its playouts are missing" in refused.value.reason


def test_a_log_giving_playouts_to_another_bot_is_refused(played):
    log, _ = played
    wrong = msgspec.structs.replace(
        log[0], players=(*log[0].players[:2], msgspec.structs.replace(log[0].players[2], bot="greedy"))
    )
    with pytest.raises(InvalidLog) as refused:
        rebuild(numbered([wrong, *log[1:]]))
    assert "seat 2 has playouts, but the greedy bot plays it" in refused.value.reason


def test_search_work_counts_each_search_bot_move_at_its_playouts(played):
    log, _ = played
    rules = rules_for("pot")
    moves = [rules.move_of(event)[0] for event in log if isinstance(event, rules.played_type)]
    expected = 200 * moves.count(1) + POT.default_playouts * moves.count(2)
    assert search_work(numbered(log)) == expected > 0
    assert search_work(numbered(whole_game(tuple(Player(seat=s, name=f"p{s}") for s in range(2)))[0])) == 0


def test_a_rematch_keeps_every_bot_and_its_playouts(played):
    _, finished = played
    events, logged = rematch_game(finished, "g-next", 99)
    assert events[0].players == finished.created.players
    assert rebuild(numbered(events)).version == logged.version


def test_a_log_without_the_search_bot_is_stored_as_before():
    """Bytes written by the codec before seats had playouts (msgpack of a pot game's
    game_created with a person and a greedy bot): the same game is stored the same today,
    its commitment to its deals (a later field, events.commitment) added at the end."""
    players = (Player(seat=0, name="ana"), Player(seat=1, name="bob", bot="greedy"))
    salt = "5a17" * 16
    log, _ = create_game("pot", "g1", players, seed=5, options={}, salt=salt)
    kind, schema, payload = rules_for("pot").codec.encode_stored(log[0])
    assert (kind, schema) == ("pot:game_created", 1)
    assert payload == (
        b"\x87\xa4type\xacgame_created\xa7game_id\xa2g1\xa7ruleset\xa3pot\xa7players\x92"
        b"\x83\xa4seat\x00\xa4name\xa3ana\xa3bot\xc0"
        b"\x83\xa4seat\x01\xa4name\xa3bob\xa3bot\xa6greedy"
        b"\xa4seed\x05"
        b"\xafseed_commitment\xd9@" + seed_commitment(5, salt).encode() + b"\xa4salt\xd9@" + salt.encode()
    )
