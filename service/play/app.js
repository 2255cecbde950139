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

import { Api, ApiError } from "./api.js";
import { cardBack, cardElement } from "./cards.js";
import { currentLanguage, setLanguage, t } from "./i18n.js";
import { replayFrames, verifyDeal } from "./verify.js";

const $ = (selector) => document.querySelector(selector);

const storage = {
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
const seatKey = (id) => `basra.seat.${id}`;

const api = new Api(storage.get("basra.key") || "");

/** The named player this page plays as: {token, player_id, name, expires_at}, or null. */
let player = null;

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

function loadPlayer() {
  const saved = storage.get("basra.player");
  if (!saved || !(Date.parse(saved.expires_at) > Date.now() + 60_000)) {
    storage.remove("basra.player");
    return null;
  }
  return saved;
}

function setPlayer(next) {
  player = next;
  if (next) storage.set("basra.player", next);
  else storage.remove("basra.player");
  drawPlayer();
  followPlayer();
}

/** The signed-in player's own stream: a pairing moves the page to the match. */
let playerStream = null;

function followPlayer() {
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

function drawPlayer() {
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

async function onSignIn(event) {
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
function takeHandedToken() {
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

/** What a request to take a seat adds for the named player: their id (and token). */
function asPlayer(spec) {
  return player ? { ...spec, player_id: player.player_id } : spec;
}

/** The table on screen: its id, our seat (token) if any, the last view drawn. */
let table = null;
let clockTimer = null;

// ---- start-up and routes --------------------------------------------------

function init() {
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
  player = loadPlayer();
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

function navigate(url) {
  history.pushState({}, "", url);
  route();
}

function go(id) {
  navigate(`/play?match=${encodeURIComponent(id)}`);
}

function show(section) {
  for (const id of ["lobby", "join", "table", "profile", "board", "tournaments", "tournament",
    "friends"]) {
    $(`#${id}`).hidden = id !== section;
  }
}

function showError(error) {
  const box = $("#error");
  box.textContent = error instanceof ApiError ? `${error.message} (${error.reason})` : String(error);
  box.hidden = false;
}

/** A passing word in the error's place (not an error: nothing for the player to do). */
function showNotice(text) {
  const box = $("#error");
  box.textContent = text;
  box.hidden = false;
}

function clearError() {
  $("#error").hidden = true;
}

// ---- the lobby ----------------------------------------------------------------

/** The variants in the lobby's list: loaded once, awaited by a start that comes first. */
let variantsLoaded = null;

async function showLobby() {
  stopFollowing();
  table = null;
  show("lobby");
  const select = $("#new-match select[name=variant]");
  if (!select.options.length) {
    variantsLoaded = loadVariants(select);
    await variantsLoaded;
  }
  labelLevels().catch(() => {});  // the ladder's ratings are a help, not a need
}

/** The bot level nearest the signed-in player's skill (in the ladder's variant), chosen
 * and marked. */
async function labelLevels() {
  if (!player?.player_id) return;
  const [record, ladder] = await Promise.all([api.player(player.player_id), api.bots()]);
  const mu = record.ratings.find((r) => r.pool === ladder.variant)?.mu;
  if (mu === undefined) return;
  const bots = await api.bots(mu);
  const levels = $("#new-match select[name=level]");
  const option = [...levels.options].find((o) => o.value === bots.nearest);
  if (option) {
    option.textContent = t("level_yours", { level: t(`level_${bots.nearest}`) });
    levels.value = bots.nearest;
  }
}

async function loadVariants(select) {
  const { variants } = await api.variants();
  for (const variant of variants) {
    const option = new Option(`${variant.name}: ${variant.description}`, variant.name);
    option.dataset.players = variant.rules.players;
    select.add(option);
  }
  select.value = "egyptian-v2";
}

async function onNewMatch(event) {
  event.preventDefault();
  const form = event.target;
  const typed = form.name.value.trim();
  storage.set("basra.name", typed);
  const name = typed || t("default_name");  // "Play the computer" needs no typing first
  const action = event.submitter?.value || "bot";
  const rules = {};
  if (form.target_score.value) rules.target_score = Number(form.target_score.value);
  if (form.choose.checked) rules.capture = { mode: "choose" };
  clearError();
  try {
    await variantsLoaded;  // a click may come before the list has arrived
    const spec = { variant: form.variant.value, rules };
    if (form.clock.value) {
      spec.clock = { move_seconds: Number(form.clock.value), timeout: "autoplay" };
    }
    if (action === "quick") {
      const quick = asPlayer({ variant: spec.variant, rules, name, rated: form.rated.checked });
      const seated = await api.quickPlay(quick, player?.token);
      remember(seated.id, seated.seat, seated.token);
      return go(seated.id);
    }
    const seats = Number(form.variant.selectedOptions[0].dataset.players);
    const rivals = Array.from({ length: seats - 1 },
      () => (action === "bot" ? { bot: form.level.value } : { open: true }));
    const created = await api.createMatch({ ...spec, players: [asPlayer({ name }), ...rivals] },
      player?.token);
    remember(created.id, 0, created.seats[0].token);
    go(created.id);
  } catch (error) {
    showError(error);
  }
}

function remember(id, seat, token) {
  storage.set(seatKey(id), { seat, token });
}

// ---- players: a profile and the leaderboards -----------------------------------

/** What the profile or leaderboard on screen shows: its player or pool, the next page. */
let shown = {};

const TOTALS = ["matches", "wins", "losses", "draws", "resigned", "timed_out", "basras",
  "jack_basras", "points"];

function cell(tag, text) {
  return Object.assign(document.createElement(tag), { textContent: text });
}

/** A rating figure, isolated left to right (a minus sign stays in front in Arabic). */
const figure = (value) => `\u2066${value.toFixed(1)}\u2069`;

/** A rating's number, a "?" after it while provisional (isolated left to right). */
const rating = (r) => `\u2066${r.display}${r.provisional ? "?" : ""}\u2069`;

/** A table cell of a rating's number, saying "provisional" on hover while it is. */
function ratingCell(r) {
  const td = cell("td", rating(r));
  if (r.provisional) td.title = t("provisional");
  return td;
}

async function showProfile(id) {
  stopFollowing();
  table = null;
  const [record, page] = await Promise.all([api.player(id), api.playerMatches(id)]);
  shown = { player: id };
  show("profile");
  $("#profile-name").textContent = record.name || record.player_id;
  $("#profile-since").textContent = t("player_since", {
    date: new Date(record.created_at).toLocaleDateString(currentLanguage()) });
  const head = document.createElement("tr");
  head.append(...["col_pool", "col_rating", "col_mu", "col_sigma", "col_games", "col_rank"]
    .map((key) => cell("th", t(key))));
  $("#profile-ratings thead").replaceChildren(head);
  $("#profile-ratings tbody").replaceChildren(...record.ratings.map((r) => {
    const row = document.createElement("tr");
    const rank = document.createElement("td");
    if (r.rank === null) rank.textContent = t("unlisted");
    else {
      const link = cell("a", `#${r.rank}`);
      link.href = `/play?board=${encodeURIComponent(r.pool)}`;
      rank.append(link);
    }
    row.append(cell("td", r.pool), ratingCell(r),
      cell("td", figure(r.mu)), cell("td", figure(r.sigma)), cell("td", r.games), rank);
    return row;
  }));
  $("#profile-ratings").hidden = record.ratings.length === 0;
  $("#profile-totals").replaceChildren(...TOTALS.flatMap((key) => {
    const value = cell("dd", record.totals[key]);
    value.dataset.total = key;
    return [cell("dt", t(`total_${key}`)), value];
  }));
  const pools = $("#chart-pool");
  pools.replaceChildren(...record.ratings.map((r) => new Option(r.pool, r.pool)));
  pools.disabled = record.ratings.length < 2;
  await drawChart(id, record.ratings[0]?.pool);
  $("#profile-matches").replaceChildren(...page.matches.map((m) => matchLine(m, id)));
}

function matchLine(match, id) {
  const item = document.createElement("li");
  const mine = match.seats.find((s) => s.player_id === id);
  const others = match.seats.filter((s) => s.team !== mine?.team).map((s) => s.name || "?");
  let result = t(`result_${{ active: "playing" }[match.status] || match.status}`);
  if (match.status === "finished") {
    result = match.draw ? t("result_draw") : t(match.winner === mine?.team ? "result_won" : "result_lost");
  }
  const link = cell("a", `${match.variant} · ${t("versus", { names: others.join(", ") })}`);
  link.href = `/play?match=${encodeURIComponent(match.id)}`;
  item.append(link, ` · ${result}`);
  const change = (match.rating_changes || []).find((c) => c.player_id === id);
  if (change) {
    const delta = change.after.display - change.before.display;
    item.append(` · ${t("rated")} \u2066${delta >= 0 ? "+" : ""}${delta}\u2069`);
  }
  item.dataset.result = match.status === "finished" ? result : match.status;
  return item;
}

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attributes = {}) {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, String(value));
  return el;
}

/** The player's display rating after each rated match of `pool`, as an SVG line. */
async function drawChart(id, pool) {
  const box = $("#chart");
  if (!pool) {
    box.replaceChildren(cell("p", t("no_ratings")));
    return;
  }
  const { points } = await api.ratingHistory(id, pool);
  const width = 600, height = 220, pad = 36;
  const values = points.map((p) => p.display);
  const low = Math.floor(Math.min(...values, 0)), high = Math.ceil(Math.max(...values, 1));
  const x = (i) => pad + (points.length < 2 ? (width - 2 * pad) / 2 : i * (width - 2 * pad) / (points.length - 1));
  const y = (v) => height - pad - (v - low) * (height - 2 * pad) / (high - low || 1);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": t("rating_chart") });
  chart.append(
    svg("line", { x1: pad, y1: height - pad, x2: width - pad, y2: height - pad, class: "axis" }),
    svg("line", { x1: pad, y1: pad, x2: pad, y2: height - pad, class: "axis" }),
  );
  for (const [value, at] of [[high, y(high)], [low, y(low)]]) {
    const label = svg("text", { x: pad - 6, y: at + 4, "text-anchor": "end", class: "label" });
    label.textContent = value;
    chart.append(label);
  }
  const caption = svg("text", { x: width - pad, y: height - 8, "text-anchor": "end", class: "label" });
  caption.textContent = t("chart_axis");
  chart.append(caption);
  chart.append(svg("polyline", { class: "line",
    points: points.map((p, i) => `${x(i).toFixed(1)},${y(p.display).toFixed(1)}`).join(" ") }));
  points.forEach((p, i) => {
    const dot = svg("circle", { cx: x(i).toFixed(1), cy: y(p.display).toFixed(1), r: 4, class: "dot" });
    const title = svg("title");
    title.textContent = `${rating(p)} · ${new Date(p.at).toLocaleString(currentLanguage())}`;
    dot.append(title);
    chart.append(dot);
  });
  box.replaceChildren(chart);
}

async function showBoard(pool) {
  stopFollowing();
  table = null;
  const select = $("#board-pool");
  if (!select.options.length) {
    const { variants } = await api.variants();
    select.replaceChildren(...variants.map((v) => new Option(v.name, v.name)));
  }
  select.value = pool;
  shown = { pool };
  show("board");
  $("#board-me").hidden = !player;
  await showBoardPage({});
}

async function showBoardPage({ cursor, around }) {
  const pool = shown.pool;
  let board;
  try {
    board = await api.leaderboard(pool, { cursor, around });
  } catch (error) {
    if (!(around && error instanceof ApiError && error.status === 404)) throw error;
    showError(error);  // not listed (yet)
    return;
  }
  shown.next = board.next;
  const head = document.createElement("tr");
  head.append(...["col_rank", "col_player", "col_rating", "col_games"].map((key) => cell("th", t(key))));
  $("#board-table thead").replaceChildren(head);
  $("#board-table tbody").replaceChildren(...board.entries.map((e) => {
    const row = document.createElement("tr");
    row.dataset.player = e.player_id;
    if (e.player_id === player?.player_id) row.className = "me";
    const name = cell("a", e.name || e.player_id);
    name.href = `/play?player=${encodeURIComponent(e.player_id)}`;
    const who = document.createElement("td");
    who.append(name);
    row.append(cell("td", e.rank), who, ratingCell(e), cell("td", e.games));
    return row;
  }));
  $("#board-empty").hidden = board.entries.length > 0;
  $("#board-next").hidden = !board.next;
  $("#board-place").textContent = board.rank ? t("board_place", {
    name: player?.name || player?.player_id, rank: board.rank, percentile: board.percentile }) : "";
}

// ---- tournaments ----------------------------------------------------------------

let tournamentTimer = null;

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

async function showTournaments() {
  stopFollowing();
  table = null;
  const { tournaments } = await api.tournaments();
  shown = {};
  show("tournaments");
  $("#tournament-list").replaceChildren(...tournaments.map(tournamentLine));
  $("#tournaments-empty").hidden = tournaments.length > 0;
}

async function showTournament(id) {
  stopFollowing();
  table = null;
  shown = { tournament: id };
  await drawTournament(id);
  show("tournament");
  // the standings follow the event: the player's stream redraws at once, this at least
  // every two seconds (for spectators too)
  tournamentTimer = setInterval(() => {
    if (shown.tournament === id) drawTournament(id).catch(showError);
  }, 2000);
}

function playerLink(id, names) {
  const link = cell("a", names?.[id] || id);
  link.href = `/play?player=${encodeURIComponent(id)}`;
  return link;
}

async function drawTournament(id) {
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

async function onTournamentEntry(action) {
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

// ---- friends, challenges and a party --------------------------------------------

/** Parties this player was invited to while the page was open: id -> leader. */
const partyInvites = new Map();

async function showFriends() {
  stopFollowing();
  table = null;
  show("friends");
  if (!player) {
    showError(t("t_sign_in_first"));
    return;
  }
  await drawFriends();
}

/** Run an action of the friends page, then draw the page again. */
async function act(action) {
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

async function drawFriends() {
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

async function onAddFriend(event) {
  event.preventDefault();
  const other = event.target.other.value.trim();
  await act(() => api.befriend(player.player_id, other, player.token));
  event.target.reset();
}

async function onPartyPlay() {
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

// ---- a table ------------------------------------------------------------------

async function openTable(id) {
  stopFollowing();
  const mine = storage.get(seatKey(id));
  // a seat bound to the signed-in player (a tournament's) answers their player token
  const token = mine?.token || player?.token || null;
  table = { id, token, view: null, recent: null, log: null, follow: null };
  let view;
  try {
    view = await api.view(id, table.token);
  } catch (error) {
    if (!(error instanceof ApiError) || error.reason !== "invalid_token") throw error;
    storage.remove(seatKey(id));  // a token of another deployment or a purged match
    table.token = null;
    view = await api.view(id, null);
  }
  table.view = view;
  if (!table.token && view.status === "waiting" && view.seats.some((s) => s.open)) {
    show("join");
    return;
  }
  showTable();
}

async function onJoin(event) {
  event.preventDefault();
  const typed = event.target.name.value.trim();
  storage.set("basra.name", typed);
  const name = typed || t("default_name");
  try {
    const seated = await api.join(table.id, asPlayer({ name }), player?.token);
    remember(seated.id, seated.seat, seated.token);
    table.token = seated.token;
    table.view = seated.state;
    showTable();
  } catch (error) {
    showError(error);
  }
}

function showTable() {
  clearError();
  show("table");
  const view = table.view;
  table.view = null;
  render(view);
  follow();
  openChat(table.id).catch(() => { $("#chat").hidden = true; });
}

function follow() {
  const controller = new AbortController();
  table.follow = controller;
  const id = table.id;
  api.follow(id, table.token, (view) => {
    if (table?.id === id) render(view);
  }, controller.signal, (line) => {
    if (table?.id === id) addChatLine(line);
  }).catch(showError);
}

// ---- table chat ---------------------------------------------------------------

let phrases = null;

/** The table's chat: the lines so far, the phrases (and a text box where the front end
 * allows text); hidden from those who may not read it. */
async function openChat(id) {
  $("#chat-lines").replaceChildren();
  const [said, settings] = await Promise.all([api.chat(id, table.token), api.chatSettings(),
    phrases ? null : api.phrases().then((found) => { phrases = found.phrases; })]);
  if (table?.id !== id) return;
  $("#chat").hidden = settings.mode === "off";
  for (const line of said.lines) addChatLine(line);
  const canSay = Boolean(table.token) || settings.spectators;
  $("#chat-form").hidden = !(canSay && settings.mode === "text");
  $("#chat-phrases").replaceChildren(...(canSay ? phrases : []).map((p) => {
    const b = cell("button", phraseText(p.id));
    b.type = "button";
    b.dataset.phrase = p.id;
    b.addEventListener("click", () => say({ phrase: p.id }));
    return b;
  }));
}

function phraseText(id) {
  const found = phrases?.find((p) => p.id === id);
  return found ? found[currentLanguage() === "ar" ? "ar" : "en"] : id;
}

function addChatLine(line) {
  const list = $("#chat-lines");
  if (list.querySelector(`[data-line="${line.id}"]`)) return;
  const who = line.seat === null ? `${line.name} (${t("chat_watching")})` : line.name;
  const item = cell("li", `${who}: ${line.phrase ? phraseText(line.phrase) : line.text}`);
  item.dataset.line = line.id;
  if (line.filtered) item.className = "filtered";
  list.append(item);
  list.scrollTop = list.scrollHeight;
}

async function say(line) {
  clearError();
  try {
    addChatLine(await api.say(table.id, table.token || player?.token, line));
  } catch (error) {
    showError(error);
  }
}

function onSayText(event) {
  event.preventDefault();
  const text = event.target.text.value.trim();
  if (text) say({ text });
  event.target.reset();
}

function stopFollowing() {
  table?.follow?.abort();
  clearInterval(clockTimer);
}

// ---- drawing ----------------------------------------------------------------

function seatName(view, seat) {
  const info = view.seats[seat];
  if (seat === view.seat) return `${info.name} (${t("you")})`;
  if (info.bot) return info.name || t("bot", { level: t(`level_${info.bot}`) });
  return info.name || "?";
}

function teamNames(view, team) {
  return view.seats.filter((s) => s.team === team).map((s) => seatName(view, s.seat)).join(" + ");
}

/** Draw a view, unless one at least as new is already drawn. */
function render(view, recent = null) {
  if (!table) return;  // an answer that came after the page left the table
  if (table.view && table.view.id === view.id && view.version < table.view.version) return;
  if (!recent && table.view?.id === view.id && table.view.version === view.version) return;
  table.view = view;
  if (recent) table.recent = recent;
  else if (view.last_move) table.recent = [view.last_move];
  draw(view);
}

function draw(view) {
  comeBackIfKept(view);
  drawStatus(view);
  drawSeats(view);
  drawMiddle(view);
  drawLastMove(view);
  drawHand(view);
  drawActions(view);
  drawSheet(view);
  drawVerify(view);
  if (table.replay?.id === view.id) drawReplay(view);
}

/** A seat the stand-in kept while this player was away is theirs again once they are
 * back at the table (this page shows it). */
function comeBackIfKept(view) {
  if (!table.token || view.seat === null || !(view.dropped || []).includes(view.seat)) {
    table.backAsked = null;  // a later drop is answered again
    return;
  }
  if (table.backAsked === view.version) return;
  table.backAsked = view.version;
  api.comeBack(view.id, table.token).then((back) => render(back)).catch(showError);
}

function drawStatus(view) {
  const status = $("#status");
  status.replaceChildren();
  const add = (text, className = "") => {
    const span = document.createElement("span");
    span.textContent = text;
    span.className = className;
    status.append(span);
    return span;
  };
  if (view.status === "waiting") {
    add(t("waiting"));
    return;
  }
  add(t("round", { n: view.round }));
  const teams = view.scores.map((score, team) => `${teamNames(view, team)} ${score}`);
  add(t("scores", { list: teams.join(" · ") }), "scores");
  if (view.status === "finished") {
    const reason = view.end_reason ? t(`end_${view.end_reason}`) : "";
    add(view.draw ? t("draw") : `${t("won", { name: teamNames(view, view.winner) })} ${reason}`.trim(),
      "result");
  } else if (view.status === "aborted") {
    add(t("aborted"), "result");
  } else if (view.turn !== null) {
    if (view.turn === view.seat) add(t("your_turn"), "turn turn-mine");
    else add(t("turn_of", { name: seatName(view, view.turn) }), "turn");
  }
  clearInterval(clockTimer);
  if (view.deadline && view.status === "active") {
    const clock = add("", "clock");
    const tick = () => {
      const left = Math.max(0, Math.round((Date.parse(view.deadline) - Date.now()) / 1000));
      clock.textContent = t("clock_left", { n: left });
      clock.classList.toggle("low", left <= 10);
    };
    tick();
    clockTimer = setInterval(tick, 1000);
  }
}

function drawSeats(view) {
  const seats = $("#opponents");
  seats.replaceChildren();
  for (const info of view.seats) {
    if (info.seat === view.seat) continue;
    const box = document.createElement("div");
    box.className = "seat" + (view.turn === info.seat && view.status === "active" ? " to-play" : "");
    box.dataset.seat = info.seat;
    const label = document.createElement("div");
    label.textContent = `${seatName(view, info.seat)} · ${t("team", { n: info.team + 1 })} · ` +
      t("cards", { n: view.hand_counts[info.seat] ?? 0 });
    const backs = document.createElement("div");
    backs.className = "backs";
    for (let i = 0; i < (view.hand_counts[info.seat] ?? 0); i++) backs.append(cardBack());
    box.append(label, backs);
    seats.append(box);
  }
  const me = $("#me");
  me.textContent = view.seat === null ? "" :
    `${seatName(view, view.seat)} · ${t("team", { n: view.seats[view.seat].team + 1 })}`;
  me.classList.toggle("turn-mine", view.turn === view.seat && view.status === "active");
}

function drawMiddle(view) {
  const stock = $("#stock");
  stock.replaceChildren();
  if (view.stock_count) stock.append(cardBack());
  const count = document.createElement("div");
  count.textContent = t("stock", { n: view.stock_count });
  count.id = "stock-count";
  stock.append(count);
  $("#floor").replaceChildren(...view.floor.map((card) => cardElement(card)));
}

function describe(view, play) {
  let text = t("played", { name: seatName(view, play.seat), card: play.card });
  if (play.captured.length) text += " " + t("took", { cards: play.captured.join(" ") });
  return text;
}

function drawLastMove(view) {
  const line = $("#last-move");
  line.replaceChildren();
  for (const play of table.recent || []) {
    const part = document.createElement("span");
    part.className = "play";
    part.textContent = describe(view, play) + ". ";
    if (play.basra) {
      const badge = document.createElement("span");
      badge.className = `badge ${play.basra}`;
      badge.textContent = t(play.basra);
      part.append(badge, " ");
    }
    line.append(part);
  }
}

function drawHand(view) {
  const hand = $("#hand");
  $("#choices").hidden = true;
  const legal = view.legal_moves || [];
  hand.replaceChildren(...(view.hand || []).map((card) => {
    const button = cardElement(card, { button: true });
    const moves = legal.filter((m) => m.card === card);
    button.disabled = moves.length === 0;
    button.addEventListener("click", () => onCard(moves));
    return button;
  }));
}

function drawActions(view) {
  const seated = view.seat !== null;
  $("#resign").hidden = !(seated && view.status === "active");
  const rematch = $("#rematch");
  rematch.hidden = !(seated && view.status === "finished");
  rematch.textContent = view.rematch ? t("open_rematch") : t("rematch");
  const shareable = view.status === "waiting" || view.seats.some((s) => s.open);
  $("#share").hidden = !shareable;
  $("#share-link").value = `${location.origin}/play?match=${view.id}`;
  $("#deal-commitment").textContent = view.commitment;
}

function drawSheet(view) {
  const head = $("#sheet thead");
  const body = $("#sheet tbody");
  const teams = view.scores.map((_, team) => teamNames(view, team));
  const th = (text) => Object.assign(document.createElement("th"), { textContent: text });
  const td = (text) => Object.assign(document.createElement("td"), { textContent: text });
  const header = document.createElement("tr");
  header.append(th(t("sheet_round")), ...teams.flatMap((name) => [
    th(`${name}: ${t("sheet_cards")}`), th(t("sheet_basras")), th(t("sheet_points"))]));
  head.replaceChildren(header);
  body.replaceChildren(...view.rounds.map((round) => {
    const row = document.createElement("tr");
    row.append(td(round.round), ...teams.flatMap((_, team) => [
      td(round.cards[team]), td(round.basras[team] + round.jack_basras[team]),
      td(round.points[team])]));
    return row;
  }));
  $("#sheet").hidden = view.rounds.length === 0;
}

async function drawVerify(view) {
  const section = $("#verify");
  section.hidden = !(view.status === "finished" && view.seed);
  if (section.hidden || table.log?.id === view.id) return;
  const shownTable = table;
  const log = await api.moveLog(view.id);
  if (table !== shownTable) return;  // the page moved on meanwhile
  table.log = { id: view.id, ...log };
  $("#commitment").textContent = table.log.commitment;
  $("#seed").value = table.log.seed || "";
  $("#verify-result").replaceChildren();
  await openReplay(view);
}

// ---- the replay and the review of a finished match ------------------------------

/** Every play with every hand, from the revealed seed; then the review, once made. */
async function openReplay(view) {
  const shownTable = table;
  const frames = await replayFrames(table.log, view.rules, table.log.seed || "");
  if (table !== shownTable) return;
  table.replay = { id: view.id, frames, at: 0, review: null, summary: "review_waiting" };
  $("#replay").hidden = frames.length === 0;
  drawReplay(view);
  let review;
  try {
    for (let tries = 0; tries < 60; tries++) {  // most are made within a second or two
      review = await api.review(view.id, table.token);
      if (review.status === "ready" || table !== shownTable) break;
      await new Promise((done) => { setTimeout(done, 1000); });
    }
  } catch (error) {
    if (table !== shownTable) return;
    table.replay.summary = error instanceof ApiError && error.status === 401
      ? "review_for_players" : "review_failed";
    drawReplay(view);
    return;
  }
  if (table !== shownTable || review?.status !== "ready") return;
  table.replay.review = review;
  table.replay.summary = null;
  drawReplay(view);
}

function stepReplay(by) {
  const replay = table?.replay;
  if (!replay) return;
  replay.at = Math.max(0, Math.min(replay.frames.length - 1, replay.at + by));
  drawReplay(table.view);
}

function gradeBadge(review) {
  const badge = cell("span", t(`grade_${review.grade}`));
  badge.className = `grade grade-${review.grade}`;
  return badge;
}

function drawReplay(view) {
  const { frames, at, review, summary } = table.replay;
  const frame = frames[at];
  const judged = new Map((review?.plays || []).map((p) => [p.index, p]));
  $("#review-summary").textContent = summary ? t(summary) : review.seats.map((s) => t("review_summary", {
    name: seatName(view, s.seat), lost: s.points_lost, mistakes: s.grades.mistake || 0,
    blunders: s.grades.blunder || 0 })).join(" · ");
  if (!frame) return;
  $("#replay-at").textContent = t("replay_at", { n: at + 1, total: frames.length, round: frame.round });
  $("#replay-first").disabled = $("#replay-prev").disabled = at === 0;
  $("#replay-next").disabled = $("#replay-last").disabled = at === frames.length - 1;
  $("#replay-hands").replaceChildren(...frame.hands.map((hand, seat) => {
    const box = document.createElement("div");
    box.className = "seat" + (seat === frame.seat ? " to-play" : "");
    box.dataset.seat = seat;
    const cards = document.createElement("div");
    cards.className = "hand";
    cards.append(...hand.map((card) => {
      const el = cardElement(card, { small: true });
      el.classList.toggle("hl", seat === frame.seat && card === frame.card);
      return el;
    }));
    box.append(cell("div", seatName(view, seat)), cards);
    return box;
  }));
  $("#replay-floor").replaceChildren(...frame.floor.map((card) => {
    const el = cardElement(card, { small: true });
    el.classList.toggle("hl", frame.captured.includes(card));
    return el;
  }));
  const line = $("#replay-play");
  line.replaceChildren(describe(view, frame) + ".");
  if (frame.basra) {
    const badge = cell("span", t(frame.basra));
    badge.className = `badge ${frame.basra}`;
    line.append(" ", badge);
  }
  const note = $("#replay-note");
  const judgement = judged.get(frame.index);
  note.replaceChildren();
  note.dataset.grade = judgement?.grade || "";
  if (judgement) {
    note.append(gradeBadge(judgement));
    if (judgement.points_lost > 0) {
      const best = [judgement.best.card, ...judgement.best.capture].join(" ");
      note.append(" ", t("review_lost", { n: judgement.points_lost, best }));
    }
    for (const reason of judgement.reasons) note.append(" · ", t(`reason_${reason}`));
  }
  $("#review-list").replaceChildren(...(review?.plays || [])
    .filter((p) => ["inaccuracy", "mistake", "blunder"].includes(p.grade)).map((p) => {
      const item = document.createElement("li");
      const jump = cell("button", t("review_item", { n: p.index + 1, lost: p.points_lost }));
      jump.type = "button";
      jump.className = "link";
      jump.dataset.index = p.index;
      jump.addEventListener("click", () => {
        table.replay.at = frames.findIndex((f) => f.index === p.index);
        drawReplay(table.view);
      });
      item.append(gradeBadge(p), " ", jump);
      return item;
    }));
}

// ---- playing ------------------------------------------------------------------

function onCard(moves) {
  if (moves.length === 1) {
    play(moves[0]);
    return;
  }
  // several captures: show them, each lighting up the floor cards it takes
  const choices = $("#choices");
  const light = (cards) => {
    for (const el of document.querySelectorAll("#floor .card")) {
      el.classList.toggle("hl", cards.includes(el.dataset.card));
    }
  };
  const label = document.createElement("span");
  label.textContent = t("choose_capture");
  const options = moves.map((move) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "choice";
    button.dataset.capture = move.capture.join(" ");
    button.append(...(move.capture.length
      ? move.capture.map((card) => cardElement(card, { small: true })) : ["—"]));
    for (const on of ["mouseenter", "focus"]) button.addEventListener(on, () => light(move.capture));
    button.addEventListener("mouseleave", () => light([]));
    button.addEventListener("click", () => { light([]); play(move); });
    return button;
  });
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.className = "link";
  cancel.textContent = t("cancel");
  cancel.addEventListener("click", () => { light([]); choices.hidden = true; });
  choices.replaceChildren(label, ...options, cancel);
  choices.hidden = false;
  light(moves[0].capture);
}

async function play(move) {
  const view = table.view;
  for (const button of document.querySelectorAll("#hand button")) button.disabled = true;
  clearError();
  try {
    // a refusal for now (429, 503) waits its Retry-After and sends the move again
    const result = await api.play(view.id, table.token, move, view.version, {
      wanted: () => table?.id === view.id,
      onWait: (seconds) => showNotice(t("move_retrying", { n: seconds })),
    });
    clearError();
    render(result.state, [result.move, ...result.replies]);
  } catch (error) {
    if (error instanceof ApiError && error.reason === "version_mismatch") {
      render(await api.view(view.id, table.token));
    } else {
      showError(error);
      if (table) drawHand(table.view);
    }
  }
}

async function onResign() {
  try {
    const result = await api.resign(table.id, table.token);
    render(result.state);
  } catch (error) {
    showError(error);
  }
}

async function onRematch() {
  const next = table.view.rematch;
  if (next && storage.get(seatKey(next))) return go(next);
  try {
    const seated = await api.rematch(table.id, table.token);
    remember(seated.id, seated.seat, seated.token);
    go(seated.id);
  } catch (error) {
    showError(error);
  }
}

async function onVerify() {
  const list = $("#verify-result");
  list.replaceChildren();
  const result = await verifyDeal(table.log, table.view.rules, $("#seed").value);
  for (const check of result.checks) {
    const item = document.createElement("li");
    item.className = check.ok ? "ok" : "bad";
    item.textContent = check.what === "commitment"
      ? t(check.ok ? "check_commitment" : "check_commitment_bad")
      : t(check.ok ? "check_round" : "check_round_bad", { n: check.round, detail: check.detail });
    list.append(item);
  }
  const verdict = document.createElement("li");
  verdict.id = "verdict";
  verdict.dataset.verdict = result.ok ? "ok" : "fail";
  verdict.className = result.ok ? "verdict-ok" : "verdict-fail";
  verdict.textContent = t(result.ok ? "verdict_ok" : "verdict_fail");
  list.append(verdict);
}

init();
