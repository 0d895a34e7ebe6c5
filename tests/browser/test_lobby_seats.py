"""The lobby's seats at the table (issue 17): a seat left open in the lobby's form is joined
from another browser through the list of waiting games, the creator's page shows the join
as it happens and the game start, and at the end each seat's "Play again" lands in one next
game. One test a ruleset: the other seats play through the API, so it stays quick."""

from __future__ import annotations

from collections.abc import Callable
from typing import get_args
from urllib.parse import unquote

import pytest

from service.schemas import Name
from tests.browser.conftest import SCREENSHOTS, Watched
from tests.browser.table import TABLE, create, play_out, read, token_of

pytestmark = pytest.mark.browser

#: Each ruleset's title in the lobby, and the fewest rounds (Poison) to keep the game short.
GAMES = {"poison": ("Poison", "1"), "pot": ("The pot game", None)}


def seat_of(hash_: str) -> tuple[str, str]:
    """The game id and the token of a seat's link (#/games/ID?token=T)."""
    path, token = hash_.split("?token=", 1)
    return unquote(path.removeprefix("#/games/")), unquote(token)


@pytest.mark.parametrize("ruleset", list(GAMES))
def test_a_seat_left_open_is_joined_from_the_lobby_the_creator_sees_it_live_and_both_play_again(
    open_page: Callable[..., Watched], served: str, ruleset: str
) -> None:
    title, rounds = GAMES[ruleset]
    creator = open_page().page
    creator.get_by_role("radio", name=title).check()
    if rounds is not None:
        creator.locator('input[data-path="rounds"]').fill(rounds)
    creator.get_by_label("Seat 2: who plays").select_option("open")
    assert creator.get_by_label("Seat 2: name").is_disabled(), "an open seat is named by whoever joins it"
    creator.get_by_role("button", name="Create the game").click()
    created = creator.locator("section.created")
    created.wait_for()
    game_id = created.get_attribute("data-game") or ""
    assert "Seat 2 is open" in created.locator(".open-seats-note").inner_text()
    creator.get_by_role("link", name="Play as Ana").click()
    room = creator.locator(f'{TABLE}[data-status="waiting"] .waiting-room')
    room.wait_for()
    assert room.get_attribute("data-open") == "1"
    assert room.locator('.waiting-seat[data-seat="1"]').get_attribute("data-open") == "true"
    creator.screenshot(path=SCREENSHOTS / f"lobby-seats-{ruleset}-waiting.png", full_page=True)

    # Another person finds the game among the waiting ones, and takes the seat under a name.
    joiner = open_page("#/?status=waiting", phone=True).page  # on a phone, as people often are
    joiner.get_by_role("button", name="Create the game").wait_for()  # the API document is read
    row = joiner.locator(f'tr[data-game="{game_id}"]')
    assert row.locator(".status").inner_text() == "waiting"
    assert "1 seat open" in row.inner_text()
    row.get_by_role("button", name="Join").click()
    name = joiner.locator(".join-form .join-name")
    # The longest name the service takes, as its API document says (service.schemas.Name).
    assert name.get_attribute("maxlength") == str(get_args(Name)[1].max_length)
    name.fill("Zoe")
    joiner.screenshot(path=SCREENSHOTS / f"lobby-seats-{ruleset}-join.png", full_page=True)
    joiner.get_by_role("button", name="Take the seat").click()
    joiner.wait_for_selector(f'{TABLE}[data-mode="seat"]:not([data-status="waiting"])')
    joined_game, zoe = seat_of(joiner.evaluate("location.hash"))
    assert joined_game == game_id

    # The creator's page saw the join and the start come down the stream, without a reload.
    creator.wait_for_selector(f'{TABLE}:not([data-status="waiting"])')
    feed = creator.locator(".feed").inner_text()
    assert "Zoe joined at seat 2." in feed
    assert "Every seat is taken: the game starts." in feed
    assert creator.locator(f"{TABLE} .seat[data-seat='1'] .name").inner_text() == "Zoe"
    _, ana = seat_of(creator.evaluate("location.hash"))
    assert read(served, game_id, zoe)["you"]["seat"] == 1

    # Both people's moves through the API, to the end, while their pages are away (a page
    # showing every move is tested elsewhere; here it would only slow the game down).
    links = [page.evaluate("location.hash") for page in (creator, joiner)]
    for page in (creator, joiner):
        page.evaluate("location.hash = '#/replay'")
    play_out(served, game_id, {0: ana, 1: zoe})
    for page, link in zip((creator, joiner), links, strict=True):
        page.evaluate(f"location.hash = {link!r}")
        page.wait_for_selector(f'{TABLE}[data-status="finished"][data-busy="false"]')

    # "Play again" on each page: the first makes the next game, the second joins it.
    creator.get_by_role("button", name="Play again").click()
    creator.wait_for_selector(f'{TABLE}[data-game]:not([data-game="{game_id}"])')
    next_game, ana_next = seat_of(creator.evaluate("location.hash"))
    joiner.locator("button.play-again").click()
    joiner.wait_for_selector(f'{TABLE}[data-game]:not([data-game="{game_id}"])')
    zoe_game, zoe_next = seat_of(joiner.evaluate("location.hash"))
    assert zoe_game == next_game
    assert {ana_next, zoe_next}.isdisjoint({ana, zoe})
    assert ana_next != zoe_next
    assert read(served, game_id)["next_game"] == next_game
    assert [read(served, next_game, token)["you"]["seat"] for token in (ana_next, zoe_next)] == [0, 1]
    for page in (creator, joiner):
        page.wait_for_selector(f'{TABLE}[data-game="{next_game}"][data-mode="seat"][data-version]')


def test_leaving_a_waiting_game_gives_the_seat_back_and_returns_to_the_lobby(
    open_page: Callable[..., Watched], served: str
) -> None:
    made = create(served, [{"name": "Ana"}, {"open": True}], ruleset="pot")
    game_id, ana = made["game_id"], token_of(made, "Ana")
    page = open_page(f"#/games/{game_id}?token={ana}").page
    page.locator(f'{TABLE}[data-status="waiting"] .waiting-room').wait_for()
    page.get_by_role("button", name="Leave the seat").click()
    page.locator(".lobby").wait_for()
    game = read(served, game_id)
    assert game["status"] == "abandoned"  # its only named seat left
    assert game["players"][0]["open"] is True
