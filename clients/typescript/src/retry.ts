// Bounded retries with exponential backoff and full jitter, honouring Retry-After.
import { BasraProblem } from "./problems.js";

export interface RetryOptions {
  /** Tries in all, the first included (default 4). */
  attempts?: number;
  /** The first backoff, doubled on each retry (default 250 ms). */
  baseDelayMs?: number;
  /** The longest backoff, and the longest `Retry-After` honoured (default 10 s). */
  maxDelayMs?: number;
  /** Each try's own time limit: past it the try counts as a network error (default 30 s;
   * 0 for none). */
  timeoutMs?: number;
  /** Called before each retry (for logs and tests). */
  onRetry?: (info: RetryInfo) => void;
}

export interface RetryInfo {
  /** The try that failed (1 for the first). */
  attempt: number;
  /** How long until the next try. */
  delayMs: number;
  /** A BasraProblem (429, 5xx) or the network error. */
  error: unknown;
}

export const DEFAULT_RETRY: Required<Omit<RetryOptions, "onRetry">> = {
  attempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
  timeoutMs: 30_000,
};

/** A failure that never reached an answer: the connection failed, or the try timed out. */
export function isNetworkError(error: unknown): boolean {
  if (error instanceof BasraProblem) return false;
  if (error instanceof Error && error.name === "AbortError") return false; // the caller's
  return error instanceof TypeError || (error instanceof Error && error.name === "TimeoutError");
}

/** A problem worth another try: the service is busy (429) or failing (5xx). */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** The backoff before retry number `attempt` (1-based), full jitter. */
export function backoffMs(attempt: number, baseDelayMs: number, maxDelayMs: number): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The signal of one try: the caller's, ended also after `timeoutMs`. */
export function attemptSignal(signal: AbortSignal | undefined, timeoutMs: number):
    AbortSignal | undefined {
  const signals = [signal, timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined]
    .filter((s): s is AbortSignal => s !== undefined);
  if (signals.length <= 1) return signals[0];
  return AbortSignal.any(signals);
}

/**
 * Runs `attempt` until it succeeds, throws what is not worth a retry, or the tries run
 * out (the last error is thrown). `retryable` says which failures to try again.
 */
export async function withRetries<T>(
  attempt: (signal: AbortSignal | undefined) => Promise<T>,
  retryable: (error: unknown) => boolean,
  options: RetryOptions = {},
  signal?: AbortSignal,
): Promise<T> {
  const { attempts, baseDelayMs, maxDelayMs, timeoutMs } = { ...DEFAULT_RETRY, ...options };
  for (let n = 1; ; n++) {
    try {
      return await attempt(attemptSignal(signal, timeoutMs));
    } catch (error) {
      if (signal?.aborted || n >= attempts || !retryable(error)) throw error;
      const asked = error instanceof BasraProblem ? error.retryAfter : null;
      const delayMs = asked !== null
        ? Math.min(maxDelayMs, asked * 1000)
        : backoffMs(n, baseDelayMs, maxDelayMs);
      options.onRetry?.({ attempt: n, delayMs, error });
      await sleep(delayMs, signal);
    }
  }
}
