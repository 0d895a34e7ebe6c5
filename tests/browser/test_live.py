"""The table follows games live: a watcher sees each move as it is played elsewhere, one event
at a time; after a network drop it asks the stream again with Last-Event-ID; a move the
service refuses is said in words, and the table catches up."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from tests.browser.conftest import Watched
from tests.browser.proxy import relay
from tests.browser.table import (
    RECORD_VERSIONS,
    TABLE,
    create,
    my_turn_or_over,
    play_first_legal,
    read,
    token_of,
    version_shown,
)

pytestmark = pytest.mark.browser


def play_turns(served: str, game_id: str, tokens: dict[int, str], count: int) -> int:
    """Play `count` moves of the people's seats through the API, each on its turn; the version after."""
    for _ in range(count):
        game = read(served, game_id)
        play_first_legal(served, game_id, tokens[game["turn"]])
    return read(served, game_id)["version"]


def people(created: dict) -> dict[int, str]:
    return {player["seat"]: player["token"] for player in created["players"] if "token" in player}


def test_a_second_page_follows_a_game_played_through_the_api_one_event_at_a_time(
    open_page: Callable[..., Watched], served: str
) -> None:
    created = create(served, [{"name": "Ana"}, {"name": "Bob"}, {"name": "Cy", "bot": "greedy"}], rounds=1, seed=3)
    game_id, start = created["game_id"], created["game"]["version"]
    watcher = open_page(f"#/games/{game_id}", pace="fast", script=RECORD_VERSIONS)
    page = watcher.page
    page.wait_for_selector('[data-connection="live"]')

    final = play_turns(served, game_id, people(created), 8)
    page.wait_for_selector(f'{TABLE}[data-version="{final}"]', timeout=30_000)

    shown = page.evaluate("window.versionsShown")
    assert [step["version"] for step in shown] == list(range(start, final + 1)), "every event shown, in order"
    events = httpx.get(f"{served}/v1/games/{game_id}/events").json()["events"]
    bot_moves = [e["version"] for e in events if e["type"] == "card_played" and e["data"]["seat"] == 2]
    at = {step["version"]: step["at"] for step in shown}
    # A bot answers within the same request, yet its move comes on screen a beat after the
    # move that woke it (the "fast" pace: 220 ms), not all at once.
    paced = [at[v] - at[v - 1] for v in bot_moves if v - 1 in at and v > start]
    assert paced, "the bot moved"
    assert min(paced) >= 150, paced
    assert page.locator(".feed-line").count() >= final - start
    # A watcher sees no hand and sends no token; the seats' hand sizes are the public view's.
    assert page.locator(".hand").count() == 0
    assert not [request for request in watcher.requests if "authorization" in request.headers]
    public = read(served, game_id)
    shown_sizes = [int(text) for text in page.locator(".seat .in-hand .card-back").all_inner_texts()]
    assert shown_sizes == [player["hand_size"] for player in public["players"]]


def test_the_table_asks_the_stream_again_with_last_event_id_after_the_network_drops(
    open_page: Callable[..., Watched], served: str
) -> None:
    created = create(served, [{"name": "Ana"}, {"name": "Bob"}, {"name": "Cy", "bot": "random"}], rounds=1, seed=4)
    game_id = created["game_id"]
    tokens = people(created)
    with relay(served) as proxy:
        watcher = open_page(f"#/games/{game_id}", base=proxy.base)
        watcher.may_fail.append("/events/stream")  # the drop cuts the stream on purpose
        page = watcher.page
        page.wait_for_selector('[data-connection="live"]')
        before = play_turns(served, game_id, tokens, 2)
        page.wait_for_selector(f'{TABLE}[data-version="{before}"][data-busy="false"]')

        proxy.drop()
        page.wait_for_selector('[data-connection="reconnecting"], [data-connection="offline"]')
        after = play_turns(served, game_id, tokens, 3)
        page.wait_for_selector(f'{TABLE}[data-version="{after}"]', timeout=30_000)
        page.wait_for_selector('[data-connection="live"]')

        assert f"last-event-id: {before}\r\n" in proxy.heads().lower()
        assert version_shown(page) == after == read(served, game_id)["version"]


def test_a_move_the_service_refuses_is_said_in_words_and_the_table_catches_up(
    open_page: Callable[..., Watched], served: str
) -> None:
    # Ana has the table open twice, on her laptop and on her phone; the phone's stream is stuck.
    created = create(served, [{"name": "Ana"}, {"name": "Bob", "bot": "greedy"}, {"name": "Cy", "bot": "random"}])
    game_id, token = created["game_id"], token_of(created, "Ana")
    with relay(served) as proxy:
        proxy.hold("/events/stream")
        laptop = open_page(f"#/games/{game_id}?token={token}")
        phone = open_page(f"#/games/{game_id}?token={token}", phone=True, base=proxy.base)
        refused = phone.expect(409, "/moves")
        phone.may_fail.append("/events/stream")  # its stream is held, then cut with the relay
        assert my_turn_or_over(laptop.page) == my_turn_or_over(phone.page) == "active"

        laptop.page.locator('.hand-card[data-legal="true"]').first.click()
        laptop.page.locator("button.cauldron.target").first.click()
        my_turn_or_over(laptop.page)
        moved_on = read(served, game_id)["version"]
        assert version_shown(phone.page) < moved_on, "the phone has not heard of it"

        phone.page.locator('.hand-card[data-legal="true"]').first.click()
        phone.page.locator("button.cauldron.target").first.click()
        notice = phone.page.get_by_role("alert")
        notice.wait_for()
        said = notice.inner_text()
        assert "409 version_conflict" in said
        assert "Nothing was played" in said
        assert refused.seen == 1
        phone.page.wait_for_selector(f'{TABLE}[data-version="{moved_on}"]')
        assert read(served, game_id)["version"] == moved_on, "the refused move changed nothing"
        assert my_turn_or_over(phone.page) == "active"
        proxy.release()
