"""The worker's fair play: each finished rated match graded on a thread of its own (each
in a bot helper process, at its lower priority, within a review's budget), so grading
never delays a pass of the clocks; nothing is added to a move's path."""

from __future__ import annotations

from flask import Flask

from ..live.chores import Chore
from . import service


def grader(app: Flask) -> Chore:
    """Grades the finished rated matches, one at a time."""
    return Chore(app, "fair-play", service.grade_next)
