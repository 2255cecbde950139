// The page around the screens: which section shows, the error line, moving to another
// address, and the small builders of its elements.

import { ApiError } from "./api.js";

export const $ = (selector) => document.querySelector(selector);

/** Show the screen the address asks for (app.js, above every screen, tells how). */
let router = () => {};

export function routeBy(route) {
  router = route;
}

export function route() {
  router();
}

export function navigate(url) {
  history.pushState({}, "", url);
  route();
}

export function go(id) {
  navigate(`/play?match=${encodeURIComponent(id)}`);
}

export function show(section) {
  for (const id of ["lobby", "join", "table", "profile", "board", "tournaments", "tournament",
    "friends"]) {
    $(`#${id}`).hidden = id !== section;
  }
}

export function showError(error) {
  const box = $("#error");
  box.textContent = error instanceof ApiError ? `${error.message} (${error.reason})` : String(error);
  box.hidden = false;
}

/** A passing word in the error's place (not an error: nothing for the player to do). */
export function showNotice(text) {
  const box = $("#error");
  box.textContent = text;
  box.hidden = false;
}

export function clearError() {
  $("#error").hidden = true;
}

export function cell(tag, text) {
  return Object.assign(document.createElement(tag), { textContent: text });
}

export function playerLink(id, names) {
  const link = cell("a", names?.[id] || id);
  link.href = `/play?player=${encodeURIComponent(id)}`;
  return link;
}
