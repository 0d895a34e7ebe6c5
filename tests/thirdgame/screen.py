"""What the terminal shows of high card: its Screen, the terminal's facet of the game (SCREEN).
Plain words, not the catalogues': a test's game has no translations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from events.codec import Event
from service.commands.screens.base import Name, Players, Screen, seats_table
from tests.thirdgame.events import HighCardPlayed
from tests.thirdgame.ruleset import HIGH_CARD
from tests.thirdgame.service import HighCardMoveOut


class HighCardScreen(Screen):
    ruleset = HIGH_CARD
    move_type = HighCardMoveOut

    @property
    def help(self) -> str:
        return "type a card of your hand (H07)"

    @property
    def example(self) -> str:
        return "H07"

    @property
    def play_title(self) -> str:
        return "High card"

    def sheet_of(self, lines: Sequence[Any], totals: Sequence[int], names: Sequence[Name], title: str | None) -> Table:
        table = seats_table(["seat", "total"], title)  # the totals alone: a card played scores at once
        for seat, total in enumerate(totals):
            table.add_row(names[seat], str(total))
        return table

    def headline(self, created: Any, game: Any) -> str:
        return f"high card, {game.players} players"

    def in_play(self, game: Any, names: Sequence[str]) -> list[RenderableType]:
        return [Text(" ".join(card for _, card in game.results()))]

    def card_style(self, card: str) -> str:
        return "bold"

    def board(self, view: Any, players: Players) -> list[RenderableType]:
        return [Text(" ".join(view.played))]

    def score_lines(self, scores: Any) -> Sequence[Any]:
        return ()

    def label(self, move: Sequence[Any]) -> Text:
        return Text(str(move[0]))

    def typed(self, parts: list[str], view: Any) -> tuple[Any, ...] | str | None:
        return (parts[0].upper(),) if len(parts) == 1 else None

    def narrate(self, events: Sequence[Event], players: Players, view: Any) -> list[RenderableType]:
        return [
            Text(f"{players.who(event.seat)}: {event.card}") for event in events if isinstance(event, HighCardPlayed)
        ]


SCREEN = HighCardScreen()
