"""Named players in /play, in a real browser (issue "Players", item 6): signing in on the
local front end or with a token a front end's server handed over, rated quick play
between two players, a profile with totals and a rating chart drawn as SVG, and a
leaderboard, in English and Arabic."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.browser.conftest import DESKTOP
from tests.servers import ROOT, call, gunicorn

pytestmark = [pytest.mark.process, pytest.mark.long]  # processes; first: 30 s or more

Shots = Callable[[Page, str], Path]
NewContext = Callable[..., BrowserContext]
LISTED_AFTER = "1"
"""BASRA_LEADERBOARD_MIN_GAMES here: one rated match lists a player."""


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('players') / 'basra.sqlite3'}"


@pytest.fixture(scope="module")
def server(database: str) -> Iterator[str]:
    """`make serve`'s gunicorn on SQLite, listing players after one rated match."""
    with gunicorn(database, workers=2, BASRA_POLL_INTERVAL="0.1",
                  BASRA_LEADERBOARD_MIN_GAMES=LISTED_AFTER) as base:
        yield base


def rank(database: str) -> None:
    """One pass of `basra worker`, which ranks the leaderboards."""
    subprocess.run([sys.executable, "-m", "service.cli", "worker", "--passes", "1"], cwd=ROOT,
                   env={**os.environ, "DATABASE_URL": database,
                        "BASRA_LEADERBOARD_MIN_GAMES": LISTED_AFTER},
                   check=True, capture_output=True, timeout=60)


def sign_in(page: Page, player_id: str, name: str) -> None:
    """Sign in from the settings on the keyless local front end (the page mints)."""
    page.goto("/play")
    page.click("#settings summary")
    page.fill("#sign-in input[name=player_id]", player_id)
    page.fill("#sign-in input[name=name]", name)
    page.click("#sign-in button:not(.link)")
    expect(page.locator("#nav-profile")).to_be_visible()


def rated_win(server: str, winner: str, loser: str) -> None:
    """A rated match the loser resigns, made through the API by the (keyless) server."""
    _, created = call(server, "POST", "/v1/matches", {"rated": True, "players": [
        {"name": winner.title(), "player_id": winner}, {"name": loser.title(), "player_id": loser}]})
    status, _ = call(server, "POST", f"/v1/matches/{created['id']}/resign",
                     token=created["seats"][1]["token"])
    assert status == 200


def test_a_named_player_finds_their_match_in_their_profile(new_context: NewContext,
                                                           shots: Shots) -> None:
    """Signed in as amira, a match against the computer, resigned: the profile counts
    one match lost by resigning and lists it, linking to its table."""
    page = new_context().new_page()
    sign_in(page, "amira", "Amira")
    expect(page.locator("#new-match input[name=rated]")).to_be_enabled()
    expect(page.locator("#new-match input[name=name]")).to_have_value("Amira")
    page.click("#new-match button[value=bot]")
    expect(page.locator("#hand button.card").first).to_be_visible()
    match_id = page.url.split("match=")[1]
    page.click("#resign")
    expect(page.locator("#status .result")).to_be_visible()
    page.click("#nav-profile")
    expect(page.locator("#profile-name")).to_have_text("Amira")
    expect(page.locator("#profile-totals dd[data-total=matches]")).to_have_text("1")
    expect(page.locator("#profile-totals dd[data-total=losses]")).to_have_text("1")
    expect(page.locator("#profile-totals dd[data-total=resigned]")).to_have_text("1")
    expect(page.locator("#profile-matches li")).to_have_count(1)
    link = page.locator("#profile-matches li a")
    assert link.get_attribute("href") == f"/play?match={match_id}"
    expect(page.locator("#chart")).to_contain_text("No rated matches yet")
    shots(page, "profile")


def test_a_token_handed_over_by_a_front_ends_server_signs_the_page_in(
        new_context: NewContext, server: str) -> None:
    """The front end's server mints a token and sends its user to
    /play#player_token=...: the page plays as that player, and the token leaves the
    address (it is not kept in the history)."""
    status, minted = call(server, "POST", "/v1/players/fatma/tokens", {"name": "Fatma"})
    assert status == 201
    page = new_context().new_page()
    page.goto(f"/play#player_token={minted['token']}")
    expect(page.locator("#nav-profile")).to_have_attribute("href", "/play?player=fatma")
    assert "player_token" not in page.url
    page.click("#settings summary")
    expect(page.locator("#signed-in")).to_have_text("Playing as Fatma (fatma)")
    page.click("#new-match button[value=bot]")
    expect(page.locator("#table")).to_be_visible()
    _, view = call(server, "GET", f"/v1/matches/{page.url.split('match=')[1]}")
    assert view["seats"][0]["player_id"] == "fatma"
    page.goto("/play#player_token=not.a-token")
    expect(page.locator("#error")).to_be_visible()


def test_a_token_leaves_the_address_however_it_arrives(new_context: NewContext,
                                                       server: str) -> None:
    """A token handed to a page already open (only the fragment changes: no reload) and
    one in the query string both sign the page in and leave the address."""
    minted = {p: call(server, "POST", f"/v1/players/{p}/tokens", {"name": p.title()})[1]
              for p in ("hoda", "ziad")}
    page = new_context().new_page()
    page.goto("/play")
    expect(page.locator("#new-match")).to_be_visible()
    page.evaluate(f"location.hash = 'player_token={minted['hoda']['token']}'")
    expect(page.locator("#nav-profile")).to_have_attribute("href", "/play?player=hoda")
    assert "player_token" not in page.url
    assert "player_token" not in page.evaluate("JSON.stringify(history.state) + location.href")
    page.goto(f"/play?player_token={minted['ziad']['token']}")
    expect(page.locator("#nav-profile")).to_have_attribute("href", "/play?player=ziad")
    assert "player_token" not in page.url


