"""The players of a big front end, for Locust: ``python -m bench load`` runs them (or
``locust -f bench/load/locustfile.py --host URL`` with ``BASRA_LOAD_SERVER_KEY`` set).

A :class:`Player` is signed in by the front end's server (a token minted with its server
key), holds its own event stream open in a greenlet of its own (Locust has no SSE
client: :class:`PlayerStream` reads it), then lives: plays the matches it was given
(a tournament's round, an accepted challenge) and otherwise quick plays, befriends,
challenges, joins a tournament or looks at its profile, each by the mix's shares, and
plays every move after a think time drawn from the mix (:mod:`bench.load.habits`).
Only the token goes with the players' requests, as a player's app sends it.
"""

from __future__ import annotations

import contextlib
import http.client
import itertools
import json
import os
import random
import time
from collections import deque
from typing import Any
from urllib.parse import urlsplit

import gevent
from gevent.event import AsyncResult
from locust import FastHttpUser, constant, events, task
from locust.env import Environment

from bench.load.frontend import FrontEnd
from bench.load.habits import Mix, SseParser, next_activity, pick_move, seat_etag, think_time

MOVE = "POST /v1/matches/[id]/moves"
LONG_POLL = "GET /v1/matches/[id]?wait (long poll)"
STREAM = "SSE"
"""The request type of a stream's events (kept out of the requests' latencies)."""
TURN_HEARD = "match.turn heard (from the move's answer)"

FRONT_END: FrontEnd | None = None
"""The front end's server of this process: set by :mod:`bench.load.run`, or at the test's
start from ``BASRA_LOAD_SERVER_KEY`` when Locust runs this file itself."""
_numbers = itertools.count(1)
RUN = os.environ.get("BASRA_LOAD_RUN", f"{int(time.time()) % 100000}")
"""Player ids of one run are ``load-<RUN>-<n>``: runs on one database never collide."""


def _said(answer: Any) -> str:
    """An answer's status and the start of its body, for a failure's message (no body:
    the connection was cut)."""
    return f"{answer.status_code}: {(answer.text or '')[:200]}"


@events.test_start.add_listener
def _front_end(environment: Environment, **_: Any) -> None:
    global FRONT_END
    if FRONT_END is None:
        FRONT_END = FrontEnd(environment.host or "", os.environ["BASRA_LOAD_SERVER_KEY"],
                             Mix.from_env())
        FRONT_END.start()


@events.test_stop.add_listener
def _front_end_stops(**_: Any) -> None:
    if FRONT_END is not None:
        FRONT_END.stop()


class PlayerStream:
    """A player's own event stream, held open in a greenlet: every event is handed to
    ``on_event``; it reconnects with ``Last-Event-ID`` when the connection ends."""

    held = 0
    """Streams open in this process now."""

    def __init__(self, user: Player) -> None:
        self.user = user
        self.last_id: str | None = None
        self.open = False
        self._greenlet = gevent.spawn(self._hold)

    def close(self) -> None:
        self._greenlet.kill(block=False)

    def _fire(self, name: str, started: float, exception: BaseException | None = None,
              request_type: str = "GET") -> None:
        self.user.environment.events.request.fire(
            request_type=request_type, name=name, response_time=(time.perf_counter() - started)
            * 1000, response_length=0, exception=exception, context={})

    def _hold(self) -> None:
        split = urlsplit(self.user.host or "")
        while True:
            started = time.perf_counter()
            conn = http.client.HTTPConnection(split.hostname or "127.0.0.1", split.port or 80,
                                              timeout=60)
            try:
                headers = {"Authorization": f"Bearer {self.user.token}",
                           "Accept": "text/event-stream"}
                if self.last_id:
                    headers["Last-Event-ID"] = self.last_id
                conn.request("GET", f"/v1/players/{self.user.player_id}/events",
                             headers=headers)
                answer = conn.getresponse()
                if answer.status != 200:
                    raise RuntimeError(f"the player stream answered {answer.status}")
                self._fire("GET /v1/players/[id]/events (connect)", started)
                self.open = True
                PlayerStream.held += 1
                parser = SseParser()
                for raw in answer:
                    event = parser.feed(raw.decode().rstrip("\r\n"))
                    if event is not None:
                        self.last_id = event.id or self.last_id
                        self.user.on_event(event.type, json.loads(event.data or "null"))
                started = time.perf_counter()
                raise RuntimeError("the player stream ended")
            except (OSError, http.client.HTTPException, RuntimeError) as error:
                self._fire("GET /v1/players/[id]/events (connect)", started, error)
                gevent.sleep(1.0)  # a client's back-off before it reconnects
            finally:
                if self.open:
                    PlayerStream.held -= 1
                self.open = False
                conn.close()


