// What the table calls its seats, teams and plays.

import { t } from "./i18n.js";

export function seatName(view, seat) {
  const info = view.seats[seat];
  if (seat === view.seat) return `${info.name} (${t("you")})`;
  if (info.bot) return info.name || t("bot", { level: t(`level_${info.bot}`) });
  return info.name || "?";
}

export function teamNames(view, team) {
  return view.seats.filter((s) => s.team === team).map((s) => seatName(view, s.seat)).join(" + ");
}

export function describe(view, play) {
  let text = t("played", { name: seatName(view, play.seat), card: play.card });
  if (play.captured.length) text += " " + t("took", { cards: play.captured.join(" ") });
  return text;
}
