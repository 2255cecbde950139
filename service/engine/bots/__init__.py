"""Computer opponents, apart from the rules (as OpenSpiel keeps its algorithms apart from
its games): the policies' contract and shared heuristics, sampled worlds and what the
others' plays say, the expert's playouts, deal search, and the levels by name."""

from .. import build

__path__ = build.prefer_compiled(__path__, "bots")  # before the modules below are imported

from .heuristics import Pause, Policy, greedy_policy, no_pause, random_policy  # noqa: E402
from .playouts import make_expert  # noqa: E402
from .registry import (  # noqa: E402
    LADDER,
    POLICIES,
    SEARCHING,
    Decide,
    bot_move,
    bot_rng,
    policy_named,
    run_bots,
)
from .review import (  # noqa: E402
    GRADES,
    Grade,
    PlayReview,
    Reason,
    match_start,
    review_match,
    review_to_dict,
)
from .search import make_searcher  # noqa: E402
from .worlds import chance_worlds, determinize, inferred_worlds  # noqa: E402

__all__ = [
    "GRADES", "LADDER", "POLICIES", "SEARCHING", "Decide", "Grade", "Pause", "PlayReview", "Policy",
    "Reason", "bot_move", "bot_rng", "match_start", "review_match", "review_to_dict",
    "chance_worlds", "determinize", "greedy_policy", "inferred_worlds", "make_expert",
    "make_searcher", "no_pause", "policy_named", "random_policy", "run_bots",
]
