"""The worker's reviews: made one after another on a thread of their own (each in a bot
helper process, at its lower priority), so a review never delays a pass of the clocks."""

from __future__ import annotations

from flask import Flask

from ..live.chores import Chore
from . import service


def reviewer(app: Flask) -> Chore:
    """Makes the reviews asked for, one at a time."""
    return Chore(app, "reviewer", service.make_next)
