"""Seat tokens as the store keeps them: each seat's token hashed (the store never sees a
raw token), in one hash among its game's keys, written by the append that creates the
game or seats a player (events/recorder.py's APPEND) and read here."""

from __future__ import annotations

from events.calls import StoreCalls, counted


class SeatTokens(StoreCalls):
    @counted
    async def token_hashes(self, game_id: str) -> dict[int, str]:
        """Seat -> hash of its token (the store never sees a raw token)."""
        flat = await self._execute("HGETALL", self._key(game_id, "tokens"), repeatable=True)
        return {int(seat): digest.decode() for seat, digest in zip(flat[::2], flat[1::2], strict=True)}
