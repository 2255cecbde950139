"""The reference client at /play, in a real browser: a person can start, play, follow,
reload, share, verify and read the table in Arabic, with no network but the service."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from service.engine.bots import LADDER, SEARCHING
from service.engine.cards import DECK
from service.engine.shuffle import deck_for_round
from service.matches.enums import EndReason
from tests.browser.conftest import DESKTOP, PHONE
from tests.servers import ROOT, call, gunicorn

pytestmark = [pytest.mark.process, pytest.mark.long]  # processes; first: 30 s or more

Shots = Callable[[Page, str], Path]
NewContext = Callable[..., BrowserContext]
ENABLED_CARD = "#hand button.card:not([disabled])"


def seated_page(context: BrowserContext, match_id: str, seat: int, token: str) -> Page:
    """A page that already holds a seat's token, as after creating the match in it."""
    page = context.new_page()
    page.goto("/play")
    page.evaluate("([key, value]) => localStorage.setItem(key, value)",
                  [f"basra.seat.{match_id}", json.dumps({"seat": seat, "token": token})])
    page.goto(f"/play?match={match_id}")
    return page


def start_against_bot(page: Page, level: str = "greedy", **house: str) -> str:
    """Fill the lobby form and start a match against the computer; the match id."""
    page.goto("/play")
    page.fill("#new-match input[name=name]", "alice")
    page.select_option("#new-match select[name=level]", level)
    for name, value in house.items():
        page.fill(f"#new-match input[name={name}]", value)
    page.click("#new-match button[value=bot]")
    expect(page.locator(ENABLED_CARD).first).to_be_visible()
    return page.url.split("match=")[1]


def play_one(page: Page) -> None:
    """Play the first playable card (and its first capture, when asked to choose)."""
    page.locator(ENABLED_CARD).first.click()
    if page.locator("#choices:not([hidden])").count():
        page.locator("#choices button.choice").first.click()


def test_a_whole_match_against_the_computer(new_context: NewContext, server: str,
                                            shots: Shots) -> None:
    """From the lobby to the end against the greedy bot, by clicking cards."""
    page = new_context().new_page()
    page.goto("/play")
    expect(page.locator("#new-match select[name=variant] option")).to_have_count(4)
    shots(page, "lobby")
    match_id = start_against_bot(page)
    shots(page, "table")
    for _ in range(400):
        if page.locator("#status .result").count():
            break
        expect(page.locator(f"{ENABLED_CARD}, #status .result").first).to_be_visible()
        if page.locator("#status .result").count():
            break
        play_one(page)
    _, view = call(server, "GET", f"/v1/matches/{match_id}")
    assert view["status"] == "finished"
    assert view["rounds"], "a whole match has round score sheets"
    status = page.locator("#status").inner_text()
    for score in view["scores"]:
        assert str(score) in status
    expect(page.locator("#status .result")).to_contain_text("won")
    page.locator("#sheet summary").click()
    expect(page.locator("#sheet tbody tr")).to_have_count(len(view["rounds"]))
    expect(page.locator("#rematch")).to_be_visible()
    shots(page, "finished")


def test_two_browsers_share_a_table(new_context: NewContext, server: str, shots: Shots) -> None:
    """Alice opens a table and shares its link; Bob opens the link in his own browser,
    sits down, and each sees the other's moves live; Bob resigns and both see the end."""
    alice = new_context().new_page()
    alice.goto("/play")
    alice.fill("#new-match input[name=name]", "alice")
    alice.click("#new-match button[value=table]")
    expect(alice.locator("#share")).to_be_visible()
    link = alice.locator("#share-link").input_value()
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/play\?match=[\w-]+", link)
    shots(alice, "alice-waiting")

    bob = new_context(DESKTOP).new_page()
    bob.goto(link)
    expect(bob.locator("#join")).to_be_visible()
    shots(bob, "bob-invited")
    bob.fill("#join-form input[name=name]", "bob")
    bob.click("#join-form button")
    # alice's table comes alive without a reload: she leads
    expect(alice.locator(ENABLED_CARD).first).to_be_visible()
    expect(bob.locator("#hand .card")).to_have_count(4)

    match_id = link.split("match=")[1]
    for turn in range(6):
        mover, watcher = (alice, bob) if turn % 2 == 0 else (bob, alice)
        expect(mover.locator(ENABLED_CARD).first).to_be_visible()
        card = mover.locator(ENABLED_CARD).first.get_attribute("data-card")
        play_one(mover)
        # the other browser hears of it through the events stream
        expect(watcher.locator("#last-move")).to_contain_text(f"played {card}")
    _, log = call(server, "GET", f"/v1/matches/{match_id}/moves")
    assert [m["kind"] for m in log["moves"]].count("play") == 6
    shots(alice, "alice-playing")
    shots(bob, "bob-playing")

    bob.click("#resign")
    expect(alice.locator("#status .result")).to_contain_text("alice")
    expect(bob.locator("#status .result")).to_contain_text("resignation")
    shots(alice, "alice-won")


