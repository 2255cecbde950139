"""Friends in /play, in a real browser (issue 43, item 6): a friends list with presence,
a challenge sent and accepted, the table's phrases, and a party of two seated by 2 v 2
quick play, in English and Arabic."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.browser.conftest import DESKTOP
from tests.browser.test_players import sign_in
from tests.servers import call

pytestmark = pytest.mark.process  # starts processes: the process stage

Shots = Callable[[Page, str], Path]
NewContext = Callable[..., BrowserContext]


def friends_page(page: Page) -> None:
    page.click("#nav-friends")
    expect(page.locator("#friends")).to_be_visible()


def befriend(one: Page, other: Page, other_id: str, one_id: str) -> None:
    """``one`` asks, ``other`` accepts on their friends page."""
    friends_page(one)
    one.fill("#add-friend input[name=other]", other_id)
    one.click("#add-friend button")
    expect(one.locator(f"#friend-list [data-player={other_id}]")).to_contain_text(
        "asked, waiting")
    friends_page(other)
    other.click(f"#friend-list [data-player={one_id}] button[data-action=accept]")
    expect(other.locator(f"#friend-list [data-player={one_id}] .presence")).to_have_attribute(
        "data-presence", "online")


def test_friends_see_each_other_challenge_and_chat(new_context: NewContext, server: str,
                                                   shots: Shots) -> None:
    nadia = new_context(viewport=DESKTOP).new_page()
    omar = new_context(viewport=DESKTOP).new_page()
    sign_in(nadia, "nadia", "Nadia")
    sign_in(omar, "omar", "Omar")
    befriend(nadia, omar, "omar", "nadia")
    # nadia hears omar's acceptance on her stream, and sees him online
    expect(nadia.locator("#friend-list [data-player=omar] .presence")).to_have_attribute(
        "data-presence", "online")
    shots(nadia, "friends-online")
    nadia.click("#friend-list [data-player=omar] button[data-action=challenge_friend]")
    challenge = omar.locator("#challenge-list li")
    expect(challenge).to_contain_text("nadia challenges you")
    shots(omar, "challenged")
    challenge.locator("button[data-action=accept]").click()
    # both are taken to the new match: omar by his answer, nadia by her stream
    expect(omar.locator("#table")).to_be_visible()
    expect(nadia.locator("#table")).to_be_visible()
    assert nadia.url == omar.url
    expect(nadia.locator("#hand button.card").first).to_be_visible()
    nadia.click("#chat-phrases button[data-phrase=good_luck]")
    expect(omar.locator("#chat-lines")).to_contain_text("Nadia: Good luck!")
    omar.click("#lang")  # Arabic: the phrase in Arabic, the page right to left
    expect(omar.locator("#chat-lines")).to_contain_text("بالتوفيق!")
    expect(omar.locator("html")).to_have_attribute("dir", "rtl")
    omar.click("#chat-phrases button[data-phrase=thanks]")
    expect(nadia.locator("#chat-lines")).to_contain_text("Omar: Thanks!")
    shots(omar, "chat-arabic")
    # a friend in a match shows as playing, with a link to watch it
    friends_page(omar)
    expect(omar.locator("#friend-list [data-player=nadia] .presence")).to_have_attribute(
        "data-presence", "playing")
    expect(omar.locator("#friend-list [data-player=nadia] a", has_text="شاهد")).to_be_visible()
    shots(omar, "friends-arabic")


def test_a_party_of_two_plays_two_against_two(new_context: NewContext, server: str,
                                              shots: Shots) -> None:
    leila = new_context(viewport=DESKTOP).new_page()
    karim = new_context(viewport=DESKTOP).new_page()
    sign_in(leila, "leila", "Leila")
    sign_in(karim, "karim", "Karim")
    befriend(leila, karim, "karim", "leila")
    friends_page(leila)
    leila.click("#friend-list [data-player=karim] button[data-action=party_with]")
    invite = karim.locator("#party-invites li")
    expect(invite).to_contain_text("leila invites you")
    invite.locator("button[data-action=join_party]").click()
    expect(karim.locator("#party")).to_be_visible()
    friends_page(leila)
    expect(leila.locator("#party-members [data-member=karim]")).to_have_attribute(
        "data-status", "joined")
    shots(leila, "party")
    leila.click("#party-play")
    expect(leila.locator("#table")).to_be_visible()
    for alone in ("sami", "dina"):  # two players alone fill the other team
        _, minted = call(server, "POST", f"/v1/players/{alone}/tokens", {"name": alone.title()})
        status, seated = call(server, "POST", "/v1/matches/quick", {"variant": "egyptian-4p"},
                              token=minted["token"])
        assert status == 201, seated
    # karim is taken to the table by his stream (party.seated), sitting opposite leila
    expect(karim.locator("#table")).to_be_visible()
    expect(karim.locator("#hand button.card").first).to_be_visible()
    status, view = call(server, "GET", f"/v1/matches/{seated['id']}")
    assert status == 200 and view["status"] == "active"
    assert [s["player_id"] for s in view["seats"]] == ["leila", "sami", "karim", "dina"]
    shots(karim, "two-against-two")
