// The Basra API as a front end calls it: only public, documented endpoints.

/** A refused request: the problem+json body (RFC 9457) with its `reason`. */
export class ApiError extends Error {
  constructor(status, problem, retryAfter = null) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.reason = problem.reason || "http_error";
    this.problem = problem;
    this.retryAfter = retryAfter;  // seconds a 429 or a 503 asks the client to wait
  }
}

export class Api {
  /** `key` is the front end's API key (empty where the service does not ask for one). */
  constructor(key = "") {
    this.key = key;
  }

  headers(token, extra = {}) {
    const headers = { Accept: "application/json", ...extra };
    if (this.key) headers["X-API-Key"] = this.key;
    if (token) headers.Authorization = `Bearer ${token}`;
    return headers;
  }

  /** One call: the parsed body, or an ApiError for any 4xx/5xx. */
  async call(method, path, { body, token, headers = {} } = {}) {
    const init = { method, headers: this.headers(token, headers) };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers["Content-Type"] = "application/json";
    }
    const response = await fetch(path, init);
    if (response.status === 304) return null;
    const data = response.status === 204 ? null : await response.json().catch(() => ({}));
    if (!response.ok) {
      const wait = Number.parseInt(response.headers.get("Retry-After") || "", 10);
      throw new ApiError(response.status, data || {}, Number.isFinite(wait) ? wait : null);
    }
    return data;
  }

  variants() { return this.call("GET", "/v1/variants"); }
  /** The bot levels and their ladder; `mu` (a player's skill) names the nearest. */
  bots(mu) { return this.call("GET", mu === undefined ? "/v1/bots" : `/v1/bots?mu=${mu}`); }
  /** `player` (optional): the named player's token, who takes the seat that names them. */
  createMatch(spec, player) { return this.call("POST", "/v1/matches", { body: spec, token: player }); }
  quickPlay(spec, player) { return this.call("POST", "/v1/matches/quick", { body: spec, token: player }); }
  view(id, token) { return this.call("GET", `/v1/matches/${id}`, { token }); }
  join(id, spec, player) {
    return this.call("POST", `/v1/matches/${id}/join`, { body: spec, token: player });
  }

  /** A player token (where this page may mint one: the keyless local front end, or a
   * server key in the settings). */
  mintPlayerToken(playerId, name, ttlSeconds = 86400) {
    const body = { ttl_seconds: ttlSeconds };
    if (name) body.name = name;
    return this.call("POST", `/v1/players/${encodeURIComponent(playerId)}/tokens`, { body });
  }
  player(id) { return this.call("GET", `/v1/players/${encodeURIComponent(id)}`); }
  /** The player's coins in each currency of the front end (their token). */
  wallet(id, token) {
    return this.call("GET", `/v1/players/${encodeURIComponent(id)}/wallet`, { token });
  }
  ratingHistory(id, pool) {
    return this.call("GET", `/v1/players/${encodeURIComponent(id)}/ratings/${encodeURIComponent(pool)}`);
  }
  playerMatches(id, limit = 10) {
    return this.call("GET", `/v1/players/${encodeURIComponent(id)}/matches?limit=${limit}`);
  }
  leaderboard(pool, { cursor, around, limit = 20 } = {}) {
    const query = new URLSearchParams({ limit: String(limit) });
    if (cursor) query.set("cursor", cursor);
    if (around) query.set("around", around);
    return this.call("GET", `/v1/leaderboards/${encodeURIComponent(pool)}?${query}`);
  }
  tournaments(status) {
    return this.call("GET", `/v1/tournaments${status ? `?status=${encodeURIComponent(status)}` : ""}`);
  }
  tournament(id) { return this.call("GET", `/v1/tournaments/${encodeURIComponent(id)}`); }
  joinTournament(id, player) {
    return this.call("POST", `/v1/tournaments/${encodeURIComponent(id)}/join`, { body: {}, token: player });
  }
  withdrawTournament(id, player) {
    return this.call("POST", `/v1/tournaments/${encodeURIComponent(id)}/withdraw`, { body: {}, token: player });
  }

  /**
   * Follow a player's own events (their matches, their turns, their tournaments):
   * `onEvent({type, data})` for each, resuming after the last one seen when the stream
   * breaks, until `signal` aborts.
   */
  async followPlayer(id, token, onEvent, signal) {
    let lastId = null;
    while (!signal.aborted) {
      try {
        const headers = this.headers(token, { Accept: "text/event-stream" });
        if (lastId) headers["Last-Event-ID"] = lastId;
        const response = await fetch(`/v1/players/${encodeURIComponent(id)}/events`, { headers, signal });
        if (response.status === 401 || response.status === 403) return;  // a token gone stale
        if (!response.ok || !response.body) throw new Error(`player events: HTTP ${response.status}`);
        for await (const event of readEvents(response.body)) {
          lastId = event.id;
          onEvent({ type: event.type, data: JSON.parse(event.data) });
        }
      } catch (error) {
        if (signal.aborted) return;
        console.warn("player events stream broke; reconnecting", error);
      }
      await sleep(2000, signal);
    }
  }

  // ---- friends, challenges, parties, table chat ----
  friends(id, token) {
    return this.call("GET", `/v1/players/${encodeURIComponent(id)}/friends?limit=100`, { token });
  }
  befriend(id, other, token) {
    return this.call("PUT", `/v1/players/${encodeURIComponent(id)}/friends/${encodeURIComponent(other)}`, { token });
  }
  unfriend(id, other, token) {
    return this.call("DELETE", `/v1/players/${encodeURIComponent(id)}/friends/${encodeURIComponent(other)}`, { token });
  }
  challenges(id, token) {
    return this.call("GET", `/v1/players/${encodeURIComponent(id)}/challenges`, { token });
  }
  challenge(spec, token) { return this.call("POST", "/v1/challenges", { body: spec, token }); }
  answerChallenge(id, answer, token) {
    return this.call("POST", `/v1/challenges/${encodeURIComponent(id)}/${answer}`, { token });
  }
  newParty(token) { return this.call("POST", "/v1/parties", { token }); }
  party(id, token) { return this.call("GET", `/v1/parties/${encodeURIComponent(id)}`, { token }); }
  inviteToParty(id, playerId, token) {
    return this.call("POST", `/v1/parties/${encodeURIComponent(id)}/invite`, { body: { player_id: playerId }, token });
  }
  joinParty(id, token) { return this.call("POST", `/v1/parties/${encodeURIComponent(id)}/join`, { token }); }
  leaveParty(id, token) { return this.call("POST", `/v1/parties/${encodeURIComponent(id)}/leave`, { token }); }
  phrases() { return this.call("GET", "/v1/chat/phrases"); }
  chatSettings() { return this.call("GET", "/v1/chat/settings"); }
  chat(id, token, after = 0) { return this.call("GET", `/v1/matches/${id}/chat?after=${after}&limit=100`, { token }); }
  say(id, token, line) { return this.call("POST", `/v1/matches/${id}/chat`, { body: line, token }); }

  resign(id, token) { return this.call("POST", `/v1/matches/${id}/resign`, { token }); }
  rematch(id, token) { return this.call("POST", `/v1/matches/${id}/rematch`, { token }); }
  moveLog(id) { return this.call("GET", `/v1/matches/${id}/moves`); }
  /** A finished match's review: `status` pending until the worker made it. */
  review(id, token) { return this.call("GET", `/v1/matches/${id}/review`, { token }); }
  /** The seat's player is back: the stand-in that kept a dropped seat stops. */
  comeBack(id, token) { return this.call("POST", `/v1/matches/${id}/back`, { token }); }

  /** Play a move on the position the player saw (`If-Match`), safe to retry
   * (`Idempotency-Key`): a 412 means the view was stale. Refused for now (a 429 or a
   * 503) or lost on the way, the same move is sent again after the `Retry-After`
   * (`onWait(seconds)` told first), with the same key, while `wanted()` says so. */
  async play(id, token, move, version, { onWait = () => {}, wanted = () => true } = {}) {
    const headers = { "If-Match": `"${version}"`, "Idempotency-Key": crypto.randomUUID() };
    for (;;) {
      try {
        return await this.call("POST", `/v1/matches/${id}/moves`, { token, body: move, headers });
      } catch (error) {
        const later = !(error instanceof ApiError) || error.status === 429 || error.status === 503;
        if (!later || !wanted()) throw error;
        const seconds = error.retryAfter ?? RETRY_SECONDS;
        onWait(seconds);
        await sleep(seconds * 1000);
        if (!wanted()) throw error;
      }
    }
  }

  /**
   * Follow a match: `onState(view)` for each change until the match ends or
   * `signal` aborts, and `onChat(line)` for each line said at the table (on the stream). The events stream first (read with fetch, since
   * EventSource cannot send the seat's Authorization header); when a stream
   * breaks, long polls take over (`?wait=` with `If-None-Match`).
   */
  async follow(id, token, onState, signal, onChat = () => {}) {
    let lastId = null;
    const finished = (view) => view.status === "finished" || view.status === "aborted";
    try {
      const headers = this.headers(token, { Accept: "text/event-stream" });
      const response = await fetch(`/v1/matches/${id}/events`, { headers, signal });
      if (!response.ok || !response.body) throw new Error(`events: HTTP ${response.status}`);
      for await (const event of readEvents(response.body)) {
        if (event.type === "chat") onChat(JSON.parse(event.data));
        if (event.type !== "state") continue;
        lastId = event.id;
        const view = JSON.parse(event.data);
        onState(view);
        if (finished(view)) return;
      }
    } catch (error) {
      if (signal.aborted) return;
      console.warn("events stream failed, long polling instead", error);
    }
    await this.longPoll(id, token, onState, signal, lastId);
  }

  async longPoll(id, token, onState, signal, version) {
    let etag = null;
    while (!signal.aborted) {
      const headers = this.headers(token);
      if (etag) headers["If-None-Match"] = etag;
      try {
        const response = await fetch(`/v1/matches/${id}?wait=25`, { headers, signal });
        if (response.status === 200) {
          etag = response.headers.get("ETag");
          const view = await response.json();
          if (view.version !== Number(version)) onState(view);
          version = view.version;
          if (view.status === "finished" || view.status === "aborted") return;
          // on the viewer's own turn a long poll answers at once: wait for a move
          if (view.turn === view.seat && view.status === "active") {
            await sleep(1000, signal);
          }
        } else if (response.status !== 304) {
          await sleep(2000, signal);  // 429, 503: back off, then try again
        }
      } catch (error) {
        if (signal.aborted) return;
        await sleep(2000, signal);
      }
    }
  }
}

/** Server-Sent Events from a byte stream: {type, id, data} for each event. */
export async function* readEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = { type: "message", id: null, data: "" };
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) continue;  // a heartbeat comment
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event.type = text;
        else if (field === "id") event.id = text;
        else if (field === "data") event.data += (event.data ? "\n" : "") + text;
      }
      if (event.data) yield event;
    }
  }
}

/** How long a move waits to be sent again when its refusal named no `Retry-After`. */
const RETRY_SECONDS = 2;

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}
