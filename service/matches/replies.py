"""Bots' moves in a match, billed. A searching bot's reply to a seat's move is covered
by its match, up to the match's :func:`allowance`: it spends a unit of the mover's
``moves`` budget, as a move does, and none of ``expensive``. Every other searching
bot's move (past the allowance; leading at a create, a join or a rematch; for the
worker's timeouts, from a budget the front end keeps for them) spends a unit of the
``expensive`` budget of whoever caused it. Each is worked out in the front end's turn
at the helpers."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import partial

from ..bots import helpers
from ..engine import DECK, Play, Rules, State
from ..engine.bots import SEARCHING, run_bots
from ..tenants import limits
from ..tenants.errors import BudgetSpent

ROUND_POINTS = 8
"""The fewest points a round is taken to bring a match's leader, to size its allowance:
matches to 101 took at most 8 rounds (4.7 on average) in 600 greedy-against-random
matches, so 13 rounds cover the longest."""


def allowance(rules: Rules) -> int:
    """The plays of a match whose searching bots' replies the match covers: every play of
    a long match (its ``max_rounds`` rounds, else a round per :data:`ROUND_POINTS` of its
    target), so a person's whole game against the computer spends no ``expensive``."""
    rounds = rules.max_rounds or math.ceil(rules.target_score / ROUND_POINTS)
    return rounds * (len(DECK) - rules.floor_size)


def bots_play(state: State, levels: Mapping[int, str], tenant: int, *,
              worker: bool = False, bill: bool = True,
              replying: bool = False) -> tuple[State, list[Play]]:
    """Let the bot seats play while it is their turn. In a request, searching bots whose
    caller's budget is spent refuse it (:class:`BudgetSpent`, 429) before anything is
    played; for the worker, they play at the :data:`~service.bots.helpers.FALLBACK`
    level instead (nobody is there to be refused). ``replying``: a reply to a seat's
    move, whose searches the match covers while under its :func:`allowance` (then only
    the route's ``moves`` budget was asked). ``bill=False``: the caller bills the
    searches itself once its save holds (:func:`bill_replies`)."""
    who = limits.holder(tenant) if worker else None
    covered = replying and state.ply < allowance(state.rules)
    if not covered and any(level in SEARCHING for level in levels.values()):
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


def bill_replies(replies: Sequence[Play], levels: Mapping[int, str], moved: State) -> None:
    """Bill the searching bots' ``replies`` to the move that made ``moved``: those within
    the match's :func:`allowance` a unit of ``moves`` each, the rest of ``expensive``."""
    left = max(0, allowance(moved.rules) - moved.ply)
    searches = sum(1 for p in replies if levels.get(p.seat) in SEARCHING)
    limits.charge("moves", min(searches, left))
    limits.charge("expensive", searches - min(searches, left))
