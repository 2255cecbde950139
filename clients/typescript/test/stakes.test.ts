// Against a running service: coins and a staked table through the SDK (a currency and a
// grant made with the keyless local front end's server rights).
import assert from "node:assert/strict";
import { test } from "node:test";

import { BasraProblem, createBasraClient, unwrap } from "../src/index.js";
import { BASE, LIMIT, sdk } from "./helpers.js";

const CURRENCY = "SDKCOINS";

/** A player's client: their player token minted (the local front end needs no key). */
async function playerClient(id: string) {
  const minted = unwrap(await sdk().api.POST("/v1/players/{player_id}/tokens", {
    params: { path: { player_id: id } }, body: { name: id },
  }));
  return createBasraClient({ baseUrl: BASE, token: minted.token });
}

async function grant(player: string, amount: number): Promise<void> {
  unwrap(await sdk().api.POST("/v1/transfers", {
    params: { header: { "Idempotency-Key": crypto.randomUUID() } },
    body: { currency: CURRENCY, amount, to: player, reason: "sdk test" },
  }));
}

test("two players quick-play at a stake: held, settled, shown in their wallets", LIMIT, async () => {
  unwrap(await sdk().api.PUT("/v1/currencies/{code}", {
    params: { path: { code: CURRENCY } }, body: { name: "SDK coins" },
  }));
  const suffix = crypto.randomUUID().slice(0, 8);
  const [ana, bo] = [`ana-${suffix}`, `bo-${suffix}`];
  await grant(ana, 50);
  await grant(bo, 20);
  const anaClient = await playerClient(ana);
  const boClient = await playerClient(bo);
  const stake = { currency: CURRENCY, amount: 30 };
  const short = await boClient.quickPlay({ stake }).then(() => null, (e: unknown) => e);
  assert.ok(short instanceof BasraProblem && short.reason === "insufficient_funds", String(short));
  await grant(bo, 10);
  const first = await anaClient.quickPlay({ stake });
  const second = await boClient.quickPlay({ stake });
  assert.equal(second.id, first.id, "the same stake pairs up");
  assert.deepEqual(second.state.stake?.amount, 30);
  const held = await anaClient.getWallet(ana);
  const coins = held.balances.find((b) => b.currency === CURRENCY);
  assert.deepEqual([coins?.balance, coins?.held], [20, 30]);
  const seat = createBasraClient({ baseUrl: BASE, token: second.token });
  unwrap(await seat.api.POST("/v1/matches/{match_id}/resign", {
    params: { path: { match_id: second.id } },
  }));
  const after = (await anaClient.getWallet(ana)).balances.find((b) => b.currency === CURRENCY);
  assert.deepEqual([after?.balance, after?.held], [80, 0], "ana took the pot (no rake)");
  const kinds = [];
  for await (const transfer of anaClient.walletTransfers(ana, { currency: CURRENCY, limit: 2 })) {
    kinds.push(transfer.kind);
  }
  assert.deepEqual(kinds, ["pot", "hold", "grant"]);
});
