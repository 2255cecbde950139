"""The frozen settings: made from the config once, handed to use cases that then need no
app (a presence lease, a table's chat room), and never changed in place."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from service.config import settings_from_env
from service.matches import chat
from service.matches.errors import ChatFull, ChatTooFast
from service.players import presence
from service.settings import Settings

NOW = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """The defaults, with a few set by hand: no app, no database."""
    made = Settings.from_config(settings_from_env(str(tmp_path)))
    return dataclasses.replace(made, presence_lease_seconds=30.0, chat_lines_per_minute=3,
                               chat_lines_per_match=5, chat_after_end_seconds=60)


def test_settings_are_frozen_and_their_limits_cannot_be_changed(settings: Settings) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.max_wait = 1.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        settings.limits["moves"] = "1/day"  # type: ignore[index]
    assert settings.limits["moves"] == "600/minute"


def test_settings_read_the_configs_names_and_types(tmp_path: Path) -> None:
    config = {**settings_from_env(str(tmp_path)), "BASRA_API_KEYS": "required",
              "BASRA_PRESENCE": "off", "BASRA_RATE_LIMITS": "off",
              "BASRA_LIMIT_EXPENSIVE": "3/minute", "BASRA_CLAIM_AFTER_SECONDS": 7}
    made = Settings.from_config(config)
    assert made.api_keys_required and not made.presence_on and not made.rate_limits
    assert made.limits["expensive"] == "3/minute"
    assert made.claim_after_seconds == 7.0 and isinstance(made.claim_after_seconds, float)
    # Flask-Limiter's own switch, when a caller sets it, wins over BASRA_RATE_LIMITS
    assert Settings.from_config({**config, "RATELIMIT_ENABLED": True}).rate_limits
    # a secret key given as text signs as its bytes (cursors and seat tokens are HMACs)
    assert Settings.from_config({**config, "SECRET_KEY": "kept by hand"}).secret_key == \
        b"kept by hand"


def test_a_presence_lease_runs_for_the_settings_lease_renewed_a_third_of_the_way(
        settings: Settings) -> None:
    assert presence.lease_until(NOW, settings) == NOW + timedelta(seconds=30)
    assert presence.renew_every(settings) == 10.0
    shorter = dataclasses.replace(settings, presence_lease_seconds=3.0)
    assert presence.lease_until(NOW, shorter) == NOW + timedelta(seconds=3)


def test_a_speaker_is_held_to_the_chat_rate_and_a_match_to_its_lines(
        settings: Settings) -> None:
    chat.check_room(recent=2, total=4, settings=settings)  # room for one more
    with pytest.raises(ChatTooFast):
        chat.check_room(recent=3, total=4, settings=settings)
    with pytest.raises(ChatFull):
        chat.check_room(recent=0, total=5, settings=settings)


def test_a_tables_chat_stays_open_for_the_settings_window_after_its_end(
        settings: Settings) -> None:
    ended = NOW - timedelta(seconds=60)
    assert chat.open_after_end(ended, NOW, settings)
    assert not chat.open_after_end(ended - timedelta(seconds=1), NOW, settings)
    assert not chat.open_after_end(None, NOW, settings)
    closed = dataclasses.replace(settings, chat_after_end_seconds=0)
    assert not chat.open_after_end(ended, NOW, closed)
