"""Idempotency records: what a request sent with a client's idempotency key answered the
first time, kept 25 hours among its game's keys, so that a retry gets the same answer and
a different request under the same key is refused. The append script checks and writes
them in its own step (events/recorder.py's APPEND; the records' types are events/records.py's);
a request that appended nothing (a refused move) is remembered here, and a retry is recalled
here before it is validated.

A refusal costs the client nothing but a fresh key, so refusals are kept per caller (its
scope) at most `kept` at once: the script that remembers one forgets the caller's oldest
beyond that, in the same step. Appended requests need no bound: a game's log bounds them.
"""

from __future__ import annotations

import hashlib

from events.calls import Script, StoreCalls, counted
from events.limits import KEPT_REFUSALS
from events.records import Appended, Idempotency, reused

IDEMPOTENCY_TTL = 25 * 3600  # the contract promises at least 24 h

REMEMBER = """
-- KEYS: idempotency record, stream, the caller's refusals (their records' names, oldest first)
-- ARGV: fingerprint, result, ttl, how many refusals are kept, the caller's records' prefix, this one's name
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'f', ARGV[1], 'r', ARGV[2], 'v', redis.call('XLEN', KEYS[2]), 'n', 0)
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
  redis.call('RPUSH', KEYS[3], ARGV[6])
  redis.call('EXPIRE', KEYS[3], tonumber(ARGV[3]))
  -- The oldest beyond the bound are forgotten (their records share the game's slot).
  for _ = 1, redis.call('LLEN', KEYS[3]) - tonumber(ARGV[4]) do
    redis.call('DEL', ARGV[5] .. redis.call('LPOP', KEYS[3]))
  end
  return {ARGV[1], ARGV[2], redis.call('HGET', KEYS[1], 'v'), 0}
end
return redis.call('HMGET', KEYS[1], 'f', 'r', 'v', 'n')
"""
REMEMBER_SCRIPT = Script.of(REMEMBER)


def idempotency_record(idempotency: Idempotency | None, *, scoped: bool = True) -> str:
    """The name of an idempotency key's record among its game's keys."""
    return records_of(idempotency, scoped=scoped) + key_digest(idempotency)


def records_of(idempotency: Idempotency | None, *, scoped: bool = True) -> str:
    """What the names of a caller's records begin with (among its game's keys)."""
    # Records written before keys had a scope have none in their name (`scoped=False`).
    scope = f"{idempotency.scope}:" if idempotency and idempotency.scope and scoped else ""
    return f"idempotency:{scope}"


def key_digest(idempotency: Idempotency | None) -> str:
    # The client's key is hashed: any string is safe in a key name and of fixed length.
    return hashlib.sha256(idempotency.key.encode()).hexdigest() if idempotency else "none"


class IdempotencyRecords(StoreCalls):
    """Recalling and remembering the answers kept under idempotency keys."""

    def _idempotency_key(self, game_id: str, idempotency: Idempotency | None, *, scoped: bool = True) -> str:
        return self.prefix(game_id) + idempotency_record(idempotency, scoped=scoped)

    @counted
    async def recall(self, game_id: str, idempotency: Idempotency) -> Appended | None:
        """What the first request with this idempotency key appended, if there was one.
        Checked before a retried move is validated: the move it repeats is no longer legal.

        A scoped key whose caller has no record yet may have one from before keys had a
        scope (kept 25 h): that record answers only the very same request (its fingerprint
        names the seat and the move), so it can never decide another caller's."""
        key = self._idempotency_key(game_id, idempotency)
        fingerprint, result, version, count = await self.execute("HMGET", key, "f", "r", "v", "n", repeatable=True)
        if fingerprint is None and idempotency.scope and idempotency.unscoped:
            legacy = self._idempotency_key(game_id, idempotency, scoped=False)
            found = await self.execute("HMGET", legacy, "f", "r", "v", "n", repeatable=True)
            if found[0] is not None and found[0].decode() == idempotency.fingerprint:
                fingerprint, result, version, count = found
        if fingerprint is None:
            return None
        if fingerprint.decode() != idempotency.fingerprint:
            raise reused(idempotency)
        return Appended(int(version), int(count), replayed=True, result=result)

    @counted
    async def remember(self, game_id: str, idempotency: Idempotency, *, kept: int = KEPT_REFUSALS) -> Appended:
        """Record, under an idempotency key not used yet, the answer to a request that
        appended nothing (a refused move), so that its retry gets that same answer; the
        caller's refusals beyond the last `kept` are forgotten in the same step. Returns
        what the key holds afterwards: this answer, or an earlier one."""
        key = self._idempotency_key(game_id, idempotency)
        prefix = self.prefix(game_id) + records_of(idempotency)
        # What the key holds is the script's answer, not a read after it: a burst of the
        # caller's refusals may have forgotten this one by then.
        fingerprint, result, version, count = await self.script(
            REMEMBER_SCRIPT,
            [key, self.key(game_id, "events"), self.key(game_id, f"refused:{idempotency.scope}")],
            [idempotency.fingerprint, idempotency.result, IDEMPOTENCY_TTL, kept, prefix, key_digest(idempotency)],
            repeatable=True,  # it writes only where nothing was written yet
        )
        if fingerprint.decode() != idempotency.fingerprint:
            raise reused(idempotency)
        return Appended(int(version), int(count), replayed=True, result=result)
