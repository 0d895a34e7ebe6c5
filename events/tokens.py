"""Seat tokens as the store keeps them: each seat's token hashed (the store never sees a
raw token), in the `tokens` row beside its game's log, written by the append that creates
the game or seats a player (the recorder's append, events/records.py) and read here, from
any recorder."""

from __future__ import annotations

from events.calls import counted
from events.records import Recorder


class SeatTokens:
    """Reading the seats' token hashes of a game, from its recorder's `tokens` row."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    @counted
    async def token_hashes(self, game_id: str) -> dict[int, str]:
        """Seat -> hash of its token (the store never sees a raw token)."""
        row = await self.recorder.row(game_id, "tokens")
        return {int(seat): digest.decode() for seat, digest in row.items()}
