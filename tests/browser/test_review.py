"""The replay and review of a finished match at /play, in a real browser: every play with
every hand, the deal verified, each of the player's plays judged (the worker makes the
review), in English and Arabic."""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.browser.conftest import DESKTOP
from tests.browser.test_play import seated_page
from tests.servers import call, gunicorn, start_worker

pytestmark = pytest.mark.process  # starts processes: the process stage

Shots = Callable[[Page, str], Path]
NewContext = Callable[..., BrowserContext]
GRADES = ("forced", "best", "good", "inaccuracy", "mistake", "blunder")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """gunicorn and a worker (which makes the reviews) on one SQLite file."""
    url = f"sqlite:///{tmp_path_factory.mktemp('review') / 'basra.sqlite3'}"
    with gunicorn(url, workers=2, BASRA_POLL_INTERVAL="0.1") as base:
        worker = start_worker(url)
        try:
            yield base
        finally:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()


def _finished_match(base: str) -> tuple[str, str, int]:
    """Alice against the greedy bot, played to the end over HTTP (her first legal move
    each time): the match id, her token, and how many plays it took."""
    status, created = call(base, "POST", "/v1/matches", {
        "players": [{"name": "alice"}, {"bot": "greedy"}]})
    assert status == 201, created
    match = created["id"]
    token = next(s["token"] for s in created["seats"] if s["token"])
    status, state = call(base, "GET", f"/v1/matches/{match}", token=token)
    while state["status"] == "active":
        move = state["legal_moves"][0]
        status, answer = call(base, "POST", f"/v1/matches/{match}/moves",
                              {"card": move["card"], "capture": move["capture"]}, token)
        assert status == 201, answer
        state = answer["state"]
    _, log = call(base, "GET", f"/v1/matches/{match}/moves")
    return match, token, sum(1 for m in log["moves"] if m["kind"] == "play")


def test_a_finished_match_is_replayed_play_by_play_and_reviewed(
        new_context: NewContext, server: str, shots: Shots) -> None:
    match, token, plays = _finished_match(server)
    page = seated_page(new_context(DESKTOP), match, 0, token)
    expect(page.locator("#replay")).to_be_visible()
    expect(page.locator("#replay-at")).to_have_text(f"Play 1 of {plays} · round 1")
    # every hand of the deal is shown, the bot's too, and the floor as dealt
    for seat in (0, 1):
        expect(page.locator(f"#replay-hands [data-seat='{seat}'] .card")).to_have_count(4)
    expect(page.locator("#replay-floor .card")).to_have_count(4)
    expect(page.locator("#replay-prev")).to_be_disabled()
    # the worker makes the review: alice's plays are judged, the bot's are not hers to see
    expect(page.locator("#review-summary")).to_contain_text("points lost")
    first_seat = page.locator("#replay-hands .seat.to-play").get_attribute("data-seat")
    page.click("#replay-next")
    expect(page.locator("#replay-at")).to_have_text(f"Play 2 of {plays} · round 1")
    if first_seat == "0":  # alice led: her play is the first
        page.click("#replay-prev")
    expect(page.locator("#replay-hands .seat.to-play")).to_have_attribute("data-seat", "0")
    grade = page.locator("#replay-note").get_attribute("data-grade")
    assert grade in GRADES, grade
    page.click("#replay-next")
    expect(page.locator("#replay-note")).to_have_attribute("data-grade", "")  # the bot's
    shots(page, "replay")

    listed = page.locator("#review-list button")
    if listed.count():  # a weak play in the list: it opens where it was played
        index = int(listed.first.get_attribute("data-index") or "0")
        listed.first.click()
        expect(page.locator("#replay-at")).to_contain_text(f"Play {index + 1} of {plays}")
        expect(page.locator("#replay-note")).to_have_attribute(
            "data-grade", re.compile("^(inaccuracy|mistake|blunder)$"))
    page.click("#replay-last")
    expect(page.locator("#replay-at")).to_contain_text(f"Play {plays} of {plays}")
    expect(page.locator("#replay-next")).to_be_disabled()

    page.click("#verify-button")  # the deal the replay shows is the one committed to
    expect(page.locator("#verdict")).to_have_attribute("data-verdict", "ok")

    page.click("#lang")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.locator("#replay-at")).to_contain_text(f"اللعبة {plays} من {plays}")
    expect(page.locator("#review-summary")).to_contain_text("نقطة ضائعة")
    expect(page.locator("#replay h2")).to_have_text("إعادة المباراة ومراجعتها")
    shots(page, "replay-arabic")
