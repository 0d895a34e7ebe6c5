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
from events.schema import CardPlayed, CauldronOverflowed, GameCreated, RoundScored, RoundStarted
from service.commands import literal
from service.commands.screens.base import Name, Players, Screen, as_text, follows, seats_table
from service.schemas import GameView, Scores

#: The colours of the cauldrons and of the potions, as the score sheet counts them (the
#: fields of a taken pile), then poison.
COLOURS = ("red", "blue", "purple")
PILES = (*COLOURS, "poison")
#: Each suit's colour on the screen, by the first letter of its cards (R5, B2, P4, G4).
SUIT_STYLES = {"R": "red", "B": "blue", "P": "magenta", "G": "green"}
STYLES = {"red": "red", "blue": "blue", "purple": "magenta", "poison": "green"}


class PoisonScreen(Screen):
    ruleset = POISON
    help = "a move is its number in the list, or a card and a cauldron like 'R5 0'; 'q' quits"
    example = "a card and a cauldron, 'R5 0'"
    play_title = "The game, round by round"

    # -- replay -------------------------------------------------------------------------------

    def sheet(self, game: Game, names: Sequence[str], title: str | None = None) -> Table:
        return self._sheet(game.results(), game.totals, names, title)

    def scored(self, game: Game) -> bool:
        return bool(game.results())

    def headline(self, created: GameCreated, game: Game) -> str:
        return (
            f"game {literal(created.game_id)}: {game.players} players, "
            f"{game.rounds} round{'' if game.rounds == 1 else 's'}, "
            f"{created.rules.cauldrons} cauldrons, seed {created.seed}"
        )

    def in_play(self, game: Game, names: Sequence[str]) -> list[RenderableType]:
        lines: list[RenderableType] = [f"in play: round {game.round} of {game.rounds}, seat {game.turn} to move"]
        for index, cauldron in enumerate(game.cauldrons):
            lines.append(
                f"  cauldron {index}: {cauldron.colour or 'colourless'}, total {cauldron.total}: "
                f"{' '.join(cauldron.cards) or 'empty'}"
            )
        return lines

    # -- play -----------------------------------------------------------------------------------

    def card_style(self, card: str) -> str:
        return SUIT_STYLES.get(card[:1], "")

    def board(self, view: GameView, players: Players) -> list[RenderableType]:
        lines: list[RenderableType] = [
            Text.assemble(f"round {view.round} of {view.rounds}, dealt by ", players.name(view.dealer))
        ]
        for index, cauldron in enumerate(view.cauldrons):
            colour = cauldron.color or "colourless"
            lines.append(
                Text.assemble(
                    f"  cauldron {index}: ",
                    (f"{colour:<10}", STYLES.get(colour, "")),
                    f" total {cauldron.total:>2}  ",
                    self.cards(cauldron.cards),
                )
            )
        seats = seats_table(("seat", "player", "in hand", "taken (face down)", "total"))
        for player in view.players:
            seats.add_row(
                str(player.seat),
                players.name(player.seat),
                str(player.hand_size),
                str(player.taken),
                str(view.totals[player.seat]),
            )
        lines.append(seats)
        return lines

    def score_sheet(self, scores: Scores, players: Players, title: str | None = None) -> Table:
        return self._sheet(scores.rounds, scores.totals, [players.name(s) for s in range(len(players))], title)

    def label(self, move: Sequence[Any]) -> Text:
        card, cauldron = move
        return Text.assemble(self.card(card), f"→{cauldron}")

    def typed(self, words: list[str], view: GameView) -> tuple[str, int] | str | None:
        if len(words) == 2 and words[1].isdecimal():  # isdigit() takes "²", int() not
            card, cauldron = words[0].upper(), int(words[1])
            if cauldron >= len(view.cauldrons):
                return f"there is no cauldron {cauldron}: they are {', '.join(map(str, range(len(view.cauldrons))))}"
            return (card, cauldron)
        return None

    def move_fields(self, move: Sequence[Any]) -> dict[str, Any]:
        card, cauldron = move
        return {"card": card, "cauldron": cauldron}

    def create_body(self, players: list[dict[str, Any]], seed: int | None, options: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {"ruleset": self.ruleset.name, "players": players}
        if seed is not None:
            body["seed"] = seed
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
                    Text.assemble(
                        players.does(event.seat, "play"),
                        " ",
                        self.card(event.card),
                        f" into cauldron {event.cauldron}: {self._sum(event, caused)}",
                    )
                )
            elif isinstance(event, CauldronOverflowed):
                count = len(event.taken)
                overflow = Text.assemble(
                    "overflow! ",
                    players.does(event.seat, "take"),
                    f" {count} card{'s' if count != 1 else ''}: ",
                    self.cards(event.taken),
                )
                follows(lines, overflow)
            elif isinstance(event, RoundStarted) and event.round > 1:
                lines.append(Text.assemble(f"round {event.round} is dealt by ", players.name(event.dealer)))
            elif isinstance(event, RoundScored):
                lines.append(self._round_table(event, players, view))
        return lines

    def _sum(self, played: CardPlayed, caused: Event | None) -> str:
        """The cauldron's total once the card is in; for a card that overflows, the sum
        that went over the limit ("12 + 2 = 14 > 13"), since the total left once its cards
        are taken (the played card's own value) reads as if that had overflowed."""
        if not isinstance(caused, CauldronOverflowed) or caused.cauldron != played.cauldron:
            return f"total {played.total}"
        # An overflow takes every card but the one played, so they are the sum before it.
        before, value = sum(map(value_of, caused.taken)), value_of(played.card)
        return f"{before} + {value} = {before + value} > {OVERFLOW_LIMIT}"

    # -- shared by replay and play ----------------------------------------------------------------

    def _round_table(self, scored: RoundScored, players: Players, view: GameView) -> Table:
        """A round just scored: what each seat took, the colours it discarded for taking
        the most of them, its score and its running total."""
        totals = [sum(scores) for scores in zip(*view.scores[: scored.round], strict=True)]
        table = seats_table(("player", *PILES, "discarded", "score", "total"), title=f"round {scored.round} scored")
        for pile, column in zip(PILES, table.columns[1:], strict=False):
            column.justify, column.style = "right", STYLES[pile]
        for column in table.columns[-2:]:
            column.justify = "right"
        for seat, taken in enumerate(scored.taken):
            table.add_row(
                players.name(seat),
                *(str(getattr(taken, pile)) for pile in PILES),
                self._colours(scored.discarded[seat]),
                str(scored.scores[seat]),
                str(totals[seat]),
            )
        return table

    def _colours(self, colours: Sequence[str]) -> Text:
        return Text(", ").join(Text(colour, style=STYLES[colour]) for colour in colours) if colours else Text("-")

    def _sheet(self, rounds: Sequence[Any], totals: Sequence[int], names: Sequence[Name], title: str | None) -> Table:
        """`rounds` are the engine's round results or the API's rounds: both have `round`,
        `dealer`, `taken` (a count per pile), `discarded` and `scores`."""
        shown = [as_text(name) for name in names]
        table = Table(title=title or "Round by round", title_justify="left")
        table.add_column("round", justify="right")
        table.add_column("seat", justify="right")
        table.add_column("player")
        for pile in PILES:
            table.add_column(pile, justify="right", style=STYLES[pile])
        table.add_column("discarded")
        table.add_column("score", justify="right")
        for result in rounds:
            for seat, taken in enumerate(result.taken):
                table.add_row(
                    str(result.round) if seat == 0 else "",
                    str(seat),
                    Text.assemble(shown[seat], " (dealer)" if seat == result.dealer else ""),
                    *(str(getattr(taken, pile)) for pile in PILES),
                    self._colours(result.discarded[seat]),
                    str(result.scores[seat]),
                    end_section=seat == len(result.taken) - 1,
                )
        for seat, total in enumerate(totals):
            table.add_row("total" if seat == 0 else "", str(seat), shown[seat], "", "", "", "", "", str(total))
        return table
