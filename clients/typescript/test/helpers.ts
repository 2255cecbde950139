// What the SDK's tests share: the live server's address, a TCP proxy that can cut or
// stall its connections, and waiting on a condition.
import net from "node:net";

import { type BasraClient, createBasraClient, type MatchState } from "../src/index.js";

const url = process.env.BASRA_URL;
if (!url) throw new Error("BASRA_URL: the address of a running service (tests/clients starts one)");
export const BASE: string = url;

/** Each test's time limit: a hung one fails instead of holding the run. */
export const LIMIT = { timeout: 60_000 };

export const sdk = (token?: string): BasraClient =>
  createBasraClient({ baseUrl: BASE, ...(token ? { token } : {}) });

/** Resolves once `condition()` holds; fails after `timeoutMs` naming `what`. */
export async function waitFor(condition: () => boolean, what: string,
                              timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A TCP proxy to the service: `cut()` ends every connection through it now (as a
 * dropped network does), `stall()` stops passing the service's bytes on for the
 * connections open now (a hung connection: nothing more arrives, nothing closes). */
export interface Proxy {
  url: string;
  /** Connections made through it so far. */
  connections: number;
  /** Connections open now and passing bytes. */
  readonly open: number;
  cut(): void;
  stall(): void;
  close(): Promise<void>;
}

export async function startProxy(): Promise<Proxy> {
  const target = new URL(BASE);
  const open = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const hung = new Set<{ client: net.Socket; upstream: net.Socket }>();
  let connections = 0;
  const server = net.createServer((client) => {
    connections += 1;
    const upstream = net.connect(Number(target.port), target.hostname);
    const pair = { client, upstream };
    open.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      open.delete(pair);
      hung.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    get open() {
      return open.size;
    },
    cut() {
      for (const { client, upstream } of open) {
        client.destroy();
        upstream.destroy();
      }
      open.clear();
    },
    stall() {
      for (const pair of open) {
        pair.upstream.unpipe(pair.client);
        pair.upstream.pause();
        open.delete(pair); // a later cut() leaves it hung
        hung.add(pair);
      }
    },
    close() {
      for (const { client, upstream } of [...open, ...hung]) {
        client.destroy();
        upstream.destroy();
      }
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A two-seat match between people: its id and each seat's client. */
export async function twoPeople(extra: { playerToken?: string; playerId?: string } = {}):
    Promise<{ id: string; seats: BasraClient[]; state: MatchState }> {
  const creator = sdk(extra.playerToken);
  const created = await creator.createMatch({
    players: [{ name: "ana", ...(extra.playerId ? { player_id: extra.playerId } : {}) },
              { name: "bo" }],
  });
  const seats = created.seats.map((seat) => {
    if (!seat.token) throw new Error(`seat ${seat.seat} has no token`);
    return sdk(seat.token);
  });
  return { id: created.id, seats, state: created.state };
}

/** The seat to play plays its first legal move (read from its own view). */
export async function playOne(id: string, seats: BasraClient[]): Promise<MatchState> {
  const { state: spectator } = await sdk().getMatch(id);
  if (spectator.turn === null) throw new Error(`nobody to play in ${spectator.status}`);
  const seat = seats[spectator.turn];
  if (!seat) throw new Error(`no client for seat ${spectator.turn}`);
  const { state } = await seat.getMatch(id);
  const move = state.legal_moves[0];
  if (!move) throw new Error(`seat ${spectator.turn} has no legal move`);
  return (await seat.playMove(id, { card: move.card, capture: move.capture })).state;
}