def test_a_card_with_several_captures_asks_which(new_context: NewContext, server: str,
                                                  shots: Shots) -> None:
    """With `capture.mode: choose`, clicking a card that can take different groups shows
    each option, lights up its floor cards, and plays the one picked."""
    hand, rival, floor = ["5S", "KC", "QD", "9H"], ["KD", "QC", "8S", "6D"], ["2C", "3D", "5H", "9C"]
    used = set(hand + rival + floor)
    deck = hand + rival + floor + [c for c in map(str, DECK) if c not in used]
    _, created = call(server, "POST", "/v1/matches", {
        "rules": {"capture": {"mode": "choose"}}, "decks": [deck],
        "players": [{"name": "alice"}, {"bot": "greedy"}]})
    match_id, token = created["id"], created["seats"][0]["token"]
    _, view = call(server, "GET", f"/v1/matches/{match_id}", token=token)
    options = [m["capture"] for m in view["legal_moves"] if m["card"] == "5S"]
    assert len(options) >= 3

    page = seated_page(new_context(), match_id, 0, token)
    page.click("#hand [data-card='5S']")
    choices = page.locator("#choices button.choice")
    expect(choices).to_have_count(len(options))
    pick = next(o for o in options if len(o) == 2)  # 2C + 3D
    choice = page.locator(f"#choices button.choice[data-capture='{' '.join(pick)}']")
    choice.hover()
    lit = page.locator("#floor .card.hl")
    expect(lit).to_have_count(2)
    assert sorted(lit.evaluate_all("els => els.map(e => e.dataset.card)")) == sorted(pick)
    shots(page, "choosing")
    choice.click()
    expect(page.locator("#last-move")).to_contain_text("played 5S")
    _, log = call(server, "GET", f"/v1/matches/{match_id}/moves")
    assert log["moves"][0]["card"] == "5S"
    assert sorted(log["moves"][0]["captured"]) == sorted(pick)
    expect(page.locator("#floor [data-card='5H']")).to_be_visible()  # left on the floor
    shots(page, "chosen")


def test_a_reload_keeps_the_seat(new_context: NewContext, server: str, shots: Shots) -> None:
    """The seat's token lives in the browser's storage: a reload mid-match shows the same
    hand and the match goes on."""
    page = new_context().new_page()
    match_id = start_against_bot(page)
    for _ in range(3):
        play_one(page)
        expect(page.locator(ENABLED_CARD).first).to_be_visible()
    before = page.locator("#hand .card").evaluate_all("els => els.map(e => e.dataset.card)")
    page.reload()
    expect(page.locator(ENABLED_CARD).first).to_be_visible()
    after = page.locator("#hand .card").evaluate_all("els => els.map(e => e.dataset.card)")
    assert after == before and after
    shots(page, "reloaded")
    _, view = call(server, "GET", f"/v1/matches/{match_id}")
    version = view["version"]
    play_one(page)
    expect(page.locator("#last-move")).to_contain_text("alice")
    _, view = call(server, "GET", f"/v1/matches/{match_id}")
    assert view["version"] > version


def finished_match(server: str) -> tuple[str, str]:
    """A match against the random bot played to the end through the API: (id, token)."""
    _, created = call(server, "POST", "/v1/matches", {
        "rules": {"target_score": 40}, "players": [{"name": "alice"}, {"bot": "random"}]})
    match_id, token = created["id"], created["seats"][0]["token"]
    for _ in range(500):
        _, view = call(server, "GET", f"/v1/matches/{match_id}", token=token)
        if view["status"] == "finished":
            return match_id, token
        call(server, "POST", f"/v1/matches/{match_id}/moves", view["legal_moves"][0], token)
    raise AssertionError("the match did not end")


