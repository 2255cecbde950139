// Server-Sent Events followed with fetch (an EventSource cannot send the Authorization
// header), parsed by eventsource-parser, reconnected from the last event id.
import { createParser, type EventSourceMessage } from "eventsource-parser";

import { BasraProblem } from "./problems.js";
import { backoffMs, isRetryableStatus, sleep } from "./retry.js";

export interface StreamOptions {
  /** Resume after this event id (`Last-Event-ID`); later reconnections send the last id
   * received. */
  lastEventId?: string;
  /** Reconnect when nothing (no event, no heartbeat comment) arrives for this long.
   * The service sends a heartbeat after `BASRA_HEARTBEAT_SECONDS` (15) of silence, or
   * half `BASRA_KEY_CACHE_SECONDS` (2.5 s) with an API key (default 40 s). */
  idleTimeoutMs?: number;
  /** The first reconnection delay, doubled (with jitter) while reconnections fail
   * (default 500 ms; a `retry:` field from the service replaces it). */
  reconnectDelayMs?: number;
  /** The longest reconnection delay (default 15 s). */
  maxReconnectDelayMs?: number;
  /** Give up (throw the last failure) after this many reconnections in a row that
   * received nothing (default: never give up). */
  maxReconnects?: number;
  /** Ends the stream: the iterator returns without an error. */
  signal?: AbortSignal;
  /** Called before each reconnection, with why the connection ended. */
  onReconnect?: (info: ReconnectInfo) => void;
  /** Called for each comment (the service's heartbeats). */
  onComment?: (comment: string) => void;
}

export interface ReconnectInfo {
  /** Reconnections in a row that have received nothing so far, this one included. */
  attempt: number;
  delayMs: number;
  /** The id the reconnection resumes after (`Last-Event-ID`). */
  lastEventId: string | undefined;
  /** A StreamIdleTimeout, StreamEnded, a network error, or a 429/5xx BasraProblem. */
  error: unknown;
}

/** Nothing arrived on the connection for `idleTimeoutMs`. */
export class StreamIdleTimeout extends Error {
  override readonly name = "StreamIdleTimeout";
  constructor(readonly idleTimeoutMs: number) {
    super(`no event or heartbeat for ${idleTimeoutMs} ms`);
  }
}

/** The service closed the stream before its last event. */
export class StreamEnded extends Error {
  override readonly name = "StreamEnded";
  constructor() {
    super("the stream ended before its last event");
  }
}

/** Opens one connection resuming after `lastEventId`: the body's bytes, or a thrown
 * BasraProblem for a refused request. */
export type StreamOpener =
  (lastEventId: string | undefined, signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>;

export const DEFAULT_IDLE_TIMEOUT_MS = 40_000;

/** Whether an event id is at or before the last one received (both numbers: the
 * service's ids are versions and event numbers). */
function alreadySeen(id: string, last: string | undefined): boolean {
  if (last === undefined || id === "" || last === "") return false;
  const a = Number(id), b = Number(last);
  return Number.isSafeInteger(a) && Number.isSafeInteger(b) && a <= b;
}

/**
 * The events of a stream, across reconnections: `parse` turns a message into an event
 * (undefined skips it), `isLast` says when the stream is complete (the iterator then
 * returns). A refused connection that is not worth retrying (401, 403, 404, 422...)
 * throws its BasraProblem; a 429 or 5xx waits its `Retry-After` and reconnects.
 */
export async function* follow<T>(
  open: StreamOpener,
  parse: (message: EventSourceMessage) => T | undefined,
  isLast: (event: T) => boolean,
  options: StreamOptions = {},
): AsyncGenerator<T, void, undefined> {
  const { signal } = options;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const maxDelayMs = options.maxReconnectDelayMs ?? 15_000;
  const maxReconnects = options.maxReconnects ?? Infinity;
  let baseDelayMs = options.reconnectDelayMs ?? 500;
  let lastEventId = options.lastEventId;
  let failures = 0;

  while (!signal?.aborted) {
    const connection = new AbortController();
    const stop = () => connection.abort(signal?.reason);
    signal?.addEventListener("abort", stop, { once: true });
    let idle: ReturnType<typeof setTimeout> | undefined;
    const quiet = () => clearTimeout(idle);
    const listen = () => {
      quiet();
      idle = setTimeout(() => connection.abort(new StreamIdleTimeout(idleTimeoutMs)),
                        idleTimeoutMs);
    };
    let failure: unknown = new StreamEnded();
    try {
      listen();
      const body = await open(lastEventId, connection.signal);
      const messages: EventSourceMessage[] = [];
      const parser = createParser({
        onEvent: (message) => messages.push(message),
        onRetry: (ms) => { baseDelayMs = ms; },
        onComment: (comment) => options.onComment?.(comment),
      });
      const reader = body.getReader();
      const decoder = new TextDecoder();
      // an abort ends the wait for bytes itself: a body whose fetch does not follow the
      // signal (a fetch of the caller's, a body already handed over) would keep it open
      const aborted = new Promise<never>((_, reject) => {
        const fail = () => reject(connection.signal.reason);
        if (connection.signal.aborted) fail();
        else connection.signal.addEventListener("abort", fail, { once: true });
      });
      aborted.catch(() => undefined);
      try {
        for (;;) {
          const { value, done } = await Promise.race([reader.read(), aborted]);
          if (done) break;
          failures = 0; // the connection works
          parser.feed(decoder.decode(value, { stream: true }));
          for (const message of messages.splice(0)) {
            if (message.id !== undefined) {
              if (alreadySeen(message.id, lastEventId)) continue;
              lastEventId = message.id;
            }
            const event = parse(message);
            if (event === undefined) continue;
            quiet(); // the caller's time is not the connection's silence
            yield event;
            if (isLast(event) || signal?.aborted) return; // aborted while the caller held it
          }
          if (signal?.aborted) return;
          listen();
        }
      } finally {
        reader.cancel().catch(() => undefined); // the socket goes now, not at a timeout
      }
    } catch (error) {
      if (signal?.aborted) return;
      if (error instanceof BasraProblem && !isRetryableStatus(error.status)) throw error;
      failure = connection.signal.aborted ? connection.signal.reason : error;
    } finally {
      quiet();
      signal?.removeEventListener("abort", stop);
      connection.abort();
    }
    failures += 1;
    if (failures > maxReconnects) throw failure;
    const asked = failure instanceof BasraProblem ? failure.retryAfter : null;
    const delayMs = asked !== null ? Math.min(maxDelayMs, asked * 1000)
      : backoffMs(failures, baseDelayMs, maxDelayMs);
    options.onReconnect?.({ attempt: failures, delayMs, lastEventId, error: failure });
    try {
      await sleep(delayMs, signal);
    } catch {
      return; // aborted while waiting
    }
  }
}
