"""Poison in the terminal: the round-by-round sheet, the cauldrons, moves like 'R5 0'."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import RenderableType
from rich.markup import escape
from rich.table import Table

from core import Game, Move
from core.rulesets import POISON
from events.codec import Event
from events.schema import CardPlayed, CauldronOverflowed, GameCreated, RoundScored
from service.commands.screens.base import Screen


class PoisonScreen(Screen):
    ruleset = POISON
    help = "a move is its number in the list, or a card and a cauldron like 'R5 0'; 'q' quits"
    example = "a card and a cauldron, 'R5 0'"
    play_title = "The game, round by round"

    def sheet(self, game: Game, names: Sequence[str], title: str | None = None) -> Table:
        table = Table(title=title or "Round by round", title_justify="left")
        table.add_column("round", justify="right")
        table.add_column("seat", justify="right")
        table.add_column("player")
        for column in ("red", "blue", "purple", "poison"):
            table.add_column(column, justify="right")
        table.add_column("discards")
        table.add_column("score", justify="right")
        for result in game.round_results():
            for seat, pile in enumerate(result.taken):
                table.add_row(
                    str(result.round) if seat == 0 else "",
                    str(seat),
                    names[seat] + (" (dealer)" if seat == result.dealer else ""),
                    *(str(count) for count in pile),
                    ", ".join(result.discarded[seat]) or "-",
                    str(result.scores[seat]),
                    end_section=seat == len(result.taken) - 1,
                )
        for seat, total in enumerate(game.totals):
            table.add_row("total" if seat == 0 else "", str(seat), names[seat], "", "", "", "", "", str(total))
        return table

    def scored(self, game: Game) -> bool:
        return bool(game.round_results())

    def headline(self, created: GameCreated, game: Game) -> str:
        return (
            f"game {escape(created.game_id)}: {game.players} players, {game.rounds} rounds, "
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

    def position(self, game: Game, names: Sequence[str]) -> list[RenderableType]:
        lines: list[RenderableType] = [f"\nround {game.round} of {game.rounds}, dealer {names[game.dealer]}"]
        for index, cauldron in enumerate(game.cauldrons):
            lines.append(
                f"  cauldron {index}: {cauldron.colour or 'colourless':<10} total {cauldron.total:>2}  "
                f"{' '.join(cauldron.cards) or '(empty)'}"
            )
        seats = Table(show_edge=False, box=None, padding=(0, 2))
        for column in ("seat", "player", "cards in hand", "cards taken (face down)"):
            seats.add_column(column)
        for seat, name in enumerate(names):
            seats.add_row(str(seat), name, str(game.hand_sizes[seat]), str(game.pile_sizes[seat]))
        lines.append(seats)
        return lines

    def label(self, move: Move) -> str:
        return f"{move.card}→{move.cauldron}"

    def typed(self, words: list[str]) -> tuple[str, int] | None:
        if len(words) == 2 and words[1].isdigit():
            return Move(words[0].upper(), int(words[1]))
        return None

    def narrate(self, events: Sequence[Event], names: Sequence[str]) -> list[str]:
        lines: list[str] = []
        for event in events:
            if isinstance(event, CardPlayed):
                lines.append(
                    f"{names[event.seat]} plays {event.card} into cauldron {event.cauldron}: total {event.total}"
                )
            elif isinstance(event, CauldronOverflowed):
                lines[-1] += f" — overflow! {names[event.seat]} takes {' '.join(event.taken)}"
            elif isinstance(event, RoundScored):
                scores = ", ".join(f"{names[seat]} {score}" for seat, score in enumerate(event.scores))
                lines.append(f"[bold]round {event.round} scored:[/bold] {scores}")
        return lines
