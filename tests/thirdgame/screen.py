"""What the terminal shows of high card: its Screen, the terminal's facet of the game (SCREEN).
Plain words, not the catalogues': a test's game has no translations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from events.codec import Event
from service.commands.screens.base import Players, Screen, seats_table
from tests.thirdgame.events import HighCardPlayed
from tests.thirdgame.ruleset import HIGH_CARD


class HighCardScreen(Screen):
    ruleset = HIGH_CARD

    @property
    def help(self) -> str:
        return "type a card of your hand (H07)"

    @property
    def example(self) -> str:
        return "H07"

    @property
    def play_title(self) -> str:
        return "High card"

    def sheet(self, game: Any, names: Sequence[str], title: str | None = None) -> Table:
        table = seats_table(["seat", "total"], title)
        for seat, total in enumerate(game.totals):
            table.add_row(names[seat], str(total))
        return table

    def scored(self, game: Any) -> bool:
        return bool(game.results())

    def headline(self, created: Any, game: Any) -> str:
        return f"high card, {game.players} players"

    def in_play(self, game: Any, names: Sequence[str]) -> list[RenderableType]:
        return [Text(" ".join(card for _, card in game.results()))]

    def card_style(self, card: str) -> str:
        return "bold"

    def board(self, view: Any, players: Players) -> list[RenderableType]:
        return [Text(" ".join(view.played))]

    def score_sheet(self, scores: Any, players: Players, title: str | None = None) -> Table:
        table = seats_table(["seat", "total"], title)
        for seat, total in enumerate(scores.totals):
            table.add_row(players.name(seat), str(total))
        return table

    def label(self, move: Sequence[Any]) -> Text:
        return Text(str(move[0]))

    def typed(self, parts: list[str], view: Any) -> tuple[Any, ...] | str | None:
        return (parts[0].upper(),) if len(parts) == 1 else None

    def move_fields(self, move: Sequence[Any]) -> dict[str, Any]:
        return {"card": move[0]}

    def create_body(self, players: list[dict[str, Any]], seed: int | None, options: dict[str, Any]) -> dict[str, Any]:
        return {"ruleset": HIGH_CARD.name, "players": players, **({"seed": seed} if seed is not None else {})}

    def narrate(self, events: Sequence[Event], players: Players, view: Any) -> list[RenderableType]:
        return [
            Text(f"{players.who(event.seat)}: {event.card}") for event in events if isinstance(event, HighCardPlayed)
        ]


SCREEN = HighCardScreen()
