"""Running `poison serve` and playing games against it, for the fault tests."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from events.server import free_port
from tests.service.served import children, command, environment, stop, wait_until_up


@dataclass
class Served:
    process: subprocess.Popen
    base: str
    log: object = None

    def workers(self) -> list[int]:
        """The worker processes (children that are Python, not the store)."""
        workers = []
        for pid in children(self.process):
            try:
                command = Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except FileNotFoundError:
                continue
            # The workers are spawned processes; not the resource tracker, not the store.
            if "spawn_main" in command and "resource_tracker" not in command and state != "Z":
                workers.append(pid)
        return workers

    def store(self) -> int | None:
        """The embedded store's process (a child whose program is a `*-server`), if any."""
        for pid in children(self.process):
            try:
                program = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
            except FileNotFoundError:
                continue
            # The store retitles itself: "valkey-server 127.0.0.1:PORT". Its program's name, not
            # its path: a worker's Python may live under a directory named *-server.
            if b"-server" in program.rsplit(b"/", 1)[-1]:
                return pid
        return None

    def stop(self) -> None:
        stop(self.process)
        if self.log is not None:
            self.log.close()


def serve(
    *, workers: int, data_dir: Path | None = None, redis_url: str | None = None, port: int | None = None
) -> Served:
    port = port or free_port()
    env = environment(POISON_STORE_TIMEOUT="1.0")
    if redis_url is not None:  # in the environment, not the arguments, which `ps` shows
        env["POISON_REDIS_URL"] = redis_url
    # The log lives with the process: a named file when asked for, else one that says why
    # a start failed.
    named = os.environ.get("POISON_TEST_SERVE_LOG")
    log = open(named, "ab") if named else tempfile.TemporaryFile()  # noqa: SIM115

    def said() -> str:
        if not named:
            log.seek(0)
        told = f"on port {port}: " + ("" if named else log.read()[-2000:].decode(errors="replace"))
        log.close()
        return told

    process = subprocess.Popen(command(port, workers=workers, data_dir=data_dir), env=env, stdout=log, stderr=log)
    served = Served(process, f"http://127.0.0.1:{port}", log)
    wait_until_up(process, f"{served.base}/health", said)
    return served


@dataclass
class Player:
    """Plays every seat of one game, retrying a move with its idempotency key until the
    service answers, and remembers every move the service acknowledged."""

    base: str
    game_id: str = ""
    tokens: dict[int, str] = field(default_factory=dict)
    acknowledged: list[dict] = field(default_factory=list)  # the card_played events of 201s
    outages: list[float] = field(default_factory=list)  # seconds each 503 took
    errors: list[str] = field(default_factory=list)

    def create(self, http: httpx.Client, seed: int) -> None:
        response = http.post("/v1/games", json={"players": [{"name": n} for n in "abcd"], "seed": seed})
        assert response.status_code == 201, response.text
        body = response.json()
        self.game_id = body["game_id"]
        self.tokens = {p["seat"]: p["token"] for p in body["players"]}

    def play(self, moves: int, *, deadline: float) -> None:
        with httpx.Client(base_url=self.base, timeout=5) as http:
            made = 0
            while made < moves and time.monotonic() < deadline:
                key = uuid.uuid4().hex
                if self._move(http, key, deadline):
                    made += 1

    def _move(self, http: httpx.Client, key: str, deadline: float) -> bool:
        """One move: find it, then send it with one idempotency key until it is answered."""
        request = None
        while request is None and time.monotonic() < deadline:
            started = time.monotonic()
            try:
                game = http.get(f"/v1/games/{self.game_id}")
                if game.status_code != 200:
                    self._note(game, started)
                    continue
                turn = game.json()["turn"]
                if turn is None:
                    return False
                headers = {"Authorization": f"Bearer {self.tokens[turn]}", "Idempotency-Key": key}
                mine = http.get(f"/v1/games/{self.game_id}", headers=headers)
                if mine.status_code != 200:
                    self._note(mine, started)
                    continue
                request = (mine.json()["you"]["legal_moves"][0], headers)
            except httpx.HTTPError as error:  # a worker killed under us: ask again
                self.errors.append(type(error).__name__)
                time.sleep(0.05)
        while request is not None and time.monotonic() < deadline:
            started = time.monotonic()
            try:
                response = http.post(f"/v1/games/{self.game_id}/moves", json=request[0], headers=request[1])
            except httpx.HTTPError as error:  # did it land? the same key will tell
                self.errors.append(type(error).__name__)
                time.sleep(0.05)
                continue
            if response.status_code == 201:
                self.acknowledged.append(response.json()["events"][0])
                return True
            self._note(response, started)
        return False

    def _note(self, response: httpx.Response, started: float) -> None:
        if response.status_code == 503:
            assert response.json()["code"] == "store_unavailable"
            self.outages.append(time.monotonic() - started)
            time.sleep(0.05)
        else:
            raise AssertionError(f"unexpected {response.status_code}: {response.text}")
