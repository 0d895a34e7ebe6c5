"""One seat's game, wherever it is played: what `poison play` draws and plays through.

A seat is the person's place at a game, seen exactly as the HTTP API shows it to that
seat's token: its GameView (with `you`), its score sheet and its events, redacted for it.
`poison play` has two: a game played here in memory (service.commands.play.LocalSeat, the
service's own code run in-process) and a game on a server (service.commands.remote). The
terminal's loop and the screens know only this interface, so a game looks and reads the
same wherever it is played.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from rich.text import Text

from events.away import ABANDONED, SEAT_AWAY
from events.codec import Event
from service.commands.screens.base import Players
from service.i18n import SOURCE, catalogue, words

#: Refusals that mean the seat's view is behind the game (another client moved): it must
#: catch up before it tries again.
#: An away seat or an abandoned game: the game went on without the person's move.
STALE = frozenset({"version_conflict", "not_your_turn", "game_finished", ABANDONED, SEAT_AWAY})


class Refused(Exception):
    """A move the game did not take, said to the person in one line; they may try again.
    `stale`: the game had moved on, so the seat must catch up first."""

    def __init__(self, message: str, *, stale: bool = False) -> None:
        super().__init__(message)
        self.stale = stale


def refusal(code: str, message: str, move: Sequence[Any]) -> Refused:
    """The rules' refusal of the person's move, in the second person: the rules speak of
    seats ("seat 2 holds no P1"), the person is "you"."""
    if code == "card_not_in_hand":
        message = f"you hold no {move[0]}"
    language = words()
    if language.code != SOURCE and f"problem.{code}" in catalogue(language.code):
        # Said from the stable code, as the table says it (the rules' own words are English).
        message = language(f"problem.{code}")
    return Refused(message, stale=code in STALE)


class Seat(Protocol):
    """The person's seat at a game, here or on a server."""

    #: The person's seat number.
    you: int

    @property
    def players(self) -> Players:
        """Every seat's name as the person sees them (theirs is "you")."""

    @property
    def view(self) -> Any:
        """The game now, as the API's GameView for this seat (with `you`)."""

    def opening(self) -> list[Event]:
        """What the story starts with: the person's last move and what followed it (the
        whole game so far, in a new game)."""

    def play(self, move: tuple[Any, ...]) -> list[Event]:
        """Play the move; its events and those of the bots that answered it. Raises
        Refused when it is not taken."""

    def wait(self) -> Iterable[list[Event]]:
        """The other seats' moves as they happen, a move's events together, until it is the
        person's turn or the game's end."""

    def resign(self) -> list[Event]:
        """Give the seat up to a bot for the rest of the game: the events it caused. Raises
        Refused when the game does not take it."""

    def return_to_seat(self) -> list[Event]:
        """Play the seat again after its clock ran out: the events since the seat's view, the
        return among them. Raises Refused when the game does not take it."""

    def catch_up(self) -> list[Event]:
        """The events the seat has not seen, once a refusal said the game moved on."""

    def scores(self) -> Any:
        """The API's score sheet of the game (GET /scores)."""

    def where(self) -> Text:
        """Where the game is, for the headline ("; seed 8", "; game X at URL")."""

    def come_back(self) -> str | None:
        """How to take the seat again after leaving it, if the game outlives the command."""

    def play_again(self) -> str | None:
        """How to play the next game with the same players, once this one is over (on a
        server: the rematch), if there is a way."""
