"""Terminal tables shared by the commands (rich): round-by-round scores of a game."""

from __future__ import annotations

from rich.table import Table

from core import Game


def round_table(game: Game, names: list[str], title: str = "Round by round") -> Table:
    table = Table(title=title, title_justify="left")
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
