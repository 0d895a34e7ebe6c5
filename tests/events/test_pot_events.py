"""The pot game's events: its log rebuilds the game the reference plays, every event survives
its stored and public forms, the log alone makes the game, a tampered log is refused at its
first bad event, and a seat reads only what it may see."""

from __future__ import annotations

import random

import msgspec
import pytest

from core.pot import reference
from core.pot.engine import seeded_deal
from events import rulesets
from events import schema as poison_schema
from events.codec import GameFinished, MalformedEvent, Player, decode_public_line, encode_public, to_public
from events.play import create_game, new_game, play_move
from events.pot.rules import PotEvents
from events.pot.schema import (
    CODEC,
    CardsDealt,
    CardsDrawn,
    PotCardPlayed,
    PotClosed,
    PotExploded,
    PotGameCreated,
    PotStarted,
)
from events.replay import InvalidLog, decode_log, rebuild, require_complete
from events.store import EventStore

RULES = PotEvents()


def seats(n: int, bots: dict[int, str] | None = None) -> tuple[Player, ...]:
    bots = bots or {}
    return tuple(Player(seat=seat, name=f"player{seat}", bot=bots.get(seat)) for seat in range(n))


def choose(game, rng: random.Random):
    """A legal move, closing now and then (a quarter of the times it may), so that logs hold
    closings, explosions, new pots and draws."""
    legal = game.legal_moves()
    closing = [move for move in legal if move.close]
    if closing and rng.random() < 0.25:
        return rng.choice(closing)
    return rng.choice([move for move in legal if not move.close])


def pot_log(n: int, *, seed: int, bots: dict[int, str] | None = None, moves: int | None = None, game_id="g-pot"):
    """A pot game's log played through events.play to its end (or for `moves` human moves)."""
    log, logged = create_game("pot", game_id, seats(n, bots), seed=seed, options={})
    rng = random.Random(seed)
    played = 0
    while not logged.finished and (moves is None or played < moves):
        caused, logged = play_move(logged, logged.game.turn, tuple(choose(logged.game, rng)))
        log += caused
        played += 1
    return log, logged


def numbered(log):
    return list(enumerate(log, start=1))


def reference_game(log, n: int, seed: int) -> reference.Game:
    """The reference game dealt from `seed` and played with the moves the log records."""
    oracle = reference.Game(n, seed=seed)
    for event in log:
        if isinstance(event, PotCardPlayed):
            oracle.play(event.seat, event.card, event.close)
    return oracle


def kinds(log) -> set[type]:
    return {type(event) for event in log}


# ---- the log and the reference -----------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_a_seeded_pot_log_rebuilds_to_the_state_the_reference_reaches_with_the_same_moves(players):
    seed = 40 + players
    log, played = pot_log(players, seed=seed, bots={1: "greedy"} if players > 2 else None)
    assert {PotClosed, PotExploded, PotStarted, CardsDrawn, GameFinished} <= kinds(log)
    assert any(isinstance(e, PotCardPlayed) and e.close for e in log)
    rebuilt = rebuild(numbered(log))
    oracle = reference_game(log, players, seed)
    assert rebuilt.version == len(log)
    assert rebuilt.finished
    assert oracle.status == "finished"
    assert rebuilt.game.view() == oracle.view()
    assert rebuilt.game.pot_results() == oracle.pot_results()
    assert (rebuilt.game.totals, rebuilt.game.winners) == (oracle.totals, oracle.winners)
    assert log[-1] == GameFinished(totals=oracle.totals, winners=oracle.winners)
    assert rebuilt.game.view() == played.game.view()


def test_a_log_cut_anywhere_between_moves_rebuilds_the_references_state_there():
    log, _ = pot_log(3, seed=5)
    oracle = reference.Game(3, seed=5)
    for version, event in numbered(log):
        if not isinstance(event, PotCardPlayed):
            continue
        before = rebuild(numbered(log[: version - 1]))
        assert before.game.view(event.seat) == oracle.view(event.seat)
        assert before.game.draw_order() == oracle.draw_order()
        oracle.play(event.seat, event.card, event.close)


