// @basra/client: the Basra match service's TypeScript SDK.
export type { components, paths, webhooks } from "./api.js";
export {
  type BasraClient,
  type BasraClientOptions,
  type CallOptions,
  type Conditional,
  type CreatedMatch,
  type LoggedMove,
  type CreateMatch,
  type CreateOptions,
  createBasraClient,
  isOver,
  type LedgerPage,
  type MatchState,
  type MoveRequest,
  type MoveResponse,
  newIdempotencyKey,
  type PlayerEvent,
  type PlayOptions,
  type PollOptions,
  type QuickPlay,
  type Seated,
  type Stake,
  type StateEvent,
  type StreamState,
  unwrap,
  type Wallet,
} from "./client.js";
export {
  BasraProblem,
  isProblem,
  type KnownReason,
  type Problem,
  type Reason,
  retryAfterSeconds,
} from "./problems.js";
export { isNetworkError, type RetryInfo, type RetryOptions } from "./retry.js";
export {
  type ReconnectInfo,
  StreamEnded,
  StreamIdleTimeout,
  type StreamOptions,
} from "./streams.js";
