// Typed problems: every error the service answers is application/problem+json (RFC 9457)
// with a machine-readable `reason` (docs/api.md, "Errors").
import type { components } from "./api.js";

/** The problem body, as the contract's `Problem` schema types it. */
export type Problem = components["schemas"]["Problem"];

/** The reasons docs/api.md lists (any other string may come from a newer service). */
export type KnownReason =
  | "invalid_json" | "unsupported_media_type" | "missing_api_key" | "invalid_api_key"
  | "missing_token" | "invalid_token" | "origin_not_allowed" | "invalid_player_token"
  | "wrong_front_end" | "player_unverified" | "server_key_required" | "not_this_player"
  | "player_required" | "entry_closed" | "not_entered" | "too_many_tournaments"
  | "two_players_only" | "rated_needs_players" | "rated_needs_shuffle" | "match_not_found"
  | "webhook_not_found" | "player_not_found" | "tournament_not_found" | "unknown_variant"
  | "not_found" | "not_your_turn" | "card_not_in_hand" | "illegal_capture" | "match_finished"
  | "clock_ran_out" | "claim_too_early" | "match_not_started" | "no_open_seat"
  | "wrong_match_status" | "version_mismatch" | "validation_error" | "invalid_rules"
  | "webhook_url_not_allowed" | "invalid_deck" | "wrong_player_count" | "no_human_seat"
  | "invalid_cursor" | "idempotency_key_reused" | "rate_limited" | "too_many_failed_keys"
  | "bad_request" | "too_many_waiters" | "database_unavailable"
  | "insufficient_funds" | "in_debt" | "unknown_currency" | "stake_needs_players";

/** A `reason`: one docs/api.md lists, or another string (switch on it with a default). */
export type Reason = KnownReason | (string & {});

/** A refused request: the HTTP status and the problem body the service sent. */
export class BasraProblem extends Error {
  override readonly name = "BasraProblem";
  readonly status: number;
  readonly reason: Reason;
  readonly title: string;
  readonly detail: string;
  /** The whole problem+json body (`errors` lists the fields of a validation error). */
  readonly problem: Problem;
  /** Seconds the service asked to wait (`Retry-After` of a 429 or 503), else null. */
  readonly retryAfter: number | null;

  constructor(status: number, problem: Problem, retryAfter: number | null = null) {
    super(`${status} ${problem.reason}: ${problem.detail || problem.title}`);
    this.status = status;
    this.reason = problem.reason;
    this.title = problem.title;
    this.detail = problem.detail;
    this.problem = problem;
    this.retryAfter = retryAfter;
  }

  /** The problem of a refused response: its problem+json body, or one made from its
   * status when the body is not one (a proxy's HTML page, say). */
  static from(response: Response, body: unknown): BasraProblem {
    const problem: Problem = isProblemBody(body) ? body : {
      type: "about:blank",
      title: response.statusText || `HTTP ${response.status}`,
      status: response.status,
      detail: typeof body === "string" && body ? body.slice(0, 500) : `HTTP ${response.status}`,
      reason: `http_${response.status}`,
    };
    return new BasraProblem(response.status, problem, retryAfterSeconds(response.headers));
  }
}

/** Whether `error` is a problem, optionally with one of the given reasons. */
export function isProblem(error: unknown, ...reasons: Reason[]): error is BasraProblem {
  return error instanceof BasraProblem && (reasons.length === 0 || reasons.includes(error.reason));
}

function isProblemBody(body: unknown): body is Problem {
  if (typeof body !== "object" || body === null) return false;
  const b = body as Record<string, unknown>;
  return typeof b.reason === "string" && typeof b.status === "number";
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date), or null without one. */
export function retryAfterSeconds(headers: Headers): number | null {
  const value = headers.get("Retry-After");
  if (value === null || value.trim() === "") return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, (date - Date.now()) / 1000);
}
