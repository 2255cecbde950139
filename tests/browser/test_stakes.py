"""Coins in /play, in a real browser (issue 57): a signed-in player sees their coins, and
two of them quick-play a staked table: each seat holds the stake, the table shows it,
and the winner's coins show the pot back in the lobby."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.browser.test_players import sign_in
from tests.servers import call, request

pytestmark = pytest.mark.process  # starts processes: the process stage

Shots = Callable[[Page, str], Path]
NewContext = Callable[..., BrowserContext]


def _grant(server: str, player: str, amount: int) -> None:
    status, body, _ = request(server, "POST", "/v1/transfers", {
        "currency": "COINS", "amount": amount, "to": player, "reason": "a test's grant"},
        headers={"Idempotency-Key": str(uuid.uuid4())})
    assert status == 201, body


def test_two_players_quick_play_a_staked_table(new_context: NewContext, server: str,
                                               shots: Shots) -> None:
    status, body = call(server, "PUT", "/v1/currencies/COINS", {"name": "Coins"})
    assert status in (200, 201), body
    _grant(server, "sami", 50)
    _grant(server, "rana", 30)
    pages = [new_context().new_page() for _ in range(2)]
    for page, (player_id, name) in zip(pages, [("sami", "Sami"), ("rana", "Rana")], strict=True):
        sign_in(page, player_id, name)
        page.goto("/play")
        expect(page.locator("#wallet")).to_contain_text("COINS")
        expect(page.locator("#stake-row")).to_be_visible()
        page.fill("#new-match input[name=stake]", "20")
        page.select_option("#new-match select[name=currency]", "COINS")
        page.click("#new-match button[value=quick]")
        expect(page.locator("#table")).to_be_visible()
        expect(page.locator("#status .stake")).to_have_text("Stake 20 COINS · pot 40")
    shots(pages[1], "a-staked-table")
    match_ids = [page.url.split("match=")[1] for page in pages]
    assert match_ids[0] == match_ids[1], "the same stake pairs the two at one table"
    _, view = call(server, "GET", f"/v1/matches/{match_ids[0]}")
    assert view["stake"]["amount"] == 20 and view["status"] == "active"
    rana = pages[1]
    rana.click("#resign")
    expect(rana.locator("#status .result")).to_be_visible()
    sami = pages[0]
    sami.goto("/play")
    expect(sami.locator("#wallet")).to_have_text("Your coins: 70 COINS")
    shots(sami, "the-winners-coins")
