"""The `basra` command line: simulate and deck."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

from service.cli import main
from service.engine import deck_for_round, format_cards


def test_simulate_prints_what_players_want_to_know(capsys: pytest.CaptureFixture[str]) -> None:
    """`basra simulate --json`: win rate, basras and points per round, match length, speed."""
    assert main(["simulate", "--variant", "egyptian-v1", "--rounds", "60", "--seed", "7",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rounds"] == 60 and data["variant"] == "egyptian-v1"
    for key in ("first_player_win_rate", "mean_basras_per_round", "mean_points_per_round",
                "mean_match_points",
                "mean_match_rounds", "rounds_per_second", "win_rates"):
        assert key in data
    assert 0 <= data["first_player_win_rate"] <= 1 and data["mean_points_per_round"] > 30


def test_simulate_is_reproducible_from_its_seed(capsys: pytest.CaptureFixture[str]) -> None:
    """The same seed gives the same figures (speed aside)."""
    runs = []
    for _ in range(2):
        main(["simulate", "--rounds", "40", "--seed", "s", "--json"])
        data = json.loads(capsys.readouterr().out)
        data.pop("seconds")
        data.pop("rounds_per_second")
        runs.append(data)
    assert runs[0] == runs[1]


def test_simulate_with_a_house_rule_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--rules FILE` plays a house-rule file; a bad file is an error naming the key."""
    good = tmp_path / "cairo.yaml"
    good.write_text("extends: egyptian-v2\ntarget_score: 61\n")
    assert main(["simulate", "--rules", str(good), "--matches", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["matches"] == 3
    bad = tmp_path / "bad.yaml"
    bad.write_text("extends: egyptian-v2\ncapture: {mode: greedy}\n")
    assert main(["simulate", "--rules", str(bad), "--rounds", "1"]) == 2
    assert "capture.mode: must be one of maximum, choose" in capsys.readouterr().err


def test_deck_prints_the_deck_a_revealed_seed_gives(capsys: pytest.CaptureFixture[str]) -> None:
    """`basra deck --seed HEX --round K` re-derives a round's deck for checking a match."""
    seed = bytes(range(32))
    expected = format_cards(deck_for_round(seed, 3))
    assert main(["deck", "--seed", seed.hex(), "--round", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == expected
    assert main(["deck", "--seed", seed.hex(), "--round", "3"]) == 0
    assert capsys.readouterr().out.split() == expected
    assert main(["deck", "--seed", "zz", "--round", "1"]) == 2
    assert "seed" in capsys.readouterr().err


def test_keys_create_list_revoke(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """`basra keys create NAME --origin URL` prints one new browser key (stored hashed),
    without --origin a server key; `list` names them without the keys, `secret NAME`
    prints the player-token secret, `revoke NAME` revokes them; 'local' is reserved."""
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'k.sqlite3'}")
    assert main(["db", "upgrade"]) == 0
    capsys.readouterr()
    assert main(["keys", "create", "acme", "--origin", "https://acme.example"]) == 0
    key = capsys.readouterr().out
    assert key.count("\n") == 1 and key.startswith("bk_") and len(key.strip()) > 40
    assert main(["keys", "create", "acme"]) == 0  # a server key of the same front end
    server_key = capsys.readouterr().out.strip()
    assert main(["keys", "list"]) == 0
    listing = capsys.readouterr().out
    assert "acme" in listing and "(https://acme.example)" in listing and "(server)" in listing
    assert key.strip() not in listing and server_key not in listing and "2 active" in listing
    assert main(["keys", "secret", "acme"]) == 0
    secret = capsys.readouterr().out.strip()
    assert len(secret) == 64 and int(secret, 16) >= 0
    assert main(["keys", "secret", "acme"]) == 0
    assert capsys.readouterr().out.strip() == secret  # made once, then kept
    assert main(["keys", "secret", "nobody"]) == 2
    assert "nobody" in capsys.readouterr().err
    assert main(["keys", "revoke", "acme"]) == 0
    assert main(["keys", "revoke", "nobody"]) == 1
    capsys.readouterr()
    assert main(["keys", "list"]) == 0
    assert "0 active" in capsys.readouterr().out
    assert main(["keys", "create", "local"]) == 2
    assert "built-in" in capsys.readouterr().err


def test_keys_rotate_the_secret_and_revoke_one_key(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """`rotate-secret NAME [--grace S]` prints a new secret (the grace bounded);
    `revoke NAME --key PREFIX` revokes one key, and the last one retires the secret."""
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'r.sqlite3'}")
    assert main(["db", "upgrade"]) == 0
    keys = []
    for _ in range(2):
        assert main(["keys", "create", "acme"]) == 0
        keys.append(capsys.readouterr().out.strip())
    capsys.readouterr()
    assert main(["keys", "secret", "acme"]) == 0
    first = capsys.readouterr().out.strip()
    assert main(["keys", "rotate-secret", "acme", "--grace", "600"]) == 0
    rotated = capsys.readouterr().out.strip()
    assert len(rotated) == 64 and rotated != first
    assert main(["keys", "secret", "acme"]) == 0
    assert capsys.readouterr().out.strip() == rotated
    assert main(["keys", "rotate-secret", "acme", "--grace", "90000"]) == 2
    assert "--grace" in capsys.readouterr().err
    assert main(["keys", "revoke", "acme", "--key", keys[0][:10]]) == 0
    assert main(["keys", "secret", "acme"]) == 0
    assert capsys.readouterr().out.strip() == rotated  # one key left: kept
    assert main(["keys", "revoke", "acme", "--key", keys[1]]) == 0  # the whole key works
    assert main(["keys", "revoke", "acme", "--key", keys[1][:10]]) == 1  # none left
    assert main(["keys", "secret", "acme"]) == 0
    assert capsys.readouterr().out.strip() not in (first, rotated)  # retired: a new one


def test_the_workers_metrics_listen_on_this_machine_unless_told(tmp_path: Path) -> None:
    """`basra worker --metrics-port` serves /metrics on 127.0.0.1 by default (the
    operator's network, never the public one); `--metrics-host` widens it."""
    from service.cli import build_parser
    from service.worker import serve_metrics
    from tests.conftest import make_app
    from tests.servers import free_port

    args = build_parser().parse_args(["worker", "--metrics-port", "9101"])
    assert args.metrics_host == "127.0.0.1"
    wide = build_parser().parse_args(["worker", "--metrics-host", "0.0.0.0"])
    assert wide.metrics_host == "0.0.0.0"
    app = make_app("sqlite", tmp_path)
    port = free_port()
    assert serve_metrics(app, port, args.metrics_host) == ("127.0.0.1", port)
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        assert b"basra_timeout_lag_seconds" in response.read()
