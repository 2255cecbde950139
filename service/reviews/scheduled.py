"""The worker's reviews: made one after another on a thread of their own (each in a bot
helper process, at its lower priority), so a review never delays a pass of the clocks."""

from __future__ import annotations

import logging
import threading

from flask import Flask

from ..settings import settings_of
from ..storage.db import DISCONNECTED, end_session
from ..storage.errors import DatabaseUnavailable
from . import service

log = logging.getLogger(__name__)


class Reviewer:
    """Makes the reviews asked for, one at a time, looking again every ``interval``
    seconds when there are none."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self, interval: float) -> None:
        self.thread = threading.Thread(target=self._run, args=(interval,), daemon=True,
                                       name="reviewer")
        self.thread.start()

    def _run(self, interval: float) -> None:
        with self.app.app_context():
            while not self.stopping.is_set():
                try:
                    made = service.make_next(settings_of(self.app))
                except (DatabaseUnavailable, *DISCONNECTED):
                    log.warning("database unavailable; reviews wait")
                    end_session()
                    made = False
                except Exception:
                    log.exception("a review failed; it is taken again later")
                    end_session()
                    made = False
                if not made:
                    self.stopping.wait(interval)

    def stop(self) -> None:
        """Stop after the review under way (tests, shutdown)."""
        self.stopping.set()
        if self.thread is not None:
            self.thread.join()
