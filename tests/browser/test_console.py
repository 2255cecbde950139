"""The console at /console in a real browser (issue 44): staff sign in with a staff key,
a moderator suspends a player and finds it in the audit log, a viewer is refused by the
API itself, an admin pauses a webhook; in English and Arabic (right to left)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.browser.conftest import DESKTOP
from tests.servers import ROOT, gunicorn

pytestmark = [pytest.mark.process, pytest.mark.long]  # processes; first: 30 s or more

NewContext = Callable[..., BrowserContext]
Shots = Callable[[Page, str], Path]
DOCS_SHOTS = os.environ.get("BASRA_CONSOLE_SCREENSHOTS")
"""Set to a folder (docs/) to write each page's screenshot there for the docs."""


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('console') / 'basra.sqlite3'}"


@pytest.fixture(scope="module")
def server(database: str) -> Iterator[str]:
    """gunicorn as `make serve` runs it, on the module's database."""
    with gunicorn(database, workers=2, BASRA_POLL_INTERVAL="0.1",
                  BASRA_WEBHOOKS_ALLOW_PRIVATE="1") as base:
        yield base


def basra(database: str, *args: str) -> str:
    """`basra ARGS` on the module's database: what it printed."""
    done = subprocess.run([str(Path(sys.executable).with_name("basra")), *args],
                          env={**os.environ, "DATABASE_URL": database}, cwd=ROOT,
                          capture_output=True, text=True, check=True, timeout=60)
    return done.stdout.strip()


@pytest.fixture(scope="module")
def keys(database: str, server: str) -> dict[str, str]:
    """The front end's server key and a staff key of each role."""
    made = {"server": basra(database, "keys", "create", "acme")}
    for role, name in (("viewer", "vera"), ("moderator", "mona"), ("admin", "adel")):
        made[role] = basra(database, "keys", "create", "acme", "--role", role, "--name", name)
    return made


def api(page: Page, method: str, path: str, body: object = None,
        headers: dict[str, str] | None = None) -> dict[str, object]:
    """A call from the page itself (its cookie, its origin): status and reason."""
    return page.evaluate("""async ([method, path, body, headers]) => {
        const r = await fetch(path, {method, headers: {"Content-Type": "application/json",
            ...headers}, body: body === null ? undefined : JSON.stringify(body)});
        const data = r.status === 204 ? {} : await r.json();
        return {status: r.status, reason: data.reason || null, body: data};
    }""", [method, path, body, headers or {}])


def audited(page: Page, server: str, key: str, action: str) -> None:
    """Wait until the audit log's newest entry is ``action``."""
    deadline = time.monotonic() + 15
    while True:
        entries = page.request.get(f"{server}/v1/audit?limit=1",
                                   headers={"X-API-Key": key}).json()["entries"]
        if entries and entries[0]["action"] == action:
            return
        assert time.monotonic() < deadline, f"{action} never reached the audit log"
        page.wait_for_timeout(50)


def sign_in(page: Page, key: str) -> None:
    page.goto("/console")
    page.fill("#sign-in input[name=key]", key)
    page.click("#sign-in button[type=submit]")
    expect(page.locator("#nav")).to_be_visible()
    expect(page.locator("#sign-in")).to_be_hidden()


def shot(page: Page, shots: Shots, name: str) -> None:
    shots(page, name)
    if DOCS_SHOTS:
        page.screenshot(path=str(Path(DOCS_SHOTS) / f"console-{name}.png"), full_page=True)


