// The console for a front end's staff: signed in with a staff key (a session cookie no
// script reads, and a CSRF token for changes), over the public API only.
import { deckForRound, hexToBytes, verifyDeal } from "/play/verify.js";

const STRINGS = {
  en: {
    title: "Basra console", other_language: "العربية", overview: "Overview",
    players: "Players", reports: "Reports", tournaments: "Tournaments", webhooks: "Webhooks",
    audit: "Audit log", sign_in_title: "Sign in with your staff key", staff_key: "Staff key",
    sign_in: "Sign in", sign_out: "Sign out",
    sign_in_hint: "Your front end's operator makes staff keys with " +
      "basra keys create FRONT_END --role ROLE --name NAME.",
    who: "{name} ({role}) at {front_end}", role_viewer: "viewer",
    role_moderator: "moderator", role_admin: "admin",
    matches_active: "Matches being played", matches_waiting: "Tables waiting",
    quick_play_waiting: "Quick play waiting", matches_finished_today: "Finished today",
    players_online: "Players online", players_playing: "Players playing",
    reports_open: "Open reports", tournaments_running: "Tournaments running",
    webhook_backlog: "Webhook messages waiting", webhook_failed_today: "Webhooks failed today",
    as_of: "As of {at}", search: "Search", id_prefix: "Player id starts with",
    more: "More", none: "Nothing here.", player_id: "Player", name: "Name",
    created: "Since", matches: "Matches", suspended: "Suspended", yes: "yes", no: "no",
    erased_id: "(erased {at})",
    record: "Record", totals: "{matches} matches: {wins} won, {losses} lost, {draws} drawn",
    ratings: "Ratings", pool: "Pool", rating: "Rating", games: "Games",
    suspend: "Suspend", lift: "Lift the suspension", sign_out_everywhere: "Sign out everywhere",
    export: "Export (JSON)", erase: "Erase", reason: "Reason", until: "Until (empty: for good)",
    confirm_erase: "Erase {id} for good? Their matches stay, under a pseudonym.",
    done: "Done.", match: "Match", status: "Status", scores: "Scores", when: "When",
    reports_about: "Reports about them", reports_by: "Reports by them",
    play_by_play: "Play by play", seat: "Seat", card: "Card", took: "Took", round: "Round",
    bot_play: "bot", timeout_play: "on time", stand_in_play: "stand-in", chat: "Chat", void: "Void the result",
    verify: "Verify the deal", verified: "The deal is the one committed to before the first card.",
    not_verified: "The deal does not match its commitment: {detail}",
    not_over: "Hands and the deal are shown once the match is over.",
    reporter: "Reporter", reported: "Reported", resolve: "Resolve", action: "Action",
    note: "Note", dismiss: "dismiss", evidence: "Evidence", open: "open",
    forfeit: "Forfeit their active matches", voided_mark: "Voided {at}: {reason}",
    resolution: "{action} by {by}", for_good: "for good", until_at: "until {at}",
    forfeited: "their active matches forfeited",
    fair_play: "Fair play", fp_none: "No graded rated match yet.", fp_off: "Fair play is off for this front end.",
    fp_agreement: "Agreement with the expert", fp_cohort: "Players of similar rating", fp_plays: "Plays that mattered",
    fp_loss: "Points lost a play", fp_time: "Move-time regularity", fp_flagged: "flagged",
    fp_pairs: "Pairs met often", fp_meetings: "Meetings (random pairing)", fp_results: "Won–lost",
    fp_loser_play: "Loser's loss a play: with them / elsewhere",
    resolved: "resolved", create: "Create", cancel: "Cancel", system: "System",
    starts_at: "Starts at", rounds_label: "Rounds", move_seconds: "Seconds a move",
    standings: "Standings", pairings: "Pairings", entrants: "Entrants",
    url: "URL", events: "Events", paused: "paused", disabled: "disabled", enabled: "sending",
    pause: "Pause", resume: "Resume", deliveries: "Latest tries", retry: "Send again",
    recover: "Send again what failed since", code: "Answer", took_ms: "ms",
    actor: "Who", action_col: "What", subject: "On", details: "Details", filter: "Filter",
    keys: "Keys", api_keys: "API keys", staff_keys: "Staff keys", prefix: "Starts with",
    kind: "Kind", browser_key: "browser key", server_key: "server key", origins: "Origins (a browser key)",
    role: "Role", revoke: "Revoke", secret: "Player-token secret", grace: "Old tokens accepted for (s)",
    rotate: "Rotate", new_key: "The new key (shown only now)", new_secret: "The new secret (shown only now)",
    shown_once: "Copy it now: it is not shown again.",
    blocks: "Players they block", clock: "Clock a move", deadline: "the seat to play until",
    started_by_hour: "Matches started, each of the last 12 hours", hours_utc: "hours in UTC",
    wallet: "Wallet", currency: "Currency", balance: "Balance", debt: "Owes", held: "In escrow",
    adjust: "Adjust the balance", amount: "Amount (below 0: take)", ledger: "Ledger",
    change: "Change", counterpart: "From / to", no_currencies: "The front end has no currency yet.",
  },
  ar: {
    title: "لوحة تحكم البصرة", other_language: "English", overview: "نظرة عامة",
    players: "اللاعبون", reports: "البلاغات", tournaments: "البطولات", webhooks: "الويب هوك",
    audit: "سجل التدقيق", sign_in_title: "ادخل بمفتاح فريق العمل", staff_key: "مفتاح فريق العمل",
    sign_in: "دخول", sign_out: "خروج",
    sign_in_hint: "يصنع مشغّل الواجهة مفاتيح فريق العمل بالأمر " +
      "basra keys create FRONT_END --role ROLE --name NAME.",
    who: "{name} ({role}) في {front_end}", role_viewer: "مشاهد",
    role_moderator: "مشرف", role_admin: "مدير",
    matches_active: "مباريات جارية", matches_waiting: "طاولات تنتظر",
    quick_play_waiting: "في انتظار اللعب السريع", matches_finished_today: "انتهت اليوم",
    players_online: "لاعبون متصلون", players_playing: "لاعبون يلعبون",
    reports_open: "بلاغات مفتوحة", tournaments_running: "بطولات جارية",
    webhook_backlog: "رسائل ويب هوك تنتظر", webhook_failed_today: "رسائل فشلت اليوم",
    as_of: "حتى {at}", search: "بحث", id_prefix: "معرّف اللاعب يبدأ بـ",
    more: "المزيد", none: "لا شيء هنا.", player_id: "اللاعب", name: "الاسم",
    created: "منذ", matches: "المباريات", suspended: "موقوف", yes: "نعم", no: "لا",
    erased_id: "(مُحي {at})",
    record: "السجل", totals: "{matches} مباراة: فاز {wins}، خسر {losses}، تعادل {draws}",
    ratings: "التصنيفات", pool: "الفئة", rating: "التصنيف", games: "مباريات",
    suspend: "إيقاف", lift: "رفع الإيقاف", sign_out_everywhere: "إخراج من كل الأجهزة",
    export: "تصدير (JSON)", erase: "محو", reason: "السبب", until: "حتى (فارغ: نهائيًا)",
    confirm_erase: "محو {id} نهائيًا؟ تبقى مبارياته باسم مستعار.",
    done: "تم.", match: "المباراة", status: "الحالة", scores: "النقاط", when: "متى",
    reports_about: "بلاغات عنه", reports_by: "بلاغات منه",
    play_by_play: "لعبة بلعبة", seat: "المقعد", card: "الورقة", took: "أخذ", round: "الجولة",
    bot_play: "آلي", timeout_play: "انتهى الوقت", stand_in_play: "بديل آلي", chat: "الدردشة", void: "إلغاء النتيجة",
    verify: "تحقق من التوزيع", verified: "التوزيع هو الذي التُزم به قبل أول ورقة.",
    not_verified: "التوزيع لا يطابق الالتزام: {detail}",
    not_over: "تظهر الأوراق والتوزيع بعد انتهاء المباراة.",
    reporter: "المبلِّغ", reported: "المبلَّغ عنه", resolve: "حسم", action: "الإجراء",
    note: "ملاحظة", dismiss: "رفض", evidence: "الأدلة", open: "مفتوح",
    forfeit: "خسارة مبارياته الجارية", voided_mark: "أُلغيت النتيجة {at}: {reason}",
    resolution: "{action} بواسطة {by}", for_good: "نهائيًا", until_at: "حتى {at}",
    forfeited: "خسر مبارياته الجارية",
    fair_play: "اللعب النظيف", fp_none: "لا مباراة مصنفة مقيّمة بعد.", fp_off: "اللعب النظيف متوقف لهذه الواجهة.",
    fp_agreement: "الاتفاق مع الخبير", fp_cohort: "لاعبون بتصنيف مماثل", fp_plays: "لعبات كان للاختيار فيها أثر",
    fp_loss: "النقاط المفقودة لكل لعبة", fp_time: "انتظام زمن اللعب", fp_flagged: "مُعلَّم",
    fp_pairs: "أزواج تقابلت كثيرًا", fp_meetings: "اللقاءات (الاقتران العشوائي)", fp_results: "فوز–خسارة",
    fp_loser_play: "خسارة الخاسر لكل لعبة: معه / في غيره",
    resolved: "محسوم", create: "إنشاء", cancel: "إلغاء", system: "النظام",
    starts_at: "تبدأ في", rounds_label: "الجولات", move_seconds: "ثوانٍ لكل لعبة",
    standings: "الترتيب", pairings: "المواجهات", entrants: "المشاركون",
    url: "العنوان", events: "الأحداث", paused: "متوقف مؤقتًا", disabled: "معطّل",
    enabled: "يرسل", pause: "إيقاف مؤقت", resume: "استئناف", deliveries: "آخر المحاولات",
    retry: "أرسل مجددًا", recover: "أعد إرسال ما فشل منذ", code: "الرد", took_ms: "مللي ثانية",
    actor: "من", action_col: "ماذا", subject: "على", details: "التفاصيل", filter: "تصفية",
    keys: "المفاتيح", api_keys: "مفاتيح الواجهة", staff_keys: "مفاتيح فريق العمل", prefix: "يبدأ بـ",
    kind: "النوع", browser_key: "مفتاح متصفح", server_key: "مفتاح خادم", origins: "المصادر (مفتاح متصفح)",
    role: "الدور", revoke: "إبطال", secret: "سر رموز اللاعبين", grace: "تُقبل الرموز القديمة لمدة (ث)",
    rotate: "تدوير", new_key: "المفتاح الجديد (يظهر الآن فقط)", new_secret: "السر الجديد (يظهر الآن فقط)",
    shown_once: "انسخه الآن: لن يظهر مرة أخرى.",
    blocks: "لاعبون يحظرهم", clock: "الوقت لكل لعبة", deadline: "على المقعد أن يلعب قبل",
    started_by_hour: "المباريات التي بدأت في كل ساعة من آخر ١٢ ساعة", hours_utc: "الساعات بالتوقيت العالمي",
    wallet: "المحفظة", currency: "العملة", balance: "الرصيد", debt: "عليه", held: "محجوز",
    adjust: "تعديل الرصيد", amount: "المبلغ (أقل من ٠: سحب)", ledger: "دفتر الحركات",
    change: "التغيير", counterpart: "من / إلى", no_currencies: "لا عملة للواجهة بعد.",
  },
};

