// The named player this page plays as: signing in and out, a token handed over in the
// address, and their own event stream (a pairing, a challenge accepted or a party seated
// moves the page to the match).

import { t } from "./i18n.js";
import { api, player, setCurrentPlayer, shown, storage, table } from "./state.js";
import { $, clearError, go, route, showError } from "./page.js";
import { drawTournament } from "./tournaments.js";
import { drawFriends, partyInvites } from "./social.js";

/** The claims of a player token (a JWT): read, not checked (the service checks it). */
function claimsOf(token) {
  const part = token.split(".")[1] || "";
  const base64 = part.replace(/-/g, "+").replace(/_/g, "/");
  const text = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
  return JSON.parse(new TextDecoder().decode(bytes));
}

function playerFromToken(token) {
  const claims = claimsOf(token);
  if (typeof claims.sub !== "string" || typeof claims.exp !== "number") {
    throw new Error("not a player token");
  }
  return { token, player_id: claims.sub, name: claims.name || null,
    expires_at: new Date(claims.exp * 1000).toISOString() };
}

export function loadPlayer() {
  const saved = storage.get("basra.player");
  if (!saved || !(Date.parse(saved.expires_at) > Date.now() + 60_000)) {
    storage.remove("basra.player");
    return null;
  }
  return saved;
}

export function setPlayer(next) {
  setCurrentPlayer(next);
  if (next) storage.set("basra.player", next);
  else storage.remove("basra.player");
  drawPlayer();
  followPlayer();
}

/** The signed-in player's own stream: a pairing moves the page to the match. */
let playerStream = null;

export function followPlayer() {
  playerStream?.abort();
  playerStream = null;
  if (!player) return;
  const controller = new AbortController();
  playerStream = controller;
  api.followPlayer(player.player_id, player.token, onPlayerEvent, controller.signal).catch(showError);
}

function onPlayerEvent({ type, data }) {
  if (type === "tournament.round" && data.match_id && table?.id !== data.match_id) {
    go(data.match_id);
    return;
  }
  // a challenge accepted, or our party seated: to the table (the player token holds the seat)
  if ((type === "challenge.accepted" || type === "party.seated") && data.match_id
      && table?.id !== data.match_id) {
    go(data.match_id);
    return;
  }
  if (type === "party.invited") partyInvites.set(data.party_id, data.leader);
  if (type === "party.joined" || type === "party.invited") storage.set("basra.party", data.party_id);
  if (type === "party.disbanded" || (type === "party.left" && data.player_id === player?.player_id)) {
    partyInvites.delete(data.party_id);
    if (storage.get("basra.party") === data.party_id) storage.remove("basra.party");
  }
  if (!$("#friends").hidden && (type === "presence" || type.startsWith("friend.")
      || type.startsWith("challenge.") || type.startsWith("party."))) {
    drawFriends().catch(showError);
  }
  if (type.startsWith("tournament.") && shown.tournament === data.tournament_id) {
    drawTournament(data.tournament_id).catch(showError);
  }
}

export function drawPlayer() {
  const form = $("#sign-in");
  const line = $("#signed-in");
  line.hidden = !player;
  line.textContent = player ? t("signed_in", { name: player.name || player.player_id, id: player.player_id }) : "";
  $("#sign-out").hidden = !player;
  form.player_id.value = player?.player_id || "";
  form.token.value = "";
  const profile = $("#nav-profile");
  profile.hidden = !player;
  $("#nav-friends").hidden = !player;
  if (player) profile.href = `/play?player=${encodeURIComponent(player.player_id)}`;
  const rated = $("#new-match input[name=rated]");
  rated.disabled = !player;
  if (!player) rated.checked = false;
  if (player?.name) {
    for (const input of document.querySelectorAll("input[name=name]")) {
      if (!input.value) input.value = player.name;
    }
  }
}

export async function onSignIn(event) {
  event.preventDefault();
  const form = event.target;
  clearError();
  try {
    const token = form.token.value.trim();
    if (token) {
      setPlayer(playerFromToken(token));
    } else {
      const minted = await api.mintPlayerToken(form.player_id.value.trim(), form.name.value.trim());
      setPlayer({ token: minted.token, player_id: minted.player_id, name: minted.name,
        expires_at: minted.expires_at });
    }
    $("#settings").open = false;
    route();
  } catch (error) {
    showError(error);
  }
}

/** Take a player token handed over in the address (#player_token=... or
 * ?player_token=..., on opening the page or later), off the address and its history. */
export function takeHandedToken() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const query = new URLSearchParams(location.search);
  const handed = fragment.get("player_token") || query.get("player_token");
  if (!handed) return false;
  fragment.delete("player_token");
  query.delete("player_token");
  const rest = fragment.toString();
  history.replaceState(history.state, "", location.pathname + (query.size ? `?${query}` : "")
    + (rest ? `#${rest}` : ""));
  try {
    setPlayer(playerFromToken(handed));
  } catch (error) {
    showError(error);
  }
  return true;
}
