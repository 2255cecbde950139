// Run apart by streams.test.ts (`node abort-child.js <match|player> <ms>`): follows a
// stream until events were delivered, aborts it (at once, while the caller holds an
// event, or `ms` later, while the stream waits for bytes), and waits for the iterator to
// return. The process must then exit by itself: a socket or timer left behind would keep
// it alive.
import { createBasraClient, unwrap } from "../src/index.js";
import { playOne, sdk, twoPeople } from "./helpers.js";

const which = process.argv[2];
const later = Number(process.argv[3] ?? 0);
const controller = new AbortController();
const abort = async () => {
  if (later) await new Promise((resolve) => setTimeout(resolve, later));
  controller.abort();
};
const delivered: string[] = [];

async function follow(stream: AsyncIterable<{ id: string }>, afterDelivery: () => Promise<void>) {
  const reading = (async () => {
    for await (const event of stream) {
      delivered.push(event.id);
      if (delivered.length === 1) void afterDelivery();
    }
  })();
  await reading;
}

if (which === "match") {
  const { id, seats } = await twoPeople();
  await follow(seats[0]!.matchEvents(id, { signal: controller.signal }), async () => {
    await playOne(id, seats);
    while (delivered.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    await abort();
  });
} else {
  const playerId = `p-${crypto.randomUUID()}`;
  const minted = unwrap(await sdk().api.POST("/v1/players/{player_id}/tokens", {
    params: { path: { player_id: playerId } }, body: { name: "Ana", ttl_seconds: 600 },
  }));
  const player = createBasraClient({ baseUrl: process.env.BASRA_URL!, token: minted.token });
  let started = false;
  const stream = player.playerEvents(playerId, {
    signal: controller.signal,
    onComment: () => {
      if (started) return;
      started = true;
      void twoPeople({ playerToken: minted.token, playerId });
    },
  });
  await follow(stream, abort);
}
console.log(JSON.stringify({ returned: true, delivered: delivered.length }));