let lang = localStorage.getItem("basra-console-lang") === "ar" ? "ar" : "en";
let session = null; // {name, role, front_end, csrf_token, expires_at}
const RANK = { viewer: 0, moderator: 1, admin: 2 };

function t(key, vars = {}) {
  const text = STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name] ?? ""));
}

/** An element with attributes and children (text is always text, never markup). */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "onclick" || name === "onsubmit") node.addEventListener(name.slice(2), value);
    else if (value !== false && value !== null && value !== undefined) node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function table(headers, rows) {
  if (!rows.length) return el("p", { class: "hint" }, t("none"));
  return el("table", {}, el("thead", {}, el("tr", {}, headers.map((h) => el("th", {}, h)))),
    el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((c) => el("td", {}, c))))));
}

function when(iso) {
  return iso ? new Date(iso).toLocaleString(lang === "ar" ? "ar-EG" : "en-GB") : "";
}

class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.reason = problem.reason || "http_error";
  }
}

async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (method !== "GET" && session) headers["X-CSRF-Token"] = session.csrf_token;
  const init = { method, headers, credentials: "same-origin" };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    headers["Content-Type"] = "application/json";
  }
  const response = await fetch(path, init);
  const data = response.status === 204 ? null : await response.json().catch(() => ({}));
  if (!response.ok) {
    if (response.status === 401 && data && data.reason === "staff_session_invalid") signedOut();
    throw new ApiError(response.status, data || {});
  }
  return data;
}

