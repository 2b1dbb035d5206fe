// The gateway, from the page: HTTP calls (refusals as Problem errors), seat tokens kept in local storage,
// the WebSocket of a seat or a spectator with resume-by-version after a dropped connection, and turn clocks.

export class Problem extends Error {
  constructor(status, body) {
    const detail = (body && body.detail) || `the service answered ${status}`;
    super(detail);
    this.status = status;
    this.code = (body && body.code) || (status ? 'http_error' : 'offline');
    this.detail = detail;
    this.field = body && body.field;
  }
}

export async function api(method, path, { body, token, apiKey } = {}) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  if (apiKey) headers['X-Airship-Key'] = apiKey;
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new Problem(0, { code: 'offline', detail: 'the service cannot be reached; check the connection and try again' });
  }
  if (response.status === 204) return null;
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Problem(response.status, data);
  return data;
}

// -- seat tokens: "airship.match.<id>" -> {"<seat>": token}; only this browser has them ----------------------
const KEY = (matchId) => `airship.match.${matchId}`;

export const tokens = {
  of(matchId) {
    try { return JSON.parse(localStorage.getItem(KEY(matchId)) || '{}') || {}; } catch (e) { return {}; }
  },
  get(matchId, seat) { return this.of(matchId)[String(seat)] || null; },
  put(matchId, seat, token) {
    const held = this.of(matchId);
    held[String(seat)] = token;
    localStorage.setItem(KEY(matchId), JSON.stringify(held));
  },
  drop(matchId, seat) {
    const held = this.of(matchId);
    delete held[String(seat)];
    if (Object.keys(held).length) localStorage.setItem(KEY(matchId), JSON.stringify(held));
    else localStorage.removeItem(KEY(matchId));
  },
  seats(matchId) { return Object.keys(this.of(matchId)).map(Number).sort((a, b) => a - b); },
};

// -- who plays here: a registered player's name and API key, kept in this browser ("airship.player") ---------
export const identity = {
  get() {
    try { const me = JSON.parse(localStorage.getItem('airship.player') || 'null'); return me && me.name && me.key ? me : null; } catch (e) { return null; }
  },
  async signUp(name) {  // registers the name; the key is shown once, so it is kept here at once
    const got = await api('POST', '/players', { body: { name } });
    localStorage.setItem('airship.player', JSON.stringify({ name: got.name, key: got.api_key }));
    return got;
  },
  async signIn(key) {  // a key from elsewhere (another browser, a bot's config): checked, then kept
    const me = await api('GET', '/players/me', { apiKey: key });
    localStorage.setItem('airship.player', JSON.stringify({ name: me.name, key }));
    return me;
  },
  signOut() { localStorage.removeItem('airship.player'); },
};

// A new match (POST /matches): body {game, seats, options, reveal_log, clock}; clock is a time control
// {kind: 'none' | 'move' | 'bank', seconds, increment, timeouts} (GET /games lists its fields), left out when
// there is none. Returns the match's summary.
export function createMatch({ clock, ...body }, apiKey = null) {
  if (clock && clock.kind && clock.kind !== 'none') body.clock = clock;
  return api('POST', '/matches', { body, apiKey });
}

export async function join(matchId, seat) {  // signed in: the seat is linked to the player (and a rated seat opens)
  const me = identity.get();
  const got = await api('POST', `/matches/${encodeURIComponent(matchId)}/seats`, { body: seat == null ? {} : { seat }, apiKey: me ? me.key : null });
  tokens.put(matchId, got.seat, got.token);
  return got.seat;
}

// -- the WebSocket ----------------------------------------------------------------------------------------
const FATAL = new Set(['unauthorized', 'not_found', 'bad_request', 'forbidden']);

// Pauses before reconnecting (#32): 0.25 s, growing by half each time to 15 s, each drawn from the upper half of
// its step. A gateway that restarts in T seconds is found again at most about T / 2 later, where doubled whole
// seconds (1, 2, 4 …) left a tab waiting 8 s for a gateway back in 2; the draw spreads the tabs that lost the same
// gateway so they do not all come back at one instant. Seconds, to a tenth.
export function reconnectWait(retries, random = Math.random) {
  const step = Math.min(0.25 * 1.5 ** retries, 15);
  return Math.round(step * (0.5 + 0.5 * random()) * 10) / 10 || 0.1;
}