class Player(FastHttpUser):
    """One person of the front end, from sign-in to the end of the run."""

    wait_time = constant(0)  # the tasks keep their own pace: think times
    mix = Mix.from_env()

    def on_start(self) -> None:
        assert FRONT_END is not None, "no front end's server (see FRONT_END)"
        self.front = FRONT_END
        self.rng = random.Random()
        self.player_id = f"load-{RUN}-{next(_numbers)}"
        self.inbox: deque[tuple[str, dict[str, Any]]] = deque()
        """Events to act on once idle: challenges and friend requests made to them."""
        self.given: deque[tuple[str, int]] = deque()
        """Matches (id, seat) made for them: a tournament's round, an accepted challenge."""
        self.known: set[str] = set()
        self.answers: dict[str, AsyncResult] = {}
        """A challenge of theirs -> what became of it (told on their stream)."""
        with self.client.post(f"/v1/players/{self.player_id}/tokens",
                              json={"name": f"Player {self.player_id}", "ttl_seconds": 86400},
                              headers=self.front.mint_headers(),
                              name="POST /v1/players/[id]/tokens (front end's server)",
                              catch_response=True) as made:
            if made.status_code != 201:
                made.failure(f"minting answered {made.status_code}")
                raise RuntimeError(f"the front end could not mint a token: {made.text}")
            self.token = made.json()["token"]
        self.auth = {"Authorization": f"Bearer {self.token}"}
        self.stream = PlayerStream(self)
        self.front.online.add(self.player_id)
        self.front.idle.add(self.player_id)

    def on_stop(self) -> None:
        self.front.online.discard(self.player_id)
        self.front.idle.discard(self.player_id)
        self.stream.close()

    # ---- the stream's events -------------------------------------------------------------

    def on_event(self, kind: str, data: Any) -> None:
        """One event of their stream (in the stream's greenlet: only noted here)."""
        data = data if isinstance(data, dict) else {}
        if kind == "match.turn" and "version" in data:
            acked = self.front.moved.pop((data["match_id"], data["version"]), None)
            if acked is not None:  # the other seat's move: how soon this seat heard of it
                self.environment.events.request.fire(
                    request_type=STREAM, name=TURN_HEARD, response_time=(time.time() - acked)
                    * 1000, response_length=0, exception=None, context={})
        elif kind == "tournament.round" and data.get("match_id") and data["match_id"] \
                not in self.known:
            self.known.add(data["match_id"])
            self.given.append((data["match_id"], data["seat"]))
        elif kind in ("challenge.created", "friend.requested") and \
                data.get("challenged", data.get("to")) == self.player_id:
            self.inbox.append((kind, data))
        elif kind in ("challenge.accepted", "challenge.declined", "challenge.expired",
                      "challenge.cancelled"):
            waiting = self.answers.get(data["challenge_id"])
            if waiting is not None and not waiting.ready():
                waiting.set((kind, data))
        self.environment.events.request.fire(
            request_type=STREAM, name=kind, response_time=0, response_length=0,
            exception=None, context={})

    # ---- a day -------------------------------------------------------------------------

    @task
    def live(self) -> None:
        """One thing: a match given to them, an answer to their inbox, or the next
        activity of the mix; then a pause, as between two things a person does."""
        if self.given:
            self.play(*self.given.popleft())
        elif self.inbox:
            self.answer(*self.inbox.popleft())
        else:
            getattr(self, next_activity(self.rng, self.mix))()
        gevent.sleep(think_time(self.rng, self.mix))

    def quick_play(self) -> None:
        with self.client.post("/v1/matches/quick", json={}, headers=self.auth,
                              name="POST /v1/matches/quick", catch_response=True) as made:
            if made.status_code != 200 and made.status_code != 201:
                made.failure(_said(made))
                return
            seated = made.json()
        self.known.add(seated["id"])
        self.play(seated["id"], seated["seat"], seated["state"])

    def play(self, match: str, seat: int, state: dict[str, Any] | None = None) -> None:
        """Play a match to its end: read the seat's view, long poll while it is not their
        turn (or the table still waits), think, play one of its legal moves at random.
        A person's patience: a table nobody fills is left, and a win claimed from a seat
        silent past ``patience_s`` (the service allows it after two minutes)."""
        self.front.idle.discard(self.player_id)
        path = f"/v1/matches/{match}"
        try:
            view = state or self._read(path, None)
            changed = time.monotonic()
            while view is not None and view["status"] in ("waiting", "active"):
                move = pick_move(view, self.rng) if view.get("turn") == seat else None
                if move is None:
                    if time.monotonic() - changed > self.mix.patience_s:
                        return self._give_up(path, view)
                    version = view["version"]
                    view = self._read(path, seat_etag(view, seat), view)
                    if view is not None and view["version"] != version:
                        changed = time.monotonic()
                    continue
                gevent.sleep(think_time(self.rng, self.mix))
                if self.front.phrases and self.rng.random() < self.mix.chat_share:
                    said = self.client.post(f"{path}/chat", json={
                        "phrase": self.rng.choice(self.front.phrases)}, headers=self.auth,
                        name="POST /v1/matches/[id]/chat")
                    if said.status_code == 201:
                        self.front.acked_chat.append((match, said.json()["id"]))
                view = self._move(path, move, view)
                changed = time.monotonic()
        finally:
            self.front.idle.add(self.player_id)

    def _give_up(self, path: str, view: dict[str, Any]) -> None:
        """Leave a table nobody filled, or claim the win from a silent seat."""
        if view["status"] == "waiting":
            self.client.post("/v1/matches/quick/cancel", json={}, headers=self.auth,
                             name="POST /v1/matches/quick/cancel")
            return
        with self.client.post(f"{path}/claim", json={}, headers=self.auth,
                              name="POST /v1/matches/[id]/claim", catch_response=True) as made:
            if made.status_code == 409:  # the other seat moved meanwhile: let it go
                made.success()

    def _read(self, path: str, etag: str | None,
              last: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """The seat's view: a long poll from ``etag`` (``last`` again on a 304)."""
        if etag is None:
            with self.client.get(path, headers=self.auth, name="GET /v1/matches/[id]",
                                 catch_response=True) as read:
                return read.json() if read.status_code == 200 else None
        with self.client.get(f"{path}?wait=25", headers={**self.auth, "If-None-Match": etag},
                             name=LONG_POLL, catch_response=True) as read:
            if read.status_code == 304:
                return last
            if read.status_code != 200:
                read.failure(_said(read))
                return None
            return read.json()

    def _move(self, path: str, move: dict[str, Any], view: dict[str, Any]
              ) -> dict[str, Any] | None:
        with self.client.post(f"{path}/moves", json=move, headers=self.auth, name=MOVE,
                              catch_response=True) as made:
            if made.status_code != 201:
                # a clock that ran out while they thought, say: read the view again
                made.failure(_said(made))
                return self._read(path, None)
            try:
                answer = made.json()
            except ValueError:  # cut mid-answer (its instance killed): not acknowledged
                made.failure("201 cut before its body")
                return self._read(path, None)
        state, played = answer["state"], answer["move"]
        if played is not None:
            self.front.acked_moves.append((view["id"], played["round"], played["seat"],
                                           played["card"], state["version"]))
        if state["status"] == "active":
            self.front.moved[(view["id"], state["version"])] = time.time()
        return state

    def answer(self, kind: str, data: dict[str, Any]) -> None:
        """A challenge made to them (accepted, then played) or a friend request (taken)."""
        if kind == "friend.requested":
            self.client.put(f"/v1/players/{self.player_id}/friends/{data['from']}",
                            headers=self.auth, name="PUT /v1/players/[id]/friends/[other]")
            return
        with self.client.post(f"/v1/challenges/{data['challenge_id']}/accept", json={},
                              headers=self.auth, name="POST /v1/challenges/[id]/accept",
                              catch_response=True) as made:
            if made.status_code == 409:  # expired or cancelled while they were busy
                made.success()
                return
            if made.status_code not in (200, 201):
                made.failure(_said(made))
                return
            seated = made.json()
        self.known.add(seated["match_id"])
        self.play(seated["match_id"], seated["seat"], seated.get("state"))

    def befriend(self) -> None:
        other = self.front.someone(self.rng, self.front.online, self.player_id)
        if other is not None:
            self.client.put(f"/v1/players/{self.player_id}/friends/{other}",
                            headers=self.auth, name="PUT /v1/players/[id]/friends/[other]")

    def challenge(self) -> None:
        """Challenge an idle player and wait for the answer (a minute at most), then play
        the match if it was accepted."""
        other = self.front.someone(self.rng, self.front.idle, self.player_id)
        if other is None:
            return
        with self.client.post("/v1/challenges", json={"to": other}, headers=self.auth,
                              name="POST /v1/challenges", catch_response=True) as made:
            if made.status_code == 409:  # too many open challenges: not an error of load
                made.success()
                return
            if made.status_code != 201:
                made.failure(_said(made))
                return
            challenge = made.json()["id"]
        waiting = self.answers[challenge] = AsyncResult()
        self.front.idle.discard(self.player_id)
        try:
            kind, data = waiting.get(timeout=self.mix.think_max_s + 60)
        except gevent.Timeout:
            self.client.post(f"/v1/challenges/{challenge}/cancel", json={}, headers=self.auth,
                             name="POST /v1/challenges/[id]/cancel")
            return
        finally:
            self.answers.pop(challenge, None)
            self.front.idle.add(self.player_id)
        if kind == "challenge.accepted" and data.get("match_id"):
            self.known.add(data["match_id"])
            self.play(data["match_id"], 0)  # the challenger sits in seat 0

    def tournament(self) -> None:
        if not self.front.tournaments:
            return self.quick_play()
        with self.client.post(f"/v1/tournaments/{self.front.tournaments[-1]}/join", json={},
                              headers=self.auth, name="POST /v1/tournaments/[id]/join",
                              catch_response=True) as joined:
            if joined.status_code == 409:  # entry closed or full meanwhile
                joined.success()

    def profile(self) -> None:
        self.client.get(f"/v1/players/{self.player_id}", headers=self.auth,
                        name="GET /v1/players/[id]")
        with contextlib.suppress(Exception):
            self.client.get("/v1/leaderboards/egyptian-v2", headers=self.auth,
                            name="GET /v1/leaderboards/[pool]")