def test_every_move_records_what_the_reference_says_it_did_in_order():
    log, _ = pot_log(4, seed=21)
    oracle = reference.Game(4, seed=21)
    moves = [i for i, e in enumerate(log) if isinstance(e, PotCardPlayed)]
    for start, end in zip(moves, [*moves[1:], len(log)], strict=True):
        event = log[start]
        done = oracle.play(event.seat, event.card, event.close)
        expected = [PotCardPlayed(seat=done.seat, card=done.card, close=done.close, toxicity=done.toxicity)]
        for result in (done.ended,):
            if result is not None:
                expected.append(ended_event(result))
        if done.started is not None:
            expected.append(PotStarted(card=done.started))
        if done.drawn:
            expected.append(CardsDrawn(seat=done.seat, count=len(done.drawn), cards=done.drawn))
        if done.final is not None:
            expected.append(ended_event(done.final))
        if done.game_over:
            expected.append(GameFinished(totals=oracle.totals, winners=oracle.winners))
        assert log[start:end] == expected


def ended_event(result):
    if result.outcome == "exploded":
        return PotExploded(seat=result.seat, cards=result.cards, toxicity=result.toxicity)
    return PotClosed(seat=result.seat, cards=result.cards, toxicity=result.toxicity, points=result.points)


# ---- stored and public forms -----------------------------------------------------------


LOG, _ = pot_log(3, seed=13, bots={1: "greedy"})


def test_every_pot_event_survives_its_stored_form():
    for event in LOG:
        stored_type, schema, payload = CODEC.encode_stored(event)
        assert stored_type.startswith("pot:")
        assert rulesets.decode_stored(stored_type, schema, payload) == event
        assert type(rulesets.decode_stored(stored_type, schema, payload)) is type(event)


def test_every_pot_event_survives_its_public_form_and_the_log_decodes_whole():
    public = [to_public(version, event) for version, event in numbered(LOG)]
    lines = [decode_public_line(encode_public(item)) for item in public]
    assert [(line.version, line.type) for line in lines] == [(item.version, item.type) for item in public]
    assert [msgspec.json.encode(line) for line in lines] == [encode_public(item) for item in public]
    assert [CODEC.from_public(line) for line in lines] == LOG
    assert decode_log(lines) == numbered(LOG)
    assert lines[0].data["ruleset"] == "pot"
    assert "rounds" not in lines[0].data
    assert "rules" not in lines[0].data


@pytest.mark.anyio
async def test_pot_events_survive_the_real_store(store: EventStore):
    await store.append("g-pot", LOG, 0, summary={"status": "finished", "ruleset": "pot"}, codec=CODEC)
    read = await store.read("g-pot")
    assert read == numbered(LOG)
    assert rebuild(read).game.totals == LOG[-1].totals


# ---- the log alone determines the game ------------------------------------------------------


def test_the_deal_event_holds_the_hands_the_first_pot_and_the_draw_pile_of_the_seed():
    deal = seeded_deal(13, 3)
    assert LOG[1] == CardsDealt(hands=deal.hands, pot=deal.pot, draw_pile=deal.draw_pile)
    assert sum(len(hand) for hand in LOG[1].hands) + 1 + len(LOG[1].draw_pile) == 56


def test_the_log_alone_determines_the_game_without_its_seed():
    unseeded = [msgspec.structs.replace(LOG[0], seed=None), *LOG[1:]]
    without = rebuild(numbered(unseeded))
    with_seed = rebuild(numbered(LOG))
    assert without.game.view() == with_seed.game.view()
    assert without.game.pot_results() == with_seed.game.pot_results()
    # Another deal written into an unseeded log makes another game, and the log says which.
    other = seeded_deal(99, 3)
    log, _ = pot_log(3, seed=99, moves=6)
    other_log = [msgspec.structs.replace(log[0], seed=None), *log[1:]]
    assert rebuild(numbered(other_log)).game.hand(0) == reference_game(log, 3, 99).hand(0)
    assert other_log[1].draw_pile == other.draw_pile


