// Verify a finished match's deal in the browser, with Web Crypto only.
//
// The service commits to a secret 32-byte seed (the hex SHA-256 shown from the
// start) and reveals the seed at the end. Round k's deck is, as documented in
// service/engine/shuffle.py: the order AC AD AH AS 2C ... KS, shuffled by
// Fisher-Yates (i from 51 down to 1, rejection sampling) with 32-bit big-endian
// words from HMAC-SHA256(seed, "basra-deck" || k || n), k and n 4-byte BE.
// The deal is then replayed from the move log: every card a seat played must
// have been dealt to it, and every card it took must have been on the floor.

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
export const DECK = RANKS.flatMap((rank) => ["C", "D", "H", "S"].map((suit) => rank + suit));
const DOMAIN = new TextEncoder().encode("basra-deck");

export function hexToBytes(hex) {
  if (!/^([0-9a-fA-F]{2})+$/.test(hex)) throw new Error("the seed is not hex");
  return Uint8Array.from(hex.match(/../g), (pair) => parseInt(pair, 16));
}

export async function sha256Hex(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Round `round`'s deck (1-based), top card first. */
export async function deckForRound(seed, round) {
  const key = await crypto.subtle.importKey(
    "raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  let words = [];
  let counter = 0;
  const nextWord = async () => {
    if (!words.length) {
      const message = new Uint8Array(DOMAIN.length + 8);
      message.set(DOMAIN);
      const view = new DataView(message.buffer);
      view.setUint32(DOMAIN.length, round);
      view.setUint32(DOMAIN.length + 4, counter++);
      const block = new DataView(await crypto.subtle.sign("HMAC", key, message));
      words = Array.from({ length: 8 }, (_, i) => block.getUint32(i * 4));
    }
    return words.shift();
  };
  const deck = DECK.slice();
  for (let i = 51; i > 0; i--) {
    const n = i + 1;
    const limit = 2 ** 32 - (2 ** 32 % n);
    let word = await nextWord();
    while (word >= limit) word = await nextWord();
    const j = word % n;
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/** Deal `size` cards to each seat from `first` on, as the engine does. */
function dealHands(stock, players, size, first) {
  const hands = Array.from({ length: players }, () => []);
  const order = Array.from({ length: players }, (_, i) => (first + i) % players);
  if (stock.length >= players * size) {
    for (const seat of order) hands[seat] = stock.splice(0, size);
  } else {
    for (let i = 0; stock.length; i++) hands[order[i % players]].push(stock.shift());
  }
  return hands;
}

const listedBy = (entries) => (card) =>
  entries.some((e) => (RANKS.includes(e.toUpperCase()) ? card.slice(0, -1) === e.toUpperCase()
    : card === e.toUpperCase()));

/**
 * Replay one round's plays on the deal from `deck`; a string says what did not match.
 * `seen(hands, floor, play)` (optional) is shown each position before its play.
 */
function replayRound(deck, rules, round, plays, seen = () => {}) {
  const players = rules.players;
  const dealer = (players - 1 + round - 1) % players;
  const first = (dealer + 1) % players;
  const stock = deck.slice();
  let hands = dealHands(stock, players, rules.hand_size, first);
  const floor = stock.splice(0, rules.floor_size);
  const listed = listedBy(rules.initial_floor.return_to_deck);
  for (let i = 0; i < floor.length; i++) {
    for (let turn = 0; turn < stock.length && listed(floor[i]); turn++) {
      stock.push(floor[i]);
      floor[i] = stock.shift();
    }
  }
  for (const play of plays) {
    seen(hands, floor, play);
    const hand = hands[play.seat];
    if (!hand.includes(play.card)) {
      return `seat ${play.seat} played ${play.card}, which this deck did not deal to it`;
    }
    hand.splice(hand.indexOf(play.card), 1);
    for (const card of play.captured) {
      if (!floor.includes(card)) return `${card} was taken but this deal never put it on the floor`;
      floor.splice(floor.indexOf(card), 1);
    }
    if (!play.captured.length) floor.push(play.card);
    if (hands.every((h) => !h.length) && stock.length) {
      hands = dealHands(stock, players, rules.hand_size, first);
    }
  }
  return null;
}

/**
 * Check a finished match: `log` is GET /v1/matches/{id}/moves, `seedHex` the
 * seed to test (the revealed one, or any other a skeptic types in).
 * Returns {ok, checks: [{ok, what, detail}]}.
 */
export async function verifyDeal(log, rules, seedHex) {
  const checks = [];
  let seed = null;
  try {
    seed = hexToBytes(seedHex.trim());
    const digest = await sha256Hex(seed);
    checks.push({ ok: digest === log.commitment, what: "commitment", detail: digest });
  } catch (error) {
    checks.push({ ok: false, what: "commitment", detail: error.message });
  }
  const plays = log.moves.filter((m) => m.kind === "play");
  const rounds = [...new Set(plays.map((m) => m.round))];
  for (const round of rounds) {
    const decks = log.decks || [];
    let detail;
    if (round <= decks.length) {
      detail = replayRound(decks[round - 1], rules, round, plays.filter((m) => m.round === round));
    } else if (seed) {
      const deck = await deckForRound(seed, round);
      detail = replayRound(deck, rules, round, plays.filter((m) => m.round === round));
    } else {
      detail = "no seed to derive this round's deck from";
    }
    checks.push({ ok: detail === null, what: "round", round, detail });
  }
  return { ok: checks.length > 0 && checks.every((c) => c.ok), checks };
}

/**
 * Every play of a finished match with the position it was played in, every hand shown:
 * [{index, round, seat, card, captured, basra, hands, floor}], the deal rebuilt from the
 * explicit decks or the revealed seed (the rounds a seed cannot give are left out).
 */
export async function replayFrames(log, rules, seedHex) {
  let seed = null;
  try {
    seed = hexToBytes(seedHex.trim());
  } catch {
    seed = null;
  }
  const plays = log.moves.filter((m) => m.kind === "play");
  const decks = log.decks || [];
  const frames = [];
  for (const round of [...new Set(plays.map((m) => m.round))]) {
    let deck = null;
    if (round <= decks.length) deck = decks[round - 1];
    else if (seed) deck = await deckForRound(seed, round);
    if (!deck) break;
    replayRound(deck, rules, round, plays.filter((m) => m.round === round), (hands, floor, play) => {
      frames.push({ index: plays.indexOf(play), round, seat: play.seat, card: play.card,
        captured: play.captured, basra: play.basra, hands: hands.map((h) => h.slice()),
        floor: floor.slice() });
    });
  }
  return frames;
}