function notice(text, ok = false) {
  const box = document.getElementById("notice");
  box.textContent = text;
  box.className = ok ? "ok" : "";
  box.hidden = !text;
}

/** A button that runs ``act`` (an API call), says what came of it, then shows the page
 * again; disabled for roles below ``role`` (the API refuses them anyway). */
function action(label, role, act, { danger = false } = {}) {
  const allowed = session && RANK[session.role] >= RANK[role];
  return el("button", {
    type: "button", class: danger ? "danger" : "", "data-role": role,
    disabled: !allowed, title: allowed ? "" : t(`role_${role}`),
    onclick: async () => {
      try {
        await act();
        notice(t("done"), true);
        await route();
      } catch (error) {
        notice(`${error.message} (${error.reason || "error"})`);
      }
    },
  }, label);
}

function field(name, label, attrs = {}) {
  return el("label", {}, label, el("input", { name, ...attrs }));
}

// --- pages -------------------------------------------------------------------------

async function overviewPage() {
  const o = await api("GET", "/v1/console/overview");
  const figures = ["matches_active", "matches_waiting", "quick_play_waiting",
    "matches_finished_today", "players_online", "players_playing", "reports_open",
    "tournaments_running", "webhook_backlog", "webhook_failed_today"];
  return [el("h1", {}, t("overview")), el("p", { class: "hint" }, t("as_of", { at: when(o.at) })),
    el("div", { class: "cards" }, figures.map((name) =>
      el("div", { class: "card", "data-figure": name },
        el("b", {}, o[name] >= 10000 ? "10,000+" : o[name]), t(name)))),
    el("h2", {}, t("started_by_hour")), hourChart(o.started_by_hour)];
}

async function playersPage(query) {
  const prefix = query.get("prefix") || "";
  const after = query.get("after");
  const params = new URLSearchParams({ prefix, limit: "50" });
  if (after) params.set("after", after);
  const page = await api("GET", `/v1/players?${params}`);
  const form = el("form", { class: "inline", onsubmit: (event) => {
    event.preventDefault();
    location.hash = `#/players?prefix=${encodeURIComponent(event.target.prefix.value)}`;
  } }, field("prefix", t("id_prefix"), { value: prefix, maxlength: 128 }),
  el("button", { type: "submit" }, t("search")));
  // an erased id is no player: no page to open, only the erasure's time
  const rows = page.players.map((p) => p.erased
    ? [p.player_id, t("erased_id", { at: when(p.created_at) }), "", "", ""]
    : [el("a", { href: `#/players/${encodeURIComponent(p.player_id)}` }, p.player_id),
      p.name || "", when(p.created_at), p.matches, p.suspended ? t("yes") : t("no")]);
  return [el("h1", {}, t("players")), form,
    table([t("player_id"), t("name"), t("created"), t("matches"), t("suspended")], rows),
    page.next ? el("a", { href: `#/players?prefix=${encodeURIComponent(prefix)}&after=${encodeURIComponent(page.next)}` }, t("more")) : null];
}

