"""The pot game in the terminal: the pot-by-pot sheet, the pot against its limit, moves like
'T3' or 'T3 close'."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from core.rulesets import POT
from events.codec import Event
from events.pot.schema import CardsDrawn, PotCardPlayed, PotClosed, PotExploded, PotGameCreated, PotStarted
from service.commands import literal
from service.commands.screens.base import Name, Players, Screen, as_text, follows, seats_table
from service.schemas import PotGameView, PotScores

LIMIT: int = POT.engine.EXPLODE_LIMIT  # a pot whose toxicity exceeds this explodes
CLOSE_WORDS = (["close"], ["c"])
CARD_SHAPE = re.compile(r"^[A-Za-z]\d+$")
#: A card's colour by its toxicity (the number in its code): mild green to deadly red.
TOXICITY_STYLES = ("green", "green", "yellow", "yellow", "dark_orange", "dark_orange", "red")


def cards(shown: Sequence[str]) -> str:
    return " ".join(shown) or "(empty)"


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


class PotScreen(Screen):
    ruleset = POT
    help = "a move is its number in the list, or a card like 'T3', with 'close' after it to close the pot; 'q' quits"
    example = "a card, 'T3', or a card that closes the pot, 'T3 close'"
    play_title = "The game, pot by pot"

    # -- replay -------------------------------------------------------------------------------

    def sheet(self, game: Any, names: Sequence[str], title: str | None = None) -> Table:
        return self._sheet(game.results(), game.totals, names, title)

    def scored(self, game: Any) -> bool:
        return bool(game.results())

    def headline(self, created: PotGameCreated, game: Any) -> str:
        return f"game {literal(created.game_id)}: the pot game, {game.players} players, seed {created.seed}"

    def in_play(self, game: Any, names: Sequence[str]) -> list[RenderableType]:
        if game.status == "dealing":
            return ["in play: the cards are not dealt yet"]
        hands = ", ".join(f"{name} {size}" for name, size in zip(names, game.hand_sizes, strict=True))
        line = (
            f"pot: {cards(game.pot)}, toxicity {game.toxicity} of {LIMIT}; draw pile: {plural(game.draw_pile, 'card')}"
        )
        return [
            f"in play: seat {game.turn} to move",
            f"  {line}{self._endgame(game.endgame)}",
            f"  cards in hand: {hands}",
        ]

    # -- play -----------------------------------------------------------------------------------

    def card_style(self, card: str) -> str:
        toxicity = card[1:]
        return TOXICITY_STYLES[int(toxicity)] if toxicity.isdigit() and int(toxicity) < len(TOXICITY_STYLES) else ""

    def board(self, view: PotGameView, players: Players) -> list[RenderableType]:
        pot = Text.assemble(
            "pot: ",
            self.cards(view.pot.cards),
            f", toxicity {view.pot.toxicity} of {LIMIT}; draw pile: {plural(view.draw_pile, 'card')}",
            self._endgame(view.endgame),
        )
        seats = seats_table(("seat", "player", "in hand", "total"))
        for player in view.players:
            seats.add_row(
                str(player.seat), players.name(player.seat), str(player.hand_size), str(view.totals[player.seat])
            )
        return [pot, seats]

    def score_sheet(self, scores: PotScores, players: Players, title: str | None = None) -> Table:
        return self._sheet(scores.pots, scores.totals, [players.name(s) for s in range(len(players))], title)

    def label(self, move: Sequence[Any]) -> Text:
        card, close = move
        return Text.assemble(self.card(card), " close" if close else "")

    def typed(self, words: list[str], view: PotGameView) -> tuple[str, bool] | None:
        # Anything shaped like a card is checked against the card codes, then the rules.
        if words and CARD_SHAPE.match(words[0]) and (len(words) == 1 or words[1:] in CLOSE_WORDS):
            return (words[0].upper(), len(words) == 2)
        return None

    def move_fields(self, move: Sequence[Any]) -> dict[str, Any]:
        card, close = move
        return {"card": card, "close": close}

    def create_body(self, players: list[dict[str, Any]], seed: int | None, options: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {"ruleset": self.ruleset.name, "players": players}
        if seed is not None:
            body["seed"] = seed
        return body

    def narrate(self, events: Sequence[Event], players: Players, view: PotGameView) -> list[RenderableType]:
        lines: list[RenderableType] = []
        closing_asked = False
        for event in events:
            if isinstance(event, PotCardPlayed):
                closing_asked = event.close
                lines.append(
                    Text.assemble(
                        players.does(event.seat, "play"),
                        " ",
                        self.card(event.card),
                        Text.assemble(" and ", "close" if event.seat == players.you else "closes", " the pot")
                        if event.close
                        else "",
                        f": toxicity {event.toxicity}",
                    )
                )
            elif isinstance(event, PotExploded):
                follows(
                    lines, Text.assemble(("the pot explodes!", "bold"), " ", self.cards(event.cards), " are discarded")
                )
            elif isinstance(event, PotClosed) and closing_asked:
                closing_asked = False
                scored = Text.assemble(
                    players.does(event.seat, "score"), f" {event.points:+d} for ", self.cards(event.cards)
                )
                follows(lines, scored)
            elif isinstance(event, PotClosed):
                lines.append(
                    Text.assemble(
                        ("the last card is in:", "bold"),
                        " the pot ",
                        self.cards(event.cards),
                        f" (toxicity {event.toxicity}) is closed for ",
                        players.name(event.seat),
                        f", {event.points:+d}",
                    )
                )
            elif isinstance(event, PotStarted):
                lines.append(Text.assemble("  a new pot starts with ", self.card(event.card), " from the draw pile"))
            elif isinstance(event, CardsDrawn):
                drawn = Text(plural(event.count, "card")) if event.cards is None else self.cards(event.cards)
                lines.append(Text.assemble("  ", players.does(event.seat, "draw"), " ", drawn))
        return lines

    # -- shared by replay and play ----------------------------------------------------------------

    @staticmethod
    def _endgame(endgame: bool) -> str:
        return " (endgame: no more closing, no more drawing)" if endgame else ""

    def _sheet(self, pots: Sequence[Any], totals: Sequence[int], names: Sequence[Name], title: str | None) -> Table:
        """`pots` are the engine's pot results or the API's pot lines: both have `seat`,
        `outcome`, `cards`, `toxicity` and `points`."""
        shown = [as_text(name) for name in names]
        table = Table(title=title or "Pot by pot", title_justify="left")
        table.add_column("pot", justify="right")
        table.add_column("seat", justify="right")
        table.add_column("player")
        table.add_column("outcome")
        table.add_column("cards")
        table.add_column("toxicity", justify="right")
        table.add_column("points", justify="right")
        for number, pot in enumerate(pots, start=1):
            table.add_row(
                str(number),
                str(pot.seat),
                shown[pot.seat],
                pot.outcome,
                self.cards(pot.cards, empty=""),
                str(pot.toxicity),
                f"{pot.points:+d}" if pot.outcome == "closed" else "0",
                end_section=number == len(pots),
            )
        for seat, total in enumerate(totals):
            table.add_row("total" if seat == 0 else "", str(seat), shown[seat], "", "", "", str(total))
        return table
