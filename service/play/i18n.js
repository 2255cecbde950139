// The table's words in English and Arabic; Arabic lays the page out right to left.

const STRINGS = {
  en: {
    title: "Basra", other_language: "العربية", settings: "Settings",
    api_key: "API key (if the service asks for one)",
    new_match: "A new match", your_name: "Your name", variant: "Variant",
    house_rules: "House rules", target_score: "Play to",
    choose_captures: "Let me choose what a card captures", clock: "Clock per move",
    no_clock: "none", bot_level: "Computer", level_random: "beginner", level_greedy: "greedy",
    level_expert: "expert", play_computer: "Play the computer",
    open_table: "Open a table for a friend", quick_play: "Quick play",
    join_title: "A seat is free at this table", join: "Sit down", watch: "Just watch",
    resign: "Resign", rematch: "Rematch", share: "Share this table:",
    score_sheet: "Score sheet", verify_title: "Verify the deal",
    verify_help: "The seed was secret during the match; its SHA-256 was shown from the start. " +
      "Check it, and re-deal every round from it in this browser.",
    deal_commitment: "This deal's commitment (SHA-256 of its secret seed):",
    commitment: "Commitment", seed: "Seed", verify: "Verify",
    round: "Round {n}", stock: "Stock: {n}", your_turn: "Your turn",
    turn_of: "{name} to play", waiting: "Waiting for a player to sit down…",
    you: "you", team: "team {n}", cards: "{n} cards", clock_left: "Clock: {n} s",
    scores: "Score: {list}", played: "{name} played {card}", took: "and took {cards}",
    basra: "Basra!", jack_basra: "Jack basra!", choose_capture: "Take which?",
    cancel: "Cancel", won: "{name} won", draw: "A draw", aborted: "The match was aborted",
    end_resigned: "by resignation", end_timeout: "on time", end_target_score: "",
    sheet_round: "Round", sheet_cards: "Cards", sheet_basras: "Basras", sheet_points: "Points",
    check_commitment: "SHA-256 of the seed equals the commitment",
    check_commitment_bad: "SHA-256 of the seed does not equal the commitment",
    check_round: "Round {n}: dealt as the seed says",
    check_round_bad: "Round {n}: does not match ({detail})",
    verdict_ok: "The deal was fair: it is the one committed to before the first card.",
    verdict_fail: "This seed does not explain the deal.",
    rematch_offered: "A rematch is ready", open_rematch: "Go to the rematch",
    bot: "{level} computer",
    leaderboard: "Leaderboard", my_profile: "My profile", play_as: "Play as a named player",
    player_id: "Player id", player_token: "or a player token from your front end's server",
    sign_in: "Sign in", sign_out: "Sign out", signed_in: "Playing as {name} ({id})",
    rated_quick: "rated (named players only)", rating_chart: "Rating after each rated match",
    pool: "Pool", recent_matches: "Recent matches", around_me: "Around me",
    board_top: "From the top", board_empty: "Nobody is listed yet.", next_page: "Next page",
    board_place: "{name}: rank {rank}, above {percentile}% of the listed players",
    player_since: "Playing since {date}", no_ratings: "No rated matches yet.",
    col_pool: "Pool", col_rank: "Rank", col_player: "Player", col_rating: "Rating",
    col_mu: "μ", col_sigma: "σ", col_games: "Rated matches", provisional: "provisional",
    unlisted: "not listed", total_matches: "Matches", total_wins: "Wins",
    total_losses: "Losses", total_draws: "Draws", total_resigned: "Lost by resigning",
    total_timed_out: "Lost on time", total_basras: "Basras", total_jack_basras: "Jack basras",
    total_points: "Points", result_won: "won", result_lost: "lost", result_draw: "draw",
    result_playing: "in play", result_aborted: "aborted", result_waiting: "waiting",
    versus: "against {names}", chart_axis: "rated matches →", rated: "rated",
    tournaments: "Tournaments", tournaments_empty: "No tournaments yet.",
    t_status_scheduled: "starts {date}", t_status_running: "under way",
    t_status_finished: "finished", t_status_cancelled: "cancelled",
    t_system_swiss: "Swiss, {n} rounds", t_system_arena: "Arena, {n} minutes",
    t_players: "{n} of {max} players", t_join: "Join", t_withdraw: "Withdraw",
    t_sign_in_first: "Sign in as a named player (Settings) to join.",
    t_entered: "You are in.", t_your_match: "Your match: {link}",
    t_round: "Round {n}", t_bye: "Bye: {name}", t_standings: "Standings",
    col_points: "Points", col_buchholz: "Buchholz", col_sb: "S-B", col_games_short: "Games",
    t_pairings: "Pairings", t_watch: "watch", t_void: "not counted",
  },
  ar: {
    title: "باصرة", other_language: "English", settings: "الإعدادات",
    api_key: "مفتاح الواجهة (إن طلبته الخدمة)",
    new_match: "مباراة جديدة", your_name: "اسمك", variant: "النسخة",
    house_rules: "قواعد البيت", target_score: "العب حتى",
    choose_captures: "دعني أختار ما تأكله الورقة", clock: "وقت كل لعبة",
    no_clock: "بلا وقت", bot_level: "الكمبيوتر", level_random: "مبتدئ", level_greedy: "طمّاع",
    level_expert: "خبير", play_computer: "العب ضد الكمبيوتر",
    open_table: "افتح ترابيزة لصديق", quick_play: "لعب سريع",
    join_title: "يوجد مكان فارغ على هذه الترابيزة", join: "اجلس", watch: "تفرّج فقط",
    resign: "انسحب", rematch: "دور جديد", share: "شارك هذه الترابيزة:",
    score_sheet: "ورقة النقاط", verify_title: "تحقّق من التوزيع",
    verify_help: "كانت البذرة سرّية أثناء المباراة، وبصمتها SHA-256 ظاهرة من البداية. " +
      "تحقّق منها وأعد توزيع كل دور منها في هذا المتصفح.",
    deal_commitment: "بصمة هذا التوزيع (SHA-256 لبذرته السرّية):",
    commitment: "البصمة", seed: "البذرة", verify: "تحقّق",
    round: "الدور {n}", stock: "الكومة: {n}", your_turn: "دورك",
    turn_of: "دور {name}", waiting: "في انتظار لاعب…",
    you: "أنت", team: "الفريق {n}", cards: "{n} ورقة", clock_left: "الوقت: {n} ث",
    scores: "النقاط: {list}", played: "{name} لعب {card}", took: "وأكل {cards}",
    basra: "باصرة!", jack_basra: "باصرة بالولد!", choose_capture: "تأكل أيّها؟",
    cancel: "إلغاء", won: "فاز {name}", draw: "تعادل", aborted: "أُلغيت المباراة",
    end_resigned: "بالانسحاب", end_timeout: "بانتهاء الوقت", end_target_score: "",
    sheet_round: "الدور", sheet_cards: "الورق", sheet_basras: "الباصرات", sheet_points: "النقاط",
    check_commitment: "بصمة البذرة تطابق البصمة المنشورة",
    check_commitment_bad: "بصمة البذرة لا تطابق البصمة المنشورة",
    check_round: "الدور {n}: التوزيع كما تقول البذرة",
    check_round_bad: "الدور {n}: لا يطابق ({detail})",
    verdict_ok: "التوزيع عادل: هو نفسه الذي التُزم به قبل أول ورقة.",
    verdict_fail: "هذه البذرة لا تفسّر التوزيع.",
    rematch_offered: "الدور الجديد جاهز", open_rematch: "اذهب إلى الدور الجديد",
    bot: "كمبيوتر {level}",
    leaderboard: "الترتيب", my_profile: "ملفي", play_as: "العب باسم لاعب",
    player_id: "معرّف اللاعب", player_token: "أو رمز لاعب من خادم واجهتك",
    sign_in: "ادخل", sign_out: "اخرج", signed_in: "تلعب باسم {name} ({id})",
    rated_quick: "محسوبة في التصنيف (للاعبين المسمَّين فقط)",
    rating_chart: "التصنيف بعد كل مباراة محسوبة", pool: "المجموعة",
    recent_matches: "آخر المباريات", around_me: "حولي", board_top: "من الأول",
    board_empty: "لا أحد في الترتيب بعد.", next_page: "الصفحة التالية",
    board_place: "{name}: المركز {rank}، أعلى من {percentile}% من اللاعبين المرتّبين",
    player_since: "يلعب منذ {date}", no_ratings: "لا مباريات محسوبة بعد.",
    col_pool: "المجموعة", col_rank: "المركز", col_player: "اللاعب", col_rating: "التصنيف",
    col_mu: "μ", col_sigma: "σ", col_games: "مباريات محسوبة", provisional: "مبدئي",
    unlisted: "غير مرتّب", total_matches: "المباريات", total_wins: "الفوز",
    total_losses: "الخسارة", total_draws: "التعادل", total_resigned: "خسارة بالانسحاب",
    total_timed_out: "خسارة بالوقت", total_basras: "الباصرات",
    total_jack_basras: "باصرات الولد", total_points: "النقاط", result_won: "فاز",
    result_lost: "خسر", result_draw: "تعادل", result_playing: "جارية", result_aborted: "ملغاة",
    result_waiting: "في الانتظار", versus: "ضد {names}", chart_axis: "← المباريات المحسوبة",
    rated: "محسوبة",
    tournaments: "البطولات", tournaments_empty: "لا بطولات بعد.",
    t_status_scheduled: "تبدأ {date}", t_status_running: "جارية",
    t_status_finished: "انتهت", t_status_cancelled: "ألغيت",
    t_system_swiss: "سويسري، {n} جولات", t_system_arena: "أرينا، {n} دقيقة",
    t_players: "{n} من {max} لاعبين", t_join: "اشترك", t_withdraw: "انسحب",
    t_sign_in_first: "ادخل باسم لاعب (الإعدادات) لتشترك.",
    t_entered: "أنت مشترك.", t_your_match: "مباراتك: {link}",
    t_round: "الجولة {n}", t_bye: "راحة: {name}", t_standings: "الترتيب",
    col_points: "النقاط", col_buchholz: "بوخهولز", col_sb: "س-ب", col_games_short: "مباريات",
    t_pairings: "المواجهات", t_watch: "شاهد", t_void: "لا تحتسب",
  },
};

let language = "en";

export function setLanguage(lang) {
  language = STRINGS[lang] ? lang : "en";
  document.documentElement.lang = language;
  document.documentElement.dir = language === "ar" ? "rtl" : "ltr";
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  return language;
}

export function currentLanguage() {
  return language;
}

/** The text for `key` with `{name}` placeholders filled in. */
export function t(key, vars = {}) {
  const text = STRINGS[language][key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name] ?? ""));
}