/** Bars of matches started per hour, oldest first (drawn in the page). */
function hourChart(hours) {
  const most = Math.max(1, ...hours.map((h) => h.matches));
  const width = 480, height = 120, bar = width / hours.length;
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height + 16}`);
  svg.setAttribute("class", "chart");
  svg.setAttribute("id", "started-by-hour");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", hours.map((h) => h.matches).join(", "));
  hours.forEach((h, i) => {
    const tall = (h.matches / most) * (height - 4);
    const rect = document.createElementNS("http://www.w3.org/2000/svg", "rect");
    for (const [name, value] of Object.entries({ x: i * bar + 2, y: height - tall, width: bar - 4, height: tall })) {
      rect.setAttribute(name, String(value));
    }
    const tip = document.createElementNS("http://www.w3.org/2000/svg", "title");
    tip.textContent = `${when(h.hour)}: ${h.matches}`;
    rect.append(tip);
    const label = document.createElementNS("http://www.w3.org/2000/svg", "text");
    label.setAttribute("x", String(i * bar + bar / 2));
    label.setAttribute("y", String(height + 13));
    label.setAttribute("text-anchor", "middle");
    label.textContent = String(new Date(h.hour).getUTCHours()).padStart(2, "0");
    svg.append(rect, label);
  });
  return el("figure", { dir: "ltr" }, svg, el("figcaption", { class: "hint" }, t("hours_utc")));
}

/** A rating's number, a "?" after it while provisional (sigma above 5). */
const rating = (r) => `${r.display}${r.provisional ? "?" : ""}`;

/** A line of a rating over its rated matches, drawn in the page (no library needed). */
function ratingChart(points) {
  if (points.length < 2) return el("p", { class: "hint" }, t("none"));
  const values = points.map((p) => p.display);
  const low = Math.min(...values), high = Math.max(...values), span = high - low || 1;
  const width = 480, height = 120;
  const at = values.map((v, i) => `${(i / (values.length - 1)) * width},${height - ((v - low) / span) * (height - 10) - 5}`);
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `${t("rating")}: ${values[0]} → ${values[values.length - 1]}`);
  const line = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
  line.setAttribute("points", at.join(" "));
  svg.append(line);
  return el("figure", { dir: "ltr" }, svg, el("figcaption", { class: "hint" },
    `${t("rating")}: ${rating(points[0])} → ${rating(points[points.length - 1])} (${low}–${high})`));
}

async function playerPage(id) {
  const path = `/v1/players/${encodeURIComponent(id)}`;
  const [record, history, about, by, blocks, wallet, fair] = await Promise.all([
    api("GET", path), api("GET", `${path}/matches?limit=20`),
    api("GET", `/v1/reports?player_id=${encodeURIComponent(id)}&limit=100`),
    api("GET", `/v1/reports?reporter=${encodeURIComponent(id)}&limit=100`),
    api("GET", `${path}/blocks`), walletSection(path), fairPlaySection(path),
  ]);
  const charts = await Promise.all(record.ratings.map((r) =>
    api("GET", `${path}/ratings/${encodeURIComponent(r.pool)}`).then((h) => [r.pool, h.points])));
  const totals = record.totals;
  const suspendForm = el("form", { class: "inline", onsubmit: (e) => e.preventDefault() },
    field("reason", t("reason"), { maxlength: 500, id: "suspend-reason" }),
    field("until", t("until"), { type: "datetime-local", id: "suspend-until" }),
    action(t("suspend"), "moderator", () => {
      const until = document.getElementById("suspend-until").value;
      return api("PUT", `${path}/suspension`, {
        reason: document.getElementById("suspend-reason").value || "—",
        until: until ? new Date(until).toISOString() : null });
    }, { danger: true }));
  return [
    el("h1", {}, `${record.player_id}${record.name ? ` (${record.name})` : ""}`),
    el("p", {}, t("totals", totals)),
    el("h2", {}, t("ratings")),
    table([t("pool"), t("rating"), t("games")], record.ratings.map((r) => [r.pool, rating(r), r.games])),
    ...charts.map(([pool, points]) => el("div", {}, el("h3", {}, pool), ratingChart(points))),
    suspendForm,
    el("p", {}, action(t("lift"), "moderator", () => api("DELETE", `${path}/suspension`)), " ",
      action(t("sign_out_everywhere"), "moderator", () => api("POST", `${path}/tokens/revoke`)), " ",
      action(t("export"), "admin", async () => {
        const data = await api("GET", `${path}/export`);
        const link = el("a", { href: URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" })), download: `${id}.json` });
        document.body.append(link);
        link.click();
        link.remove();
      }), " ",
      action(t("erase"), "admin", async () => {
        if (!confirm(t("confirm_erase", { id }))) return;
        await api("DELETE", path);
        location.hash = "#/players";
      }, { danger: true })),
    ...wallet,
    ...fair,
    el("h2", {}, t("matches")),
    table([t("match"), t("status"), t("scores"), t("when")], history.matches.map((m) => [
      el("a", { href: `#/matches/${m.id}` }, m.id), m.status, m.scores.join(" – "), when(m.created_at)])),
    el("h2", {}, t("reports_about")), reportTable(about.reports),
    el("h2", {}, t("reports_by")), reportTable(by.reports),
    el("h2", {}, t("blocks")),
    table([t("player_id"), t("created")], blocks.blocks.map((b) => [
      el("a", { href: `#/players/${encodeURIComponent(b.player_id)}` }, b.player_id), when(b.at)])),
  ];
}

/** The other side of a transfer in a player's ledger: an account, and whose. */
function counterpart(entry) {
  const other = entry.change > 0 ? entry.from : entry.to;
  const whose = other.player_id || other.match_id || other.tournament_id;
  if (other.player_id) return el("a", { href: `#/players/${encodeURIComponent(whose)}` }, whose);
  if (other.match_id) return el("a", { href: `#/matches/${whose}` }, `${other.account} ${whose}`);
  return whose ? `${other.account} ${whose}` : other.account;
}

/** A player's fair-play picture: each pool's signals against their cohort, and the pairs. */
async function fairPlaySection(path) {
  if (RANK[session.role] < RANK.moderator) return []; // a moderator's to read: the API refuses a viewer
  const fair = await api("GET", `${path}/fair-play`);
  const head = el("h2", {}, t("fair_play"));
  if (!fair.enabled) return [head, el("p", {}, t("fp_off"))];
  if (!fair.pools.length) return [head, el("p", {}, t("fp_none"))];
  return [head, ...fair.pools.flatMap((p) => [el("h3", {}, p.pool), fairPicture(p.picture), fairPairs(p.pairs)])];
}

