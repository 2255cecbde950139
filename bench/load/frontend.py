"""The front end's server in the load test: it holds the server key (mints the players'
tokens, schedules tournaments), receives every webhook and keeps what the players of one
front end would know of each other (who is online, who is idle, the tournaments open)."""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

import gevent
import requests
from gevent.pywsgi import WSGIServer
from standardwebhooks.webhooks import Webhook as Verifier

from bench.load.habits import Mix


class Receiver:
    """The webhook endpoint: counts messages by ``webhook-id`` (a message tried again
    counted apart, as a duplicate, with when it came), checks each signature and notes its
    lag (arrival less the message's ``timestamp``)."""

    def __init__(self) -> None:
        self.seen: dict[str, float] = {}
        """``webhook-id`` -> when its first delivery arrived (``time.time()``)."""
        self.repeats: list[tuple[str, float]] = []
        """(``webhook-id``, arrival) of each delivery after the first."""
        self.duplicates = 0
        self.bad_signatures = 0
        self.kinds: Counter[str] = Counter()
        self.lags: list[float] = []
        """Seconds from each first delivery's ``timestamp`` to its arrival, in order."""
        self.verifier: Verifier | None = None
        self._lock = threading.Lock()

    @property
    def messages(self) -> int:
        return len(self.seen)

    def app(self, environ: dict[str, Any], start: Callable[..., Any]) -> Iterable[bytes]:
        """The WSGI application: 204 for every message (a bad signature is counted, not
        refused: a refusal would only make the worker try again)."""
        body = environ["wsgi.input"].read()
        headers = {k[5:].replace("_", "-").lower(): v for k, v in environ.items()
                   if k.startswith("HTTP_WEBHOOK_")}
        arrived = time.time()
        try:
            payload = (self.verifier.verify(body, headers) if self.verifier
                       else json.loads(body))
        except Exception:  # noqa: BLE001 - any failure to verify is one bad signature
            payload = None
        with self._lock:
            if payload is None:
                self.bad_signatures += 1
            elif headers.get("webhook-id") in self.seen:
                self.duplicates += 1
                self.repeats.append((headers.get("webhook-id", ""), arrived))
            else:
                self.seen[headers.get("webhook-id", "")] = arrived
                self.kinds[payload.get("type", "?")] += 1
                stamp = payload.get("timestamp")
                if stamp:
                    self.lags.append(arrived - datetime.fromisoformat(stamp).timestamp())
        start("204 No Content", [])
        return [b""]


class FrontEnd:
    """The front end's server beside its players (one per load-test process)."""

    def __init__(self, url: str, server_key: str, mix: Mix) -> None:
        self.url, self.server_key, self.mix = url.rstrip("/"), server_key, mix
        self.receiver = Receiver()
        self.online: set[str] = set()
        self.idle: set[str] = set()
        """Online players at no table: the ones a challenge may reach at once."""
        self.tournaments: list[str] = []
        """The Swiss events open for entry, newest last."""
        self.moved: dict[tuple[str, int], float] = {}
        """(match, version) -> when the move that made that version was answered: the
        other seat's ``match.turn`` event is timed from it."""
        self.acked_moves: list[tuple[str, int, int, str, int]] = []
        """Every move a player was answered 201 for: (match, round, seat, card, the
        version answered), for the soak to find in the match's log."""
        self.acked_chat: list[tuple[str, int]] = []
        """Every chat line answered 201: (match, the line's id)."""
        self.phrases: list[str] = []
        self._http = requests.Session()
        self._http.headers["X-API-Key"] = server_key
        self._server: WSGIServer | None = None
        self._greenlets: list[gevent.Greenlet] = []

    # ---- set-up ------------------------------------------------------------------------

    def start(self, webhooks: bool = True) -> None:
        """Listen for webhooks (an endpoint of the front end's, every event), read the
        chat phrases, and schedule tournaments from now on."""
        if webhooks:
            self._server = WSGIServer(("127.0.0.1", 0), self.receiver.app, log=None)
            self._server.start()
            kinds = [k for k in self._get("/openapi.json")["components"]["schemas"][
                "CreateWebhook"]["properties"]["events"]["items"]["enum"]]
            made = self._post("/v1/webhooks", {
                "url": f"http://127.0.0.1:{self._server.server_port}/hooks",
                "events": kinds})
            self.receiver.verifier = Verifier(made["secret"])
        self.phrases = [p["id"] for p in self._get("/v1/chat/phrases")["phrases"]]
        if self.mix.tournament_share > 0:
            self._greenlets.append(gevent.spawn(self._schedule_tournaments))

    def stop(self) -> None:
        gevent.killall(self._greenlets)
        if self._server is not None:
            self._server.stop(timeout=1)

    def _get(self, path: str) -> Any:
        answer = self._http.get(self.url + path, timeout=30)
        answer.raise_for_status()
        return answer.json()

    def _post(self, path: str, body: dict[str, Any]) -> Any:
        answer = self._http.post(self.url + path, json=body, timeout=30)
        if answer.status_code >= 400:
            raise RuntimeError(f"POST {path} -> {answer.status_code}: {answer.text[:300]}")
        return answer.json()

    # ---- what the front end's server does -----------------------------------------------

    def _schedule_tournaments(self) -> None:
        """A Swiss every ``tournament_every_s``, open for ``tournament_lead_s``."""
        while True:
            starts = datetime.now(UTC) + timedelta(seconds=self.mix.tournament_lead_s)
            try:
                made = self._post("/v1/tournaments", {
                    "name": f"Load cup {starts:%H:%M:%S}", "system": "swiss",
                    "rounds": self.mix.tournament_rounds, "starts_at": starts.isoformat(),
                    "min_players": 2, "max_players": 64,
                    "clock": {"move_seconds": self.mix.tournament_move_s,
                              "timeout": "autoplay"}})
                self.tournaments.append(made["id"])
                gevent.spawn_later(self.mix.tournament_lead_s - 2, self._close, made["id"])
            except (requests.RequestException, RuntimeError) as error:
                print(f"  the front end could not schedule a tournament: {error}")
            gevent.sleep(self.mix.tournament_every_s)

    def _close(self, tournament: str) -> None:
        if tournament in self.tournaments:
            self.tournaments.remove(tournament)

    def mint_headers(self) -> dict[str, str]:
        """The headers of the server key's own requests (a token minted for a player)."""
        return {"X-API-Key": self.server_key}

    # ---- what the players of one front end know of each other ---------------------------

    def someone(self, rng: random.Random, among: set[str], but: str) -> str | None:
        """Another player of ``among`` at random, None if there is none."""
        others = [p for p in among if p != but]
        return rng.choice(others) if others else None
