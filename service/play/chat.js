// The table's chat: phrases, and text where the front end allows it.

import { currentLanguage, t } from "./i18n.js";
import { api, player, table } from "./state.js";
import { $, cell, clearError, showError } from "./page.js";

let phrases = null;

/** The table's chat: the lines so far, the phrases (and a text box where the front end
 * allows text); hidden from those who may not read it. */
export async function openChat(id) {
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

export function addChatLine(line) {
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

export function onSayText(event) {
  event.preventDefault();
  const text = event.target.text.value.trim();
  if (text) say({ text });
  event.target.reset();
}
