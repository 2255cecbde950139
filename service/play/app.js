// The Basra table: a front end built on the public API only.
//
// Routes: /play shows the lobby; /play?match=ID shows that table; /play?player=ID a
// player's profile; /play?board=POOL a leaderboard; /play?tournaments=all the
// tournaments; /play?tournament=ID one, its standings followed live. A signed-in
// player's own event stream runs on every page: when a tournament pairs them, the page
// moves to their match. A seat's token is kept in
// localStorage per match, so a reload keeps the seat. A named player's token (minted
// here on the local front end, or handed over by a front end's server as
// /play#player_token=...) is kept too, and seats that player wherever they sit down.

import { currentLanguage, setLanguage } from "./i18n.js";
import { api, player, setCurrentPlayer, shown, storage, table } from "./state.js";
import { $, clearError, navigate, routeBy, showError } from "./page.js";
import { drawPlayer, followPlayer, loadPlayer, onSignIn, setPlayer, takeHandedToken } from "./signin.js";
import { onNewMatch, showLobby } from "./lobby.js";
import { drawChart, showBoard, showBoardPage, showProfile } from "./players.js";
import { onTournamentEntry, showTournament, showTournaments, tournamentTimer } from "./tournaments.js";
import { act, onAddFriend, onPartyPlay, showFriends } from "./social.js";
import { draw, onJoin, onRematch, onResign, openTable, showTable } from "./table.js";
import { onSayText, openChat } from "./chat.js";
import { onVerify, stepReplay } from "./review.js";

function init() {
  routeBy(route);
  const preferred = storage.get("basra.lang") || (navigator.language.startsWith("ar") ? "ar" : "en");
  setLanguage(preferred);
  $("#lang").addEventListener("click", () => {
    storage.set("basra.lang", setLanguage(currentLanguage() === "ar" ? "en" : "ar"));
    drawPlayer();
    if (table?.view) {
      draw(table.view);
      openChat(table.id).catch(() => { $("#chat").hidden = true; });
    } else if (!$("#profile").hidden || !$("#board").hidden || !$("#friends").hidden) route();
  });
  const key = $("#api-key");
  key.value = api.key;
  key.addEventListener("change", () => {
    api.key = key.value.trim();
    storage.set("basra.key", api.key);
    clearError();
    route();  // try again with the key
  });
  $("#new-match").addEventListener("submit", onNewMatch);
  $("#join-form").addEventListener("submit", onJoin);
  $("#watch").addEventListener("click", () => showTable());
  $("#resign").addEventListener("click", onResign);
  $("#rematch").addEventListener("click", onRematch);
  $("#verify-button").addEventListener("click", onVerify);
  $("#replay-first").addEventListener("click", () => stepReplay(-Infinity));
  $("#replay-prev").addEventListener("click", () => stepReplay(-1));
  $("#replay-next").addEventListener("click", () => stepReplay(1));
  $("#replay-last").addEventListener("click", () => stepReplay(Infinity));
  $("#sign-in").addEventListener("submit", onSignIn);
  $("#sign-out").addEventListener("click", () => { setPlayer(null); route(); });
  $("#chart-pool").addEventListener("change", () => drawChart(shown.player, $("#chart-pool").value));
  $("#board-pool").addEventListener("change", () => navigate(`/play?board=${encodeURIComponent($("#board-pool").value)}`));
  $("#board-next").addEventListener("click", () => showBoardPage({ cursor: shown.next }));
  $("#board-me").addEventListener("click", () => showBoardPage({ around: player?.player_id }));
  $("#board-top").addEventListener("click", () => showBoardPage({}));
  for (const link of document.querySelectorAll("nav a")) {
    link.addEventListener("click", (event) => { event.preventDefault(); navigate(link.href); });
  }
  for (const input of document.querySelectorAll("input[name=name]")) {
    input.value = storage.get("basra.name") || "";
  }
  $("#add-friend").addEventListener("submit", onAddFriend);
  $("#party-play").addEventListener("click", onPartyPlay);
  $("#party-leave").addEventListener("click", () => act(async () => {
    await api.leaveParty(storage.get("basra.party"), player.token);
    storage.remove("basra.party");
  }));
  $("#chat-form").addEventListener("submit", onSayText);
  $("#tournament-join").addEventListener("click", () => onTournamentEntry("join"));
  $("#tournament-withdraw").addEventListener("click", () => onTournamentEntry("withdraw"));
  setCurrentPlayer(loadPlayer());
  takeHandedToken();
  drawPlayer();
  followPlayer();
  window.addEventListener("popstate", route);
  // a token handed to a page already open (only the fragment changed) leaves the address too
  window.addEventListener("hashchange", () => {
    if (takeHandedToken()) {
      drawPlayer();
      followPlayer();
    }
  });
  route();
}

function route() {
  const query = new URLSearchParams(location.search);
  clearInterval(tournamentTimer);
  if (query.get("friends")) showFriends().catch(showError);
  else if (query.get("tournament")) showTournament(query.get("tournament")).catch(showError);
  else if (query.get("tournaments")) showTournaments().catch(showError);
  else if (query.get("match")) openTable(query.get("match")).catch(showError);
  else if (query.get("player")) showProfile(query.get("player")).catch(showError);
  else if (query.get("board")) showBoard(query.get("board")).catch(showError);
  else showLobby().catch(showError);
}

init();