def test_rated_quick_play_seats_two_named_players_together(new_context: NewContext,
                                                           server: str, shots: Shots) -> None:
    """Two players tick "rated" and press quick play: one table, rated, both seats
    vouched for; the resignation rates it, and each one's profile charts it."""
    pages = [new_context().new_page() for _ in range(2)]
    for page, (player_id, name) in zip(pages, [("noor", "Noor"), ("omar", "Omar")], strict=True):
        sign_in(page, player_id, name)
        page.check("#new-match input[name=rated]")
        page.click("#new-match button[value=quick]")
        expect(page.locator("#table")).to_be_visible()
    match_ids = [page.url.split("match=")[1] for page in pages]
    assert match_ids[0] == match_ids[1], "the second player sits at the first one's table"
    _, view = call(server, "GET", f"/v1/matches/{match_ids[0]}")
    assert view["rated"] and {s["player_id"] for s in view["seats"]} == {"noor", "omar"}
    for page in pages:
        expect(page.locator("#status .turn")).to_be_visible()
    omar = pages[1]
    omar.click("#resign")
    expect(omar.locator("#status .result")).to_be_visible()
    _, finished = call(server, "GET", f"/v1/matches/{match_ids[0]}")
    noor_after = next(c for c in finished["rating_changes"] if c["player_id"] == "noor")["after"]
    noor = pages[0]
    noor.goto("/play?player=noor")
    expect(noor.locator("#profile-ratings tbody tr")).to_have_count(1)
    # the display rating (1500 to start), a "?" after it while provisional (one match)
    assert noor_after["provisional"]
    expect(noor.locator("#profile-ratings tbody td").nth(1)).to_contain_text(
        f"{noor_after['display']}?")
    expect(noor.locator("#chart svg circle")).to_have_count(1)
    # the winner's rating went up (the figure isolated left to right: U+2066 .. U+2069)
    expect(noor.locator("#profile-matches li")).to_contain_text(re.compile(r"rated \u2066\+\d"))
    shots(noor, "profile-after-a-rated-win")


def test_the_chart_draws_each_rated_match(new_context: NewContext, server: str,
                                          shots: Shots) -> None:
    """Five rated results: five points on the line, each the display rating after that
    match, drawn higher for a higher rating."""
    for winner, loser in [("rania", "sami")] * 3 + [("sami", "rania")] * 2:
        rated_win(server, winner, loser)
    _, history = call(server, "GET", "/v1/players/rania/ratings/egyptian-v2")
    ratings = [p["display"] for p in history["points"]]
    page = new_context(DESKTOP).new_page()
    page.goto("/play?player=rania")
    dots = page.locator("#chart svg circle")
    expect(dots).to_have_count(5)
    heights = [float(dots.nth(i).get_attribute("cy") or "nan") for i in range(5)]
    # SVG's y grows downwards: a higher rating is a smaller cy
    assert [a > b for a, b in pairwise(heights)] == [a < b for a, b in pairwise(ratings)]
    points = (page.locator("#chart svg polyline").get_attribute("points") or "").split()
    assert len(points) == 5
    shots(page, "chart")


def test_the_leaderboard_lists_by_rating_around_me_and_in_arabic(
        new_context: NewContext, server: str, database: str, shots: Shots) -> None:
    """After the worker ranks the boards: the players by rating, highest first, their
    names linking to their profiles; "around me" names the signed-in player's place; in
    Arabic the page reads right to left."""
    for loser in ("badr", "dina", "emad"):
        rated_win(server, "layla", loser)
    rated_win(server, "badr", "dina")
    rank(database)
    _, board = call(server, "GET", "/v1/leaderboards/egyptian-v2?limit=100")
    page = new_context(DESKTOP).new_page()
    sign_in(page, "dina", "Dina")
    page.click("#nav-board")
    rows = page.locator("#board-table tbody tr")
    expect(rows).to_have_count(len(board["entries"]))
    assert [rows.nth(i).get_attribute("data-player") for i in range(rows.count())] == \
        [e["player_id"] for e in board["entries"]]
    first: dict[str, Any] = board["entries"][0]
    # each number as the API gives it, a "?" after a provisional one (a few matches each)
    assert [e["provisional"] for e in board["entries"]] == [True] * len(board["entries"])
    expect(rows.first.locator("td").nth(2)).to_have_text(f"\u2066{first['display']}?\u2069")
    expect(rows.first.locator("a")).to_have_attribute("href", f"/play?player={first['player_id']}")
    page.click("#board-me")
    expect(page.locator("#board-place")).to_contain_text("Dina: rank")
    expect(page.locator("#board-table tr.me")).to_have_count(1)
    shots(page, "leaderboard")
    page.click("#lang")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.locator("#board h1")).to_have_text("الترتيب")
    expect(page.locator("#board-table thead th").first).to_have_text("المركز")
    shots(page, "leaderboard-arabic")
    page.click("#board-table tbody tr a >> nth=0")
    expect(page.locator("#profile-name")).to_have_text(first["name"])
    expect(page.locator("#profile-totals dt").first).to_have_text("المباريات")
    shots(page, "profile-arabic")
