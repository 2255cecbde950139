"""A helper process that works out searching bots' moves, away from the web workers:
``python -m service.bots.searcher NICE``. It lowers its own priority by ``NICE`` (so
the operating system, not the web worker's event loop, keeps requests first), then
answers one JSON line per JSON line on stdin: ``{"state", "rules", "rules_hash",
"seat", "level", "cpu_ms"}`` -> ``{"card", "capture"}`` (or ``{"error"}``). The search
stops at ``cpu_ms`` of this process's CPU time and plays its best so far.

It imports the engine and nothing of the web service."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from ..engine import format_cards, move_from_parts, rules_from_json, state_from_dict
from ..engine.bots import Pause, bot_move, review_match, review_to_dict


def cpu_budget(cpu_ms: float) -> Pause:
    """A pause that says stop once this process has used ``cpu_ms`` more CPU."""
    stop = time.process_time() + cpu_ms / 1000

    def pause() -> bool:
        return time.process_time() >= stop

    return pause


def answer(asked: dict[str, Any]) -> dict[str, Any]:
    """The move of one request, or a match's review (``{"review": true, "state" (as
    dealt), "rules", "rules_hash", "moves": [[seat, card, capture]...], "cpu_ms"}`` ->
    ``{"plays": [...], "cpu_ms"}``: every play searched within ``cpu_ms``)."""
    if asked.get("review"):
        return review(asked)
    if asked.get("grade"):
        return grade(asked)
    state = state_from_dict(asked["state"], rules_from_json(asked["rules"], asked["rules_hash"]))
    move = bot_move(state, asked["seat"], asked["level"], cpu_budget(asked["cpu_ms"]))
    return {"card": str(move.card),
            "capture": None if move.capture is None else format_cards(move.capture)}


def review(asked: dict[str, Any]) -> dict[str, Any]:
    """A match's review: every play scored against the expert's choice."""
    start = state_from_dict(asked["state"], rules_from_json(asked["rules"], asked["rules_hash"]))
    moves = [move_from_parts(seat, card, capture) for seat, card, capture in asked["moves"]]
    began = time.process_time()
    plays = review_match(start, moves, pauses=lambda: cpu_budget(asked["cpu_ms"]))
    return {"plays": [review_to_dict(p) for p in plays],
            "cpu_ms": round((time.process_time() - began) * 1000, 1)}


def grade(asked: dict[str, Any]) -> dict[str, Any]:
    """A match's plays graded for fair play (``{"grade": true, "state", "rules",
    "rules_hash", "moves", "plays": [indexes], "cpu_ms"}`` -> ``{"grades", "cpu_ms"}``):
    the review's evaluator, each play within ``cpu_ms``."""
    from .grading import grade_match, review_evaluator

    start = state_from_dict(asked["state"], rules_from_json(asked["rules"], asked["rules_hash"]))
    moves = [move_from_parts(seat, card, capture) for seat, card, capture in asked["moves"]]
    wanted = set(asked["plays"])
    began = time.process_time()
    grades = grade_match(start, moves, review_evaluator(), lambda i, s: i in wanted,
                         pauses=lambda: cpu_budget(asked["cpu_ms"]))
    return {"grades": [[g.index, g.seat, g.forced, g.lost, g.spread, g.obvious]
                       for g in grades],
            "cpu_ms": round((time.process_time() - began) * 1000, 1)}


def main(argv: list[str]) -> int:
    os.nice(int(argv[0]) if argv else 10)
    for line in sys.stdin.buffer:
        try:
            reply = answer(json.loads(line))
        except Exception as error:  # noqa: BLE001 - the service falls back and logs it
            reply = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
