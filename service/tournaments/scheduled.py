"""The tournaments' chores for ``basra worker``: start, pair, record and finish."""

from __future__ import annotations

from .service import run_due


def run_tournaments() -> int:
    """Every due tournament's next step; how many changed."""
    return run_due()
