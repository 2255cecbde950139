"""Tournaments in /play, in a real browser (issue "Tournaments", item 3): three players
find a Swiss in the list and join it; when the worker pairs a round, the paired players'
pages move to their match (their own event stream), and the standings page follows the
event live."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.browser.conftest import DESKTOP
from tests.browser.test_players import sign_in
from tests.servers import ROOT, call, gunicorn

pytestmark = pytest.mark.process  # starts processes: the process stage

Shots = Callable[[Page, str], Path]
NewContext = Callable[..., BrowserContext]
PLAYERS = [("tarek", "Tarek"), ("hoda", "Hoda"), ("yasser", "Yasser")]


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('tournaments') / 'basra.sqlite3'}"


@pytest.fixture(scope="module")
def server(database: str) -> Iterator[str]:
    with gunicorn(database, workers=2, BASRA_POLL_INTERVAL="0.1") as base:
        yield base


def work(database: str) -> None:
    """One pass of `basra worker`: it starts, pairs and finishes tournaments."""
    subprocess.run([sys.executable, "-m", "service.cli", "worker", "--passes", "1"], cwd=ROOT,
                   env={**os.environ, "DATABASE_URL": database},
                   check=True, capture_output=True, timeout=60)


def test_players_join_a_swiss_and_are_taken_to_their_matches(
        new_context: NewContext, server: str, database: str, shots: Shots) -> None:
    status, created = call(server, "POST", "/v1/tournaments", {
        "name": "Cairo Friday Swiss", "system": "swiss", "rounds": 2,
        "starts_at": (datetime.now(UTC) - timedelta(seconds=1)).isoformat(),
        "clock": {"move_seconds": 120, "timeout": "forfeit"}})
    assert status == 201, created
    tid = created["id"]
    pages: dict[str, Page] = {}
    for player_id, name in PLAYERS:
        page = new_context().new_page()
        sign_in(page, player_id, name)
        page.click("#nav-tournaments")
        page.click(f"#tournament-list li[data-tournament='{tid}'] a")
        expect(page.locator("#tournament-name")).to_have_text("Cairo Friday Swiss")
        page.click("#tournament-join")
        expect(page.locator("#tournament-me")).to_have_text("You are in.")
        pages[player_id] = page
    watcher = new_context(DESKTOP).new_page()
    watcher.goto(f"/play?tournament={tid}")
    expect(watcher.locator("#standings tbody tr")).to_have_count(3)
    shots(watcher, "entered")

    work(database)  # round 1
    _, tour = call(server, "GET", f"/v1/tournaments/{tid}")
    (pairing,) = tour["rounds"][0]["pairings"]
    bye = tour["rounds"][0]["bye"]
    for player_id in pairing["players"]:  # moved to their match by their own stream
        page = pages[player_id]
        expect(page).to_have_url(f"{server}/play?match={pairing['match_id']}")
        expect(page.locator("#table")).to_be_visible()
    first = pages[pairing["players"][0]]
    expect(first.locator("#hand button.card").first).to_be_visible()
    shots(first, "paired")
    expect(pages[bye].locator("#tournament")).to_be_visible()  # the bye stays put
    expect(watcher.locator(f"#tournament-rounds li[data-match='{pairing['match_id']}']")
           ).to_contain_text("in play")

    loser = pages[pairing["players"][1]]
    loser.click("#resign")
    expect(loser.locator("#status .result")).to_be_visible()
    work(database)  # the result, then round 2
    winner = pairing["players"][0]
    expect(watcher.locator(f"#standings tbody tr[data-player='{winner}'] td").nth(2)
           ).to_have_text("1")
    _, tour = call(server, "GET", f"/v1/tournaments/{tid}")
    assert tour["round"] == 2
    (second,) = tour["rounds"][1]["pairings"]
    assert frozenset(second["players"]) != frozenset(pairing["players"])
    for player_id in second["players"]:
        expect(pages[player_id]).to_have_url(f"{server}/play?match={second['match_id']}")
    expect(watcher.locator("#tournament-rounds h3")).to_have_count(2)
    shots(watcher, "standings")
