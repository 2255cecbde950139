// Against a running service (heartbeats every second): the match and player event
// streams across cut and hung connections.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import {
  createBasraClient,
  isProblem,
  type PlayerEvent,
  type ReconnectInfo,
  StreamIdleTimeout,
  unwrap,
} from "../src/index.js";
import { LIMIT, playOne, sdk, startProxy, twoPeople, waitFor } from "./helpers.js";

test("the match stream reconnects after a cut and a hang, losing and repeating nothing", LIMIT,
     async (t) => {
  const proxy = await startProxy();
  t.after(() => proxy.close());
  const { id, seats } = await twoPeople();
  const reconnects: ReconnectInfo[] = [];
  const received: number[] = [];
  // each connection's Last-Event-ID, beside the last version received before it (the
  // iterator reads nothing ahead: it connects only inside the test's next())
  const sent: [string | null, string | null][] = [];
  const watcher = createBasraClient({
    baseUrl: proxy.url, token: seats[0]!.options.token!,
    fetch: (request: Request) => {
      const last = received.at(-1);
      sent.push([request.headers.get("Last-Event-ID"), last === undefined ? null : String(last)]);
      return fetch(request);
    },
  });
  const stream = watcher.matchEvents(id, {
    idleTimeoutMs: 3000, reconnectDelayMs: 50, onReconnect: (r) => reconnects.push(r),
  });
  t.after(() => stream.return());
  const first = await stream.next();
  assert.equal(first.done, false);
  received.push(first.value!.data.version);
  assert.equal(first.value!.id, String(first.value!.data.version));
  assert.equal(first.value!.data.seat, 0, "the seat's own view");
  const expected = [first.value!.data.version];
  for (let step = 1; step <= 6; step++) {
    if (step === 2) proxy.cut(); // dropped: the move lands while the stream is away
    if (step === 4) proxy.stall(); // hung: no bytes, no close; only the idle timeout sees it
    expected.push((await playOne(id, seats)).version);
    const event = await stream.next();
    assert.equal(event.done, false);
    received.push(event.value!.data.version);
    assert.equal(event.value!.data.version, expected.at(-1), `step ${step}`);
  }
  assert.deepEqual(received, expected);
  assert.deepEqual(expected, expected.map((_, i) => expected[0]! + i), "one event per move");
  assert.ok(reconnects.length >= 2, JSON.stringify(reconnects));
  const cut = reconnects.find((r) => r.lastEventId === String(expected[1]));
  assert.ok(cut && !(cut.error instanceof StreamIdleTimeout), "the cut, noticed at once");
  const idle = reconnects.find((r) => r.error instanceof StreamIdleTimeout);
  assert.ok(idle, "the hung connection was noticed");
  assert.equal(idle.lastEventId, String(expected[3]));
  // each connection resumed after the last version received (so the service sent nothing
  // twice; the SDK would also drop an id it has seen), the cut's and the hang's among them
  assert.deepEqual(sent.map(([header]) => header), sent.map(([, last]) => last));
  for (const version of [expected[1], expected[3]]) {
    assert.ok(sent.some(([header]) => header === String(version)), JSON.stringify(sent));
  }

  // the match ends: its last state ends the stream
  const resigned = unwrap(await seats[0]!.api.POST("/v1/matches/{match_id}/resign", {
    params: { path: { match_id: id } },
  }));
  const last = await stream.next();
  assert.equal(last.value?.data.status, "finished");
  assert.equal(last.value?.data.version, resigned.state.version);
  assert.equal((await stream.next()).done, true);
});

