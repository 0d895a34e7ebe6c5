"""The lobby in the terminal, the same for every ruleset: the games waiting for players (the
table `poison play --list` prints), the seats of a waiting game, and what the lobby's events
say while it waits (who joins, who leaves, the start). Names come from outside: they are
built into rich Text, shown as they are, never read as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.table import Table
from rich.text import Text

from core.rulesets import RULESETS
from events.codec import Event, GameStarted, RematchCreated, SeatJoined, SeatLeft
from service.commands import visible
from service.commands.screens.base import YOU, said, seats_table, strength
from service.i18n import isolated, words

#: How an open seat is shown where a name would be.
OPEN = "(open)"


def is_open(player: Any) -> bool:
    """A seat of a view or a listing that nobody has taken yet (the API shows no name)."""
    return getattr(player, "open", False) is True or getattr(player, "name", player) is None


def seat_names(players: Sequence[Any], you: int | None = None) -> list[str]:
    """Each seat as the waiting room shows it: its name, "you", or open."""
    return [
        YOU if seat == you else OPEN if is_open(player) else visible(player.name) for seat, player in enumerate(players)
    ]


def waiting_games(games: Sequence[Any]) -> Table:
    """`poison play --list`: each waiting game's id, game, seats taken and open, and names."""
    columns = ("#", *(words()(f"cli.column.{column}") for column in ("game_id", "game", "seats", "players")))
    table = seats_table(columns, title=words()("cli.lobby.title"))
    table.columns[0].justify = "right"
    for number, entry in enumerate(games, 1):
        names = list(entry.players)
        open_seats = sum(name is None for name in names)
        name = getattr(entry, "ruleset", None) or "poison"
        ruleset = RULESETS.get(name)  # a newer server may list a game this client does not know
        table.add_row(
            words().number(number),
            Text(visible(entry.game_id)),
            words()(f"{name}.title") if ruleset is not None else Text(visible(name)),
            words()("cli.lobby.seats", taken=len(names) - open_seats, open=open_seats),
            Text(words()("cli.comma")).join(Text(shown_name(name)) for name in names),
        )
    return table


def room(players: Sequence[Any], you: int) -> Text:
    """Who sits where while the game waits: "seat 0 you, seat 1 (open), seat 2 ada (greedy),
    seat 3 mcts bot 3 (2,000 playouts)"."""
    parts = []
    for seat, (player, name) in enumerate(zip(players, seat_names(players, you), strict=True)):
        shown = Text(words()("cli.you"), style="bold") if seat == you else Text(shown_name(name))
        parts.append(said("cli.lobby.seat", seat=seat, name=shown, by=played_by(player, name)))
    return Text(words()("cli.comma")).join(parts)


def shown_name(name: str | None) -> str:
    """A seat's name as the lobby shows it: isolated in its own direction, or "(open)"."""
    return words()("cli.replay.open") if name is None or name == OPEN else isolated(name)


def played_by(player: Any, name: str) -> str:
    """What plays a seat, said once after its name: " (greedy)", " (mcts, 2,000 playouts)",
    or only the strength when the name says the bot already ("mcts bot 2 (2,000 playouts)",
    never "greedy bot 2 (greedy)"); "" for a person."""
    bot = getattr(player, "bot", None)
    said = [bot] if bot and bot not in name.split() else []
    shown = strength(player)
    said += [] if shown is None else [shown]
    return f" ({', '.join(said)})" if said else ""


def told(event: Event, names: Sequence[str]) -> Text | None:
    """What a lobby event says, or None for any other event. `names`: each seat's name
    before the event (an open seat's is OPEN)."""
    if isinstance(event, SeatJoined):
        return Text(words()("cli.lobby.joins", name=isolated(visible(event.name)), seat=event.seat))
    if isinstance(event, SeatLeft):
        known = names[event.seat] not in (OPEN, YOU)
        who = isolated(names[event.seat]) if known else words()("cli.lobby.the_player", seat=event.seat)
        return Text(words()("cli.lobby.leaves", name=who, seat=event.seat))
    if isinstance(event, GameStarted):
        return Text(words()("cli.lobby.starts"))
    if isinstance(event, RematchCreated):
        return Text(words()("cli.lobby.rematch", game=visible(event.game_id)))
    return None
