// Against a running service: a whole match, typed problems, ETag polling and retried
// moves that apply once.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  BasraProblem,
  createBasraClient,
  isNetworkError,
  isProblem,
  type RetryInfo,
  unwrap,
} from "../src/index.js";
import { BASE, LIMIT, playOne, sdk, twoPeople, waitFor } from "./helpers.js";

test("a whole match against the computer, played through the SDK to its end", LIMIT, async () => {
  const created = await sdk().createMatch({ players: [{ name: "ana" }, { bot: "greedy" }] });
  assert.equal(created.seats[1]?.bot, "greedy");
  const ana = sdk(created.seats[0]?.token ?? undefined);
  let { state, etag } = await ana.getMatch(created.id);
  assert.equal(etag, `"${state.version}-s0"`);
  let played = 0;
  while (state.status === "active") {
    assert.equal(state.turn, state.seat, "the bot replies inside each move");
    const move = state.legal_moves[0];
    assert.ok(move && state.hand?.includes(move.card), "a legal move from ana's own hand");
    const answer = await ana.playMove(created.id, { card: move.card, capture: move.capture });
    assert.equal(answer.move?.seat, 0);
    assert.equal(answer.move?.card, move.card);
    assert.ok(answer.state.version > state.version);
    assert.equal(answer.etag, `"${answer.state.version}-s0"`);
    state = answer.state;
    played += 1;
    assert.ok(played < 1000, "the match ends");
  }
  assert.equal(state.status, "finished");
  assert.equal(state.end_reason, "target_score");
  assert.ok(state.winner === 0 || state.winner === 1 || state.draw);
  // the public log holds every card ana played, once, and reveals the seed
  const log = unwrap(await sdk().api.GET("/v1/matches/{match_id}/moves", {
    params: { path: { match_id: created.id } },
  }));
  assert.equal(log.moves.filter((m) => m.kind === "play" && m.seat === 0).length, played);
  assert.equal(log.version, state.version);
  assert.ok(log.seed);
});

test("a refused move is a BasraProblem with its reason, never retried", LIMIT, async () => {
  const { id, seats, state } = await twoPeople();
  const waiting = seats[1 - (state.turn ?? 0)]!;
  const retries: RetryInfo[] = [];
  const refused = await waiting.playMove(id, { card: "AS" },
                                         { retry: { onRetry: (r) => retries.push(r) } })
    .then(() => null, (error: unknown) => error);
  assert.ok(refused instanceof BasraProblem, String(refused));
  assert.equal(refused.status, 409);
  assert.equal(refused.reason, "not_your_turn");
  assert.equal(refused.problem.status, 409);
  assert.ok(refused.title && refused.detail);
  assert.ok(isProblem(refused, "not_your_turn", "card_not_in_hand"));
  assert.equal(retries.length, 0);

  const unknown = await sdk().getMatch("no-such-match").catch((error: unknown) => error);
  assert.ok(isProblem(unknown, "match_not_found"));
  assert.equal(unknown.status, 404);

  const invalid = await sdk().createMatch({ players: [] }).catch((error: unknown) => error);
  assert.ok(isProblem(invalid, "validation_error"));
  assert.ok(invalid.problem.errors?.some((e) => e.field.startsWith("players")), invalid.message);

  const noToken = await sdk().playMove(id, { card: "AS" }).catch((error: unknown) => error);
  assert.ok(isProblem(noToken, "missing_token"));
  assert.equal(noToken.status, 401);
});