function fairPicture(pic) {
  if (!pic) return el("p", {}, t("fp_none"));
  const pct = (x) => (x == null ? "—" : `${(100 * x).toFixed(1)}%`);
  return table([t("fp_plays"), t("fp_agreement"), t("fp_cohort"), "z", t("fp_loss"), t("fp_time"), ""], [[
    `${pic.mattered} / ${pic.plays} (${pic.matches} ${t("matches")})`, `${pct(pic.agreement)} ± ${pct(pic.se)}`,
    `${pct(pic.cohort_agreement)} ± ${pct(pic.cohort_spread)} (${pic.cohort})`, pic.z ?? "—",
    pic.loss ?? "—", pic.time_cv ?? "—", pic.flagged ? t("fp_flagged") : ""]]);
}

function fairPairs(pairs) {
  if (!pairs.length) return el("span");
  const who = (id) => el("a", { href: `#/players/${encodeURIComponent(id)}` }, id);
  return el("div", {}, el("h4", {}, t("fp_pairs")),
    table([t("players"), t("fp_meetings"), t("fp_results"), t("scores"), t("fp_loser_play"), "z", ""],
      pairs.map((q) => [el("span", {}, who(q.winner), " ← ", who(q.loser)), `${q.meetings} (${q.expected})`,
        `${q.wins}–${q.losses}`, `${q.points}${q.coins ? ` · ${q.coins}` : ""}`,
        `${q.loser_loss_pair ?? "—"} / ${q.loser_loss_elsewhere ?? "—"}`, q.drop_z ?? "—",
        q.flagged ? t("fp_flagged") : ""])));
}

/** A fair-play flag's evidence, as the service filed it with its report. */
function flagEvidence(details) {
  const matches = (ids) => el("p", {}, ...ids.flatMap((m) => [el("a", { href: `#/matches/${m}` }, m.slice(0, 8)), " "]));
  if (details.kind === "pair") return [el("h2", {}, t("fair_play")), fairPairs([details.pair]), matches(details.pair.matches)];
  return [el("h2", {}, t("fair_play")), fairPicture(details.picture),
    table([t("match"), t("fp_agreement")], Object.entries(details.plays_agreed || {}).map(([m, n]) => [
      el("a", { href: `#/matches/${m}` }, m.slice(0, 8)), n]))];
}

async function walletSection(path) {
  const [wallet, ledger] = await Promise.all([
    api("GET", `${path}/wallet`), api("GET", `${path}/wallet/transfers?limit=50`)]);
  if (!wallet.balances.length) return [el("h2", {}, t("wallet")), el("p", {}, t("no_currencies"))];
  const form = el("form", { class: "inline", onsubmit: (e) => e.preventDefault() },
    el("label", {}, t("currency"), el("select", { id: "adjust-currency" },
      ...wallet.balances.map((b) => el("option", { value: b.currency }, b.currency)))),
    field("amount", t("amount"), { type: "number", step: 1, id: "adjust-amount" }),
    field("reason", t("reason"), { maxlength: 500, id: "adjust-reason" }),
    action(t("adjust"), "admin", () => api("POST", `${path}/wallet/adjustments`, {
      currency: document.getElementById("adjust-currency").value,
      amount: Number(document.getElementById("adjust-amount").value),
      reason: document.getElementById("adjust-reason").value || "—" })));
  return [
    el("h2", {}, t("wallet")),
    table([t("currency"), t("balance"), t("debt"), t("held")], wallet.balances.map((b) => [
      `${b.currency} (${b.name})`, b.balance, b.debt, b.held])),
    form,
    el("h3", {}, t("ledger")),
    table([t("when"), t("currency"), t("change"), t("kind"), t("counterpart"), t("reason")],
      ledger.transfers.map((e) => [when(e.created_at), e.currency, e.change > 0 ? `+${e.change}` : `${e.change}`,
        e.kind, counterpart(e), e.reason || e.reference || ""])),
  ];
}

function reportTable(reports) {
  return table([t("reports"), t("reporter"), t("reported"), t("reason"), t("status"), t("when")],
    reports.map((r) => [el("a", { href: `#/reports/${r.id}` }, r.id.slice(0, 8)), r.reporter,
      r.player_id, r.reason, t(r.status), when(r.created_at)]));
}

function playByPlay(state, log) {
  const seats = state.seats || [];
  const rows = log.moves.filter((m) => m.kind === "play").map((m) => {
    const seat = seats[m.seat] || {};
    const marks = [seat.bot ? t("bot_play") : null, m.timeout ? t("timeout_play") : null,
      m.stand_in ? t("stand_in_play") : null].filter(Boolean);
    return [m.round, `${m.seat} ${seat.name || ""}`, m.card,
      (m.captured || []).join(" ") + (m.basra ? ` (${m.basra})` : ""),
      el("span", { class: "bot" }, marks.join(", ")), when(m.created_at)];
  });
  return table([t("round"), t("seat"), t("card"), t("took"), "", t("when")], rows);
}