def test_a_moderator_suspends_and_the_audit_log_names_them(
        new_context: NewContext, server: str, keys: dict[str, str], shots: Shots) -> None:
    """Sign in as a moderator, find a player by the start of their id, suspend them,
    lift it, sign them out everywhere; the audit log lists each under staff:mona; the overview counts; Arabic lays the
    console out right to left; signing out ends the session."""
    page = new_context(viewport=DESKTOP).new_page()
    r = page.request.post(f"{server}/v1/players/nadia/tokens", data={"ttl_seconds": 60},
                          headers={"X-API-Key": keys["server"]})
    assert r.status == 201
    sign_in(page, keys["moderator"])
    expect(page.locator("#who")).to_contain_text("mona (moderator) at acme")
    expect(page.locator("[data-figure=players_online] b")).to_have_text("0")
    expect(page.locator("#started-by-hour rect")).to_have_count(12)
    shot(page, shots, "overview")
    page.click("#nav a[href='#/players']")
    page.fill("input[name=prefix]", "nad")
    page.click("form.inline button[type=submit]")
    page.click("a[href='#/players/nadia']")
    expect(page.locator("#page h1")).to_have_text("nadia")
    shot(page, shots, "player")
    page.fill("#suspend-reason", "abuse in chat")
    for label, action in (("Suspend", "player.suspended"),
                          ("Lift the suspension", "player.suspension_lifted"),
                          ("Sign out everywhere", "player.signed_out")):
        page.evaluate("document.getElementById('notice').hidden = true")
        page.click(f"button[data-role=moderator]:has-text('{label}')")
        expect(page.locator("#notice")).to_have_text("Done.")
        audited(page, server, keys["server"], action)  # done, before the next click
    page.click("#nav a[href='#/audit']")
    rows = page.locator("#page tbody tr")
    expect(rows.nth(0)).to_contain_text("player.signed_out")
    expect(rows.nth(1)).to_contain_text("player.suspension_lifted")
    row = rows.nth(2)
    expect(row).to_contain_text("staff:mona")
    expect(row).to_contain_text("player.suspended")
    shot(page, shots, "audit")
    page.click("#language")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.locator("#nav a[href='#/audit']")).to_have_text("سجل التدقيق")
    shot(page, shots, "audit-arabic")
    page.click("#language")
    held = {c["name"]: c for c in page.context.cookies()}["basra_staff"]
    assert held["httpOnly"] and held["sameSite"] == "Strict"
    page.click("#sign-out")
    expect(page.locator("#sign-in")).to_be_visible()
    deadline = time.monotonic() + 10  # the browser's cookie store follows the answer
    while "basra_staff" in {c["name"] for c in page.context.cookies()}:
        assert time.monotonic() < deadline, "signing out left the session's cookie"
        page.wait_for_timeout(50)
    replayed = page.request.get(f"{server}/v1/audit",
                                headers={"Cookie": f"basra_staff={held['value']}"})
    assert replayed.status == 401 and replayed.json()["reason"] == "staff_session_invalid"


def test_a_viewer_reads_and_the_api_refuses_them_a_change(
        new_context: NewContext, server: str, keys: dict[str, str], shots: Shots) -> None:
    """A viewer sees the player with the suspension's button disabled, and
    the API refuses it even with the session's CSRF token (403 staff_role_too_low);
    without the token a change is 403 csrf_refused."""
    page = new_context(viewport=DESKTOP).new_page()
    page.request.post(f"{server}/v1/players/omar/tokens", data={"ttl_seconds": 60},
                      headers={"X-API-Key": keys["server"]})
    sign_in(page, keys["viewer"])
    page.goto("/console#/players/omar")
    expect(page.locator("#page h1")).to_have_text("omar")
    expect(page.locator("body")).to_have_attribute("data-role", "viewer")
    csrf = api(page, "GET", "/v1/staff/session")["body"]["csrf_token"]  # type: ignore[index]
    refused = api(page, "PUT", "/v1/players/omar/suspension", {"reason": "x"},
                  {"X-CSRF-Token": str(csrf)})
    assert (refused["status"], refused["reason"]) == (403, "staff_role_too_low")
    refused = api(page, "PUT", "/v1/players/omar/suspension", {"reason": "x"})
    assert (refused["status"], refused["reason"]) == (403, "csrf_refused")
    expect(page.locator("button[data-role=moderator]:has-text('Suspend')")).to_be_disabled()