test("ETag polling: 304 while nothing changed, then only the changed state", LIMIT, async () => {
  const { id, seats, state } = await twoPeople();
  const mover = state.turn ?? 0;
  const { etag } = await seats[mover]!.getMatch(id);
  const same = await seats[mover]!.getMatchIfChanged(id, etag);
  assert.equal(same.changed, false, "304 Not Modified");
  assert.equal(same.etag, etag);

  // the other seat long-polls (wait=1: 304 when the wait ends) while the mover thinks
  const other = seats[1 - mover]!;
  const { etag: theirs, state: before } = await other.getMatch(id);
  let unchanged = 0;
  const controller = new AbortController();
  const polls = other.pollMatch(id, { etag: theirs, wait: 1, minIntervalMs: 0,
                                     onNotModified: () => { unchanged += 1; },
                                     signal: controller.signal });
  const next = polls.next();
  await waitFor(() => unchanged >= 1, "a 304 from the long poll");
  const after = await playOne(id, seats);
  const seen = await next;
  assert.equal(seen.done, false);
  assert.equal(seen.value?.state.version, before.version + 1);
  assert.equal(seen.value?.state.version, after.version);
  assert.equal(seen.value?.etag, `"${after.version}-s${1 - mover}"`);
  controller.abort();
  assert.equal((await polls.next()).done, true, "aborting ends the poll");
});

test("a move whose answer was lost is retried with its key and applied once", LIMIT, async () => {
  const { id, seats, state } = await twoPeople();
  const seat = state.turn ?? 0;
  const { state: view } = await seats[seat]!.getMatch(id);
  const token = seats[seat]!.options.token!;
  const keys: (string | null)[] = [];
  let lose = 1;
  // the first try reaches the service and is played; its answer is lost on the way back
  const lossy = createBasraClient({
    baseUrl: BASE, token,
    fetch: async (request: Request) => {
      const isMove = request.method === "POST" && request.url.endsWith("/moves");
      if (isMove) keys.push(request.headers.get("Idempotency-Key"));
      const response = await fetch(request);
      if (isMove && lose > 0) {
        lose -= 1;
        await response.arrayBuffer();
        throw new TypeError("fetch failed (the answer was lost)");
      }
      return response;
    },
  });
  const retries: RetryInfo[] = [];
  const move = view.legal_moves[0]!;
  const answer = await lossy.playMove(id, { card: move.card, capture: move.capture },
                                      { retry: { baseDelayMs: 10, onRetry: (r) => retries.push(r) } });
  assert.equal(retries.length, 1);
  assert.ok(isNetworkError(retries[0]?.error));
  assert.equal(keys.length, 2);
  assert.ok(keys[0]);
  assert.equal(keys[1], keys[0], "one Idempotency-Key for every try");
  assert.equal(answer.move?.card, move.card);
  assert.equal(answer.state.version, view.version + 1, "applied once");
  const log = unwrap(await sdk().api.GET("/v1/matches/{match_id}/moves", {
    params: { path: { match_id: id }, query: { after: view.version } },
  }));
  assert.deepEqual(log.moves.map((m) => [m.seat, m.card]), [[seat, move.card]]);

  // the same key again answers the first response and applies nothing
  const again = await seats[seat]!.playMove(id, { card: move.card, capture: move.capture },
                                            { idempotencyKey: keys[0]! });
  assert.deepEqual(again.move, answer.move);
  assert.equal((await sdk().getMatch(id)).state.version, view.version + 1);
  // the same key with another body is refused
  const reused = await seats[seat]!.playMove(id, { card: "AS" }, { idempotencyKey: keys[0]! })
    .catch((error: unknown) => error);
  assert.ok(isProblem(reused, "idempotency_key_reused"), String(reused));
});