@pytest.mark.parametrize("other", ["another seed's deal", "two hands swapped", "the pile reordered"])
def test_a_seeded_game_whose_deal_is_not_its_seeds_is_refused_at_the_deal(other):
    deal = LOG[1]
    if other == "another seed's deal":
        forged = seeded_deal(14, 3)
        replacement = CardsDealt(hands=forged.hands, pot=forged.pot, draw_pile=forged.draw_pile)
    elif other == "two hands swapped":
        replacement = CardsDealt(
            hands=(deal.hands[1], deal.hands[0], deal.hands[2]), pot=deal.pot, draw_pile=deal.draw_pile
        )
    else:
        replacement = CardsDealt(hands=deal.hands, pot=deal.pot, draw_pile=tuple(reversed(deal.draw_pile)))
    assert replacement != deal
    with pytest.raises(InvalidLog) as refused:
        rebuild(numbered([LOG[0], replacement, *LOG[2:]]))
    assert refused.value.at_version == 2
    assert "seed 13" in refused.value.reason


def test_a_deal_the_rules_could_not_make_is_refused_even_without_a_seed():
    deal = LOG[1]
    unseeded = msgspec.structs.replace(LOG[0], seed=None)
    doubled = CardsDealt(hands=deal.hands, pot=deal.pot, draw_pile=(deal.draw_pile[0], *deal.draw_pile))
    hidden = CardsDealt(hands=deal.hands, pot=deal.pot, draw_pile=None)
    for bad in (doubled, hidden):
        with pytest.raises(InvalidLog) as refused:
            rebuild(numbered([unseeded, bad]))
        assert refused.value.at_version == 2


# ---- tampered logs ---------------------------------------------------------------------------


def first(log, kind, where=lambda event: True, after=0):
    return next(i for i, e in enumerate(log) if isinstance(e, kind) and where(e) and i >= after)


def replaced(log, index, event):
    return [*log[:index], event, *log[index + 1 :]]


def _tamperings():
    played = first(LOG, PotCardPlayed, lambda e: e.seat != 1)
    card = LOG[played]
    hand = rebuild(numbered(LOG[:played])).game.hand(card.seat)
    absent = next(f"T{k}" for k in range(7) if f"T{k}" not in hand)
    closed = first(LOG, PotClosed)
    started = first(LOG, PotStarted)
    drawn = first(LOG, CardsDrawn)
    exploded = first(LOG, PotExploded)
    drawn_event = LOG[drawn]
    other_cards = tuple("T6" if c != "T6" else "T0" for c in drawn_event.cards)
    poison_card = poison_schema.CardPlayed(round=1, seat=card.seat, card="R5", cauldron=0, total=5)
    return {
        "a card the seat does not hold": (
            played,
            replaced(LOG, played, msgspec.structs.replace(card, card=absent)),
        ),
        "a wrong toxicity": (played, replaced(LOG, played, msgspec.structs.replace(card, toxicity=card.toxicity + 1))),
        "a pot_closed with wrong points": (
            closed,
            replaced(LOG, closed, msgspec.structs.replace(LOG[closed], points=LOG[closed].points + 1)),
        ),
        "a missing pot_started": (started, [*LOG[:started], *LOG[started + 1 :]]),
        "a cards_drawn with other cards": (
            drawn,
            replaced(LOG, drawn, msgspec.structs.replace(drawn_event, cards=other_cards)),
        ),
        "a close on an exploding pot": (
            exploded - 1,
            replaced(LOG, exploded - 1, msgspec.structs.replace(LOG[exploded - 1], close=True)),
        ),
        "an event of Poison in a pot log": (played, replaced(LOG, played, poison_card)),
        "a game_finished too early": (
            played + 1,
            [*LOG[: played + 1], GameFinished(totals=(0, 0, 0), winners=(0, 1, 2))],
        ),
        "a second deal": (played, replaced(LOG, played, LOG[1])),
        "an event doubled": (played + 1, [*LOG[: played + 1], LOG[played], *LOG[played + 1 :]]),
    }


