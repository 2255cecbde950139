"""Settings read from the environment: defaults, and bad values named on start."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.config import settings_from_env


def test_the_connection_pool_defaults_and_can_be_set(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    settings = settings_from_env(str(tmp_path))
    assert (settings["BASRA_DB_POOL_SIZE"], settings["BASRA_DB_MAX_OVERFLOW"]) == (10, 5)
    monkeypatch.setenv("BASRA_DB_POOL_SIZE", "25")
    monkeypatch.setenv("BASRA_DB_MAX_OVERFLOW", "0")
    settings = settings_from_env(str(tmp_path))
    assert (settings["BASRA_DB_POOL_SIZE"], settings["BASRA_DB_MAX_OVERFLOW"]) == (25, 0)


@pytest.mark.parametrize(("name", "value"), [
    ("BASRA_DB_POOL_SIZE", "0"), ("BASRA_DB_POOL_SIZE", "ten"),
    ("BASRA_DB_MAX_OVERFLOW", "-1"), ("BASRA_DB_MAX_OVERFLOW", "2.5"),
])
def test_a_bad_pool_setting_is_refused_by_name(name: str, value: str, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=f"{name} must be a whole number"):
        settings_from_env(str(tmp_path))