test("a create whose answer was lost is retried with its key and makes one match", LIMIT,
     async () => {
  const name = `lost-${globalThis.crypto.randomUUID()}`;
  const keys: (string | null)[] = [];
  let lose = 1;
  // the first try reaches the service and makes the match; its answer is lost on the way
  const lossy = createBasraClient({
    baseUrl: BASE,
    fetch: async (request: Request) => {
      const isCreate = request.method === "POST" && new URL(request.url).pathname === "/v1/matches";
      if (isCreate) keys.push(request.headers.get("Idempotency-Key"));
      const response = await fetch(request);
      if (isCreate && lose > 0) {
        lose -= 1;
        await response.arrayBuffer();
        throw new TypeError("fetch failed (the answer was lost)");
      }
      return response;
    },
  });
  const retries: RetryInfo[] = [];
  const created = await lossy.createMatch({ players: [{ name }, { bot: "greedy" }] },
                                          { retry: { baseDelayMs: 10, onRetry: (r) => retries.push(r) } });
  assert.equal(retries.length, 1);
  assert.ok(isNetworkError(retries[0]?.error));
  assert.equal(keys.length, 2);
  assert.ok(keys[0]);
  assert.equal(keys[1], keys[0], "one Idempotency-Key for every try");
  const history = unwrap(await sdk().api.GET("/v1/matches", {
    params: { query: { player: name } },
  }));
  assert.deepEqual(history.matches.map((m) => m.id), [created.id], "one match made");
  // the retry's answer carries the seat's token, which plays
  const { state } = await sdk(created.seats[0]?.token ?? undefined).getMatch(created.id);
  assert.equal(state.seat, 0);
  assert.equal(state.hand?.length, 4);
  // the same key with another body is refused
  const reused = await sdk().createMatch({ players: [{ name }, { name: "bo" }] },
                                         { idempotencyKey: keys[0]! })
    .catch((error: unknown) => error);
  assert.ok(isProblem(reused, "idempotency_key_reused"), String(reused));
});

test("429 and 503 are retried after Retry-After, with one key for a create's tries", LIMIT,
     async () => {
  const problem = (status: number, reason: string) => new Response(JSON.stringify({
    type: "about:blank", title: "busy", status, detail: "try later", reason,
  }), { status, headers: { "Content-Type": "application/problem+json", "Retry-After": "0" } });
  let refusals = 2;
  const keys: (string | null)[] = [];
  const createKeys: (string | null)[] = [];
  const busy = createBasraClient({
    baseUrl: BASE,
    fetch: async (request: Request) => {
      if (request.url.endsWith("/moves")) keys.push(request.headers.get("Idempotency-Key"));
      if (request.url.endsWith("/matches")) createKeys.push(request.headers.get("Idempotency-Key"));
      if (refusals > 0) {
        refusals -= 1;
        return problem(refusals ? 429 : 503, refusals ? "rate_limited" : "database_unavailable");
      }
      return fetch(request);
    },
  });
  const retries: RetryInfo[] = [];
  const created = await busy.createMatch({ players: [{ name: "ana" }, { name: "bo" }] },
                                         { retry: { onRetry: (r) => retries.push(r) } });
  assert.deepEqual(retries.map((r) => (r.error as BasraProblem).reason),
                   ["rate_limited", "database_unavailable"]);
  assert.deepEqual(retries.map((r) => r.delayMs), [0, 0], "Retry-After: 0 honoured");
  assert.equal(created.seats.length, 2);
  assert.equal(createKeys.length, 3);
  assert.ok(createKeys[0]);
  assert.equal(new Set(createKeys).size, 1, "one key for the create's three tries");

  // a service that never answers: the tries are bounded, and the last error thrown
  let calls = 0;
  const lossy = createBasraClient({
    baseUrl: BASE,
    fetch: async () => {
      calls += 1;
      throw new TypeError("fetch failed");
    },
  });
  const lost = await lossy.createMatch({ players: [{ name: "ana" }, { name: "bo" }] },
                                       { retry: { baseDelayMs: 1, attempts: 2 } })
    .catch((error: unknown) => error);
  assert.ok(isNetworkError(lost));
  assert.equal(calls, 2);

  // the tries are bounded
  refusals = 10;
  const spent = await busy.playMove(created.id, { card: "AS" }, { retry: { attempts: 3 } })
    .catch((error: unknown) => error);
  assert.ok(isProblem(spent, "rate_limited"));
  assert.equal(refusals, 7);
  assert.equal(new Set(keys).size, 1, "one key for the move's three tries");
});
