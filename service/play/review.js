// A finished match: its deal checked from the revealed seed, the replay of every play
// with every hand, and the review of the plays once made.

import { ApiError } from "./api.js";
import { cardElement } from "./cards.js";
import { t } from "./i18n.js";
import { replayFrames, verifyDeal } from "./verify.js";
import { api, table } from "./state.js";
import { $, cell } from "./page.js";
import { describe, seatName } from "./names.js";

export async function drawVerify(view) {
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

export function stepReplay(by) {
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

export function drawReplay(view) {
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

export async function onVerify() {
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
