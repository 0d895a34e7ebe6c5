"""The pot game in the terminal: the pot-by-pot sheet, the pot against its limit, moves like
'T3' or 'T3 close'."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rich.console import RenderableType
from rich.markup import escape
from rich.table import Table

from core.results import PotMove
from core.rulesets import POT
from events.codec import Event
from events.pot.schema import CardsDrawn, PotCardPlayed, PotClosed, PotExploded, PotGameCreated, PotStarted
from service.commands.screens.base import Screen

LIMIT: int = POT.engine.EXPLODE_LIMIT  # a pot whose toxicity exceeds this explodes
CLOSE_WORDS = (["close"], ["c"])
CARD_SHAPE = re.compile(r"^[A-Za-z]\d+$")


def cards(shown: Sequence[str]) -> str:
    return " ".join(shown) or "(empty)"


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


class PotScreen(Screen):
    ruleset = POT
    help = "a move is its number in the list, or a card like 'T3', with 'close' after it to close the pot; 'q' quits"
    example = "a card, 'T3', or a card that closes the pot, 'T3 close'"
    play_title = "The game, pot by pot"

    def sheet(self, game: Any, names: Sequence[str], title: str | None = None) -> Table:
        table = Table(title=title or "Pot by pot", title_justify="left")
        table.add_column("pot", justify="right")
        table.add_column("seat", justify="right")
        table.add_column("player")
        table.add_column("outcome")
        table.add_column("cards")
        table.add_column("toxicity", justify="right")
        table.add_column("points", justify="right")
        results = game.pot_results()
        for number, result in enumerate(results, start=1):
            table.add_row(
                str(number),
                str(result.seat),
                names[result.seat],
                result.outcome,
                " ".join(result.cards),
                str(result.toxicity),
                f"{result.points:+d}" if result.outcome == "closed" else "0",
                end_section=number == len(results),
            )
        for seat, total in enumerate(game.totals):
            table.add_row("total" if seat == 0 else "", str(seat), names[seat], "", "", "", str(total))
        return table

    def scored(self, game: Any) -> bool:
        return bool(game.pot_results())

    def headline(self, created: PotGameCreated, game: Any) -> str:
        return f"game {escape(created.game_id)}: the pot game, {game.players} players, seed {created.seed}"

    def pot_line(self, game: Any) -> str:
        line = (
            f"pot: {cards(game.pot)}, toxicity {game.toxicity} of {LIMIT}; draw pile: {plural(game.draw_pile, 'card')}"
        )
        if game.endgame:
            line += " (endgame: no more closing, no more drawing)"
        return line

    def in_play(self, game: Any, names: Sequence[str]) -> list[RenderableType]:
        if game.status == "dealing":
            return ["in play: the cards are not dealt yet"]
        hands = ", ".join(f"{name} {size}" for name, size in zip(names, game.hand_sizes, strict=True))
        return [f"in play: seat {game.turn} to move", f"  {self.pot_line(game)}", f"  cards in hand: {hands}"]

    def position(self, game: Any, names: Sequence[str]) -> list[RenderableType]:
        seats = Table(show_edge=False, box=None, padding=(0, 2))
        for column in ("seat", "player", "cards in hand", "total"):
            seats.add_column(column)
        for seat, name in enumerate(names):
            seats.add_row(str(seat), name, str(game.hand_sizes[seat]), str(game.totals[seat]))
        return [f"\n{self.pot_line(game)}", seats]

    def label(self, move: PotMove) -> str:
        return f"{move.card} close" if move.close else move.card

    def typed(self, words: list[str]) -> tuple[str, bool] | None:
        # Anything shaped like a card goes to the rules, which name the codes if it is none.
        if words and CARD_SHAPE.match(words[0]) and (len(words) == 1 or words[1:] in CLOSE_WORDS):
            return PotMove(words[0].upper(), len(words) == 2)
        return None

    def narrate(self, events: Sequence[Event], names: Sequence[str]) -> list[str]:
        lines: list[str] = []
        closing_asked = False
        for event in events:
            if isinstance(event, PotCardPlayed):
                closing_asked = event.close
                lines.append(
                    f"{names[event.seat]} plays {event.card}{' and closes the pot' if event.close else ''}: "
                    f"toxicity {event.toxicity}"
                )
            elif isinstance(event, PotExploded):
                lines[-1] += f" — [bold]the pot explodes![/bold] {' '.join(event.cards)} are discarded"
            elif isinstance(event, PotClosed) and closing_asked:
                closing_asked = False
                lines[-1] += f" — {names[event.seat]} scores {event.points:+d} for {' '.join(event.cards)}"
            elif isinstance(event, PotClosed):
                lines.append(
                    f"[bold]the last card is in:[/bold] the pot {' '.join(event.cards)} (toxicity {event.toxicity}) "
                    f"is closed for {names[event.seat]}, {event.points:+d}"
                )
            elif isinstance(event, PotStarted):
                lines.append(f"  a new pot starts with {event.card} from the draw pile")
            elif isinstance(event, CardsDrawn):
                drawn = plural(event.count, "card") if event.cards is None else " ".join(event.cards)
                lines.append(f"  {names[event.seat]} draws {drawn}")
        return lines

    def ending(self, game: Any, names: Sequence[str]) -> list[str]:
        totals = ", ".join(f"{name} {total}" for name, total in zip(names, game.totals, strict=True))
        return [f"final totals: {totals}", *super().ending(game, names)]