export class Live {
  // handlers: view(msg), event(msg), result(msg), error(msg) for refusals, state(name, detail)
  constructor(matchId, token, handlers) {
    this.matchId = matchId;
    this.token = token;
    this.on = handlers;
    this.version = 0; // the last view received: views resume after it
    this.eventVersion = 0; // the last event received: events resume after it (docs/gateway.md, "Resuming")
    this.pending = new Map();
    this.cids = 0;
    this.retries = 0;
    this.stopped = false;
    this.timer = null;
  }

  connect() {
    clearTimeout(this.timer);
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
    const ws = this.ws = new WebSocket(url);
    ws.onopen = () => {
      const sub = { kind: 'subscribe', cid: 'sub', match_id: this.matchId, after_version: this.version, events: true,
        events_after_version: this.eventVersion, texts: true };
      if (this.token) sub.token = this.token;
      ws.send(JSON.stringify(sub));
    };
    ws.onmessage = (e) => this.receive(JSON.parse(e.data));
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      for (const [, p] of this.pending) p.reject(new Problem(0, { code: 'offline', detail: 'the connection dropped before the answer came; send again' }));
      this.pending.clear();
      if (this.stopped) return;
      const wait = reconnectWait(this.retries);
      this.retries += 1;
      this.on.state('lost', { wait, code: e.code, reason: e.reason });
      this.timer = setTimeout(() => this.connect(), wait * 1000);
    };
  }

  receive(msg) {
    switch (msg.kind) {
      case 'subscribed': this.retries = 0; this.on.state('live', msg); break;
      case 'view':
        if (msg.version > this.version || (msg.version === 0 && !this.opened)) {
          msg.receivedAt = performance.now();  // when it came: its clocks count down from here (remainingMs)
          this.opened = true; this.version = msg.version; this.on.view(msg);
        }
        break;
      case 'event': if (msg.event.version > this.eventVersion) { this.eventVersion = msg.event.version; this.on.event(msg.event, msg.text); } break;
      case 'result': {
        const waiting = msg.cid && this.pending.get(msg.cid);
        if (waiting) { this.pending.delete(msg.cid); waiting.resolve(msg); } else this.on.result(msg);
        break;
      }
      case 'error': {
        const waiting = msg.cid && this.pending.get(msg.cid);
        if (waiting) { this.pending.delete(msg.cid); waiting.reject(new Problem(400, { code: msg.code, detail: msg.message })); break; }
        if (msg.cid === 'sub' && FATAL.has(msg.code)) this.stop();
        this.on.error(msg);
        break;
      }
      default: break;
    }
  }

  send(command) {
    const cid = `c${++this.cids}`;
    return new Promise((resolve, reject) => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
        reject(new Problem(0, { code: 'offline', detail: 'not connected; wait for the connection to come back' }));
        return;
      }
      this.pending.set(cid, { resolve, reject });
      this.ws.send(JSON.stringify({ kind: 'command', cid, match_id: this.matchId, ...command }));
    });
  }

  reconnectNow() { this.stopped = false; this.retries = 0; if (this.ws) { const old = this.ws; this.ws = null; old.close(); } this.connect(); }
  stop() { this.stopped = true; clearTimeout(this.timer); if (this.ws) this.ws.close(); }
}

// -- turn clocks (#29) -------------------------------------------------------------------------------------
// A clocked match's view records carry `clock`: {control, started, at_ms, seats: [{seat, remaining_ms,
// deadline_ms, timeouts, in_row, forfeited}]} (null without a clock) and `server_ms`, the gateway's time when it
// sent the record. A deadline is counted down from `deadline_ms - server_ms` at the moment the record came, by
// this browser's monotonic clock (performance.now()): its wall clock need not agree with the server's.

// The milliseconds `seat` has left at `now` (performance.now() times): for a seat on the clock, what is left of
// its decision (a bank clock: of its bank), never below 0; otherwise its `remaining_ms` (a bank: what is left of
// it; a move clock: the time per decision). null: no clock, or no such seat. `receivedAt` defaults to the stamp
// Live puts on each view record it passes on.
export function remainingMs(record, seat, receivedAt = record && record.receivedAt, now = performance.now()) {
  const clock = record && record.clock;
  const c = clock && clock.seats.find((x) => x.seat === seat);
  if (!c) return null;
  if (c.deadline_ms === null || c.deadline_ms === undefined || c.forfeited) return c.remaining_ms;
  const served = record.server_ms ?? clock.at_ms;  // (a record from the store has no server_ms)
  const since = receivedAt === undefined || receivedAt === null ? 0 : Math.max(0, now - receivedAt);
  return Math.max(0, c.deadline_ms - served - since);
}

export function key() {
  const bytes = new Uint8Array(9);
  crypto.getRandomValues(bytes);
  return 'web-' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
