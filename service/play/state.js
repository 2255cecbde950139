// What the screens share: the stored settings, the API, the named player, the table
// on screen and what a profile, leaderboard or tournament page shows.
//
// An importer reads a `let` here as it is now, but cannot assign it: it calls the setter.

import { Api } from "./api.js";

export const storage = {
  get(key) {
    try { return JSON.parse(localStorage.getItem(key)); } catch { return null; }
  },
  set(key, value) {
    try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* private mode */ }
  },
  remove(key) {
    try { localStorage.removeItem(key); } catch { /* private mode */ }
  },
};

export const seatKey = (id) => `basra.seat.${id}`;

export const api = new Api(storage.get("basra.key") || "");

/** The named player this page plays as: {token, player_id, name, expires_at}, or null. */
export let player = null;

/** What a request to take a seat adds for the named player: their id (and token). */
export function asPlayer(spec) {
  return player ? { ...spec, player_id: player.player_id } : spec;
}

/** The table on screen: its id, our seat (token) if any, the last view drawn. */
export let table = null;

/** The ticking of the turn's clock on screen (a timer's id). */
export let clockTimer = null;

/** Keep a seat's token for the match, so a reload keeps the seat. */
export function remember(id, seat, token) {
  storage.set(seatKey(id), { seat, token });
}

/** What the profile or leaderboard on screen shows: its player or pool, the next page. */
export let shown = {};

/** Leave the table on screen: its stream and its clock stop. */
export function stopFollowing() {
  table?.follow?.abort();
  clearInterval(clockTimer);
}

/** Setters of the state above, for the modules that change it. */
export function setCurrentPlayer(next) { player = next; }
export function setTable(next) { table = next; }
export function setShown(next) { shown = next; }
export function setClock(timer) { clockTimer = timer; }