@pytest.mark.parametrize("name", list(_tamperings()))
def test_a_tampered_pot_log_is_refused_at_its_first_bad_event(name):
    index, log = _tamperings()[name]
    with pytest.raises(InvalidLog) as refused:
        rebuild(numbered(log))
    assert refused.value.at_version == index + 1
    assert str(refused.value).startswith(f"event {index + 1}: ")


def test_the_tampered_close_is_refused_because_the_pot_explodes():
    exploded = first(LOG, PotExploded)
    assert isinstance(LOG[exploded - 1], PotCardPlayed)
    assert not LOG[exploded - 1].close
    forged = replaced(LOG, exploded - 1, msgspec.structs.replace(LOG[exploded - 1], close=True))
    with pytest.raises(InvalidLog, match="cannot_close"):
        rebuild(numbered(forged))


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        ("card_played", {"round": 1, "seat": 0, "card": "R5", "cauldron": 0, "total": 5}),
        ("round_started", {"round": 1, "dealer": 0, "hands": [[], [], []], "set_aside": []}),
        ("cauldron_overflowed", {"round": 1, "seat": 0, "cauldron": 0, "taken": ["R5"]}),
    ],
)
def test_a_public_event_of_poison_in_a_pot_log_is_refused_at_its_version(kind, data):
    public = [to_public(version, event) for version, event in numbered(LOG)]
    at = first(LOG, PotCardPlayed)
    forged = [*public[:at], poison_schema.PublicEvent(at + 1, kind, data), *public[at + 1 :]]
    with pytest.raises(InvalidLog) as refused:
        decode_log(forged)
    assert refused.value.at_version == at + 1


def test_a_bot_move_the_bot_would_not_make_is_refused():
    index = first(LOG, PotCardPlayed, lambda e: e.seat == 1)
    game = rebuild(numbered(LOG[:index])).game
    recorded = LOG[index]
    other = next(m for m in game.legal_moves() if (m.card, m.close) != (recorded.card, recorded.close))
    twin = game.copy()
    forged = RULES.play(twin, 1, other)[0]
    with pytest.raises(InvalidLog, match="greedy bot") as refused:
        rebuild(numbered([*LOG[:index], forged]))
    assert refused.value.at_version == index + 1
    assert rebuild(numbered(LOG[: index + 1])).version == index + 1  # the bot's own move passes


def test_a_log_cut_in_the_middle_of_a_move_is_not_complete():
    require_complete(rebuild(numbered(LOG)))
    closed = first(LOG, PotClosed, after=2)
    drawn = first(LOG, CardsDrawn)
    for cut in (closed, drawn, len(LOG) - 1):  # before a closing, before a draw, before the end
        partial = rebuild(numbered(LOG[:cut]))  # every event so far is right
        with pytest.raises(InvalidLog) as refused:
            require_complete(partial)
        assert refused.value.at_version == cut + 1
    with pytest.raises(InvalidLog) as refused:
        require_complete(rebuild(numbered(LOG[:1])))  # created, never dealt
    assert refused.value.at_version == 2


# ---- two rulesets, one game id ------------------------------------------------------------


def poison_log():
    log, logged = new_game("g-same", seats(3), rounds=1, rules=poison_schema.Rules(), seed=13)
    for _ in range(5):
        caused, logged = play_move(logged, logged.game.turn, tuple(logged.game.legal_moves()[0]))
        log += caused
    return log


POISON_LOG = poison_log()
POT_LOG, _ = pot_log(3, seed=13, moves=5, game_id="g-same")


