"""The hot routes' bare answers (service.responses.JSONBytes) reach the client whole, whichever
of Litestar's response handlers a route was given."""

from __future__ import annotations

from litestar import Litestar, get
from litestar.testing import TestClient

from service.responses import JSONBytes, Response


@get("/bare", sync_to_thread=False)
def bare() -> object:  # not `-> ASGIApp`: Litestar gives this route its data handler
    return JSONBytes(202, b'{"seat": 2}')


def test_a_jsonbytes_given_to_the_data_handler_is_sent_as_it_is_not_encoded_again() -> None:
    with TestClient(Litestar([bare], response_class=Response)) as client:
        answer = client.get("/bare")
    assert answer.status_code == 202
    assert answer.content == b'{"seat": 2}\n'
    assert answer.headers["content-type"] == "application/json"