def test_an_admin_pauses_a_webhook_creates_a_tournament_and_a_staff_key(
        new_context: NewContext, server: str, keys: dict[str, str], shots: Shots) -> None:
    """An admin pauses a webhook and resumes it, creates a tournament and cancels it,
    makes a staff key that signs its holder in and revokes it (ending that session),
    rotates the player-token secret, exports and erases a player, and sends again what
    failed, from the console's pages; each is in the audit log."""
    page = new_context(viewport=DESKTOP).new_page()
    r = page.request.post(f"{server}/v1/webhooks", headers={"X-API-Key": keys["server"]},
                          data={"url": "http://127.0.0.1:9/hook", "events": ["match.finished"]})
    assert r.status == 201
    sign_in(page, keys["admin"])
    page.click("#nav a[href='#/webhooks']")
    page.click("button:has-text('Pause')")
    expect(page.locator("#page tbody tr").first).to_contain_text("paused")
    shot(page, shots, "webhooks")
    page.click("button:has-text('Resume')")
    expect(page.locator("#page tbody tr").first).to_contain_text("sending")
    page.click("#nav a[href='#/tournaments']")
    page.fill("#t-name", "Friday cup")
    page.click("button:has-text('Create')")
    expect(page.locator("#page tbody")).to_contain_text("Friday cup")
    shot(page, shots, "tournaments")
    page.locator("#page tr", has_text="Friday cup").locator("button:has-text('Cancel')").click()
    expect(page.locator("#page tr", has_text="Friday cup")).to_contain_text("cancelled")
    page.click("#nav a[href='#/keys']")
    page.fill("#staff-name", "sami")
    page.select_option("#staff-role", "moderator")
    page.click("#page form:has(#staff-name) button")
    expect(page.locator("#made-key")).to_contain_text("bs_")
    made = page.locator("#made-key").inner_text().rsplit(" ", 1)[-1]
    shot(page, shots, "keys")
    other = new_context(viewport=DESKTOP).new_page()  # the new key signs sami in
    sign_in(other, made)
    expect(other.locator("#who")).to_contain_text("sami (moderator) at acme")
    page.reload()  # drawn again: sami's key listed, and revoked
    page.locator("#page tr", has_text="sami").locator("button:has-text('Revoke')").click()
    expect(page.locator("#page tr", has_text="sami")).to_have_count(0)
    other.reload()  # sami's session ended with the key
    expect(other.locator("#sign-in")).to_be_visible()
    page.fill("#secret-grace", "60")
    page.click("button:has-text('Rotate')")
    expect(page.locator("#made-key")).to_contain_text("The new secret (shown only now): ")
    # a player's data exported, then the player erased (after the page asks)
    r = page.request.post(f"{server}/v1/players/zaid/tokens", headers={"X-API-Key": keys["server"]},
                          data={"ttl_seconds": 60})
    assert r.status == 201
    page.goto("/console#/players/zaid")
    # the player's wallet: an admin adjusts it, and its ledger shows the adjustment
    r = page.request.put(f"{server}/v1/currencies/COINS", headers={"X-API-Key": keys["server"]},
                         data={"name": "Coins"})
    assert r.status == 201
    page.reload()
    page.fill("#adjust-amount", "40")
    page.fill("#adjust-reason", "lost in an outage")
    page.click("button[data-role=admin]:has-text('Adjust the balance')")
    expect(page.locator("#notice")).to_have_text("Done.")
    expect(page.locator("#page table", has_text="COINS (Coins)")).to_contain_text("40")
    expect(page.locator("#page table", has_text="lost in an outage")).to_contain_text("+40")
    audited(page, server, keys["server"], "wallet.adjusted")
    with page.expect_download() as download:
        page.click("button:has-text('Export (JSON)')")
    exported = json.loads(Path(download.value.path()).read_text())
    assert "zaid" in json.dumps(exported)
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("button:has-text('Erase')")
    expect(page.locator("#page h1")).to_have_text("Players")
    audited(page, server, keys["server"], "player.erased")
    erased = page.request.get(f"{server}/v1/audit?limit=1",
                              headers={"X-API-Key": keys["server"]}).json()["entries"][0]
    assert erased["actor"] == "staff:adel" and erased["subject"].startswith("player:erased-")
    page.click("#nav a[href='#/webhooks']")  # what failed since a time, sent again
    page.locator("#page tbody a").first.click()
    page.click("button:has-text('Send again')")
    expect(page.locator("#notice")).to_have_text("Done.")
    actions = [e["action"] for e in page.request.get(
        f"{server}/v1/audit", headers={"X-API-Key": keys["server"]}).json()["entries"]]
    for done in ("secret.rotated", "player.erased", "webhook.recovered", "keys.revoked"):
        assert done in actions, done


