"""Game ids and seat tokens as people handle them: pasted after `--game` and `--token` on a
command line, where a value beginning with '-' reads as an option."""

from __future__ import annotations

import re

from service.tokens import BEARER, ServerKey, new_game_id

new_token = ServerKey("a server key of the tests, long enough").new_token

#: Draws enough that the old ids (one in 64 began with '-') would fail: (63/64)**4000 < 1e-27.
DRAWS = 4000


def test_no_game_id_or_token_begins_with_a_dash():
    assert not [text for text in (new_game_id() for _ in range(DRAWS)) if text.startswith("-")]
    assert not [text for text in (new_token() for _ in range(DRAWS)) if text.startswith("-")]


def test_ids_and_tokens_keep_their_length_and_alphabet_and_tokens_are_still_bearer_tokens():
    ids = {new_game_id() for _ in range(DRAWS)}
    tokens = {new_token() for _ in range(DRAWS)}
    assert len(ids) == len(tokens) == DRAWS  # no repeats: still random
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{16}", game_id) for game_id in ids)
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{43}", token) for token in tokens)
    assert all(BEARER.match(f"Bearer {token}") for token in tokens)
    assert any("-" in game_id for game_id in ids)  # the dash is still drawn, only never first
