"""`poison play --server URL`: one seat of a game on a server, over the public HTTP API.

Without --game, a new game is created there (POST /v1/games: the person at their seat, bots
in the others) and played with the token its creation returns; with --game and --token,
the person takes that token's seat of a game that exists. Everything is read through
service.client, as any integrator's client reads it: the seat's GameView, its events (the
log up to now, then the live stream while other seats move) and the score sheet. Each move
is sent with the version it was chosen at (`expected_version`) and an Idempotency-Key, the
same for each retry of it, so a retried request never plays twice.

A refused move is said in one line and the person tries again; a bad token or an unknown
game ends the command with status 2, a server that cannot be reached with status 1, and
either says how to take the seat again.
"""

from __future__ import annotations

import argparse
import secrets
from collections.abc import Iterator
from contextlib import closing
from typing import Any

from rich.console import Console
from rich.text import Text

from events.codec import Event, MalformedEvent
from events.rulesets import rules_for
from service.client import ApiProblem, Client, ClientError, Unreachable
from service.commands import CommandError, fail
from service.commands.play import Terminal, new_game
from service.commands.screens import Players, Screen, screen_for
from service.commands.screens.seat import refusal
from service.schemas import EventOut


class RemoteSeat:
    """The seat a token names in a game on a server."""

    def __init__(self, client: Client, game_id: str, token: str, *, seed: int | None = None) -> None:
        self.client = client
        self.game_id = game_id
        self.token = token
        self.seed = seed
        view = client.game(game_id, token)
        if not view.you:
            raise ApiProblem(401, "unauthorized", "the token names no seat of this game")
        self.view: Any = view
        self.you: int = view.you.seat
        ruleset = str(type(view).__struct_config__.tag)  # the view's `ruleset`, its tag
        self.screen: Screen = screen_for(ruleset)
        self.rules = rules_for(ruleset)
        self.players = Players.of([player.name for player in self.view.players], self.you)
        # One key per move chosen at a version: retrying it (after a 503) can never play twice.
        self._keys: dict[tuple[int, tuple[Any, ...]], str] = {}

    @classmethod
    def create(cls, client: Client, args: argparse.Namespace) -> RemoteSeat:
        ruleset, options, bots, you = new_game(args)
        others = iter(bots)
        players: list[dict[str, Any]] = []
        for seat in range(args.players):
            bot = None if seat == you else next(others)
            players.append({"name": "you"} if bot is None else {"name": f"{bot} bot {seat}", "bot": bot})
        created = client.create_game(screen_for(ruleset.name).create_body(players, args.seed, options))
        token = created.players[you].token
        if not isinstance(token, str):
            raise Unreachable(f"{client.base_url} created a game without a token for seat {you}")
        return cls(client, created.game_id, token, seed=args.seed)

    def _event(self, public: EventOut) -> Event:
        try:
            return self.rules.codec.decode_data(public.type, public.data)
        except MalformedEvent as error:
            raise Unreachable(
                f"{self.client.base_url} sent event {public.version}, which is no event: {error}"
            ) from None

    def _since(self, after: int) -> list[Event]:
        """The events after `after` up to the game's present, and the view brought there."""
        events = self.client.events(self.game_id, self.token, after=after)
        self.view = self.client.game(self.game_id, self.token)
        # Another seat may have moved between the two reads: read on until they agree.
        while (events[-1].version if events else after) < self.view.version:
            events += self.client.events(self.game_id, self.token, after=events[-1].version if events else after)
            self.view = self.client.game(self.game_id, self.token)
        return [self._event(event) for event in events]

    def opening(self) -> list[Event]:
        events = self._since(0)
        # The story starts with the person's last move (everything, if they have not moved).
        mine = [i for i, event in enumerate(events) if isinstance(event, self.rules.played_type)]
        last = max((i for i in mine if getattr(events[i], "seat", None) == self.you), default=0)
        return events[last:]

    def play(self, move: tuple[Any, ...]) -> list[Event]:
        version = self.view.version
        key = self._keys.setdefault((version, move), secrets.token_urlsafe(16))
        try:
            played = self.client.move(
                self.game_id, self.token, self.screen.move_fields(move), expected_version=version, key=key
            )
        except ApiProblem as problem:
            if problem.status in (401, 404):
                raise
            raise refusal(problem.code, problem.detail, move) from None
        self.view = played.game
        return [self._event(event) for event in played.events]

    def wait(self) -> Iterator[list[Event]]:
        # The stream gives one event at a time; they are told a move at a time (an overflow
        # belongs to its card). A move's events are appended at once, so the view read after
        # the first of them ends where they end, or later: the events up to it are whole moves.
        batch: list[Event] = []
        with closing(self.client.follow(self.game_id, self.token, after=self.view.version)) as stream:
            for public in stream:
                if public.version > self.view.version:
                    self.view = self.client.game(self.game_id, self.token)
                batch.append(self._event(public))
                if public.version >= self.view.version:
                    yield batch
                    batch = []
                    if self.view.status == "finished" or self.view.turn == self.you:
                        return

    def catch_up(self) -> list[Event]:
        return self._since(self.view.version)

    def scores(self) -> Any:
        return self.client.scores(self.game_id)

    def where(self) -> Text:
        seed = "" if self.seed is None else f", seed {self.seed}"
        return Text(f"; game {self.game_id} at {self.client.base_url}{seed}")

    def come_back(self) -> str | None:
        return f"to come back: poison play --server {self.client.base_url} --game={self.game_id} --token={self.token}"


def run(args: argparse.Namespace, out: Console) -> int:
    """The game on the server --server names: created, or joined with --game and --token."""
    url = args.server if "://" in args.server else f"http://{args.server}"
    seat: RemoteSeat | None = None
    with Client(url) as client:
        try:
            seat = RemoteSeat(client, args.game, args.token) if args.game else RemoteSeat.create(client, args)
            return Terminal(seat, seat.screen, out, seat.screen.ruleset.title).play()
        except CommandError as error:
            return fail("play", error, error.code)
        except ClientError as error:
            if seat is not None and (come_back := seat.come_back()):
                out.print(Text(come_back))
            code = 2 if isinstance(error, ApiProblem) and error.status < 500 else 1
            return fail("play", error, code)
        except KeyboardInterrupt:
            # Not swallowed (the command line ends with status 130): only the way back is said.
            if seat is not None and (come_back := seat.come_back()):
                out.print(Text(come_back))
            raise
