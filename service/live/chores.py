"""A background chore of the worker: one step after another on a thread of its own (a
review, a fair-play grading), so a slow step never delays a pass of the clocks."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from flask import Flask

from ..settings import Settings, settings_of
from ..storage.db import DISCONNECTED, end_session
from ..storage.errors import DatabaseUnavailable

log = logging.getLogger(__name__)


class Chore:
    """Runs ``step(settings)`` (True: it did something, so step again at once) until
    stopped, looking again every ``interval`` seconds when a step found nothing to do; a
    step that fails is logged and tried again later, never ends the thread."""

    def __init__(self, app: Flask, name: str, step: Callable[[Settings], bool]) -> None:
        self.app = app
        self.name = name
        self.step = step
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self, interval: float) -> None:
        self.thread = threading.Thread(target=self._run, args=(interval,), daemon=True,
                                       name=self.name)
        self.thread.start()

    def _run(self, interval: float) -> None:
        with self.app.app_context():
            while not self.stopping.is_set():
                try:
                    did = self.step(settings_of(self.app))
                except (DatabaseUnavailable, *DISCONNECTED):
                    log.warning("database unavailable; %s waits", self.name)
                    end_session()
                    did = False
                except Exception:
                    log.exception("%s failed; it is tried again later", self.name)
                    end_session()
                    did = False
                if not did:
                    self.stopping.wait(interval)

    def stop(self) -> None:
        """Stop after the step under way (tests, shutdown)."""
        self.stopping.set()
        if self.thread is not None:
            self.thread.join()
