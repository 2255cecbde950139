"""Bots' moves in a match, billed: each searching bot's move spends a unit of the
``expensive`` budget of whoever caused it (the caller of the request that made it the
bot's turn: a move, a create, a join, a rematch; for the worker's timeouts, a budget the
front end keeps for them), and is worked out in the front end's turn at the helpers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial

from ..bots import helpers
from ..engine import Play, State
from ..engine.bots import SEARCHING, run_bots
from ..tenants import limits
from ..tenants.errors import BudgetSpent


def bots_play(state: State, levels: Mapping[int, str], tenant: int, *,
              worker: bool = False, bill: bool = True) -> tuple[State, list[Play]]:
    """Let the bot seats play while it is their turn. In a request, searching bots whose
    caller's budget is spent refuse it (:class:`BudgetSpent`, 429) before anything is
    played; for the worker, they play at the :data:`~service.bots.helpers.FALLBACK`
    level instead (nobody is there to be refused). ``bill=False``: the caller bills the
    searches itself once its save holds (:func:`bill_searches`)."""
    who = limits.holder(tenant) if worker else None
    if any(level in SEARCHING for level in levels.values()):
        wait = limits.budget_retry_after("expensive", who)
        if wait is not None and not worker:
            raise BudgetSpent(f"the computer's moves spent your expensive budget; try again "
                              f"in {wait} s", retry_after=wait)
        if wait is not None:
            levels = {seat: helpers.FALLBACK if level in SEARCHING else level
                      for seat, level in levels.items()}
    state, plays = run_bots(state, levels, decide=partial(helpers.decide, owner=str(tenant)))
    if bill:
        bill_searches(plays, levels, who)
    return state, plays


def bill_searches(plays: Sequence[Play], levels: Mapping[int, str],
                  who: str | None = None) -> None:
    """Spend a unit of ``expensive`` for each play of a searching bot in ``plays``."""
    limits.charge("expensive", sum(1 for p in plays if levels.get(p.seat) in SEARCHING), who)
