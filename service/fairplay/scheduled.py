"""The worker's fair play: each finished rated match graded on a thread of its own (each
in a bot helper process, at its lower priority, within a review's budget), so grading
never delays a pass of the clocks; nothing is added to a move's path."""

from __future__ import annotations

import logging
import threading

from flask import Flask

from ..settings import settings_of
from ..storage.db import DISCONNECTED, end_session
from ..storage.errors import DatabaseUnavailable
from . import service

log = logging.getLogger(__name__)


class Grader:
    """Grades the finished rated matches one at a time, looking again every ``interval``
    seconds when there are none."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self, interval: float) -> None:
        self.thread = threading.Thread(target=self._run, args=(interval,), daemon=True,
                                       name="fair-play")
        self.thread.start()

    def _run(self, interval: float) -> None:
        with self.app.app_context():
            while not self.stopping.is_set():
                try:
                    graded = service.grade_next(settings_of(self.app))
                except (DatabaseUnavailable, *DISCONNECTED):
                    log.warning("database unavailable; fair play waits")
                    end_session()
                    graded = False
                except Exception:
                    log.exception("fair play's grading failed; it is tried again later")
                    end_session()
                    graded = False
                if not graded:
                    self.stopping.wait(interval)

    def stop(self) -> None:
        """Stop after the match under way (tests, shutdown)."""
        self.stopping.set()
        if self.thread is not None:
            self.thread.join()
