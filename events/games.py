"""The games as the service sees them: create one, load one, record a move.

A game's state is always what its log gives: `load` reads the log and rebuilds it through
the core. A per-process cache keeps recently used games and reads only the events newer
than what it holds, so a move costs one short read and one append; correctness never
depends on it (every load asks the store what is new, so processes sharing a store agree).

A search bot's move costs a search (milliseconds to seconds of CPU, without the GIL), so
whatever may run one (a move, a join or creation that lets bots play, a rematch, the
checked rebuild of a log) is judged in a worker thread of `Searches` when the table has a
search bot; every other game keeps the inline road. The thread works on copies (a
LoggedGame is never changed), and its events are appended on the loop as any others: one
atomic append at the version they were judged on, judged again after a lost race. Its
playouts are billed to the client whose request runs it (events.budgets), before it is
queued; work whose client hangs up while it waits is dropped (events.pool.ClientGone).

The checked rebuild of a long log (a time-travel read, a replay) runs in a thread of
its own pool, `rebuilds`, billed to the client's rebuild budget; a time-travel read is kept
in a per-process cache, since the state right after event N of a log never changes.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections import OrderedDict
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from typing import Any

import msgspec

from core import RuleError
from core.errors import CLOCK_BOUNDS
from core.rulesets import DEFAULT_RULESET, get_ruleset
from events.archiving import Archiver
from events.away import DEFAULT_BOT, playing_bot
from events.budgets import Bill, Budgets
from events.clocks import Timekeeper, now_ms
from events.codec import Clock, Event, Player
from events.limits import KEPT_REFUSALS, Limit, Rate, RateLimits
from events.metrics import moves_of
from events.play import (
    LoggedGame,
    abandon,
    come_back,
    create_game,
    join,
    leave,
    play_move,
    playouts_searched,
    rematch_created,
    rematch_game,
    resign,
    search_budgets,
    searches,
    time_out,
)
from events.pool import ClientGone, Gone, Pool
from events.replay import InvalidLog, advance, rebuild, search_work
from events.restore import restore
from events.ruleset import EventRules
from events.store import (
    CURSOR,
    Appended,
    EventStore,
    GameArchived,
    GameSummary,
    Idempotency,
    IdempotencyKeyReused,
    StoreUnavailable,
    UnknownGame,
    VersionConflict,
    listing_member,
)

log = logging.getLogger("poison.clocks")

#: How often a move without an expected version is recomputed after losing a race.
RACE_RETRIES = 5

#: How often a lobby request (join, leave, rematch) is judged again after losing a race:
#: every lost race is another request's success, and a table has at most six seats.
LOBBY_RETRIES = 16

#: What a left seat's token hash becomes: no token hashes to it, so the old token is refused.
LEFT = "left"

#: How often a load reads a clocked game's events again when its summary row (the deadline's
#: word) is already past them: each time is another request's append in between.
DEADLINE_READS = 4

#: The longest log rebuilt on the event loop itself (a time-travel read, a replay): a
#: longer one holds the loop longer than a thread hop costs, so it goes to `rebuilds`.
INLINE_REBUILD_EVENTS = 200


class SeatChanged(Exception):
    """The caller's token is no longer its seat's: the seat was left (and maybe joined
    again) since the token was checked."""


#: Makes a caller's response from the game after a move, its first new version and its events.
Answer = Callable[[LoggedGame, int, list[Event]], bytes]


class Searches(Pool):
    """Where work that runs a search bot's searches is done: worker threads, at most
    `threads` at once (default: the machine's cores), so that the event loop keeps
    answering every other request meanwhile. More work waits for a free thread on the loop
    (a semaphore) instead of piling threads up, and work whose client hangs up before its
    turn never runs."""

    def __init__(self, threads: int | None = None) -> None:
        super().__init__(threads, "search")


def summary_of(logged: LoggedGame) -> dict[str, str | int]:
    """The listing's fields of a game, written whole by every append but a move's."""
    return {
        "status": logged.status,
        "ruleset": logged.rules.name,
        "players": msgspec.json.encode([player.name for player in logged.players]).decode(),
        **moved_summary(logged),
    }


def moved_summary(logged: LoggedGame) -> dict[str, str | int]:
    """The listing's fields a move may change, which a move's append writes: a game being
    played has its table and its ruleset for good (a move's append wrote them all again, a
    tenth of its client's work)."""
    return {"status": logged.status, **logged.rules.summary(logged.game), "version": logged.version}


class Games:
    def __init__(
        self,
        store: EventStore,
        *,
        cache_size: int = 4096,
        limits: RateLimits | None = None,
        searches: Searches | None = None,
        kept_refusals: int = KEPT_REFUSALS,
        rebuilds: Pool | None = None,
        away_bot: str = DEFAULT_BOT,
        waiting_ms: int = 0,
    ) -> None:
        if store.listing is None or store.idempotency is None or store.buckets is None:
            raise ValueError("the games need a store with a listing, idempotency records and rate-limit buckets")
        # The store's parts, each held here for what it does: the log (`store`, with the seat
        # tokens, which an archived game keeps in its index entry), the listing, the
        # idempotency records and the rate-limit buckets.
        self.store = store
        self.listing = store.listing
        self.idempotency = store.idempotency
        self.buckets = store.buckets
        self.kept_refusals = kept_refusals
        self.cache_size = cache_size
        self.limits = limits or RateLimits()
        self.searches = searches or Searches()
        self.rebuilds = rebuilds or Pool(1, "rebuild")
        self.budgets = Budgets(self.buckets, self.limits)
        # The clocks: the bot that takes a seat whose clock ran out, how long a game may
        # wait for its open seats (0: for ever), and the store's index of deadlines.
        self.away_bot = away_bot
        self.waiting_ms = waiting_ms
        self.deadlines = store.deadlines
        self._cache: OrderedDict[str, LoggedGame] = OrderedDict()
        # Time-travel reads, by (game id, version): at most cache_size.
        self._travels: OrderedDict[tuple[str, int], LoggedGame] = OrderedDict()
        self._tokens: dict[str, dict[int, str]] = {}
        # A move's buckets, made once per seat and per client address (their keys are
        # formatted and the game's id checked, on every move otherwise; figures:
        # docs/performance.md): at most cache_size of each.
        self._buckets: dict[tuple[str, int] | str, Limit] = {}

    async def create(
        self,
        game_id: str,
        players: tuple[Player, ...],
        *,
        seed: int,
        token_hashes: Mapping[int, str],
        created_ms: int,
        ruleset: str = DEFAULT_RULESET,
        options: Mapping[str, Any] | None = None,
        clock: Clock | None = None,
        client: str | None = None,
        gone: Gone | None = None,
    ) -> tuple[list[Event], LoggedGame]:
        """Write a new game's first events (with its `clock`, if any); raises core.RuleError
        for an unknown ruleset or invalid options.
        `client` (an address) is held to the limit on creating games, checked before the
        game is computed (bots may play it to its end): RateLimited when over it; and to its
        search budget when a search bot sits at the table (SearchBudgetSpent). ClientGone
        when `gone` returns while the game's searches wait their turn: nothing is written."""
        if self.limits.create is not None and client is not None:
            await self.buckets.limit([Limit(self.buckets.limit_key("create", client), self.limits.create)], "new games")
        searching = searches(players)
        async with self.budgets.search(client) as bill:
            if searching:
                await bill.open(sum(search_budgets(players, get_ruleset(ruleset).default_playouts).values()))
            events, logged = await self.searches.judge(
                searching,
                lambda: create_game(ruleset, game_id, players, seed=seed, options=options or {}, clock=clock),
                gone=gone,
            )
            bill.spent += _searched(logged, events)
        timing = await self._timed(None, logged, events)
        await self.store.append(  # which lists the game too, in the same step
            game_id,
            events,
            0,
            summary={**summary_of(logged), **timing, "listed": listing_member(game_id, created_ms)},
            tokens={seat: h for seat, h in token_hashes.items()},
            codec=logged.rules.codec,
        )
        await self._clocked(game_id, None, logged)
        self._remember(game_id, logged)
        return events, logged

    async def load(
        self, game_id: str, *, version: int | None = None, client: str | None = None, gone: Gone | None = None
    ) -> LoggedGame:
        """The game as its log makes it now, or right after event `version` (time travel:
        billed to `client`'s rebuild budget unless cached, RebuildBudgetSpent when it
        cannot pay; ClientGone when `gone` returns while a long rebuild waits its turn)."""
        if version is not None:
            return await self._travel(game_id, version, client, gone)
        cached = self._cache.get(game_id)
        if cached is None:
            events = await self.store.read_log(game_id)  # a finished game: its copy, one value
            if not events:
                raise UnknownGame(game_id)
            # A whole log of our own store: the core's batch (events.restore), or the checked
            # rebuild for what the batch does not take, which takes a search bot's moves as
            # logged (research=False): no search, so inline, never queued behind searches.
            logged = restore(events)
        else:
            newer = await self.store.read(game_id, cached.version)
            logged = advance(cached, newer, research=False) if newer else cached
        if logged is not cached and _has_deadlines(logged):
            logged, known = await self._read_deadline(game_id, logged)
            if not known:
                return logged  # not kept: the next load asks the summary row again
        self._remember(game_id, logged)
        return logged

    async def _read_deadline(self, game_id: str, logged: LoggedGame) -> tuple[LoggedGame, bool]:
        """`logged` with the deadline the store's summary row names for its version: read
        after the log, and the log again while the row is past it (another request's
        append in between); and whether the row named it (not when appends kept ahead of
        every read: its deadline is then None, unknown rather than none)."""
        for _ in range(DEADLINE_READS):
            if logged.over:
                return logged, True
            named = await self.store.deadline(game_id)
            if named is None or named[0] < logged.version:
                return logged, True  # a row written before clocks: no deadline is pending
            if named[0] == logged.version:
                logged.deadline_ms = named[1]
                return logged, True
            logged = advance(logged, await self.store.read(game_id, logged.version), research=False)
        return logged, False

    async def _travel(self, game_id: str, version: int, client: str | None, gone: Gone | None) -> LoggedGame:
        key = (game_id, version)
        then = self._travels.get(key)
        if then is not None:
            self._travels.move_to_end(key)
            return then
        async with self.budgets.rebuild(client) as bill:
            await bill.open(version)
            events = await self.store.read(game_id, 0, limit=version)
            if not events:
                raise UnknownGame(game_id)
            # Our own store's log: each search bot's move was judged when it was appended.
            then = await self.rebuilds.judge(len(events) > INLINE_REBUILD_EVENTS, _rebuilt, events, gone=gone)
            bill.spent = bill.charged
        if then.version == version:  # a log that has that event: what follows it never changes it
            self._travels[key] = then
            if len(self._travels) > self.cache_size:
                self._travels.popitem(last=False)
        return then

    async def check_log(
        self, events: Sequence[tuple[int, Event]], *, client: str | None = None, gone: Gone | None = None
    ) -> LoggedGame:
        """The game a log from outside makes, every event checked (events.replay.rebuild),
        its search bots' moves searched again: billed to `client`'s search budget (the
        playouts, events.replay.search_work) and rebuild budget (the events), refused
        before any work when either cannot pay. A long log, or one with searches, is
        checked in a worker thread; ClientGone when `gone` returns while it waits its turn."""
        work = search_work(events)
        async with self.budgets.search(client) as searched, self.budgets.rebuild(client) as rebuilt:
            await searched.open(work)
            await rebuilt.open(len(events))
            pool = self.searches if work else self.rebuilds
            logged = await pool.judge(bool(work) or len(events) > INLINE_REBUILD_EVENTS, rebuild, events, gone=gone)
            searched.spent, rebuilt.spent = searched.charged, rebuilt.charged
        return logged

    async def play(
        self,
        game_id: str,
        seat: int,
        *move: Any,
        expected_version: int | None = None,
        idempotency: Idempotency | None = None,
        answer: Answer | None = None,
        client: str | None = None,
        gone: Gone | None = None,
    ) -> tuple[Appended, LoggedGame]:
        """Record one move, given as the fields of the ruleset's move (Poison: card,
        cauldron; the pot game: card, close), and the bot moves that follow it. Raises core.RuleError when
        the rules refuse it, VersionConflict when `expected_version` is not current,
        IdempotencyKeyReused. `answer(after, first_version, events)` makes the caller's
        response before the append, so that it is recorded with the idempotency key and
        comes back in `Appended.result`; an idempotent retry returns the first attempt's
        Appended (with `replayed`) and appends nothing.

        A move takes a token from the rate limits of its seat and of its `client` (an
        address): in the append itself when it gets that far, else (a refusal) in a step of
        its own before the refusal is raised; RateLimited when one is empty. An idempotent
        retry takes none. The searches of the bots that answer it are billed to `client`
        (SearchBudgetSpent, before anything is judged, when its budget cannot pay; the move
        and its bots' replies are one step, so neither is appended); ClientGone when `gone`
        returns while they wait their turn."""
        limits = self._move_limits(game_id, seat, client)
        if idempotency is not None:
            earlier = await self.idempotency.recall(game_id, idempotency)
            if earlier is not None:
                return earlier, await self.load(game_id)
        async with self.budgets.search(client) as bill:
            try:
                return await self._play(game_id, seat, move, expected_version, idempotency, answer, limits, bill, gone)
            except (RuleError, VersionConflict):
                if limits:  # not taken by an append: a refused move counts as much as another
                    await self.buckets.limit(limits, "moves")
                raise

    def _move_limits(self, game_id: str, seat: int, client: str | None) -> list[Limit]:
        limits = []
        if self.limits.seat_move is not None:
            limits.append(self._bucket((game_id, seat), self.limits.seat_move))
        if self.limits.move is not None and client is not None:
            limits.append(self._bucket(client, self.limits.move))
        return limits

    def _bucket(self, whose: tuple[str, int] | str, rate: Rate) -> Limit:
        """The move bucket of a seat (game id, seat) or of a client address."""
        bucket = self._buckets.get(whose)
        if bucket is None:
            if isinstance(whose, tuple):
                key = self.buckets.seat_limit_key(*whose)
            else:
                key = self.buckets.limit_key("moves", whose)
            bucket = self._buckets[whose] = Limit(key, rate)
            if len(self._buckets) > 2 * self.cache_size:
                self._buckets.pop(next(iter(self._buckets)))
        return bucket

    async def _play(
        self,
        game_id: str,
        seat: int,
        move: tuple[Any, ...],
        expected_version: int | None,
        idempotency: Idempotency | None,
        answer: Answer | None,
        limits: list[Limit],
        bill: Bill,
        gone: Gone | None,
    ) -> tuple[Appended, LoggedGame]:
        """`play` after the idempotency check. `limits` is emptied once an append has taken
        their tokens (the first that reached the server: later attempts take none); `bill`
        is what its searches cost."""
        attempts = 0
        while True:
            # The first attempt may start from the cached state without asking the store
            # what is new: the append checks the version atomically, and a stale cache only
            # costs a conflict, after which the game is read afresh.
            cached = self._cache.get(game_id) if attempts == 0 else None
            attempts += 1
            if cached is None or (expected_version is not None and expected_version != cached.version):
                logged = await self.load(game_id)
            else:
                logged = cached
            if expected_version is not None and expected_version != logged.version:
                raise VersionConflict(expected_version, logged.version)
            try:
                events, after = await self._judged(bill, gone, logged, play_move, logged, seat, move)
            except RuleError:
                if logged is cached:
                    continue  # judged on a cache that may be behind: judge it on the log
                raise
            try:
                recorded = await self._record(
                    game_id, logged, events, after, answer, idempotency, limits, "moves", summary=moved_summary(after)
                )
            except VersionConflict:
                if attempts >= RACE_RETRIES or (expected_version is not None and logged is not cached):
                    raise  # the script's conflict names the version it found
                continue  # someone moved first (or the cache was behind): look again
            if not recorded[0].replayed:  # a raced retry of an idempotent move was counted once
                moves_of(logged.rules.name).inc()
            return recorded

    async def join(
        self,
        game_id: str,
        seat: int,
        name: str,
        *,
        token_hash: str,
        idempotency: Idempotency | None = None,
        answer: Answer | None = None,
        client: str | None = None,
        gone: Gone | None = None,
    ) -> tuple[Appended, LoggedGame]:
        """`name` takes open seat `seat`, whose token's hash is written in the same step;
        the last open seat taken starts the game (game_started, the first deal and the bot
        moves that follow, all in the same append). core.RuleError when the lobby refuses
        (`seat_taken`, `game_started`, `name_taken`); a race lost to another join is judged
        again on the new log, so of two joins of one seat exactly one succeeds. The bots'
        searches are billed to `client`, as a move's are."""
        return await self._lobby_step(
            game_id,
            lambda logged: join(logged, seat, name),
            {seat: token_hash},
            seat,
            idempotency,
            answer,
            client,
            gone=gone,
        )

    async def leave(
        self,
        game_id: str,
        seat: int,
        *,
        token_hash: str,
        idempotency: Idempotency | None = None,
        client: str | None = None,
    ) -> tuple[Appended, LoggedGame]:
        """The person at `seat`, whose token hashes to `token_hash`, leaves a waiting game:
        seat_left, and the seat's token hash overwritten in the same step (the token is
        refused from then on). SeatChanged when the seat's token is another by then: the
        hash is read after the log, and the append is at the log's version, so a leave and
        a new join in between are seen, and the new player is never the one who leaves."""
        return await self._lobby_step(
            game_id,
            lambda logged: leave(logged, seat),
            {seat: LEFT},
            seat,
            idempotency,
            None,
            client,
            holder=token_hash,
            bots_move=False,  # a waiting game: nothing is dealt, nobody moves
        )

    async def rematch(
        self,
        game_id: str,
        next_id: str,
        *,
        seat: int,
        seed: int,
        token_hashes: Callable[[Mapping[int, str]], Mapping[int, str]],
        created_ms: int,
        client: str | None = None,
        gone: Gone | None = None,
    ) -> tuple[str, LoggedGame]:
        """The next game of finished game `game_id`, created by the first call and found by
        every later one: its id (the finished game's rematch_created names it) and state.
        `next_id` must be the same for every call about one game (the service derives it
        from `game_id`): two racing first calls then write one game, whose creation at
        version 0 only one of them wins, and one rematch_created. `token_hashes(old)` gives
        the next game's token hashes from the finished game's, seat by seat. The bots'
        searches are billed to `client`, as a move's are."""
        if self.limits.seat_move is not None or (self.limits.move is not None and client is not None):
            await self.buckets.limit(self._move_limits(game_id, seat, client), "requests")
        async with self.budgets.search(client) as bill:
            return await self._rematch(game_id, next_id, seed, token_hashes, created_ms, bill, gone)

    async def _rematch(
        self,
        game_id: str,
        next_id: str,
        seed: int,
        token_hashes: Callable[[Mapping[int, str]], Mapping[int, str]],
        created_ms: int,
        bill: Bill,
        gone: Gone | None,
    ) -> tuple[str, LoggedGame]:
        for _ in range(LOBBY_RETRIES):
            finished = await self.load(game_id)
            if finished.next_game is not None:
                return finished.next_game, await self.load(finished.next_game)
            rematch_created(finished, next_id)  # refuses before anything is written
            if await self.store.archiving(game_id):
                # Its log takes no rematch_created. A next game made by a rematch that raced
                # the seal is still every seat's next game (its id is derived from this one).
                if await self.store.version(next_id) > 0:
                    return next_id, await self.load(next_id)
                raise GameArchived(game_id)
            if await self.store.version(next_id) == 0:
                events, logged = await self._judged(bill, gone, finished, rematch_game, finished, next_id, seed)
                timing = await self._timed(None, logged, events)
                # Another call may create it first: it is the same game (same id), and its
                # creation at version 0 is refused to every call but one.
                with contextlib.suppress(VersionConflict):
                    await self.store.append(
                        next_id,
                        events,
                        0,
                        summary={**summary_of(logged), **timing, "listed": listing_member(next_id, created_ms)},
                        tokens=token_hashes(await self.store.token_hashes(game_id)),
                        codec=logged.rules.codec,
                    )
                    await self._clocked(next_id, None, logged)
            events, after = rematch_created(finished, next_id)
            try:
                await self.store.append(
                    game_id, events, finished.version, summary=summary_of(after), codec=finished.rules.codec
                )
            except VersionConflict:
                continue  # someone else named it first: read again
            except GameArchived:
                continue  # sealed meanwhile: the next game, made above, is found as above
            self._remember(game_id, after)
            return next_id, await self.load(next_id)
        raise VersionConflict(0, await self.store.version(game_id))

    async def _lobby_step(
        self,
        game_id: str,
        step: Callable[[LoggedGame], tuple[list[Event], LoggedGame]],
        tokens: Mapping[int, str],
        seat: int,
        idempotency: Idempotency | None,
        answer: Answer | None,
        client: str | None,
        *,
        holder: str | None = None,
        gone: Gone | None = None,
        bots_move: bool = True,
    ) -> tuple[Appended, LoggedGame]:
        """Judge `step` on the game as its log is now and append its events with `tokens`,
        again on a newer log whenever another request appended first. Limits and searches
        as a move's; `bots_move` False for a step after which no bot ever moves (a leave, a
        return), which searches nothing and so is billed nothing. `holder`: the token hash
        `seat` must still have (read after the log, each time)."""
        if idempotency is not None:
            earlier = await self.idempotency.recall(game_id, idempotency)
            if earlier is not None:
                return earlier, await self.load(game_id)
        limits = self._move_limits(game_id, seat, client)
        async with self.budgets.search(client) as bill:
            return await self._lobby_steps(
                game_id, step, tokens, idempotency, answer, limits, holder, seat, bill if bots_move else None, gone
            )

    async def _lobby_steps(
        self,
        game_id: str,
        step: Callable[[LoggedGame], tuple[list[Event], LoggedGame]],
        tokens: Mapping[int, str],
        idempotency: Idempotency | None,
        answer: Answer | None,
        limits: list[Limit],
        holder: str | None,
        seat: int,
        bill: Bill | None,
        gone: Gone | None,
    ) -> tuple[Appended, LoggedGame]:
        conflict: VersionConflict | None = None
        for _ in range(LOBBY_RETRIES):
            logged = await self.load(game_id)
            if holder is not None and (await self.store.token_hashes(game_id)).get(seat) != holder:
                raise SeatChanged(f"this token is no longer seat {seat}'s: the seat was left")
            try:
                events, after = step(logged) if bill is None else await self._judged(bill, gone, logged, step, logged)
            except RuleError:
                if limits:  # not taken by an append: a refused request counts as much as another
                    await self.buckets.limit(limits, "requests")
                raise
            try:
                recorded = await self._record(
                    game_id, logged, events, after, answer, idempotency, limits, "requests", tokens=tokens
                )
            except VersionConflict as lost:
                conflict = lost
                continue
            self._tokens.pop(game_id, None)  # the seats' tokens changed with it
            return recorded
        assert conflict is not None
        raise conflict

    async def _judged(
        self,
        bill: Bill,
        gone: Gone | None,
        logged: LoggedGame,
        work: Callable[..., tuple[list[Event], LoggedGame]],
        *args: Any,
    ) -> tuple[list[Event], LoggedGame]:
        """`work(*args)` on game `logged`: in a search thread when a search bot sits at its
        table, its playouts billed (opened at one decision of each search bot, which is what
        a request's bots usually search, and settled at what they searched)."""
        players = logged.created.players
        if not searches(players):
            return work(*args)
        budgets = search_budgets(players)
        await bill.open(sum(budgets.values()))
        events, after = await self.searches.run(work, *args, gone=gone)
        bill.spent += playouts_searched(logged.rules, budgets, events)
        return events, after

    async def _record(
        self,
        game_id: str,
        logged: LoggedGame,
        events: list[Event],
        after: LoggedGame,
        answer: Answer | None,
        idempotency: Idempotency | None,
        limits: list[Limit],
        limited: str,
        *,
        tokens: Mapping[int, str] | None = None,
        summary: Mapping[str, str | int] | None = None,
    ) -> tuple[Appended, LoggedGame]:
        """Append `events` (judged on `logged`, leaving `after`) at `logged`'s version, with
        the caller's answer, its idempotency record, the summary (`after`'s whole unless
        given), `tokens` and `limits`, in one step. VersionConflict when another request
        appended first (the script took the limits' tokens before it checked the version,
        so `limits` is emptied). The deadline `after` makes is written with it (_timed)."""
        summary = summary_of(after) if summary is None else summary
        if _has_deadlines(after):  # (a game without a clock or open seats pays nothing here)
            summary = {**summary, **await self._timed(logged, after, events)}
        result = answer(after, logged.version + 1, events) if answer is not None else b""
        try:
            appended = await self.store.append(
                game_id,
                events,
                logged.version,
                idempotency=idempotency._replace(result=result) if idempotency else None,
                summary=summary,
                tokens=tokens,
                codec=logged.rules.codec,
                limits=tuple(limits),
                limited=limited,
            )
        except VersionConflict:
            limits.clear()
            raise
        if appended.replayed:  # a retry with the same key raced the first attempt
            return appended, await self.load(game_id)
        if after.deadline_ms is not None:
            await self._clocked(game_id, logged, after)
        self._remember(game_id, after)
        return Appended(appended.version, appended.count, result=result), after

    # -- the clocks (events/clocks.py) --

    async def _timed(self, before: LoggedGame | None, after: LoggedGame, events: list[Event]) -> dict[str, str]:
        """The summary's field of the deadline `after` makes (none for a game that never has
        one), set on `after`; a deadline sooner than `before`'s (or a first) is entered in the
        index first, so that no crash leaves the index later than the game (events/clocks.py)."""
        if not _has_deadlines(after):
            return {}
        if before is not None and before.deadline_ms is None and (before.waiting or before.clock is not None):
            await self._learn_deadline(before)
        deadline = self._deadline_of(before, after, events)
        after.deadline_ms = deadline
        if deadline is not None and _sooner(before, deadline) and self.deadlines is not None:
            await self.deadlines.enter(after.created.game_id, deadline)
        return {"deadline": "" if deadline is None else str(deadline)}

    async def _learn_deadline(self, before: LoggedGame) -> None:
        """`before`'s deadline from the summary row, when its load could not learn it (it
        lost every race with the row: load, DEADLINE_READS), so that a step which keeps the
        deadline (a join, a seat going away or coming back) keeps the real one rather than
        none (a waiting game never abandoned) or a new turn's (the seat to move given more
        time). A row past `before` names nothing of it: the append at its version is refused."""
        named = await self.store.deadline(before.created.game_id)
        if named is not None and named[0] == before.version:
            before.deadline_ms = named[1]  # (a load that did not learn it did not cache it)

    def _deadline_of(self, before: LoggedGame | None, after: LoggedGame, events: list[Event]) -> int | None:
        """When the clock of `after` runs out (ms): a waiting game's when it has waited as
        long as a game may; an active game's when its seat to move, a person's, has had
        its seconds per move since the move (or start) that gave it the turn. An append
        without a move (a seat going away or coming back) leaves the seat to move its time."""
        if after.over:
            return None
        if after.waiting:
            if before is None:
                return now_ms() + self.waiting_ms if self.waiting_ms > 0 else None
            return before.deadline_ms
        clock, turn = after.clock, after.game.turn
        if clock is None or turn is None or playing_bot(after, turn) is not None:
            return None
        moved = any(isinstance(event, after.rules.played_type | after.rules.deal_type) for event in events)
        kept = before is not None and not before.waiting and before.game.turn == turn
        if kept and not moved and before is not None and before.deadline_ms is not None:
            return before.deadline_ms
        return now_ms() + clock.seconds_per_move * 1000

    async def _clocked(self, game_id: str, before: LoggedGame | None, after: LoggedGame) -> None:
        """After an append: the index holds the deadline it made: a sooner one entered again
        (ENTER never raises an entry, so a late write of it cannot hide a sooner deadline an
        append after it made), a later one written (ZADD), a kept one left as it is.
        A failure here is only logged: the append has landed, and the entry it leaves is
        early, or a claim that runs out (events/clocks.py)."""
        deadline = after.deadline_ms
        if deadline is None or self.deadlines is None:
            return
        try:
            if _sooner(before, deadline):
                await self.deadlines.enter(game_id, deadline)
            elif before is not None and deadline != before.deadline_ms:
                await self.deadlines.set(game_id, deadline)
        except StoreUnavailable as error:
            log.warning("game %s's deadline is left early in the index: %s", game_id, error)

    async def expire(self, game_id: str, now: int | None = None) -> int | None:
        """A game the deadline index says is due: when its deadline has passed (at `now`,
        ms), what that causes is appended at the version the deadline was set for (the
        seat to move times out, its bot moving at once; a waiting game is abandoned).
        Its next deadline (ms), or None when none is pending. A move that lands first wins
        (the game is judged again on the new log); a second firing is a version conflict."""
        for _ in range(LOBBY_RETRIES):
            try:
                logged = await self.load(game_id)
            except UnknownGame:
                return None  # entered by a creation that never landed
            deadline = logged.deadline_ms
            if logged.over:
                return None
            if deadline is None:
                # A load that lost the race with appends to the row (DEADLINE_READS) knows none.
                return await self._row_deadline(game_id)
            if deadline > (now_ms() if now is None else now):
                return deadline
            step = abandon if logged.waiting else functools.partial(time_out, seat=logged.game.turn, bot=self.away_bot)
            try:
                async with self.budgets.search(None) as bill:
                    events, after = await self._judged(bill, None, logged, step, logged)
                    await self._record(game_id, logged, events, after, None, None, [], "requests")
            except VersionConflict:
                continue  # a move (or another worker's firing) landed first: judge it again
            except (RuleError, GameArchived):
                return None
            return after.deadline_ms
        # Every judgement lost its race: the row keeps the game's entry for the next claim
        # (a load, which may not learn the deadline, could drop a pending one).
        return await self._row_deadline(game_id)

    async def _row_deadline(self, game_id: str) -> int | None:
        """The deadline the game's summary row names (ms), the store's own word: None when
        none is pending, or the row names none."""
        named = await self.store.deadline(game_id)
        return None if named is None else named[1]

    def timekeeper(self) -> Timekeeper:
        """What fires this store's due deadlines, one per worker (events/clocks.py)."""
        if self.deadlines is None:
            raise ValueError("only a store in Redis keeps deadlines")
        soonest = CLOCK_BOUNDS[0] * 1000  # the shortest clock's seconds per move
        if self.waiting_ms > 0:
            soonest = min(soonest, self.waiting_ms)
        return Timekeeper(self.deadlines, self.expire, soonest_ms=soonest)

    async def resign(
        self,
        game_id: str,
        seat: int,
        *,
        idempotency: Idempotency | None = None,
        answer: Answer | None = None,
        client: str | None = None,
        gone: Gone | None = None,
    ) -> tuple[Appended, LoggedGame]:
        """The person of `seat` gives it up: the away bot plays it for the rest of the game
        (at once, if it is to move); the game is abandoned if no person is left.
        core.RuleError when the seat may not resign (events.away). Retries, limits and
        searches as a lobby step's."""
        return await self._lobby_step(
            game_id,
            lambda logged: resign(logged, seat, _bot_of(logged, seat, self.away_bot)),
            {},
            seat,
            idempotency,
            answer,
            client,
            gone=gone,
        )

    async def come_back(
        self,
        game_id: str,
        seat: int,
        *,
        idempotency: Idempotency | None = None,
        answer: Answer | None = None,
        client: str | None = None,
    ) -> tuple[Appended, LoggedGame]:
        """The person of `seat`, which timed out, plays it again; core.RuleError when it may
        not (it resigned, or is not away)."""
        # No bot moves after it: the seat to move is a person's (an away seat's bot plays at once).
        return await self._lobby_step(
            game_id, lambda logged: come_back(logged, seat), {}, seat, idempotency, answer, client, bots_move=False
        )

    async def rules_of(self, game_id: str) -> EventRules:
        """The ruleset of a game: it never changes, so a cached game answers without the store."""
        cached = self._cache.get(game_id)
        return (cached if cached is not None else await self.load(game_id)).rules

    async def token_hashes(self, game_id: str) -> dict[int, str]:
        """Seat -> token hash. A game's tokens never change once it has started (joins and
        leaves change them only while it waits), so a started game's are kept after the
        first read; a waiting game's are read afresh every time, since another process may
        have changed them."""
        hashes = self._tokens.get(game_id)
        if hashes is None:
            hashes = await self.store.token_hashes(game_id)
            cached = self._cache.get(game_id)
            if hashes and cached is not None and not cached.waiting:
                self._tokens[game_id] = hashes
                if len(self._tokens) > self.cache_size:
                    self._tokens.pop(next(iter(self._tokens)))
        return hashes

    # -- the store's parts, as the service reaches them (it never reaches them itself) --

    async def list_games(
        self, *, status: str | None = None, limit: int = 50, cursor: str | None = None
    ) -> tuple[list[GameSummary], str | None]:
        """Games newest first, a page at a time, and the cursor of the next page (or None);
        ValueError for a cursor this listing never gave."""
        return await self.listing.list_games(status=status, limit=limit, cursor=cursor)

    async def version(self, game_id: str) -> int:
        """The game's version as the store has it now (0: no such game)."""
        return await self.store.version(game_id)

    async def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[tuple[int, Event]]:
        """The game's events after version `after`, in order, at most `limit` of them."""
        return await self.store.read(game_id, after, limit)

    def follow(self, game_id: str, after: int) -> AsyncGenerator[list[tuple[int, Event]], None]:
        """The game's events after version `after`, batch by batch as they are appended."""
        return self.store.follow(game_id, after)

    async def recall(self, game_id: str, idempotency: Idempotency) -> Appended | None:
        """What the first request with this idempotency key appended, if there was one."""
        return await self.idempotency.recall(game_id, idempotency)

    async def remember(self, game_id: str, idempotency: Idempotency) -> Appended:
        """Keep the answer to a request that appended nothing (a refused move) under its
        idempotency key, for its retries (the caller's last `kept_refusals` of the game are
        kept); returns what the key holds afterwards."""
        return await self.idempotency.remember(game_id, idempotency, kept=self.kept_refusals)

    def archiver(self, *, after_ms: int) -> Archiver:
        """What moves finished games to the archive `after_ms` after they end."""
        return self.store.archiver(after_ms=after_ms)

    async def ping(self) -> None:
        """Raises StoreUnavailable unless the store answers."""
        await self.store.ping()

    def close(self) -> None:
        """Stop the worker threads (work under way finishes; none waiting starts)."""
        self.searches.close()
        self.rebuilds.close()

    def _remember(self, game_id: str, logged: LoggedGame) -> None:
        self._cache[game_id] = logged
        self._cache.move_to_end(game_id)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)


def _has_deadlines(logged: LoggedGame) -> bool:
    """A game whose summary names a deadline: a clocked one, or one created with open seats
    (which may wait only so long)."""
    return logged.lobby is not None or logged.clock is not None


def _sooner(before: LoggedGame | None, deadline: int) -> bool:
    """Whether `deadline` comes sooner than the one `before` had (a first one does)."""
    return before is None or before.deadline_ms is None or deadline < before.deadline_ms


def _bot_of(logged: LoggedGame, seat: int, default: str) -> str:
    """The bot that takes `seat` when its person resigns: the one that plays it already
    (it timed out), else the service's."""
    return playing_bot(logged, seat) or default


def _searched(logged: LoggedGame, events: list[Event]) -> int:
    """The playouts searched to decide `events`, the moves of `logged`'s table."""
    return playouts_searched(logged.rules, search_budgets(logged.created.players), events)


def _rebuilt(events: list[tuple[int, Event]]) -> LoggedGame:
    """A prefix of our own store's log rebuilt: each search bot's move was judged when it
    was appended, so it is taken as logged."""
    return rebuild(events, research=False)


__all__ = [
    "CURSOR",
    "KEPT_REFUSALS",
    "LEFT",
    "Appended",
    "ClientGone",
    "GameArchived",
    "GameSummary",
    "Games",
    "Gone",
    "Idempotency",
    "IdempotencyKeyReused",
    "InvalidLog",
    "Searches",
    "SeatChanged",
    "StoreUnavailable",
    "UnknownGame",
    "VersionConflict",
    "moved_summary",
    "summary_of",
]
