"""The interface of a ruleset's screen (service.commands.screens has one per ruleset)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from rich.console import RenderableType
from rich.markup import escape
from rich.table import Table

from core.rulesets import Ruleset
from events.codec import Event


class Screen(ABC):
    """One ruleset in the terminal. `game` arguments are the ruleset's engine Game; `names`
    are the seats' names, already escaped."""

    ruleset: Ruleset
    #: How a person types a move in `poison play` (after its number in the list).
    help: str
    #: A typed move or two, for `poison play --help`.
    example: str
    #: The title of the score sheet at the end of `poison play`.
    play_title: str

    # -- the score sheet and the state of a game --------------------------------------------

    @abstractmethod
    def sheet(self, game: Any, names: Sequence[str], title: str | None = None) -> Table:
        """The score sheet so far (round by round, pot by pot, ...) and the totals."""

    @abstractmethod
    def scored(self, game: Any) -> bool:
        """Whether anything has been scored yet (the sheet has a line)."""

    @abstractmethod
    def headline(self, created: Any, game: Any) -> str:
        """What a log's game_created says, in one line ("game g1: 4 players, ...")."""

    @abstractmethod
    def in_play(self, game: Any, names: Sequence[str]) -> list[RenderableType]:
        """Where an unfinished game stands, for the public (no hand is shown)."""

    @abstractmethod
    def position(self, game: Any, names: Sequence[str]) -> list[RenderableType]:
        """The table as the person to move sees it in `poison play`, before their hand."""

    # -- moves --------------------------------------------------------------------------------

    @abstractmethod
    def label(self, move: Any) -> str:
        """A legal move as the list of moves shows it."""

    @abstractmethod
    def typed(self, words: list[str]) -> tuple[Any, ...] | None:
        """The move the words name (not checked against the rules), or None if they name none."""

    @abstractmethod
    def narrate(self, events: Sequence[Event], names: Sequence[str]) -> list[str]:
        """What a move's events say, line by line; the events are as seat 0 may see them."""

    # -- the same for every ruleset -------------------------------------------------------

    @property
    def best(self) -> str:
        return "lowest" if self.ruleset.lowest_wins else "highest"

    def winning_total(self, game: Any) -> int:
        return int(game.totals[game.winners[0]])

    def parse_move(self, text: str, legal: Sequence[Any]) -> tuple[Any, ...] | str:
        """The move the person typed, or what is wrong with it."""
        words = text.split()
        if len(words) == 1 and words[0].isdigit():
            number = int(words[0])
            if 1 <= number <= len(legal):
                return tuple(legal[number - 1])
            return f"there is no move {number}: choose 1 to {len(legal)}"
        move = self.typed(words)
        if move is None:
            return f"'{escape(text)}' is not a move: {self.help}"
        return move

    def ending(self, game: Any, names: Sequence[str]) -> list[str]:
        """The last lines of `poison play`, after the score sheet."""
        winners = [names[seat] for seat in game.winners]
        return [
            f"winner{'s' if len(winners) > 1 else ''}: {', '.join(winners)} "
            f"({self.best} total {self.winning_total(game)})"
        ]


def player_names(created: Any) -> list[str]:
    """Each seat's name from a game_created event, escaped, with its bot in brackets."""
    return [escape(player.name + (f" [{player.bot}]" if player.bot else "")) for player in created.players]