test("the player stream resumes from its last id: the same events as one unbroken stream", LIMIT,
     async (t) => {
  const playerId = `p-${crypto.randomUUID()}`;
  const minted = unwrap(await sdk().api.POST("/v1/players/{player_id}/tokens", {
    params: { path: { player_id: playerId } }, body: { name: "Ana", ttl_seconds: 600 },
  }));
  const proxy = await startProxy();
  const reconnects: ReconnectInfo[] = [];
  const comments: string[] = [];
  const controller = new AbortController();
  t.after(async () => {
    controller.abort();
    await proxy.close();
  });
  const player = createBasraClient({ baseUrl: proxy.url, token: minted.token });
  const stream = player.playerEvents(playerId, {
    idleTimeoutMs: 3000, reconnectDelayMs: 50, signal: controller.signal,
    onReconnect: (r) => reconnects.push(r), onComment: (c) => comments.push(c),
  });
  const got: PlayerEvent[] = [];
  const reading = (async () => {
    for await (const event of stream) got.push(event);
  })();
  await waitFor(() => comments.includes("connected"), "the stream to connect");

  const { id, seats } = await twoPeople({ playerToken: minted.token, playerId });
  await waitFor(() => got.some((e) => e.event === "match.started"), "match.started");
  const connected = () => comments.filter((c) => c === "connected").length;
  for (let step = 1; step <= 6; step++) {
    if (step === 3) proxy.cut(); // dropped: the next moves' events wait for the reconnection
    if (step === 5) { // hung, once connected again: only the idle timeout notices
      await waitFor(() => connected() >= 2, "the reconnection after the cut");
      proxy.stall();
    }
    await playOne(id, seats);
  }
  unwrap(await seats[1]!.api.POST("/v1/matches/{match_id}/resign", {
    params: { path: { match_id: id } },
  }));
  await waitFor(() => got.some((e) => e.event === "match.finished"), "match.finished");
  controller.abort();
  await reading; // aborting ends the iteration quietly
  assert.ok(reconnects.some((r) => r.error instanceof StreamIdleTimeout), JSON.stringify(reconnects));
  assert.ok(proxy.connections >= 3, `${proxy.connections} connections`);

  const ids = got.map((e) => Number(e.id));
  assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
  assert.equal(new Set(ids).size, ids.length, "no event twice");
  assert.ok(got.filter((e) => e.event === "match.turn").length >= 3, JSON.stringify(got));
  assert.ok(got.every((e) => e.data.match_id === id), JSON.stringify(got));
  const turns = got.filter((e) => e.event === "match.turn");
  assert.ok(turns.every((e) => e.data.seat === 0), "ana's turns only");
  const versions = turns.map((e) => Number(e.data.version));
  assert.deepEqual(versions, [...new Set(versions)].sort((a, b) => a - b));

  // the same events, read again in one go from before the first: nothing was lost
  const again: PlayerEvent[] = [];
  const replay = new AbortController();
  for await (const event of sdk(minted.token).playerEvents(playerId, {
    lastEventId: String(ids[0]! - 1), signal: replay.signal,
  })) {
    again.push(event);
    if (event.id === got.at(-1)!.id) replay.abort();
  }
  assert.deepEqual(again.map((e) => [e.id, e.event]), got.map((e) => [e.id, e.event]));
});

test("a stream that is refused stops with its problem instead of reconnecting", LIMIT, async () => {
  const reconnects: ReconnectInfo[] = [];
  const missing = await (async () => {
    for await (const _ of sdk().matchEvents("no-such-match", { onReconnect: (r) => reconnects.push(r) })) {
      // nothing arrives
    }
  })().catch((error: unknown) => error);
  assert.ok(isProblem(missing, "match_not_found"), String(missing));
  const stranger = await (async () => {
    for await (const _ of sdk().playerEvents("somebody")) {
      // nothing arrives
    }
  })().catch((error: unknown) => error);
  assert.ok(isProblem(stranger, "missing_token"), String(stranger));
  assert.equal(stranger.status, 401);
  assert.equal(reconnects.length, 0);
});

for (const stream of ["match", "player"]) {
  for (const later of [0, 500]) {
    test(`the ${stream} stream, aborted ${later ? "while it waits" : "as an event is held"} ` +
         "after events were delivered, returns and leaves nothing open", LIMIT, async () => {
      // in a process of its own, which exits only if no socket or timer is left
      const child = fileURLToPath(new URL("./abort-child.js", import.meta.url));
      const ran = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const proc = execFile(process.execPath, [child, stream, String(later)],
                              { timeout: 20_000 }, (error, stdout, stderr) => resolve({
            code: error ? (typeof error.code === "number" ? error.code : null) : 0,
            out: stdout + stderr,
          }));
        proc.stdin?.end();
      });
      assert.equal(ran.code, 0, `the child did not exit by itself: ${ran.out}`);
      const said = JSON.parse(ran.out.trim().split("\n").at(-1)!) as { returned: boolean;
        delivered: number };
      assert.equal(said.returned, true);
      assert.ok(said.delivered >= 1, ran.out);
    });
  }
}
