"""A person against the experts at the fastest pace ``/play`` allows: its defaults
(rate limits on, ``BASRA_BOT_CPU_MS`` 150, two helper processes), in process on a fresh
SQLite database, a match of ``egyptian-v2`` against ``expert`` and one of
``egyptian-4p`` against three experts, the person's every move sent as soon as the last
answer came (the page cannot send one sooner: its cards wait for the answer). Figures:
each match's plays (the person's and the bots'), seconds, plays a minute, and 429s
(target: none)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MATCHES = {"v2": ("egyptian-v2", ["expert"]),
           "4p": ("egyptian-4p", ["expert", "expert-search", "expert-2026"])}


def _play(client: Any, variant: str, bots: list[str]) -> dict[str, float]:
    """One match to its end: plays, seconds, plays a minute, 429s met (each waited out)."""
    created = client.post("/v1/matches", json={
        "variant": variant, "players": [{"name": "a"}, *({"bot": b} for b in bots)]})
    assert created.status_code == 201, created.get_json()
    body = created.get_json()
    seat = {"Authorization": f"Bearer {body['seats'][0]['token']}"}
    started = time.monotonic()
    view = client.get(f"/v1/matches/{body['id']}", headers=seat).get_json()
    refused = 0
    while view["status"] == "active":
        answer = client.post(f"/v1/matches/{body['id']}/moves", headers=seat,
                             json=view["legal_moves"][0])
        if answer.status_code == 429:
            refused += 1
            time.sleep(int(answer.headers["Retry-After"]))
            continue
        assert answer.status_code == 201, answer.get_json()
        view = answer.get_json()["state"]
    seconds = time.monotonic() - started
    log = client.get(f"/v1/matches/{body['id']}/moves").get_json()
    plays = sum(1 for m in log["moves"] if m["kind"] == "play")
    return {"plays": plays, "seconds": round(seconds, 1),
            "plays_a_minute": round(plays * 60 / seconds), "429s": refused}


def run() -> dict[str, float]:
    folder = tempfile.mkdtemp(prefix="basra-pace-")
    url = f"sqlite:///{folder}/basra.sqlite3"
    subprocess.run([sys.executable, "-m", "service.cli", "db", "upgrade"], check=True,
                   cwd=ROOT, env={**os.environ, "DATABASE_URL": url}, capture_output=True)
    from service import create_app

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "BASRA_RATE_LIMITS": "on"})
    figures: dict[str, float] = {}
    for name, (variant, bots) in MATCHES.items():
        got = _play(app.test_client(), variant, bots)
        print(f"pace {name}: a person against {', '.join(bots)}: {got}")
        figures.update({f"pace_{name}_{k}": v for k, v in got.items()})
    return figures
