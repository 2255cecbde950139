// The Basra table: a front end built on the public API only.
//
// Routes: /play shows the lobby; /play?match=ID shows that table. A seat's
// token is kept in localStorage per match, so a reload keeps the seat.

import { Api, ApiError } from "./api.js";
import { cardBack, cardElement } from "./cards.js";
import { currentLanguage, setLanguage, t } from "./i18n.js";
import { verifyDeal } from "./verify.js";

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

/** The table on screen: its id, our seat (token) if any, the last view drawn. */
let table = null;
let clockTimer = null;

// ---- start-up and routes --------------------------------------------------

function init() {
  const preferred = storage.get("basra.lang") || (navigator.language.startsWith("ar") ? "ar" : "en");
  setLanguage(preferred);
  $("#lang").addEventListener("click", () => {
    storage.set("basra.lang", setLanguage(currentLanguage() === "ar" ? "en" : "ar"));
    if (table?.view) draw(table.view);
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
  for (const input of document.querySelectorAll("input[name=name]")) {
    input.value = storage.get("basra.name") || "";
  }
  window.addEventListener("popstate", route);
  route();
}

function route() {
  const id = new URLSearchParams(location.search).get("match");
  if (id) openTable(id).catch(showError);
  else showLobby().catch(showError);
}

function go(id) {
  history.pushState({}, "", `/play?match=${encodeURIComponent(id)}`);
  route();
}

function show(section) {
  for (const id of ["lobby", "join", "table"]) $(`#${id}`).hidden = id !== section;
}

function showError(error) {
  const box = $("#error");
  box.textContent = error instanceof ApiError ? `${error.message} (${error.reason})` : String(error);
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
  const name = form.name.value.trim();
  storage.set("basra.name", name);
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
      const seated = await api.quickPlay({ variant: spec.variant, rules, name });
      remember(seated.id, seated.seat, seated.token);
      return go(seated.id);
    }
    const seats = Number(form.variant.selectedOptions[0].dataset.players);
    const rivals = Array.from({ length: seats - 1 },
      () => (action === "bot" ? { bot: form.level.value } : { open: true }));
    const created = await api.createMatch({ ...spec, players: [{ name }, ...rivals] });
    remember(created.id, 0, created.seats[0].token);
    go(created.id);
  } catch (error) {
    showError(error);
  }
}

function remember(id, seat, token) {
  storage.set(seatKey(id), { seat, token });
}

// ---- a table ------------------------------------------------------------------

async function openTable(id) {
  stopFollowing();
  const mine = storage.get(seatKey(id));
  table = { id, token: mine?.token || null, view: null, recent: null, log: null, follow: null };
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
  const name = event.target.name.value.trim();
  storage.set("basra.name", name);
  try {
    const seated = await api.join(table.id, name);
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
}

function follow() {
  const controller = new AbortController();
  table.follow = controller;
  const id = table.id;
  api.follow(id, table.token, (view) => {
    if (table?.id === id) render(view);
  }, controller.signal).catch(showError);
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
  if (table.view && table.view.id === view.id && view.version < table.view.version) return;
  if (!recent && table.view?.id === view.id && table.view.version === view.version) return;
  table.view = view;
  if (recent) table.recent = recent;
  else if (view.last_move) table.recent = [view.last_move];
  draw(view);
}

function draw(view) {
  drawStatus(view);
  drawSeats(view);
  drawMiddle(view);
  drawLastMove(view);
  drawHand(view);
  drawActions(view);
  drawSheet(view);
  drawVerify(view);
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
  table.log = { id: view.id, ...(await api.moveLog(view.id)) };
  $("#commitment").textContent = table.log.commitment;
  $("#seed").value = table.log.seed || "";
  $("#verify-result").replaceChildren();
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
    const result = await api.play(view.id, table.token, move, view.version);
    render(result.state, [result.move, ...result.replies]);
  } catch (error) {
    if (error instanceof ApiError && error.reason === "version_mismatch") {
      render(await api.view(view.id, table.token));
    } else {
      showError(error);
      drawHand(table.view);
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