def test_a_report_is_resolved_in_place_and_its_match_verified(
        new_context: NewContext, server: str, keys: dict[str, str], shots: Shots) -> None:
    """A player reports the other seat of a finished match; a moderator opens the queue,
    reads the evidence (the play by play), dismisses it in place; the match's page shows
    every round's deck and the deal verified against its commitment in the page, and
    voids the result: the match is marked voided and offers no second void."""
    page = new_context(viewport=DESKTOP).new_page()
    server_key = {"X-API-Key": keys["server"]}
    tokens = {}
    for player in ("rana", "sami"):
        r = page.request.post(f"{server}/v1/players/{player}/tokens", headers=server_key,
                              data={"ttl_seconds": 600})
        tokens[player] = r.json()["token"]
    r = page.request.post(f"{server}/v1/matches", headers=server_key, data={
        "players": [{"name": "Rana", "player_id": "rana"}, {"name": "Sami", "player_id": "sami"}]})
    match = r.json()
    seat = {"X-API-Key": keys["server"], "Authorization": f"Bearer {match['seats'][0]['token']}"}
    r = page.request.post(f"{server}/v1/matches/{match['id']}/resign", headers=seat)
    assert r.status == 200, r.text()
    r = page.request.post(f"{server}/v1/reports", data={
        "match_id": match["id"], "player_id": "sami", "reason": "cheating", "text": "he knew"},
        headers={"X-API-Key": keys["server"], "Authorization": f"Bearer {tokens['rana']}"})
    assert r.status == 201, r.text()
    sign_in(page, keys["moderator"])
    page.click("#nav a[href='#/reports']")
    page.locator("#page tbody a").first.click()
    expect(page.locator("#page blockquote")).to_have_text("he knew")
    shot(page, shots, "report")
    page.select_option("#resolve-action", "dismiss")
    page.click("button:has-text('Resolve')")
    expect(page.locator("#notice")).to_have_text("Done.")
    expect(page.locator("#resolution")).to_contain_text("dismiss by")  # read, not JSON
    page.click(f"#page a[href='#/matches/{match['id']}']")
    expect(page.locator("#verdict")).to_have_attribute("data-ok", "true")
    expect(page.locator("#decks")).to_contain_text("1: ")  # round 1's 52 cards, dealt
    assert len(page.locator("#decks").inner_text().split(": ", 1)[1].split()) == 52
    shot(page, shots, "match")
    page.fill("#void-reason", "collusion")
    page.click("button:has-text('Void the result')")
    expect(page.locator("#notice")).to_have_text("Done.")
    voided = page.request.get(f"{server}/v1/matches/{match['id']}", headers=server_key).json()
    assert voided["voided"] is not None
    expect(page.locator("#voided")).to_contain_text("collusion")  # marked, no second void
    expect(page.locator("button:has-text('Void the result')")).to_have_count(0)
