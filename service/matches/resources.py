"""The matches' routes, in one table: ``/v1/matches`` (create, history, one match, its
moves and log, resign, claim, a seat dropped and back, a hint, its event stream, its
chat), ``/v1/chat`` and a player's matches, each URL with its view, in the order the
OpenAPI document lists them. The views live in the room of their job
(:mod:`.match_routes`, :mod:`.move_routes`, :mod:`.table_routes`); what they share,
the blueprints among it, in :mod:`.routes`."""

from __future__ import annotations

from .match_routes import Events, MatchById, Matches, PlayerMatches
from .move_routes import Claim, Hint, Moves, Resign
from .routes import blp, chat_blp, player_matches, resolve_seat_token
from .table_routes import Back, ChatSettings, DropSeat, MatchChat, Phrases

__all__ = ["blp", "chat_blp", "player_matches", "resolve_seat_token"]

blp.route("")(Matches)
blp.route("/<string:match_id>")(MatchById)
blp.route("/<string:match_id>/moves")(Moves)
blp.route("/<string:match_id>/resign")(Resign)
blp.route("/<string:match_id>/claim")(Claim)
blp.route("/<string:match_id>/seats/<int:seat>/drop")(DropSeat)
blp.route("/<string:match_id>/back")(Back)
blp.route("/<string:match_id>/hint")(Hint)
blp.route("/<string:match_id>/events")(Events)
blp.route("/<string:match_id>/chat")(MatchChat)

chat_blp.route("/phrases")(Phrases)
chat_blp.route("/settings")(ChatSettings)

player_matches.route("/<string:player_id>/matches")(PlayerMatches)