async function matchPage(id) {
  const path = `/v1/matches/${encodeURIComponent(id)}`;
  const [state, log, chat] = await Promise.all([
    api("GET", path), api("GET", `${path}/moves`), api("GET", `${path}/chat`).catch(() => ({ lines: [] }))]);
  const over = state.status === "finished" || state.status === "aborted";
  const verdict = el("p", { id: "verdict" });
  if (over && log.seed) {
    verifyDeal(log, state.rules, log.seed).then((result) => {
      const failed = result.checks.find((c) => !c.ok);
      verdict.textContent = result.ok ? t("verified") : t("not_verified", { detail: failed ? failed.detail : "" });
      verdict.dataset.ok = String(result.ok);
    });
  }
  const decks = el("pre", { id: "decks" });
  if (over && (log.decks || log.seed)) {  // every round's deck, as dealt: public once it is over
    const played = [...new Set(log.moves.filter((m) => m.kind === "play").map((m) => m.round))];
    const rounds = log.decks ? log.decks.map((_, i) => i + 1) : (played.length ? played : [1]);
    Promise.all(rounds.map((round) => log.decks ? log.decks[round - 1]
      : deckForRound(hexToBytes(log.seed), round))).then((dealt) => {
      decks.textContent = dealt.map((deck, i) => `${t("round")} ${rounds[i]}: ${deck.join(" ")}`).join("\n");
    });
  }
  return [
    el("h1", {}, `${t("match")} ${id}`),
    el("p", {}, `${state.variant} · ${state.status} · ${t("scores")}: ${(state.scores || []).join(" – ")}`),
    state.clock ? el("p", { id: "clock" }, `${t("clock")}: ${state.clock.move_seconds} s (${state.clock.timeout})` +
      (state.deadline ? ` · ${t("deadline")}: ${when(state.deadline)}` : "")) : null,
    state.voided ? el("p", { id: "voided", class: "voided" },
      t("voided_mark", { at: when(state.voided.at), reason: state.voided.reason || "" })) : null,
    state.status === "finished" && !state.voided ? el("form", { class: "inline", onsubmit: (e) => e.preventDefault() },
      field("reason", t("reason"), { id: "void-reason", maxlength: 500 }),
      action(t("void"), "moderator", () => api("POST", `${path}/void`, {
        reason: document.getElementById("void-reason").value || "—" }), { danger: true })) : null,
    el("h2", {}, t("play_by_play")), playByPlay(state, log),
    over ? el("div", {}, el("h2", {}, t("verify")), verdict, decks) : el("p", { class: "hint" }, t("not_over")),
    el("h2", {}, t("chat")),
    table([t("seat"), t("name"), "", t("when")], chat.lines.map((l) => [l.seat ?? "", l.name, l.phrase || l.text || "", when(l.at)])),
  ];
}

async function reportsPage(query) {
  const status = query.get("status") || "open";
  const page = await api("GET", `/v1/reports?status=${status}&limit=100`);
  return [el("h1", {}, t("reports")),
    el("p", {}, el("a", { href: "#/reports?status=open" }, t("open")), " · ",
      el("a", { href: "#/reports?status=resolved" }, t("resolved"))),
    reportTable(page.reports)];
}

async function reportPage(id) {
  const report = await api("GET", `/v1/reports/${encodeURIComponent(id)}`);
  const evidence = report.evidence.match;
  const choose = el("select", { id: "resolve-action" },
    ["dismiss", "suspend", "void"].map((a) => el("option", { value: a }, t(a))));
  const resolution = (r) => [t("resolution", { action: t(r.action), by: r.by }),
    r.action === "suspend" ? (r.until ? t("until_at", { at: when(r.until) }) : t("for_good")) : null,
    r.forfeit ? t("forfeited") : null, r.note].filter(Boolean).join(" · ");
  return [
    el("h1", {}, `${t("reports")} ${report.id.slice(0, 8)}`),
    el("p", {}, `${report.reporter} → `, el("a", { href: `#/players/${encodeURIComponent(report.player_id)}` }, report.player_id),
      ` · ${report.reason} · ${t(report.status)}`),
    report.text ? el("blockquote", {}, report.text) : null,
    report.status === "open" ? el("form", { class: "inline", onsubmit: (e) => e.preventDefault() },
      el("label", {}, t("action"), choose), field("note", t("note"), { id: "resolve-note", maxlength: 500 }),
      field("until", t("until"), { type: "datetime-local", id: "resolve-until" }),
      field("forfeit", t("forfeit"), { type: "checkbox", id: "resolve-forfeit" }),
      action(t("resolve"), "moderator", () => {
        const until = document.getElementById("resolve-until").value;
        const suspend = choose.value === "suspend";
        return api("POST", `/v1/reports/${encodeURIComponent(id)}/resolve`, {
          action: choose.value, note: document.getElementById("resolve-note").value || undefined,
          until: suspend && until ? new Date(until).toISOString() : null,
          forfeit: suspend && document.getElementById("resolve-forfeit").checked });
      })) :
      el("p", { id: "resolution" }, resolution(report.resolution || {})),
    ...(report.details ? flagEvidence(report.details) : []),
    el("h2", {}, t("evidence")),
    el("p", {}, el("a", { href: `#/matches/${report.match_id}` }, `${t("match")} ${report.match_id}`)),
    playByPlay(evidence.state, evidence.log),
    el("h2", {}, t("chat")),
    table([t("seat"), t("name"), "", t("when")], (evidence.chat || []).map((l) => [l.seat ?? "", l.name, l.phrase || l.text || "", when(l.at)])),
  ];
}

