"""A finished game's copy (events.store, events.restore): the whole log in one value, written
by the append that ends the game, read by a cold load instead of the stream.

The copy must always hold exactly the stream's events (random games of every ruleset,
appended in moves of any size), follow the one event that may come after the end, and
never be trusted when it cannot be: a game finished before copies existed, a copy that does
not decode, a stream holding an entry of an older form, an append after the copy.
"""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from events.codec import Codec, Event, RematchCreated
from events.mapper import decode_finished
from events.poison.schema import CODEC, CardPlayed, RoundScored
from events.replay import InvalidLog, rebuild, start
from events.restore import restore
from events.store import EventStore, Idempotency
from tests.events.logs import game_log, xadd
from tests.events.test_restore import random_log

pytestmark = pytest.mark.anyio


#: A whole game of Poison and its events.
WHOLE, FINISHED = game_log(4, seed=5)


def codec_of(events: list[tuple[int, Event]]) -> Codec:
    return start(*events[0]).rules.codec


async def append_in_moves(store: EventStore, game_id: str, events: list[tuple[int, Event]], seed: int) -> None:
    """Append a log as the service would, a few events at a time, each at its version."""
    draw = random.Random(seed)
    codec, done = codec_of(events), 0
    while done < len(events):
        size = draw.randint(1, 8)
        await store.append(game_id, [event for _, event in events[done : done + size]], done, codec=codec)
        done += size


async def copy_of(store: EventStore, game_id: str) -> bytes | None:
    copy: bytes | None = await store.recorder.wire.execute("GET", store.recorder.key(game_id, "finished"))
    return copy


async def test_a_finished_game_of_any_ruleset_loads_from_its_copy_which_holds_exactly_its_stream(store):
    rulesets = set()
    for seed in range(8):
        events = random_log(seed, to_the_end=True)
        await append_in_moves(store, f"g{seed}", events, seed)
        copy = await copy_of(store, f"g{seed}")
        assert copy is not None
        assert decode_finished(copy) == await store.read(f"g{seed}") == events
        assert await store.read_log(f"g{seed}") == events
        rulesets.add(codec_of(events).ruleset)
    assert rulesets == {"poison", "pot"}


async def test_a_game_not_finished_has_no_copy_and_loads_from_its_stream(store):
    events = list(enumerate(WHOLE[:-1], 1))
    await append_in_moves(store, "going", events, 1)
    assert await copy_of(store, "going") is None
    assert await store.read_log("going") == events
    assert await store.read_log("nobody") == []


async def test_the_rematch_after_the_end_is_in_the_copy_too(store):
    await store.append("done", WHOLE, 0, codec=CODEC)
    after = RematchCreated(game_id="next")
    await store.append("done", [after], len(WHOLE), codec=CODEC)
    assert await store.read_log("done") == list(enumerate([*WHOLE, after], 1))
    assert decode_finished(await copy_of(store, "done")) == await store.read("done")


async def test_any_other_append_after_the_end_removes_the_copy_and_loads_read_the_stream(store):
    await store.append("more", WHOLE, 0, codec=CODEC)
    card = CardPlayed(round=1, seat=1, card="R1", cauldron=0, total=1)
    await store.append("more", [card], len(WHOLE), codec=CODEC)
    assert await copy_of(store, "more") is None
    assert await store.read_log("more") == list(enumerate([*WHOLE, card], 1))


async def test_a_game_finished_before_copies_existed_loads_from_its_stream(store):
    await store.append("older", WHOLE, 0, codec=CODEC)
    await store.recorder.wire.execute("DEL", store.recorder.key("older", "finished"))
    loaded = restore(await store.read_log("older"))
    assert loaded.finished
    assert loaded.version == len(WHOLE)
    assert loaded.game.results() == FINISHED.game.results()


@pytest.mark.parametrize(
    "copy",
    [b"\xc1", msgspec.msgpack.encode(["poison", [{"type": "card_played"}]]), msgspec.msgpack.encode(["chess", []])],
    ids=["no msgpack", "an event missing its fields", "an unknown ruleset"],
)
async def test_a_copy_that_does_not_decode_is_passed_over_for_the_stream(store, copy):
    await store.append("spoilt", WHOLE, 0, codec=CODEC)
    await store.recorder.wire.execute("SET", store.recorder.key("spoilt", "finished"), copy)
    assert decode_finished(copy) is None
    assert await store.read_log("spoilt") == list(enumerate(WHOLE, 1))


async def test_a_spoilt_copy_over_a_spoilt_stream_is_refused_at_the_bad_events_version(store):
    await store.append("both", WHOLE, 0, codec=CODEC)
    await store.recorder.wire.execute("SET", store.recorder.key("both", "finished"), b"\xc1")
    await xadd(store, store.recorder.key("both", "events"), {"t": "card_played", "s": 1, "d": b"\xc1"}, "0-9999")
    with pytest.raises(InvalidLog) as refused:
        await store.read_log("both")
    assert refused.value.at_version == 9999


async def test_a_stream_with_an_entry_of_an_older_form_gets_no_copy_and_still_loads(store):
    # round_scored written as schema 1 (taken counts as lists), as the first drafts did.
    scored = next(version for version, event in enumerate(WHOLE, 1) if isinstance(event, RoundScored))
    await store.append("aged", WHOLE[: scored - 1], 0, codec=CODEC)
    old: dict[str, Any] = msgspec.to_builtins(WHOLE[scored - 1])
    old["taken"] = [[t["red"], t["blue"], t["purple"], t["poison"]] for t in old["taken"]]
    del old["type"]
    await xadd(
        store,
        store.recorder.key("aged", "events"),
        {"t": "round_scored", "s": 1, "d": msgspec.msgpack.encode(old)},
        f"0-{scored}",
    )
    await store.append("aged", WHOLE[scored:], scored, codec=CODEC)
    assert await copy_of(store, "aged") is None
    assert await store.read_log("aged") == list(enumerate(WHOLE, 1))


async def test_an_idempotent_retry_of_the_last_move_keeps_the_copy_as_it_was(store):
    key = Idempotency("last", "fingerprint")
    await store.append("retry", WHOLE[:-3], 0, codec=CODEC)
    first = await store.append("retry", WHOLE[-3:], len(WHOLE) - 3, idempotency=key, codec=CODEC)
    again = await store.append("retry", WHOLE[-3:], len(WHOLE) - 3, idempotency=key, codec=CODEC)
    assert again.replayed
    assert again.version == first.version == len(WHOLE)
    assert await store.read_log("retry") == await store.read("retry") == list(enumerate(WHOLE, 1))


async def test_a_game_loaded_from_its_copy_is_the_checked_rebuild_of_its_stream(store):
    for seed in (101, 102, 103):
        events = random_log(seed, to_the_end=True)
        await store.append(f"r{seed}", [event for _, event in events], 0, codec=codec_of(events))
        loaded, checked = restore(await store.read_log(f"r{seed}")), rebuild(await store.read(f"r{seed}"))
        assert (loaded.version, loaded.finished, loaded.game.view()) == (checked.version, True, checked.game.view())


def test_the_copy_of_poison_names_its_ruleset_before_its_events() -> None:
    # The form the loader reads: [ruleset, [stored data of each event, ...]].
    copy = msgspec.msgpack.encode(["poison", [msgspec.msgpack.decode(CODEC.encode_stored(e)[2]) for e in WHOLE]])
    assert decode_finished(copy) == list(enumerate(WHOLE, 1))
