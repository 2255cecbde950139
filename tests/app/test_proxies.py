"""Behind reverse proxies: X-Forwarded-For is believed from as many proxies as
BASRA_TRUSTED_PROXIES says, and from none by default."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_app

PLAYERS = {"players": [{"name": "a"}, {"name": "b"}]}


def _statuses(tmp_path: Path, proxies: int, forwarded: list[str]) -> list[int]:
    app = make_app("sqlite", tmp_path, BASRA_RATE_LIMITS="on", BASRA_LIMIT_CREATES="1/minute",
                   BASRA_TRUSTED_PROXIES=proxies)
    client = app.test_client()
    return [client.post("/v1/matches", json=PLAYERS,
                        headers={"X-Forwarded-For": f}).status_code for f in forwarded]


def test_one_trusted_proxy_gives_each_client_its_own_budget(tmp_path: Path) -> None:
    """Behind one proxy, two clients (as the proxy appends them) spend budgets of their
    own; what a client wrote into the header itself is not believed."""
    assert _statuses(tmp_path, 1, ["198.51.100.1", "198.51.100.2", "198.51.100.1"]) \
        == [201, 201, 429]
    (tmp_path / "spoof").mkdir()
    # the client forged the first entry; the proxy's (the last) is the one believed
    assert _statuses(tmp_path / "spoof", 1, ["1.1.1.1, 198.51.100.3",
                                             "2.2.2.2, 198.51.100.3"]) == [201, 429]


def test_without_trusted_proxies_the_header_is_ignored(tmp_path: Path) -> None:
    """By default every request is the connecting address's, whatever it forwards."""
    assert _statuses(tmp_path, 0, ["198.51.100.1", "198.51.100.2"]) == [201, 429]
