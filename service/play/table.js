// A table: taking a seat, following the match, drawing the view, and playing.

import { ApiError } from "./api.js";
import { cardBack, cardElement } from "./cards.js";
import { t } from "./i18n.js";
import { api, asPlayer, clockTimer, player, remember, seatKey, setClock, setTable, stopFollowing, storage, table } from "./state.js";
import { $, clearError, go, show, showError, showNotice } from "./page.js";
import { addChatLine, openChat } from "./chat.js";
import { describe, seatName, teamNames } from "./names.js";
import { drawReplay, drawVerify } from "./review.js";

export async function openTable(id) {
  stopFollowing();
  const mine = storage.get(seatKey(id));
  // a seat bound to the signed-in player (a tournament's) answers their player token
  const token = mine?.token || player?.token || null;
  setTable({ id, token, view: null, recent: null, log: null, follow: null });
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

export async function onJoin(event) {
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

export function showTable() {
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

export function draw(view) {
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
  if (view.stake) {
    const seats = view.seats.length;
    add(t("stake_line", { amount: view.stake.amount, currency: view.stake.currency,
      pot: view.stake.amount * seats }), "stake");
  }
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
    setClock(setInterval(tick, 1000));
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

export async function onResign() {
  try {
    const result = await api.resign(table.id, table.token);
    render(result.state);
  } catch (error) {
    showError(error);
  }
}

export async function onRematch() {
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
