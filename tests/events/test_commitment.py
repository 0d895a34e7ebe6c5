"""Every game commits to its deals, for every ruleset: game_created's seed_commitment is the
SHA-256 of "<seed>:<salt>" (worked out here with hashlib, apart from events.commitment),
the salt is the game's own, both seed and salt stay hidden from every reader while the game
is active, and a log written before commitments still replays, saying it has none. (Each
tampering of seed, salt or commitment is among tests/rulesets.py's tamperings, refused by
tests/events/test_every_ruleset.py and, over HTTP, tests/service/test_every_ruleset_log.py.)"""

from __future__ import annotations

import hashlib
import re

import msgspec

from events.commitment import HOLDS, NONE, check
from events.play import create_game, rematch_game
from events.replay import rebuild
from events.rulesets import rules_for
from tests.rulesets import EVERY_RULESET, numbered, played_log, seats


def sha256_of(seed: int, salt: str) -> str:
    return hashlib.sha256(f"{seed}:{salt}".encode()).hexdigest()


@EVERY_RULESET
def test_a_games_commitment_is_the_sha256_of_its_seed_a_colon_and_its_salt(ruleset):
    created = create_game(ruleset.name, "g", seats(ruleset.players[0]), seed=31337, options={})[0][0]
    assert re.fullmatch("[0-9a-f]{64}", created.salt)
    assert created.seed_commitment == sha256_of(31337, created.salt)
    given = create_game(ruleset.name, "g", seats(ruleset.players[0]), seed=31337, options={}, salt="ab" * 32)[0][0]
    assert given.seed_commitment == sha256_of(31337, "ab" * 32)


@EVERY_RULESET
def test_two_games_of_the_same_seed_have_salts_of_their_own_and_so_other_commitments(ruleset):
    made = [create_game(ruleset.name, "g", seats(ruleset.players[0]), seed=5, options={})[0][0] for _ in range(2)]
    assert made[0].salt != made[1].salt
    assert made[0].seed_commitment != made[1].seed_commitment


@EVERY_RULESET
def test_a_rematch_commits_to_its_own_seed_under_a_new_salt(ruleset):
    _, finished = played_log(ruleset, ruleset.players[0], seed=3)
    events, _ = rematch_game(finished, "g-next", 99)
    created = events[0]
    assert created.seed == 99
    assert created.salt != finished.created.salt
    assert created.seed_commitment == sha256_of(99, created.salt)
    assert check(created) == HOLDS


@EVERY_RULESET
def test_while_a_game_is_active_its_creation_shows_every_reader_the_commitment_but_not_seed_or_salt(ruleset):
    n = ruleset.players[0]
    log, _ = played_log(ruleset, n, seed=8, moves=1)
    rules = rules_for(ruleset.name)
    for reader in (None, *range(n)):
        seen = rules.visible(log[0], reader, False)
        assert (seen.seed, seen.salt) == (None, None)
        assert seen.seed_commitment == log[0].seed_commitment == sha256_of(8, log[0].salt)
        assert rules.visible(log[0], reader, True) == log[0]  # over: all of it


@EVERY_RULESET
def test_a_log_written_before_games_committed_to_their_deals_replays_and_says_there_is_none(ruleset):
    """Its game_created as the codec stored it then: the same data without the two fields."""
    log, finished = played_log(ruleset, ruleset.players[0], seed=21)
    codec = rules_for(ruleset.name).codec
    kind, schema, payload = codec.encode_stored(log[0])
    data = msgspec.msgpack.decode(payload)
    old = msgspec.msgpack.encode({key: value for key, value in data.items() if key not in {"seed_commitment", "salt"}})
    created = codec.decode_stored(kind.removeprefix(codec.prefix), schema, old)
    assert (created.seed, created.salt, created.seed_commitment) == (21, None, None)
    rebuilt = rebuild(numbered([created, *log[1:]]))
    assert rebuilt.finished
    assert rebuilt.game.totals == finished.game.totals
    assert check(rebuilt.created) == NONE
    assert check(log[0]) == HOLDS
