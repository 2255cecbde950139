"""Settings read from the environment: defaults, and bad values named on start."""

from __future__ import annotations

import os
import subprocess
import sys
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


@pytest.mark.process
def test_one_worker_alone_parks_an_instances_waiters_and_keeps_slots_free(
        tmp_path: Path) -> None:
    """An instance holds 5,000 long polls and event streams with the default settings
    even when one of its processes takes them all (the workers do not share connections
    evenly), and that process still has slots free for moves and reads."""
    settings = settings_from_env(str(tmp_path))
    # the gunicorn settings module sets process-wide variables on import: read it apart
    found = subprocess.run(
        [sys.executable, "-c",
         "import service.gunicorn_conf as g; print(g.worker_connections)"],
        cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True, check=True,
        env={k: v for k, v in os.environ.items() if k != "BASRA_WORKER_CONNECTIONS"})
    connections = int(found.stdout)
    assert settings["BASRA_MAX_WAITERS"] >= 5000
    assert connections - settings["BASRA_MAX_WAITERS"] >= 1000
    assert settings["BASRA_MAX_WAITERS_PER_CLIENT"] < settings["BASRA_MAX_WAITERS"]
