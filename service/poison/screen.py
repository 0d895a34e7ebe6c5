"""Poison in the terminal: the round-by-round sheet, the cauldrons, moves like 'R5 0'."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from core import Game
from core.poison.reference import OVERFLOW_LIMIT, value_of
from core.rulesets import POISON
from events.codec import Event
from events.poison.schema import CardPlayed, CauldronOverflowed, GameCreated, RoundScored, RoundStarted
from service.commands import literal
from service.commands.screens.base import Name, Players, Screen, as_text, follows, said, seats_table
from service.i18n import words
from service.poison.schemas import GameView, MoveOut, Scores

#: The colours of the cauldrons and of the potions, as the score sheet counts them (the
#: fields of a taken pile), then poison.
COLOURS = ("red", "blue", "purple")
PILES = (*COLOURS, "poison")
#: Each suit's colour on the screen, by the first letter of its cards (R5, B2, P4, G4).
SUIT_STYLES = {"R": "red", "B": "blue", "P": "magenta", "G": "green"}
STYLES = {"red": "red", "blue": "blue", "purple": "magenta", "poison": "green"}


class PoisonScreen(Screen):
    ruleset = POISON
    move_type = MoveOut

    # -- replay -------------------------------------------------------------------------------

    def headline(self, created: GameCreated, game: Game) -> str:
        return words()(
            "cli.poison.headline",
            game=literal(created.game_id),
            players=game.players,
            rounds=game.rounds,
            cauldrons=created.rules.cauldrons,
            seed=str(created.seed),
        )

    def in_play(self, game: Game, names: Sequence[str]) -> list[RenderableType]:
        lines: list[RenderableType] = [
            words()("cli.poison.in_play", round=game.round, rounds=game.rounds, seat=game.turn)
        ]
        for index, cauldron in enumerate(game.cauldrons):
            lines.append(
                words()(
                    "cli.poison.cauldron_in_play",
                    number=index,
                    colour=self.colour(cauldron.colour),
                    total=cauldron.total,
                    cards=" ".join(cauldron.cards) or words()("cli.poison.empty"),
                )
            )
        return lines

    # -- play -----------------------------------------------------------------------------------

    def card_style(self, card: str) -> str:
        return SUIT_STYLES.get(card[:1], "")

    def board(self, view: GameView, players: Players) -> list[RenderableType]:
        number = words().number
        lines: list[RenderableType] = [
            said("cli.poison.round", round=view.round, rounds=view.rounds, dealer=players.name(view.dealer))
        ]
        # Colours padded to the longest, so the totals stand in a column in every language.
        named = {colour: self.colour(colour) for colour in (*COLOURS, None)}
        width = max(len(name) for name in named.values())
        for index, cauldron in enumerate(view.cauldrons):
            colour = named[cauldron.color]
            lines.append(
                said(
                    "cli.poison.cauldron",
                    number=index,
                    colour=Text(colour.ljust(width), style=STYLES.get(cauldron.color or "", "")),
                    total=number(cauldron.total).rjust(2),
                    cards=self.cards(cauldron.cards),
                )
            )
        lines.append(self.seats(view, players, "taken"))
        return lines

    def score_lines(self, scores: Scores) -> Sequence[Any]:
        return scores.rounds

    def label(self, move: Sequence[Any]) -> Text:
        card, cauldron = move
        return Text.assemble(self.card(card), f"→{words().number(cauldron)}")

    def typed(self, parts: list[str], view: GameView) -> tuple[str, int] | str | None:
        if len(parts) == 2 and parts[1].isdecimal():  # isdigit() takes "²", int() not
            card, cauldron = parts[0].upper(), int(parts[1])
            if cauldron >= len(view.cauldrons):
                return words()(
                    "cli.poison.no_cauldron",
                    number=cauldron,
                    numbers=words()("cli.comma").join(map(words().number, range(len(view.cauldrons)))),
                )
            return (card, cauldron)
        return None

    def options_body(self, options: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {}
        if options.get("rounds") is not None:
            body["rounds"] = options["rounds"]
        if options.get("cauldrons") is not None:
            body["rules"] = {"cauldrons": options["cauldrons"]}
        return body

    def narrate(self, events: Sequence[Event], players: Players, view: GameView) -> list[RenderableType]:
        lines: list[RenderableType] = []
        for event, caused in zip(events, (*events[1:], None), strict=True):
            if isinstance(event, CardPlayed):
                lines.append(
                    players.did(
                        "cli.poison.plays",
                        event.seat,
                        card=self.card(event.card),
                        cauldron=event.cauldron,
                        sum=self._sum(event, caused),
                    )
                )
            elif isinstance(event, CauldronOverflowed):
                overflow = players.did(
                    "cli.poison.overflow", event.seat, count=len(event.taken), cards=self.cards(event.taken)
                )
                follows(lines, overflow)
            elif isinstance(event, RoundStarted) and event.round > 1:
                lines.append(said("cli.poison.dealt", round=event.round, dealer=players.name(event.dealer)))
            elif isinstance(event, RoundScored):
                lines.append(self._round_table(event, players, view))
        return lines

    def _sum(self, played: CardPlayed, caused: Event | None) -> str:
        """The cauldron's total once the card is in; for a card that overflows, the sum
        that went over the limit ("12 + 2 = 14 > 13"), since the total left once its cards
        are taken (the played card's own value) reads as if that had overflowed."""
        if not isinstance(caused, CauldronOverflowed) or caused.cauldron != played.cauldron:
            return words()("cli.poison.total", total=played.total)
        # An overflow takes every card but the one played, so they are the sum before it.
        before, value = sum(map(value_of, caused.taken)), value_of(played.card)
        return words()("cli.poison.over", before=before, value=value, sum=before + value, limit=OVERFLOW_LIMIT)

    @staticmethod
    def colour(colour: str | None) -> str:
        """A cauldron's or a pile's colour in the reader's words (None: colourless)."""
        return words()(f"cli.colour.{colour or 'none'}")

    # -- shared by replay and play ----------------------------------------------------------------

    def _round_table(self, scored: RoundScored, players: Players, view: GameView) -> Table:
        """A round just scored: what each seat took, the colours it discarded for taking
        the most of them, its score and its running total."""
        totals = [sum(scores) for scores in zip(*view.scores[: scored.round], strict=True)]
        number = words().number
        columns = (
            words()("cli.column.player"),
            *map(self.colour, PILES),
            *self._columns("discarded", "score", "total"),
        )
        table = seats_table(columns, title=words()("cli.poison.scored", round=scored.round))
        for pile, column in zip(PILES, table.columns[1:], strict=False):
            column.justify, column.style = "right", STYLES[pile]
        for column in table.columns[-2:]:
            column.justify = "right"
        for seat, taken in enumerate(scored.taken):
            table.add_row(
                players.cell(seat),
                *(number(getattr(taken, pile)) for pile in PILES),
                self._colours(scored.discarded[seat]),
                number(scored.scores[seat]),
                number(totals[seat]),
            )
        return table

    def _colours(self, colours: Sequence[str]) -> Text:
        return (
            Text(words()("cli.comma")).join(Text(self.colour(colour), style=STYLES[colour]) for colour in colours)
            if colours
            else Text("-")
        )

    def sheet_of(self, rounds: Sequence[Any], totals: Sequence[int], names: Sequence[Name], title: str | None) -> Table:
        """`rounds` are the engine's round results or the API's rounds: both have `round`,
        `dealer`, `taken` (a count per pile), `discarded` and `scores`."""
        shown = [as_text(name) for name in names]
        number = words().number
        round_column, seat_column, player_column, discarded, score, total_row = self._columns(
            "round", "seat", "player", "discarded", "score", "total"
        )
        table = Table(title=title or words()("cli.poison.sheet"), title_justify="left")
        table.add_column(round_column, justify="right")
        table.add_column(seat_column, justify="right")
        table.add_column(player_column)
        for pile in PILES:
            table.add_column(self.colour(pile), justify="right", style=STYLES[pile])
        table.add_column(discarded)
        table.add_column(score, justify="right")
        for result in rounds:
            for seat, taken in enumerate(result.taken):
                table.add_row(
                    number(result.round) if seat == 0 else "",
                    number(seat),
                    said("cli.dealer", name=shown[seat]) if seat == result.dealer else shown[seat],
                    *(number(getattr(taken, pile)) for pile in PILES),
                    self._colours(result.discarded[seat]),
                    number(result.scores[seat]),
                    end_section=seat == len(result.taken) - 1,
                )
        for seat, total in enumerate(totals):
            table.add_row(total_row if seat == 0 else "", number(seat), shown[seat], "", "", "", "", "", number(total))
        return table


#: Poison's screen, where core.rulesets.FACETS says the terminal finds it.
SCREEN = PoisonScreen()
