// Cards as the API names them ("10D", "AS") and as the table draws them.

const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };

/** "10D" -> {rank: "10", suit: "D"} */
export function parseCard(name) {
  return { rank: name.slice(0, -1), suit: name.slice(-1) };
}

/** A face-up card: a button in the hand, a plain box elsewhere. */
export function cardElement(name, { button = false, small = false } = {}) {
  const { rank, suit } = parseCard(name);
  const el = document.createElement(button ? "button" : "span");
  if (button) el.type = "button";
  el.className = "card" + (suit === "D" || suit === "H" ? " red" : "") + (small ? " small" : "");
  el.dataset.card = name;
  el.setAttribute("aria-label", name);
  const corner = document.createElement("span");
  corner.className = "rank";
  corner.textContent = rank;
  const middle = document.createElement("span");
  middle.className = "suit";
  middle.textContent = SUITS[suit];
  el.append(corner, middle);
  return el;
}

/** A face-down card. */
export function cardBack() {
  const el = document.createElement("span");
  el.className = "card back";
  return el;
}
