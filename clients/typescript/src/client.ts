// The typed openapi-fetch client of openapi.yaml, and thin helpers over it.
import createClient, { type Client } from "openapi-fetch";

import type { components, paths } from "./api.js";
import { BasraProblem } from "./problems.js";
import {
  DEFAULT_RETRY,
  isNetworkError,
  isRetryableStatus,
  type RetryOptions,
  sleep,
  withRetries,
} from "./retry.js";
import { follow, type StreamOptions } from "./streams.js";

type Schemas = components["schemas"];
export type MatchState = Schemas["MatchState"];
export type CreateMatch = Schemas["CreateMatch"];
export type CreatedMatch = Schemas["CreatedMatch"];
export type MoveRequest = Schemas["MoveRequest"];
export type MoveResponse = Schemas["MoveResponse"];
/** One `state` event of a match's stream, its `data` parsed. */
export type StateEvent = Schemas["StateEvent"];
/** A `state` event's data: the caller's view, and in `moves` the log entries since the
 * previous event (every play, though the view may be several changes on). */
export type StreamState = Schemas["StreamState"];
/** An entry of the match's log (a play, a bot's reply, a join...). */
export type LoggedMove = Schemas["LoggedMove"];
/** One event of a player's stream, its `data` parsed. */
export type PlayerEvent = Schemas["PlayerEvent"];
/** A staked table's stake: what each seat holds in the table's escrow as it is taken. */
export type Stake = Schemas["Stake"];
/** Looking for a table by quick play (at a `stake`, paired only at the same one). */
export type QuickPlay = Schemas["QuickPlay"];
/** A seat taken (quick play, a join, a rematch): its token, shown only here. */
export type Seated = Schemas["Seated"];
/** A player's coins: a balance in each currency, what they owe and hold at tables. */
export type Wallet = Schemas["Wallet"];
/** A page of a player's ledger (their transfers, newest first) and the next cursor. */
export type LedgerPage = Schemas["LedgerPage"];