async function tournamentsPage() {
  const list = await api("GET", "/v1/tournaments");
  const form = el("form", { class: "inline", onsubmit: (e) => e.preventDefault() },
    field("name", t("name"), { id: "t-name", maxlength: 100 }),
    el("label", {}, t("system"), el("select", { id: "t-system" }, el("option", { value: "swiss" }, "swiss"), el("option", { value: "arena" }, "arena"),
      el("option", { value: "duplicate" }, "duplicate"))),
    field("rounds", t("rounds_label"), { id: "t-rounds", type: "number", min: 1, value: 3 }),
    field("starts", t("starts_at"), { id: "t-starts", type: "datetime-local" }),
    field("seconds", t("move_seconds"), { id: "t-seconds", type: "number", min: 5, value: 30 }),
    action(t("create"), "admin", () => {
      const system = document.getElementById("t-system").value;
      const starts = document.getElementById("t-starts").value;
      const body = { name: document.getElementById("t-name").value, system,
        starts_at: starts ? new Date(starts).toISOString() : new Date(Date.now() + 3600e3).toISOString(),
        clock: { move_seconds: Number(document.getElementById("t-seconds").value) } };
      if (system === "arena") body.duration_minutes = 60;
      else body.rounds = Number(document.getElementById("t-rounds").value);
      return api("POST", "/v1/tournaments", body);
    }));
  return [el("h1", {}, t("tournaments")), form,
    table([t("name"), t("system"), t("status"), t("starts_at"), t("entrants"), ""],
      list.tournaments.map((x) => [el("a", { href: `#/tournaments/${x.id}` }, x.name), x.system, x.status,
        when(x.starts_at), x.entrant_count,
        ["scheduled", "running"].includes(x.status) ? action(t("cancel"), "admin", () => api("POST", `/v1/tournaments/${x.id}/cancel`), { danger: true }) : ""]))];
}

async function tournamentPage(id) {
  const x = await api("GET", `/v1/tournaments/${encodeURIComponent(id)}`);
  return [el("h1", {}, x.name), el("p", {}, `${x.system} · ${x.status} · ${t("round")} ${x.round}`),
    el("h2", {}, t("standings")),
    table(["#", t("player_id"), t("name"), "", t("games")], x.standings.map((s) => [s.rank, s.player_id, s.name || "", s.points, s.games])),
    el("h2", {}, t("pairings")),
    ...(x.rounds || [{ round: "", pairings: x.pairings || [] }]).map((round) => el("div", {},
      el("h3", {}, `${t("round")} ${round.round}`),
      round.commitment ? el("p", {}, el("code", {}, round.commitment)) : "",
      table([t("match"), t("players"), t("status")], (round.pairings || []).map((p) => [
        p.match_id ? el("a", { href: `#/matches/${p.match_id}` }, p.match_id.slice(0, 8)) : "bye",
        (p.players || []).join(" – "), p.status || ""]))))];
}

async function webhooksPage() {
  const list = await api("GET", "/v1/webhooks");
  return [el("h1", {}, t("webhooks")),
    table([t("url"), t("events"), t("status"), ""], list.webhooks.map((w) => [
      el("a", { href: `#/webhooks/${w.id}` }, w.url), w.events.join(", "),
      w.paused_at ? t("paused") : w.disabled_at ? t("disabled") : t("enabled"),
      w.paused_at || w.disabled_at
        ? action(t("resume"), "admin", () => api("POST", `/v1/webhooks/${w.id}/resume`))
        : action(t("pause"), "admin", () => api("POST", `/v1/webhooks/${w.id}/pause`))]))];
}

async function webhookPage(id) {
  const base = `/v1/webhooks/${encodeURIComponent(id)}`;
  const tries = await api("GET", `${base}/deliveries`);
  const since = field("since", t("recover"), { id: "recover-since", type: "datetime-local" });
  return [el("h1", {}, t("deliveries")),
    el("form", { class: "inline", onsubmit: (e) => e.preventDefault() }, since,
      action(t("retry"), "admin", () => {
        const value = document.getElementById("recover-since").value;
        return api("POST", `${base}/recover`, { since: new Date(value || Date.now() - 86400e3).toISOString() });
      })),
    table([t("when"), t("events"), t("status"), t("code"), t("took_ms"), ""], tries.deliveries.map((a) => [
      when(a.at), a.type, a.message_status, a.status_code ?? a.error ?? "", a.duration_ms,
      action(t("retry"), "admin", () => api("POST", `${base}/deliveries/${a.message_id}/retry`))]))];
}

async function auditPage(query) {
  const params = new URLSearchParams({ limit: "50" });
  for (const name of ["action", "subject", "cursor"]) if (query.get(name)) params.set(name, query.get(name));
  const page = await api("GET", `/v1/audit?${params}`);
  const form = el("form", { class: "inline", onsubmit: (event) => {
    event.preventDefault();
    const f = new URLSearchParams();
    if (event.target.action.value) f.set("action", event.target.action.value);
    if (event.target.subject.value) f.set("subject", event.target.subject.value);
    location.hash = `#/audit?${f}`;
  } }, field("action", t("action_col"), { value: query.get("action") || "", placeholder: "player.suspended" }),
  field("subject", t("subject"), { value: query.get("subject") || "", placeholder: "player:ana" }),
  el("button", { type: "submit" }, t("filter")));
  const next = new URLSearchParams(params);
  next.delete("limit");
  if (page.next) next.set("cursor", page.next);
  return [el("h1", {}, t("audit")), form,
    table([t("when"), t("actor"), t("action_col"), t("subject"), t("details")], page.entries.map((e) => [
      when(e.at), e.actor, e.action, e.subject, el("code", { dir: "ltr" }, JSON.stringify(e.details))])),
    page.next ? el("a", { href: `#/audit?${next}` }, t("more")) : null];
}

