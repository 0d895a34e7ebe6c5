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
from service.commands.screens.base import Name, Players, Screen, as_text, follows, said
from service.i18n import isolated, words
from service.pot.schemas import PotGameView, PotMoveOut, PotScores

LIMIT: int = POT.engine.EXPLODE_LIMIT  # a pot whose toxicity exceeds this explodes
CLOSE_WORDS = (["close"], ["c"])
CARD_SHAPE = re.compile(r"^[A-Za-z]\d+$")
#: A card's colour by its toxicity (the number in its code): mild green to deadly red.
TOXICITY_STYLES = ("green", "green", "yellow", "yellow", "dark_orange", "dark_orange", "red")


def cards(shown: Sequence[str]) -> str:
    return " ".join(shown) or words()("cli.empty")


def signed(points: int) -> str:
    """Points with their sign, "+4", "+0", "-2", in the reader's digits."""
    return ("+" if points >= 0 else "-") + words().number(abs(points))


def counted(count: int) -> str:
    """ "1 card", "3 cards" in the reader's words."""
    return words()("cli.pot.cards", count=count)


class PotScreen(Screen):
    ruleset = POT
    move_type = PotMoveOut

    # -- replay -------------------------------------------------------------------------------

    def headline(self, created: PotGameCreated, game: Any) -> str:
        return words()("cli.pot.headline", game=literal(created.game_id), players=game.players, seed=str(created.seed))

    def in_play(self, game: Any, names: Sequence[str]) -> list[RenderableType]:
        if game.status == "dealing":
            return [words()("cli.pot.not_dealt")]
        hands = words()("cli.comma").join(
            words()("cli.total.of", name=isolated(name), total=size)
            for name, size in zip(names, game.hand_sizes, strict=True)
        )
        line = words()(
            "cli.pot.pot",
            cards=cards(game.pot),
            toxicity=game.toxicity,
            limit=LIMIT,
            pile=counted(game.draw_pile),
            endgame=self._endgame(game.endgame),
        )
        return [
            words()("cli.pot.in_play", seat=game.turn),
            f"  {line}",
            words()("cli.pot.hands", hands=hands),
        ]

    # -- play -----------------------------------------------------------------------------------

    def card_style(self, card: str) -> str:
        toxicity = card[1:]
        return TOXICITY_STYLES[int(toxicity)] if toxicity.isdigit() and int(toxicity) < len(TOXICITY_STYLES) else ""

    def board(self, view: PotGameView, players: Players) -> list[RenderableType]:
        pot = said(
            "cli.pot.pot",
            cards=self.cards(view.pot.cards),
            toxicity=view.pot.toxicity,
            limit=LIMIT,
            pile=counted(view.draw_pile),
            endgame=self._endgame(view.endgame),
        )
        return [pot, self.seats(view, players)]

    def score_lines(self, scores: PotScores) -> Sequence[Any]:
        return scores.pots

    def label(self, move: Sequence[Any]) -> Text:
        card, close = move
        return said("cli.pot.label", card=self.card(card), close=str(bool(close)).lower())

    def typed(self, parts: list[str], view: PotGameView) -> tuple[str, bool] | None:
        # Anything shaped like a card is checked against the card codes, then the rules.
        if parts and CARD_SHAPE.match(parts[0]) and (len(parts) == 1 or parts[1:] in CLOSE_WORDS):
            return (parts[0].upper(), len(parts) == 2)
        return None

    def narrate(self, events: Sequence[Event], players: Players, view: PotGameView) -> list[RenderableType]:
        lines: list[RenderableType] = []
        closing_asked = False
        for event in events:
            if isinstance(event, PotCardPlayed):
                closing_asked = event.close
                lines.append(
                    players.did(
                        "cli.pot.plays",
                        event.seat,
                        card=self.card(event.card),
                        close=str(bool(event.close)).lower(),
                        toxicity=event.toxicity,
                    )
                )
            elif isinstance(event, PotExploded):
                follows(
                    lines,
                    said(
                        "cli.pot.explodes",
                        explodes=Text(words()("cli.pot.explodes_word"), style="bold"),
                        cards=self.cards(event.cards),
                    ),
                )
            elif isinstance(event, PotClosed) and closing_asked:
                closing_asked = False
                scored = players.did(
                    "cli.pot.scores",
                    event.seat,
                    points=signed(event.points),
                    cards=self.cards(event.cards),
                )
                follows(lines, scored)
            elif isinstance(event, PotClosed):
                lines.append(
                    said(
                        "cli.pot.last_card",
                        last=Text(words()("cli.pot.last_card_word"), style="bold"),
                        cards=self.cards(event.cards),
                        toxicity=event.toxicity,
                        name=players.name(event.seat),
                        points=signed(event.points),
                    )
                )
            elif isinstance(event, PotStarted):
                lines.append(said("cli.pot.started", card=self.card(event.card)))
            elif isinstance(event, CardsDrawn):
                drawn = Text(counted(event.count)) if event.cards is None else self.cards(event.cards)
                lines.append(players.did("cli.pot.draws", event.seat, cards=drawn))
        return lines

    # -- shared by replay and play ----------------------------------------------------------------

    @staticmethod
    def _endgame(endgame: bool) -> str:
        return words()("cli.pot.endgame") if endgame else ""

    def sheet_of(self, pots: Sequence[Any], totals: Sequence[int], names: Sequence[Name], title: str | None) -> Table:
        """`pots` are the engine's pot results or the API's pot lines: both have `seat`,
        `outcome`, `cards`, `toxicity` and `points`."""
        shown = [as_text(name) for name in names]
        number = words().number
        pot_column, seat_column, player_column, outcome, cards_column, toxicity, points, total_row = self._columns(
            "pot", "seat", "player", "outcome", "cards", "toxicity", "points", "total"
        )
        table = Table(title=title or words()("cli.pot.sheet"), title_justify="left")
        table.add_column(pot_column, justify="right")
        table.add_column(seat_column, justify="right")
        table.add_column(player_column)
        table.add_column(outcome)
        table.add_column(cards_column)
        table.add_column(toxicity, justify="right")
        table.add_column(points, justify="right")
        for count, pot in enumerate(pots, start=1):
            table.add_row(
                number(count),
                number(pot.seat),
                shown[pot.seat],
                words()("cli.pot.outcome", outcome=pot.outcome),
                Text(" ").join(self.card(card) for card in pot.cards),
                number(pot.toxicity),
                signed(pot.points) if pot.outcome == "closed" else number(0),
                end_section=count == len(pots),
            )
        for seat, total in enumerate(totals):
            table.add_row(total_row if seat == 0 else "", number(seat), shown[seat], "", "", "", number(total))
        return table


#: The pot game's screen (core.rulesets.FACETS).
SCREEN = PotScreen()
