"""`poison play --server URL`: one seat of a game on a server, over the public HTTP API.

Without --game, a new game is created there (POST /v1/games: the person at their seat, bots
in the others, or --open seats left for people to join) and played with the token its
creation returns; with --game and --token, the person takes that token's seat of a game that
exists. The lobby: --list shows the games waiting for players, --join takes an open seat of
one (POST /v1/games/{id}/seats/{seat}), and --rematch plays a finished game's next game.
While a game waits, the person sees who joins and leaves as it happens, until it starts;
Ctrl-C then gives the seat back (DELETE), saying so. Everything is read through
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
import sys
from collections.abc import Iterator
from contextlib import closing
from functools import partial
from typing import Any

from rich.console import Console
from rich.text import Text

from events.codec import (
    Event,
    GameAbandoned,
    GameStarted,
    MalformedEvent,
    SeatJoined,
    SeatLeft,
    SeatResigned,
    SeatTimedOut,
)
from events.rulesets import rules_for
from service.client import ApiProblem, Client, ClientError, Unreachable
from service.commands import CommandError, console, fail, visible
from service.commands.play import (
    YES,
    YOUR_NAME,
    Late,
    Terminal,
    bot_name,
    check_server_options,
    new_game,
    patiently,
    read_line,
    starting,
)
from service.commands.screens import Players, Screen, screen_for
from service.commands.screens.away import clock_line
from service.commands.screens.base import said
from service.commands.screens.lobby import OPEN, is_open, room, seat_names, told, waiting_games
from service.commands.screens.seat import refusal
from service.i18n import words
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
        self.players = Players.of(seat_names(self.view.players), self.you)
        #: Set once the person gave their seat back while the game waited: the token is void.
        self.left = False
        # One key per move chosen at a version: retrying it (after a 503) can never play twice.
        self._keys: dict[tuple[int, tuple[Any, ...]], str] = {}

    @classmethod
    def create(cls, client: Client, args: argparse.Namespace) -> RemoteSeat:
        ruleset, options, bots, you = new_game(args)
        # The first --open seats after yours (round the table) wait for people; bots take the rest.
        others = [(you + step) % args.players for step in range(1, args.players)]
        waiting = set(others[: args.open or 0])
        bot_of = dict(zip([seat for seat in others if seat not in waiting], bots, strict=True))
        players: list[dict[str, Any]] = []
        for seat in range(args.players):
            if seat == you:
                players.append({"name": args.name or YOUR_NAME})
            elif seat in waiting:
                players.append({"open": True})
            else:
                bot = bot_of[seat]
                player = {"name": bot_name(bot.bot, seat), "bot": bot.bot}
                # A search bot without a strength plays the service's default (its view says which).
                players.append(player if bot.playouts is None else {**player, "playouts": bot.playouts})
        body = screen_for(ruleset.name).create_body(players, args.seed, options)
        if args.clock is not None:
            body["clock"] = {"seconds_per_move": args.clock}
        created = client.create_game(body)
        token = created.players[you].token
        if not isinstance(token, str):
            raise Unreachable(f"{client.base_url} created a game without a token for seat {you}")
        return cls(client, created.game_id, token, seed=args.seed)

    @classmethod
    def join(cls, client: Client, game_id: str, seat: int | None, name: str) -> RemoteSeat:
        """Take an open seat of a waiting game (`seat`, or the first one open) as `name`."""
        if seat is None:
            view: Any = client.game(game_id)
            open_seats = [player.seat for player in view.players if is_open(player)]
            if not open_seats:
                raise ApiProblem(409, "game_started", f"game {game_id} is {view.status}: it has no open seat")
            seat = open_seats[0]
        taken = client.join(game_id, seat, name, key=secrets.token_urlsafe(16))
        return cls(client, game_id, taken.token)

    @classmethod
    def rematch(cls, client: Client, game_id: str, token: str) -> RemoteSeat:
        """The token's seat in the next game of a finished one (made by the first to ask)."""
        next_game = client.rematch(game_id, token, key=secrets.token_urlsafe(16))
        return cls(client, next_game.game.game_id, next_game.token)

    def gather(self, out: Console) -> None:
        """While the game waits for players: who sits where, then each join and leave as it
        happens, until the game starts. Ctrl-C gives the seat back (it opens again) and says so."""
        url, game = self.client.base_url, self.game_id
        names = seat_names(self.view.players, self.you)
        try:
            out.print(said("cli.remote.waits", game=visible(game), url=url, room=room(self.view.players, self.you)))
            join = f"poison play --server {url} --join={visible(game)} --name NAME"
            out.print(Text(words()("cli.remote.anyone", command=join)))
            if (clock := clock_line(self.view, self.players)) is not None:
                out.print(clock)
            out.print(Text(words()("cli.remote.ctrl_c")))
            with closing(self.client.follow(game, self.token, after=self.view.version)) as stream:
                for public in stream:
                    event = self._event(public)
                    if (line := told(event, names)) is not None:
                        out.print(line)
                    if isinstance(event, SeatJoined):
                        names[event.seat] = visible(event.name)
                    elif isinstance(event, SeatLeft):
                        names[event.seat] = OPEN
                    elif isinstance(event, GameStarted):
                        break
                    elif isinstance(event, GameAbandoned):  # it waited longer than the server lets one wait
                        out.print(Text(words()("cli.away.abandoned"), style="bold"))
                        break
        except KeyboardInterrupt:
            out.print()  # after the terminal's "^C"
            self.leave(out)
            raise
        self.view = self.client.game(game, self.token)
        self.players = Players.of(seat_names(self.view.players), self.you)

    def leave(self, out: Console) -> None:
        """Give the seat back while the game waits: the seat opens again, the token is void."""
        try:
            self.client.leave(self.game_id, self.you, self.token, key=secrets.token_urlsafe(16))
        except ApiProblem as problem:
            if problem.code != "game_started":
                raise
            out.print(Text(words()("cli.remote.started_first", detail=visible(problem.detail))))
            return
        self.left = True
        out.print(Text(words()("cli.remote.left", seat=self.you, game=visible(self.game_id))))

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
        # The story starts with the person's last move (everything, if they have not moved),
        # or, while a bot plays their seat, with the moment it took it.
        mine = [i for i, event in enumerate(events) if isinstance(event, self.rules.played_type)]
        last = max((i for i in mine if getattr(events[i], "seat", None) == self.you), default=0)
        if self.view.players[self.you].away:
            taken = (SeatTimedOut, SeatResigned)
            last = max((i for i, e in enumerate(events) if isinstance(e, taken) and e.seat == self.you), default=last)
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
                    mine = self.view.players[self.you]
                    # The person's turn, the end, or their seat taken by a bot (their time ran out).
                    if self.view.status != "active" or self.view.turn == self.you or (mine.away and not mine.resigned):
                        return

    def catch_up(self) -> list[Event]:
        return self._since(self.view.version)

    def resign(self) -> list[Event]:
        return self._seat_step(self.client.resign)

    def return_to_seat(self) -> list[Event]:
        return self._seat_step(self.client.come_back)

    def _seat_step(self, request: Any) -> list[Event]:
        """A resignation or a return, with a key of its own (its retries are answered alike):
        the events since the seat's view, its own among them."""
        before = self.view.version
        try:
            request(self.game_id, self.you, self.token, key=secrets.token_urlsafe(16))
        except ApiProblem as problem:
            if problem.status in (401, 404):
                raise
            raise refusal(problem.code, problem.detail, ()) from None
        return self._since(before)

    def scores(self) -> Any:
        return self.client.scores(self.game_id)

    def where(self) -> Text:
        seed = "" if self.seed is None else words()("cli.remote.seed", seed=str(self.seed))
        clock = self.view.clock
        per_move = "" if clock is None else words()("cli.remote.clock", count=clock.seconds_per_move)
        where = words()("cli.remote.where", game=self.game_id, url=str(self.client.base_url), seed=seed, clock=per_move)
        return Text(where)

    def come_back(self) -> str | None:
        if self.left:
            command = f"poison play --server {self.client.base_url} --join={self.game_id} --name NAME"
            return words()("cli.remote.join_again", command=command)
        command = f"poison play --server {self.client.base_url} --game={self.game_id} --token={self.token}"
        return words()("cli.remote.come_back", command=command)

    def play_again(self) -> str | None:
        url = self.client.base_url
        command = f"poison play --server {url} --game={self.game_id} --token={self.token} --rematch"
        return words()("cli.remote.play_again", command=command)


