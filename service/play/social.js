// Friends, challenges and a party (a signed-in player's).

import { ApiError } from "./api.js";
import { t } from "./i18n.js";
import { api, player, remember, setTable, stopFollowing, storage } from "./state.js";
import { $, cell, clearError, go, playerLink, show, showError } from "./page.js";

/** Parties this player was invited to while the page was open: id -> leader. */
export const partyInvites = new Map();

export async function showFriends() {
  stopFollowing();
  setTable(null);
  show("friends");
  if (!player) {
    showError(t("t_sign_in_first"));
    return;
  }
  await drawFriends();
}

/** Run an action of the friends page, then draw the page again. */
export async function act(action) {
  clearError();
  try {
    await action();
  } catch (error) {
    showError(error);
  }
  await drawFriends().catch(showError);
}

function button(key, onClick, className = "") {
  const b = cell("button", t(key));
  b.type = "button";
  b.dataset.action = key;
  if (className) b.className = className;
  b.addEventListener("click", onClick);
  return b;
}

export async function drawFriends() {
  if (!player) return;
  const me = player.player_id;
  const [{ friends }, { challenges }] = await Promise.all([
    api.friends(me, player.token), api.challenges(me, player.token)]);
  $("#friends-empty").hidden = friends.length > 0;
  $("#friend-list").replaceChildren(...friends.map((f) => {
    const item = document.createElement("li");
    item.dataset.player = f.player_id;
    item.append(playerLink(f.player_id), " ");
    if (f.state === "friends") {
      const badge = cell("span", t(`presence_${f.presence}`));
      badge.className = `presence ${f.presence}`;
      badge.dataset.presence = f.presence;
      item.append(badge, " ");
      if (f.presence === "playing" && f.match_id) {
        const watch = cell("a", t("watch_friend"));
        watch.href = `/play?match=${encodeURIComponent(f.match_id)}`;
        item.append(watch, " ");
      }
      item.append(
        button("challenge_friend", () => act(() => api.challenge({ to: f.player_id }, player.token))),
        " ",
        button("party_with", () => act(() => partyWith(f.player_id))),
        " ",
        button("remove", () => act(() => api.unfriend(me, f.player_id, player.token)), "link"));
    } else if (f.state === "asked") {
      item.append(cell("span", t("state_asked")), " ",
        button("accept", () => act(() => api.befriend(me, f.player_id, player.token))), " ",
        button("decline", () => act(() => api.unfriend(me, f.player_id, player.token)), "link"));
    } else {
      item.append(cell("span", t("state_requested")), " ",
        button("cancel_challenge", () => act(() => api.unfriend(me, f.player_id, player.token)), "link"));
    }
    return item;
  }));
  $("#challenges-empty").hidden = challenges.length > 0;
  $("#challenge-list").replaceChildren(...challenges.map((c) => {
    const item = document.createElement("li");
    item.dataset.challenge = c.id;
    if (c.challenged === me) {
      item.append(cell("span", t("challenge_from", { name: c.challenger, variant: c.variant })), " ",
        button("accept", () => act(async () => {
          const accepted = await api.answerChallenge(c.id, "accept", player.token);
          remember(accepted.match_id, accepted.seat, accepted.token);
          go(accepted.match_id);
        })), " ",
        button("decline", () => act(() => api.answerChallenge(c.id, "decline", player.token)), "link"));
    } else {
      item.append(cell("span", t("challenge_to", { name: c.challenged, variant: c.variant })), " ",
        button("cancel_challenge", () => act(() => api.answerChallenge(c.id, "cancel", player.token)), "link"));
    }
    return item;
  }));
  await drawParty();
}

async function partyWith(friend) {
  let id = storage.get("basra.party");
  if (!id) {
    id = (await api.newParty(player.token)).id;
    storage.set("basra.party", id);
  }
  await api.inviteToParty(id, friend, player.token);
}

async function drawParty() {
  const id = storage.get("basra.party");
  let party = null;
  if (id) {
    try {
      party = await api.party(id, player.token);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 404) throw error;
      storage.remove("basra.party");
    }
  }
  const mine = party && party.members.some((m) => m.player_id === player.player_id && m.status === "joined");
  $("#party").hidden = !mine;
  if (mine) {
    $("#party-members").replaceChildren(...party.members.map((m) => {
      const item = cell("li", t(m.status === "joined" ? "member_joined" : "member_invited",
        { name: m.player_id }));
      item.dataset.member = m.player_id;
      item.dataset.status = m.status;
      return item;
    }));
    $("#party-play").disabled = party.members.filter((m) => m.status === "joined").length < 2;
  }
  $("#party-invites").replaceChildren(...[...partyInvites].filter(([pid]) => !mine || pid !== id)
    .map(([pid, leader]) => {
      const item = document.createElement("li");
      item.dataset.party = pid;
      item.append(cell("span", t("party_invited", { name: leader })), " ",
        button("join_party", () => act(async () => {
          await api.joinParty(pid, player.token);
          storage.set("basra.party", pid);
          partyInvites.delete(pid);
        })));
      return item;
    }));
}

export async function onAddFriend(event) {
  event.preventDefault();
  const other = event.target.other.value.trim();
  await act(() => api.befriend(player.player_id, other, player.token));
  event.target.reset();
}

export async function onPartyPlay() {
  clearError();
  try {
    const seated = await api.quickPlay({ variant: "egyptian-4p", party: storage.get("basra.party"),
      player_id: player.player_id, name: player.name || player.player_id }, player.token);
    remember(seated.id, seated.seat, seated.token);
    go(seated.id);
  } catch (error) {
    showError(error);
  }
}