def test_pot_and_poison_events_of_one_game_id_never_decode_into_each_other_in_the_stored_form():
    for event in POT_LOG:
        stored_type, schema, payload = CODEC.encode_stored(event)
        with pytest.raises(MalformedEvent):
            poison_schema.decode_stored(stored_type.removeprefix("pot:"), schema, payload)
    for event in POISON_LOG:
        stored_type, schema, payload = poison_schema.encode_stored(event)
        assert not stored_type.startswith("pot:")
        decoded = rulesets.decode_stored(stored_type, schema, payload)
        assert type(decoded) is type(event)
        if stored_type in CODEC.types:
            with pytest.raises(MalformedEvent):
                CODEC.decode_stored(stored_type, schema, payload)


def test_pot_and_poison_public_logs_of_one_game_id_never_decode_into_each_other():
    pot_public = [to_public(v, e) for v, e in numbered(POT_LOG)]
    poison_public = [to_public(v, e) for v, e in numbered(POISON_LOG)]
    assert all(
        type(e).__module__ == "events.pot.schema" or isinstance(e, GameFinished) for _, e in decode_log(pot_public)
    )
    assert all(
        type(e).__module__ == "events.schema" or isinstance(e, GameFinished) for _, e in decode_log(poison_public)
    )
    # A pot log's events after a Poison creation, and a Poison log's after a pot creation.
    with pytest.raises(InvalidLog) as refused:
        decode_log([poison_public[0], *pot_public[1:]])
    assert refused.value.at_version == 2
    with pytest.raises(InvalidLog) as refused:
        decode_log([pot_public[0], *poison_public[1:]])
    assert refused.value.at_version == 2


@pytest.mark.anyio
async def test_pot_and_poison_games_with_one_game_id_read_back_as_their_own(redis_url: str, namespace: str):
    pot_store = EventStore.from_url(redis_url, namespace=namespace + "-pot")
    poison_store = EventStore.from_url(redis_url, namespace=namespace + "-poison")
    try:
        await pot_store.append("g-same", POT_LOG, 0, summary={"status": "active"}, codec=CODEC)
        await poison_store.append("g-same", POISON_LOG, 0, summary={"status": "finished"})
        pot_read = await pot_store.read("g-same")
        poison_read = await poison_store.read("g-same")
    finally:
        await pot_store.close()
        await poison_store.close()
    assert pot_read == numbered(POT_LOG)
    assert poison_read == numbered(POISON_LOG)
    assert isinstance(pot_read[2][1], PotCardPlayed)
    assert isinstance(poison_read[2][1], poison_schema.CardPlayed)


# ---- what a seat may see ------------------------------------------------------------------


ACTIVE_LOG, ACTIVE = pot_log(4, seed=31, moves=30)


def test_the_active_log_used_below_is_active_and_has_draws_by_several_seats():
    assert not ACTIVE.finished
    assert len({e.seat for e in ACTIVE_LOG if isinstance(e, CardsDrawn)}) >= 2


@pytest.mark.parametrize("reader", [None, 0, 1, 2, 3])
def test_an_active_pot_log_never_shows_a_reader_what_it_may_not_see(reader):
    for event in ACTIVE_LOG:
        seen = RULES.visible(event, reader, False)
        assert type(seen) is type(event)
        if isinstance(event, PotGameCreated):
            assert seen.seed is None
            assert seen.players == event.players
        elif isinstance(event, CardsDealt):
            assert seen.draw_pile is None
            assert seen.pot == event.pot
            for seat, hand in enumerate(seen.hands):
                assert hand == (event.hands[seat] if seat == reader else None)
        elif isinstance(event, CardsDrawn):
            assert (seen.seat, seen.count) == (event.seat, event.count)
            assert seen.cards == (event.cards if event.seat == reader else None)
        else:
            assert seen == event
        leaked = msgspec.json.encode(to_public(1, seen)).decode()
        assert 'draw_pile":[' not in leaked


@pytest.mark.parametrize("reader", [None, 0, 3])
def test_a_finished_pot_log_shows_everything_to_everyone(reader):
    for event in LOG:
        assert RULES.visible(event, reader, True) == event
    assert RULES.visible(LOG[0], reader, True).seed == 13