def test_the_deal_is_verified_in_the_browser(new_context: NewContext, server: str,
                                             shots: Shots) -> None:
    """At the end the revealed seed checks against the commitment and re-deals every
    round; a tampered seed fails."""
    match_id, token = finished_match(server)
    _, log = call(server, "GET", f"/v1/matches/{match_id}/moves")
    rounds = {m["round"] for m in log["moves"] if m["kind"] == "play"}
    page = seated_page(new_context(), match_id, 0, token)
    expect(page.locator("#verify")).to_be_visible()
    expect(page.locator("#seed")).to_have_value(log["seed"])
    expect(page.locator("#commitment")).to_have_text(log["commitment"])
    page.click("#verify-button")
    expect(page.locator("#verdict")).to_have_attribute("data-verdict", "ok")
    expect(page.locator("#verify-result li.ok")).to_have_count(1 + len(rounds))
    shots(page, "verified")

    tampered = log["seed"][:-1] + ("0" if log["seed"][-1] != "0" else "1")
    page.fill("#seed", tampered)
    page.click("#verify-button")
    expect(page.locator("#verdict")).to_have_attribute("data-verdict", "fail")
    expect(page.locator("#verify-result li.bad").first).to_contain_text("does not equal")
    # another seed deals other cards: the rounds fail too, not only the commitment
    expect(page.locator("#verify-result li.bad")).to_have_count(1 + len(rounds))
    shots(page, "tampered")


def test_the_browser_derives_the_same_decks_as_the_engine(new_context: NewContext) -> None:
    """Web Crypto's HMAC-SHA256 and the page's Fisher-Yates give the engine's decks."""
    page = new_context().new_page()
    page.goto("/play")
    seed = "00" * 31 + "07"
    decks = page.evaluate("""async (seed) => {
        const v = await import('/play/verify.js');
        const bytes = v.hexToBytes(seed);
        return [await v.deckForRound(bytes, 1), await v.deckForRound(bytes, 7)];
    }""", seed)
    expected = [[str(c) for c in deck_for_round(bytes.fromhex(seed), k)] for k in (1, 7)]
    assert decks == expected


def test_arabic_reads_right_to_left(new_context: NewContext, shots: Shots) -> None:
    """The language switch turns the page to Arabic, laid out right to left, and the
    choice is remembered."""
    page = new_context().new_page()
    start_against_bot(page)
    page.click("#lang")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.locator("html")).to_have_attribute("lang", "ar")
    expect(page.locator("#resign")).to_have_text("انسحب")
    expect(page.locator("#status")).to_contain_text("الدور")
    # mirrored: the stock sits right of the floor, the first hand card rightmost
    stock, floor = page.locator("#stock").bounding_box(), page.locator("#floor").bounding_box()
    assert stock and floor and stock["x"] > floor["x"]
    cards = page.locator("#hand .card")
    first, last = cards.first.bounding_box(), cards.last.bounding_box()
    assert first and last and first["x"] > last["x"]
    shots(page, "arabic")
    page.reload()
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    page.click("#lang")
    expect(page.locator("html")).to_have_attribute("dir", "ltr")


def test_every_word_of_the_page_has_its_arabic(new_context: NewContext) -> None:
    """Every English string has an Arabic one in Arabic letters (but the switch back to
    English and the rating symbols), and so has every bot level and every way a match
    can end, whose words the page looks up by name."""
    page = new_context().new_page()
    page.goto("/play")
    tables = page.evaluate("async () => (await import('/play/i18n.js')).STRINGS")
    english, arabic = tables["en"], tables["ar"]
    named = [f"level_{level}" for level in (*LADDER, *SEARCHING)] + [
        f"end_{reason}" for reason in EndReason]
    assert not [key for key in named if key not in english or key not in arabic]
    latin = {"other_language", "col_mu", "col_sigma", "end_target_score"}
    assert not [(key, arabic.get(key)) for key in english if key not in latin
                and not re.search("[\u0600-\u06ff]", arabic.get(key) or "")]


def test_play_the_computer_with_no_name_typed(new_context: NewContext, server: str) -> None:
    """"Play the computer" with the name left empty starts the match, the person seated
    as the default name (in the page's language)."""
    page = new_context().new_page()
    page.goto("/play")
    expect(page.locator("#new-match input[name=name]")).to_have_value("")
    expect(page.locator("#new-match input[name=name]")).to_have_attribute(
        "placeholder", "Player")
    page.select_option("#new-match select[name=level]", "greedy")
    page.click("#new-match button[value=bot]")
    expect(page.locator(ENABLED_CARD).first).to_be_visible()
    _, view = call(server, "GET", f"/v1/matches/{page.url.split('match=')[1]}")
    assert view["seats"][0]["name"] == "Player"


