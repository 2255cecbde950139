// Players: a profile (ratings, totals, the rating chart, recent matches) and the
// leaderboards.

import { ApiError } from "./api.js";
import { currentLanguage, t } from "./i18n.js";
import { api, player, setShown, setTable, shown, stopFollowing } from "./state.js";
import { $, cell, show, showError } from "./page.js";

const TOTALS = ["matches", "wins", "losses", "draws", "resigned", "timed_out", "basras",
  "jack_basras", "points"];

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

export async function showProfile(id) {
  stopFollowing();
  setTable(null);
  const [record, page] = await Promise.all([api.player(id), api.playerMatches(id)]);
  setShown({ player: id });
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
export async function drawChart(id, pool) {
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

export async function showBoard(pool) {
  stopFollowing();
  setTable(null);
  const select = $("#board-pool");
  if (!select.options.length) {
    const { variants } = await api.variants();
    select.replaceChildren(...variants.map((v) => new Option(v.name, v.name)));
  }
  select.value = pool;
  setShown({ pool });
  show("board");
  $("#board-me").hidden = !player;
  await showBoardPage({});
}

export async function showBoardPage({ cursor, around }) {
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
