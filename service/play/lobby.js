// The lobby: a new match against the computer, open seats or a quick pairing.

import { t } from "./i18n.js";
import { api, asPlayer, player, remember, setTable, stopFollowing, storage } from "./state.js";
import { $, clearError, go, show, showError } from "./page.js";

/** The variants in the lobby's list: loaded once, awaited by a start that comes first. */
let variantsLoaded = null;

export async function showLobby() {
  stopFollowing();
  setTable(null);
  show("lobby");
  const select = $("#new-match select[name=variant]");
  if (!select.options.length) {
    variantsLoaded = loadVariants(select);
    await variantsLoaded;
  }
  labelLevels().catch(() => {});  // the ladder's ratings are a help, not a need
  showWallet().catch(() => {});  // a front end without coins shows none
}

/** The signed-in player's coins, and the stake a table may be played at (their
 * currencies); hidden for a guest, or a front end with no currency. */
async function showWallet() {
  const line = $("#wallet");
  const row = $("#stake-row");
  line.hidden = row.hidden = true;
  if (!player?.player_id) return;
  const { balances } = await api.wallet(player.player_id, player.token);
  if (!balances.length) return;
  line.textContent = t("wallet_line", { list: balances.map(coinsOf).join(" · ") });
  line.hidden = false;
  const select = $("#new-match select[name=currency]");
  const chosen = select.value;
  select.replaceChildren(...balances.map((b) => new Option(b.name || b.currency, b.currency)));
  if (chosen) select.value = chosen;
  row.hidden = false;
}

/** One balance as the wallet line shows it: what the player has, holds and owes. */
function coinsOf(b) {
  const parts = [`${b.balance < 0 ? 0 : b.balance} ${b.currency}`];
  if (b.held) parts.push(t("wallet_held", { n: b.held }));
  if (b.debt) parts.push(t("wallet_debt", { n: b.debt }));
  return parts.join(", ");
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

export async function onNewMatch(event) {
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
    const stake = Number(form.stake.value);
    if (!$("#stake-row").hidden && stake > 0) {  // a staked table: the seat holds it
      spec.stake = { currency: form.currency.value, amount: stake };
    }
    if (action === "quick") {
      const quick = asPlayer({ variant: spec.variant, rules, name, rated: form.rated.checked });
      if (spec.stake) quick.stake = spec.stake;
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