async function keysPage() {
  const listed = await api("GET", "/v1/keys");
  const shown = el("pre", { id: "made-key", hidden: true });
  const show = (label, value) => { shown.textContent = `${label}: ${value}`; shown.hidden = false; };
  const made = async (call, label) => { const answer = await call(); show(label, answer.key || answer.secret); };
  const revoke = (k) => action(t("revoke"), "admin", () => api("POST", "/v1/keys/revoke", { prefix: k.prefix }), { danger: true });
  const keep = async (act) => {  // a page that shows a key once: not redrawn after
    try { await act(); notice(t("shown_once"), true); } catch (error) { notice(`${error.message} (${error.reason || "error"})`); }
  };
  const allowed = RANK[session.role] >= RANK.admin;
  return [el("h1", {}, t("keys")), shown,
    el("h2", {}, t("api_keys")),
    table([t("prefix"), t("kind"), t("created"), ""], listed.keys.map((k) => [
      k.prefix, k.origins.length ? `${t("browser_key")}: ${k.origins.join(" ")}` : t("server_key"), when(k.created_at), revoke(k)])),
    el("form", { class: "inline", onsubmit: (e) => e.preventDefault() },
      field("origins", t("origins"), { id: "key-origins", placeholder: "https://play.example" }),
      el("button", { type: "button", disabled: !allowed, onclick: () => keep(() => made(() => api("POST", "/v1/keys", {
        origins: document.getElementById("key-origins").value.split(/\s+/).filter(Boolean) }), t("new_key"))) }, t("create"))),
    el("h2", {}, t("staff_keys")),
    table([t("prefix"), t("name"), t("role"), t("created"), ""], listed.staff.map((k) => [
      k.prefix, k.name, t(`role_${k.role}`), when(k.created_at), revoke(k)])),
    el("form", { class: "inline", onsubmit: (e) => e.preventDefault() },
      field("name", t("name"), { id: "staff-name", maxlength: 64 }),
      el("label", {}, t("role"), el("select", { id: "staff-role" }, ["viewer", "moderator", "admin"].map((r) => el("option", { value: r }, t(`role_${r}`))))),
      el("button", { type: "button", disabled: !allowed, onclick: () => keep(() => made(() => api("POST", "/v1/keys/staff", {
        name: document.getElementById("staff-name").value, role: document.getElementById("staff-role").value }), t("new_key"))) }, t("create"))),
    el("h2", {}, t("secret")),
    el("form", { class: "inline", onsubmit: (e) => e.preventDefault() },
      field("grace", t("grace"), { id: "secret-grace", type: "number", min: 0, max: 86400, value: 0 }),
      el("button", { type: "button", class: "danger", disabled: !allowed, onclick: () => keep(() => made(() => api("POST", "/v1/keys/secret/rotate", {
        grace_seconds: Number(document.getElementById("secret-grace").value) }), t("new_secret"))) }, t("rotate")))];
}

const ROUTES = [
  [/^\/keys$/, keysPage],
  [/^\/overview$/, overviewPage], [/^\/players$/, playersPage], [/^\/players\/(.+)$/, playerPage],
  [/^\/matches\/(.+)$/, matchPage], [/^\/reports$/, reportsPage], [/^\/reports\/(.+)$/, reportPage],
  [/^\/tournaments$/, tournamentsPage], [/^\/tournaments\/(.+)$/, tournamentPage],
  [/^\/webhooks$/, webhooksPage], [/^\/webhooks\/(.+)$/, webhookPage], [/^\/audit$/, auditPage],
];

let drawing = 0; // the latest route() drawing: an older one that ends later draws nothing

async function route() {
  if (!session) return;
  const mine = ++drawing;
  const [path, search] = (location.hash.slice(1) || "/overview").split("?");
  const query = new URLSearchParams(search || "");
  const page = document.getElementById("page");
  for (const link of document.querySelectorAll("#nav a")) {
    link.classList.toggle("here", path.startsWith(link.getAttribute("href").slice(1)));
  }
  for (const [pattern, show] of ROUTES) {
    const found = path.match(pattern);
    if (!found) continue;
    try {
      const content = await show(found[1] ? decodeURIComponent(found[1]) : query, query);
      if (mine !== drawing) return; // the staff member went elsewhere meanwhile
      page.replaceChildren(...[content].flat().filter(Boolean));
      page.dataset.page = pattern.source;
    } catch (error) {
      if (mine === drawing) notice(`${error.message} (${error.reason || "error"})`);
    }
    return;
  }
  location.hash = "#/overview";
}

function translate() {
  document.documentElement.lang = lang;
  document.documentElement.dir = lang === "ar" ? "rtl" : "ltr";
  for (const node of document.querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
  document.getElementById("language").textContent = t("other_language");
  document.title = t("title");
  if (session) {
    document.getElementById("who").textContent = t("who", { ...session, role: t(`role_${session.role}`) });
  }
}

function signedIn(found) {
  session = found;
  document.getElementById("sign-in").hidden = true;
  document.getElementById("nav").hidden = false;
  document.getElementById("sign-out").hidden = false;
  document.body.dataset.role = found.role;
  translate();
  route();
}

function signedOut() {
  session = null;
  document.getElementById("sign-in").hidden = false;
  document.getElementById("nav").hidden = true;
  document.getElementById("sign-out").hidden = true;
  document.getElementById("who").textContent = "";
  document.getElementById("page").replaceChildren();
  delete document.body.dataset.role;
}

document.getElementById("sign-in").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const found = await api("POST", "/v1/staff/sessions", { key: event.target.key.value });
    event.target.key.value = "";
    notice("");
    signedIn(found);
  } catch (error) {
    notice(`${error.message} (${error.reason})`);
  }
});
document.getElementById("sign-out").addEventListener("click", async () => {
  await api("DELETE", "/v1/staff/session").catch(() => null);
  signedOut();
});
document.getElementById("language").addEventListener("click", () => {
  lang = lang === "ar" ? "en" : "ar";
  localStorage.setItem("basra-console-lang", lang);
  translate();
  route();
});
window.addEventListener("hashchange", () => { notice(""); route(); });

translate();
api("GET", "/v1/staff/session").then(signedIn, signedOut);