def test_a_move_refused_for_now_is_sent_again_by_itself(new_context: NewContext,
                                                         server: str) -> None:
    """Three 429s with Retry-After: 1 in a row (a spent budget): the page says it waits,
    sends the same move again after each (the same Idempotency-Key), and the fourth try
    plays it; the table goes on."""
    page = new_context().new_page()
    match_id = start_against_bot(page)
    keys: list[str] = []

    def refuse_three(route: Any) -> None:
        keys.append(route.request.headers["idempotency-key"])
        if len(keys) <= 3:
            route.fulfill(status=429, headers={"Retry-After": "1"},
                          content_type="application/problem+json",
                          body=json.dumps({"title": "Too Many Requests", "status": 429,
                                           "reason": "rate_limited",
                                           "detail": "try again in 1 s"}))
        else:
            route.continue_()

    page.route("**/v1/matches/*/moves", refuse_three)
    _, before = call(server, "GET", f"/v1/matches/{match_id}")
    play_one(page)
    expect(page.locator("#error")).to_contain_text("your move goes again")
    expect(page.locator(ENABLED_CARD).first).to_be_visible()
    expect(page.locator("#error")).to_be_hidden()
    assert len(keys) == 4 and len(set(keys)) == 1, keys
    _, after = call(server, "GET", f"/v1/matches/{match_id}")
    assert after["version"] > before["version"]


def test_the_api_docs_render_offline(new_context: NewContext, server: str,
                                     shots: Shots) -> None:
    """/docs draws every operation of the contract (the webhooks' too) from the service's
    own files."""
    _, spec = call(server, "GET", "/openapi.json")
    operations = sum(len([m for m in ops if m in ("get", "post", "put", "delete")])
                     for ops in [*spec["paths"].values(), *spec["webhooks"].values()])
    page = new_context(DESKTOP).new_page()
    page.goto("/docs")
    expect(page.locator(".opblock")).to_have_count(operations)
    expect(page.locator(".opblock-summary-path").first).to_be_visible()
    shots(page, "docs")


def test_a_service_that_asks_for_a_key_gets_one_from_settings(
    browser: Browser, tmp_path: Path, shots: Shots,
) -> None:
    """With BASRA_API_KEYS=required the lobby says what is missing; the key typed into
    Settings is sent from then on (and kept for the next visit)."""
    database = f"sqlite:///{tmp_path / 'keyed.sqlite3'}"
    with gunicorn(database, workers=1, BASRA_API_KEYS="required") as base:
        made = subprocess.run([sys.executable, "-m", "service.cli", "keys", "create", "web"],
                              env={**os.environ, "DATABASE_URL": database}, cwd=ROOT,
                              check=True, capture_output=True, text=True).stdout
        key = next(word for word in made.split() if word.startswith("bk_"))
        context = browser.new_context(base_url=base, viewport=PHONE)
        try:
            page = context.new_page()
            page.goto("/play")
            expect(page.locator("#error")).to_contain_text("missing_api_key")
            page.click(".settings summary")
            page.fill("#api-key", key)
            page.locator("#api-key").dispatch_event("change")
            expect(page.locator("#error")).to_be_hidden()
            expect(page.locator("#new-match select[name=variant] option")).to_have_count(4)
            match_id = start_against_bot(page)
            shots(page, "keyed")
            page.reload()
            expect(page.locator(ENABLED_CARD).first).to_be_visible()
        finally:
            context.close()
    assert match_id


def test_a_start_before_the_variants_arrive_waits_for_them(new_context: NewContext) -> None:
    """A slow network: the player clicks "Play the computer" before the list of variants
    has arrived; the match starts once it has (no error)."""
    page = new_context().new_page()
    held: list[Any] = []
    page.route("**/v1/variants", lambda route: held.append(route))
    page.goto("/play")
    page.fill("#new-match input[name=name]", "alice")
    page.click("#new-match button[value=bot]")
    page.wait_for_timeout(300)
    assert len(held) == 1 and page.locator("#error").is_hidden()
    held[0].continue_()
    expect(page.locator(ENABLED_CARD).first).to_be_visible()
    expect(page.locator("#error")).to_be_hidden()