export interface BasraClientOptions {
  /** The service's address, e.g. `https://basra.example.com` (no trailing `/v1`). */
  baseUrl: string;
  /** The front end's key, sent as `X-API-Key` (a browser key in a browser, a server key
   * on the front end's server; none on a deployment with `BASRA_API_KEYS=optional`). */
  apiKey?: string;
  /** A seat token or a player token, sent as `Authorization: Bearer`. */
  token?: string;
  /** A fetch of your own (tests, proxies); default `globalThis.fetch`. */
  fetch?: (input: Request) => Promise<Response>;
  /** Default retries of playMove and createMatch. */
  retry?: RetryOptions;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface PlayOptions extends CallOptions {
  /** The Idempotency-Key of this move (default: a new random one), sent on every try. */
  idempotencyKey?: string;
  /** `If-Match`: the ETag (or version) the move was decided on; 412 `version_mismatch`
   * if someone moved since. */
  ifMatch?: string | number;
  retry?: RetryOptions;
}

export interface CreateOptions extends CallOptions {
  /** The Idempotency-Key of this create (default: a new random one), sent on every try. */
  idempotencyKey?: string;
  retry?: RetryOptions;
}

export interface PollOptions extends CallOptions {
  /** The ETag of the state the caller holds: the first yield is the next change. */
  etag?: string;
  /** Long-poll: seconds the service waits for a change before a 304 (capped by the
   * service at `BASRA_MAX_WAIT`, 30); 0 polls (default 25). */
  wait?: number;
  /** The least time between two requests that changed nothing (default 1,000 ms): a
   * long poll answers 304 at once on the viewer's own turn. */
  minIntervalMs?: number;
  /** Called on each 304 (nothing changed). */
  onNotModified?: () => void;
  retry?: RetryOptions;
}

/** A read that may have changed nothing: `state` is null on a 304. */
export type Conditional =
  | { changed: true; state: MatchState; etag: string }
  | { changed: false; state: null; etag: string };

export interface BasraClient {
  /** The typed openapi-fetch client: every route of openapi.yaml. */
  readonly api: Client<paths>;
  readonly options: Readonly<BasraClientOptions>;
  /** The same client with another bearer token (a seat's, a player's), or none. */
  withToken(token: string | undefined): BasraClient;
  /** Create a match, with one Idempotency-Key across its retries (after a network error
   * or time-out, a 5xx, a 429): a create whose answer was lost makes one match, and the
   * retry gets its seat tokens. */
  createMatch(body: CreateMatch, options?: CreateOptions): Promise<CreatedMatch>;
  /** Play a card for the token's seat, with one Idempotency-Key across its retries (after
   * a network error or time-out, a 5xx, a 429). Adds the new state's `etag`. */
  playMove(matchId: string, move: MoveRequest, options?: PlayOptions):
    Promise<MoveResponse & { etag: string | null }>;
  /** The token's view of the match (a spectator's without a token) and its ETag. */
  getMatch(matchId: string, options?: CallOptions): Promise<{ state: MatchState; etag: string }>;
  /** The match if it changed since `etag` (`If-None-Match`); with `wait`, a long poll. */
  getMatchIfChanged(matchId: string, etag: string | undefined,
                    options?: CallOptions & { wait?: number }): Promise<Conditional>;
  /** Each new state of the match (ETag polling, long polls by default), until it ends. */
  pollMatch(matchId: string, options?: PollOptions):
    AsyncGenerator<{ state: MatchState; etag: string }, void, undefined>;
  /** The match's event stream: a `state` event on connect, then one per change (or
   * fewer when changes come fast), each with the log entries since the previous one in
   * `data.moves`; reconnects from the last version; ends after the match's last state,
   * or when `signal` aborts. */
  matchEvents(matchId: string, options?: StreamOptions): AsyncGenerator<StateEvent, void, undefined>;
  /** The player's event stream (needs their player token); reconnects from the last event
   * id; runs until `signal` aborts (or the caller stops iterating). */
  playerEvents(playerId: string, options?: StreamOptions):
    AsyncGenerator<PlayerEvent, void, undefined>;
  /** Quick play: the oldest waiting table of the same rules (and `stake`: only players at
   * the same one pair up; the seat holds it, else 409 `insufficient_funds` or `in_debt`),
   * or a new one. */
  quickPlay(body: QuickPlay, options?: CallOptions): Promise<Seated>;
  /** The player's coins (their player token, or the server key). */
  getWallet(playerId: string, options?: CallOptions): Promise<Wallet>;
  /** Every transfer of the player's ledger, newest first, page after page (`currency`:
   * of one currency only). */
  walletTransfers(playerId: string, options?: CallOptions & { currency?: string; limit?: number }):
    AsyncGenerator<LedgerPage["transfers"][number], void, undefined>;
}

/** The data of an openapi-fetch result, or its BasraProblem thrown. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok && result.error === undefined) return result.data as T;
  throw BasraProblem.from(result.response, result.error);
}

const OVER: ReadonlySet<MatchState["status"]> = new Set(["finished", "aborted"]);

/** Whether the match can change no more. */
export function isOver(state: MatchState): boolean {
  return OVER.has(state.status);
}

/** A fresh Idempotency-Key. */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

export function createBasraClient(options: BasraClientOptions): BasraClient {
  const headers: Record<string, string> = {};
  if (options.apiKey) headers["X-API-Key"] = options.apiKey;
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const retryDefaults: RetryOptions = { ...DEFAULT_RETRY, ...options.retry };

  /** A retry is worth it: the answer was lost, or the service was busy or failing. */
  const transient = (error: unknown) =>
    isNetworkError(error) || (error instanceof BasraProblem && isRetryableStatus(error.status));

  async function getMatchIfChanged(matchId: string, etag: string | undefined,
                                   opts: CallOptions & { wait?: number } = {}):
      Promise<Conditional> {
    const wait = opts.wait ?? 0;
    const result = await api.GET("/v1/matches/{match_id}", {
      params: { path: { match_id: matchId }, query: wait > 0 ? { wait } : {},
                header: etag ? { "If-None-Match": etag } : {} },
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const tag = result.response.headers.get("ETag") ?? "";
    if (result.response.status === 304) return { changed: false, state: null, etag: tag || etag || "" };
    return { changed: true, state: unwrap(result), etag: tag };
  }

  const client: BasraClient = {
    api,
    options,

    withToken(token) {
      return createBasraClient({ ...options, token });
    },

    async createMatch(body, opts = {}) {
      const header = { "Idempotency-Key": opts.idempotencyKey ?? newIdempotencyKey() };
      return withRetries(async (signal) => unwrap(await api.POST("/v1/matches", {
        params: { header }, body, ...(signal ? { signal } : {}),
      })), transient, { ...retryDefaults, ...opts.retry }, opts.signal);
    },

    async playMove(matchId, move, opts = {}) {
      const key = opts.idempotencyKey ?? newIdempotencyKey();
      const header: { "Idempotency-Key": string; "If-Match"?: string } = { "Idempotency-Key": key };
      if (opts.ifMatch !== undefined) header["If-Match"] = String(opts.ifMatch);
      return withRetries(async (signal) => {
        const result = await api.POST("/v1/matches/{match_id}/moves", {
          params: { path: { match_id: matchId }, header },
          body: move,
          ...(signal ? { signal } : {}),
        });
        return { ...unwrap(result), etag: result.response.headers.get("ETag") };
      }, transient, { ...retryDefaults, ...opts.retry }, opts.signal);
    },

    async getMatch(matchId, opts = {}) {
      const read = await getMatchIfChanged(matchId, undefined, opts);
      if (!read.changed) throw new Error("304 to a read without If-None-Match");
      return { state: read.state, etag: read.etag };
    },

    getMatchIfChanged,

    async *pollMatch(matchId, opts = {}) {
      const wait = opts.wait ?? 25;
      const minIntervalMs = opts.minIntervalMs ?? 1000;
      let etag = opts.etag;
      while (!opts.signal?.aborted) {
        const started = Date.now();
        let read: Conditional;
        try {
          read = await withRetries(
            (signal) => getMatchIfChanged(matchId, etag, { wait, ...(signal ? { signal } : {}) }),
            transient,
            // a long poll may rightly take `wait` seconds, and a little more
            { ...retryDefaults, timeoutMs: wait * 1000 + 15_000, ...opts.retry },
            opts.signal,
          );
        } catch (error) {
          if (opts.signal?.aborted) return;
          throw error;
        }
        etag = read.etag;
        if (read.changed) {
          yield { state: read.state, etag: read.etag };
          if (isOver(read.state)) return;
          continue;
        }
        opts.onNotModified?.();
        const rest = minIntervalMs - (Date.now() - started);
        if (rest > 0) {
          try {
            await sleep(rest, opts.signal);
          } catch {
            return;
          }
        }
      }
    },

    matchEvents(matchId, opts = {}) {
      return follow<StateEvent>(
        async (lastEventId, signal) => {
          const result = await api.GET("/v1/matches/{match_id}/events", {
            params: { path: { match_id: matchId },
                      header: lastEventId ? { "Last-Event-ID": lastEventId } : {} },
            headers: { Accept: "text/event-stream" },
            parseAs: "stream",
            signal,
          });
          const body = unwrap(result);
          if (!body) throw new TypeError("the event stream has no body");
          return body;
        },
        (message) => message.event === "state" && message.id !== undefined
          ? { event: "state", id: message.id, data: JSON.parse(message.data) as StreamState }
          : undefined,
        (event) => isOver(event.data),
        opts,
      );
    },

    playerEvents(playerId, opts = {}) {
      return follow<PlayerEvent>(
        async (lastEventId, signal) => {
          const result = await api.GET("/v1/players/{player_id}/events", {
            params: { path: { player_id: playerId },
                      header: lastEventId ? { "Last-Event-ID": lastEventId } : {} },
            headers: { Accept: "text/event-stream" },
            parseAs: "stream",
            signal,
          });
          const body = unwrap(result);
          if (!body) throw new TypeError("the event stream has no body");
          return body;
        },
        (message) => message.id !== undefined && message.event !== undefined
          ? { event: message.event as PlayerEvent["event"], id: message.id,
              data: JSON.parse(message.data) as PlayerEvent["data"] }
          : undefined,
        () => false,
        opts,
      );
    },

    async quickPlay(body, opts = {}) {
      return unwrap(await api.POST("/v1/matches/quick", {
        body, ...(opts.signal ? { signal: opts.signal } : {}),
      }));
    },

    async getWallet(playerId, opts = {}) {
      return unwrap(await api.GET("/v1/players/{player_id}/wallet", {
        params: { path: { player_id: playerId } },
        ...(opts.signal ? { signal: opts.signal } : {}),
      }));
    },

    async *walletTransfers(playerId, opts = {}) {
      let cursor: string | undefined;
      do {
        const query: { currency?: string; limit?: number; cursor?: string } = {};
        if (opts.currency) query.currency = opts.currency;
        if (opts.limit) query.limit = opts.limit;
        if (cursor) query.cursor = cursor;
        const page: LedgerPage = unwrap(await api.GET("/v1/players/{player_id}/wallet/transfers", {
          params: { path: { player_id: playerId }, query },
          ...(opts.signal ? { signal: opts.signal } : {}),
        }));
        yield* page.transfers;
        cursor = page.next ?? undefined;
      } while (cursor);
    },
  };
  return client;
}
