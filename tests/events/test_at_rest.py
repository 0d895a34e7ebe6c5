"""The embedded store at rest: a password it asks of every client and that no command line
shows, a data directory and files its owner's alone, and URLs shown without passwords."""

from __future__ import annotations

import socket
import stat
from pathlib import Path

import pytest
import redis

from events.credentials import redacted
from events.pipelined import PipelinedConnection
from events.server import EmbeddedServer
from tests.waiting import until, until_async

pytestmark = pytest.mark.anyio


def said(port: int, *commands: bytes) -> bytes:
    """What the server answers a bare connection that sends `commands` (inline)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
        connection.sendall(b"".join(command + b"\r\n" for command in commands))
        answer = b""
        while answer.count(b"\r\n") < len(commands):
            answer += connection.recv(4096)
        return answer


def test_a_client_without_the_password_or_with_a_wrong_one_is_refused(redis_server):
    assert said(redis_server.port, b"SET taken stranger", b"KEYS *") == (
        b"-NOAUTH Authentication required.\r\n-NOAUTH Authentication required.\r\n"
    )
    assert said(redis_server.port, b"AUTH guessed", b"GET taken") == (
        b"-WRONGPASS invalid username-password pair or user is disabled.\r\n-NOAUTH Authentication required.\r\n"
    )
    with redis_server.client() as owner:
        assert owner.ping()


def test_the_password_is_on_no_command_line_of_any_process(redis_server):
    assert redis_server.process is not None
    assert f"/proc/{redis_server.process.pid}/cmdline"  # the server's own is among those read
    seen = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes()
            except OSError:  # gone meanwhile, or not ours to read
                continue
            seen += entry.name == str(redis_server.process.pid)
            assert redis_server.password.encode() not in command, f"process {entry.name}: {command!r}"
    assert seen == 1, "the server's own command line was read"


def modes(directory: Path) -> dict[str, int]:
    """Every entry under `directory` (itself as "."), with its permission bits."""
    found = {".": stat.S_IMODE(directory.stat().st_mode)}
    for path in directory.rglob("*"):
        found[str(path.relative_to(directory))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def test_the_data_directory_is_0700_and_every_file_the_server_writes_is_0600_after_a_rewrite(tmp_path):
    with EmbeddedServer(tmp_path / "data") as server, server.client() as client:
        for n in range(50):
            client.xadd("poison:{g}:events", {"n": n})
        rewrites = int(client.info("persistence")["aof_rewrites"])
        client.bgrewriteaof()
        until(lambda: int(client.info("persistence")["aof_rewrites"]) > rewrites, what="the AOF rewritten")
        until(lambda: not int(client.info("persistence")["aof_rewrite_in_progress"]), what="the rewrite done")
        client.xadd("poison:{g}:events", {"n": "after the rewrite"})
        found = modes(server.data_dir)
    names = set(found)
    assert {".", "appendonlydir", "server.log", "poison.lock"} <= names
    assert any(name.endswith(".manifest") for name in names), names
    assert any(".base." in name for name in names), names
    assert any(".incr." in name for name in names), names
    directories = {name for name in names if (tmp_path / "data" / name).is_dir()}
    assert {name: found[name] for name in directories} == dict.fromkeys(directories, 0o700)
    files = names - directories
    assert {name: found[name] for name in files} == dict.fromkeys(files, 0o600)


def test_a_data_directory_open_to_others_is_closed_at_start_with_what_is_in_it(tmp_path):
    data = tmp_path / "data"
    (data / "appendonlydir").mkdir(parents=True)
    data.chmod(0o755)
    (data / "appendonlydir").chmod(0o755)
    (data / "server.log").write_text("a log from before\n")
    (data / "server.log").chmod(0o644)
    outside = tmp_path / "not-ours-to-change.txt"
    outside.write_text("")
    outside.chmod(0o644)
    (data / "a-link").symlink_to(outside)
    with EmbeddedServer(data) as server:
        assert sorted(server.tightened) == sorted([data, data / "appendonlydir", data / "server.log"])
        assert server.left_loose == []
    assert modes(data) == {".": 0o700, "appendonlydir": 0o700, "server.log": 0o600, "a-link": 0o777} | {
        name: 0o600 for name in modes(data) if name.startswith("appendonlydir/")
    } | {"poison.lock": 0o600}
    assert stat.S_IMODE(outside.stat().st_mode) == 0o644, "a link's target is left alone"


async def test_the_pipelined_connection_logs_in_again_after_the_server_is_killed_and_restarted(tmp_path):
    server = EmbeddedServer(tmp_path / "data")
    server.start()
    wire = PipelinedConnection(server.url, timeout=2.0)
    try:
        assert await wire.execute("SET", "cauldron", "red") == b"OK"
        server.kill()
        server.start()  # the same password: a supervised restart's
        assert await until_async(lambda: _read(wire), what="the wire back") == b"red"
    finally:
        await wire.close()
        server.stop()


async def _read(wire: PipelinedConnection) -> bytes | None:
    try:
        value: bytes | None = await wire.execute("GET", "cauldron", repeatable=True)
        return value
    except redis.ConnectionError:
        return None


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://:s3cret@127.0.0.1:6379/0", "redis://:***@127.0.0.1:6379/0"),
        (
            "rediss://poison:s3cret@store.example:6380/2?ssl_cert_reqs=none",
            "rediss://poison:***@store.example:6380/2?ssl_cert_reqs=none",
        ),
        ("redis://poison@store.example/0", "redis://poison@store.example/0"),
        ("unix:///run/valkey.sock?db=1&password=s3cret", "unix:///run/valkey.sock?db=1&password=***"),
        ("unix://:s3cret@/run/valkey.sock", "unix://:***@/run/valkey.sock"),
        ("redis://:s3c@ret@host:1/0", "redis://:***@host:1/0"),
        ("http://:s3cret@host:1", "http://:***@host:1"),
        (":s3cret@host:6379", ":***@host:6379"),
        ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
    ],
)
def test_a_url_is_shown_with_its_password_redacted_and_the_rest_as_given(url, shown):
    assert redacted(url) == shown


def test_the_embedded_servers_shown_url_has_no_password(redis_server):
    assert redis_server.password in redis_server.url
    assert redis_server.password not in redis_server.shown_url
    assert redis_server.shown_url == f"redis://:***@127.0.0.1:{redis_server.port}/0"


def test_each_server_makes_a_password_of_its_own(tmp_path):
    first, second = EmbeddedServer(tmp_path / "one"), EmbeddedServer(tmp_path / "two")
    assert first.password != second.password
    assert len(first.password) >= 43  # 256 random bits, URL-safe
