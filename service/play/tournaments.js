// Tournaments: the list, and one with its standings and rounds followed live.

import { currentLanguage, t } from "./i18n.js";
import { api, player, setShown, setTable, shown, stopFollowing } from "./state.js";
import { $, cell, clearError, navigate, playerLink, show, showError } from "./page.js";

export let tournamentTimer = null;

function tournamentLine(summary) {
  const item = document.createElement("li");
  const link = cell("a", summary.name);
  link.href = `/play?tournament=${encodeURIComponent(summary.id)}`;
  link.addEventListener("click", (event) => { event.preventDefault(); navigate(link.href); });
  item.dataset.tournament = summary.id;
  item.append(link, ` · ${summary.variant} · ${statusText(summary)} · ` +
    t("t_players", { n: summary.entrant_count, max: summary.max_players }));
  return item;
}

function statusText(tournament) {
  return t(`t_status_${tournament.status}`, {
    date: new Date(tournament.starts_at).toLocaleString(currentLanguage()) });
}

export async function showTournaments() {
  stopFollowing();
  setTable(null);
  const { tournaments } = await api.tournaments();
  setShown({});
  show("tournaments");
  $("#tournament-list").replaceChildren(...tournaments.map(tournamentLine));
  $("#tournaments-empty").hidden = tournaments.length > 0;
}

export async function showTournament(id) {
  stopFollowing();
  setTable(null);
  setShown({ tournament: id });
  await drawTournament(id);
  show("tournament");
  // the standings follow the event: the player's stream redraws at once, this at least
  // every two seconds (for spectators too)
  tournamentTimer = setInterval(() => {
    if (shown.tournament === id) drawTournament(id).catch(showError);
  }, 2000);
}

export async function drawTournament(id) {
  const tour = await api.tournament(id);
  if (shown.tournament !== id) return;
  $("#tournament-name").textContent = tour.name;
  const length = tour.system === "arena" ? t("t_system_arena", { n: tour.duration_minutes })
    : t(`t_system_${tour.system}`, { n: tour.planned_rounds });
  $("#tournament-status").textContent = `${tour.variant} · ${length} · ${statusText(tour)} · ` +
    t("t_players", { n: tour.entrants.length, max: tour.max_players });
  const entered = player && tour.entrants.includes(player.player_id);
  const open = tour.status === "scheduled" || (tour.status === "running" && tour.system === "arena");
  $("#tournament-join").hidden = !player || entered || !open;
  $("#tournament-withdraw").hidden = !entered || tour.status === "finished" || tour.status === "cancelled";
  const me = $("#tournament-me");
  me.replaceChildren(player ? (entered ? t("t_entered") : "") : (open ? t("t_sign_in_first") : ""));
  const games = tour.system === "arena" ? tour.pairings : tour.rounds.flatMap((r) => r.pairings);
  const mine = entered && games.find((p) => p.status === "playing" && p.players.includes(player.player_id));
  if (mine) {
    const link = cell("a", t("t_watch"));
    link.id = "tournament-my-match";
    link.href = `/play?match=${encodeURIComponent(mine.match_id)}`;
    me.append(" ", link);
  }
  const head = document.createElement("tr");
  head.append(...["col_rank", "col_player", "col_points", "col_buchholz", "col_sb", "col_games_short"]
    .map((key) => cell("th", t(key))));
  $("#standings thead").replaceChildren(head);
  $("#standings tbody").replaceChildren(...tour.standings.map((s) => {
    const row = document.createElement("tr");
    row.dataset.player = s.player_id;
    if (s.player_id === player?.player_id) row.className = "me";
    const who = document.createElement("td");
    who.append(playerLink(s.player_id));
    row.append(cell("td", s.rank), who, cell("td", s.points), cell("td", s.buchholz),
      cell("td", s.sonneborn_berger), cell("td", s.games));
    return row;
  }));
  const rounds = tour.system === "arena" ? [{ title: "", pairings: tour.pairings, byes: [] }]
    : tour.rounds.map((r) => ({ title: t("t_round", { n: r.round }), pairings: r.pairings,
      byes: r.byes || (r.bye ? [r.bye] : []) }));
  $("#tournament-rounds").replaceChildren(...rounds.slice().reverse().map((r) => {
    const box = document.createElement("div");
    if (r.title) box.append(cell("h3", r.title));
    const list = document.createElement("ul");
    list.className = "matches";
    list.append(...r.pairings.slice().reverse().map((p) => {
      const item = document.createElement("li");
      item.dataset.match = p.match_id;
      const [a, b, c, d] = p.players;  // partners at a 4-player table: seats 0 and 2
      const link = cell("a", c ? `${a} & ${c} – ${b} & ${d}` : `${a} – ${b}`);
      link.href = `/play?match=${encodeURIComponent(p.match_id)}`;
      const result = p.status === "playing" ? t("result_playing") : p.status === "void" ? t("t_void")
        : p.draw ? t("result_draw") : t("won", { name: p.winner });
      item.append(link, ` · ${result}`);
      return item;
    }));
    for (const bye of r.byes) list.append(cell("li", t("t_bye", { name: bye })));
    box.append(list);
    return box;
  }));
}

export async function onTournamentEntry(action) {
  clearError();
  try {
    const id = shown.tournament;
    if (action === "join") await api.joinTournament(id, player?.token);
    else await api.withdrawTournament(id, player?.token);
    await drawTournament(id);
  } catch (error) {
    showError(error);
  }
}