def take_seat(client: Client, args: argparse.Namespace, out: Console) -> RemoteSeat | None:
    """The seat the options name: a new game's, an open one joined, a rematch's, or the one
    a token holds. None when --list was only a list."""
    if args.list:
        return choose(client, args, out)
    if args.join is not None:
        return RemoteSeat.join(client, args.join, args.seat, args.name or ask_name(out))
    if args.rematch:
        return RemoteSeat.rematch(client, args.game, args.token)
    if args.game:
        return RemoteSeat(client, args.game, args.token)
    # The bots before your seat answer the creation with their moves: a search takes a while.
    return patiently(out, starting(new_game(args)[2]), partial(RemoteSeat.create, client, args))


def choose(client: Client, args: argparse.Namespace, out: Console) -> RemoteSeat | None:
    """--list: the games waiting for players; in a terminal, the person may pick one to join."""
    games = client.games("waiting").games
    if not games:
        out.print(
            Text(
                words()(
                    "cli.remote.none_waits",
                    url=str(client.base_url),
                    command=f"poison play --server {client.base_url} --open 1",
                )
            )
        )
        return None
    out.print(waiting_games(games))
    if not (sys.stdin.isatty() and out.is_terminal):
        command = f"poison play --server {client.base_url} --join=GAME_ID --name NAME"
        out.print(Text(words()("cli.remote.join_one", command=command)))
        return None
    while True:
        answer = ask(out, words()("cli.remote.pick", last=len(games)))
        if not answer:
            return None
        if answer.isdecimal() and 1 <= int(answer) <= len(games):  # isdigit() takes "²", int() not
            return RemoteSeat.join(client, games[int(answer) - 1].game_id, None, args.name or ask_name(out))
        out.print(Text(words()("cli.remote.none_of_them", answer=repr(visible(answer)), last=len(games)), style="red"))


def ask_name(out: Console) -> str:
    """The name the other players will see, asked in a terminal (--name gives it otherwise)."""
    if not sys.stdin.isatty():
        raise CommandError(words()("cli.error.remote.join_name"))
    while not (name := ask(out, words()("cli.remote.your_name"))):
        if name is None:
            raise CommandError(words()("cli.error.remote.no_name"))
    return name


def ask(out: Console, prompt: str) -> str | None:
    """A line typed in the terminal, or None at the end of the input (Ctrl-D)."""
    text = read_line(out, prompt)
    return None if isinstance(text, Late) else text


def again(out: Console) -> bool:
    """In a terminal, at a game's end: whether the person plays the next game (the rematch)."""
    if not (sys.stdin.isatty() and out.is_terminal):
        return False
    answer = ask(out, words()("cli.remote.again"))
    return answer is not None and answer.lower() in YES


def run(args: argparse.Namespace) -> int:
    """The game on the server --server names: created, joined, or the lobby's list."""
    out = console(highlight=False)
    try:
        check_server_options(args)
    except CommandError as error:
        return fail("play", error, error.code)
    url = args.server if "://" in args.server else f"http://{args.server}"
    seat: RemoteSeat | None = None
    with Client(url) as client:
        try:
            seat = take_seat(client, args, out)
            while seat is not None:
                if seat.view.status == "waiting":
                    seat.gather(out)
                status = Terminal(seat, seat.screen, out, seat.screen.title).play()
                if seat.view.status != "finished" or not again(out):
                    return status
                seat = RemoteSeat.rematch(client, seat.game_id, seat.token)
            return 0
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
