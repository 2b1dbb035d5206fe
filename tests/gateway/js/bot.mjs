#!/usr/bin/env node
// A bot that plays one complete airship match through the gateway, knowing nothing but the published
// contract (docs/gateway.md): HTTP for the lobby and half of the commands, one WebSocket per seat for
// views, events, results and the other half of the commands, and one spectator socket for the public view.
//
//   node bot.mjs --url http://127.0.0.1:PORT --game moderne-zeiten --seats 3 [--seed N] [--timeout S]
//
// Every seat chooses uniformly among its `legal` commands with its own seeded generator. Along the way
// it checks the contract's promises and counts what it did:
//   - a reconnect mid-match: a seat's socket is killed (no close frame) right after it sent a command,
//     then it subscribes again with after_version = the last view's version and events_after_version = the
//     last event's; views must never repeat a version or go back, events must continue without gap or
//     repeat (none is dropped or skipped by the bot: the service must resume each stream exactly), and re-sending the lost
//     command's idempotency key must give its fate;
//   - idempotency: a command is posted again with a key already used (over HTTP and over the socket) and
//     the answer must equal the first result; GET /matches/{id}/commands/{key} too;
//   - 202 pending (some commands are posted with wait_s=0) is followed by polling the `location`;
//   - rejections: the seat chooses again on the next view;
//   - the end: every seat's view and the public view say `finished: true`; then the match summary, the
//     public view and the (revealed) log are checked over HTTP.
// The last line on stdout is a JSON summary; exit 0 only when the match finished and every check passed.

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import Ajv2020 from "ajv/dist/2020.js";
import WebSocket from "ws";
// the web client's check of a command against `legal` (the gateway serves it at /web/legal.js), exact as the
// service's reading of a body: every command this bot expands from a choice must be one the choice covers
import { covers } from "../../../services/web/static/legal.js";

// -- arguments ---------------------------------------------------------------------------------------
const { values: args } = parseArgs({
  options: {
    url: { type: "string" },
    game: { type: "string" },
    seats: { type: "string" },
    seed: { type: "string", default: "1" },
    timeout: { type: "string", default: "120" },
    "reconnect-after": { type: "string", default: "20" },
    "reconnect-every": { type: "string", default: "150" },
    schemas: { type: "string", default: new URL("../../../schemas/", import.meta.url).pathname },
    verbose: { type: "boolean", short: "v", default: false },
  },
  strict: true,
});
if (!args.url || !args.game || !args.seats) {
  process.stderr.write("usage: node bot.mjs --url http://HOST:PORT --game GAME --seats N [--seed N] [--timeout S]\n");
  process.exit(64);
}
const BASE = args.url.replace(/\/+$/, "");
const GAME = args.game;
const SEATS = Number.parseInt(args.seats, 10);
const SEED = Number.parseInt(args.seed, 10) >>> 0;
const TIMEOUT_S = Number(args.timeout);
const RECONNECT_AFTER = Number.parseInt(args["reconnect-after"], 10);
const RECONNECT_EVERY = Number.parseInt(args["reconnect-every"], 10);
const VERBOSE = args.verbose;
const T0 = Date.now();

// -- counters, failure -------------------------------------------------------------------------------
const counters = {
  commands_sent: 0, // distinct idempotency keys sent
  http_commands: 0,
  ws_commands: 0,
  accepted: 0,
  rejected: 0,
  rejections: {}, // code -> count
  rejected_same_version: 0, // a command from `legal` rejected at the very version it was chosen on
  pending_answers: 0, // 202 / pending answers seen
  pending_polls: 0, // GET .../commands/{key} polls while pending
  reconnects: 0,
  resent_after_reconnect: 0, // commands whose fate was learnt by re-sending the key after a lost socket
  idempotent_resend_checked: 0, // re-sent keys whose answer equalled the first result
  result_get_checked: 0, // GET .../commands/{key} answers equal to the first result
  pushed_results: 0, // results pushed on a seat's socket for commands it sent over HTTP
  pushed_results_checked: 0, // ... and equal to the HTTP answer
  views_received: 0,
  public_views_received: 0,
  events_received: 0,
  duplicate_or_backward_views: 0,
  rate_limited: 0,
  retries_unavailable: 0,
  unexpected_closes: 0,
  ws_errors: 0,
  http_answers_validated: 0, // HTTP answers checked against schemas/openapi.json
  ws_messages_validated: 0, // socket messages (both ways) checked against schemas/json/ws/*.json
  covers_checked: 0, // expanded commands checked against their choice with legal.js's covers before sending
};
const errors = [];
const contractNotes = new Set(); // where the service did something docs/gateway.md does not say (not failures)
let matchId = null;
let finalVersion = null;
let outcome = null;
let finished = false;
let done = false;

function log(...parts) {
  if (VERBOSE) process.stderr.write(`[${((Date.now() - T0) / 1000).toFixed(2)}s] ${parts.join(" ")}\n`);
}

function summary(ok) {
  return {
    ok,
    game: GAME,
    seats: SEATS,
    seed: SEED,
    match_id: matchId,
    finished,
    version: finalVersion,
    outcome,
    elapsed_s: Number(((Date.now() - T0) / 1000).toFixed(2)),
    ...counters,
    contract_notes: [...contractNotes],
    errors,
  };
}

function finish(code) {
  if (done) return;
  done = true;
  for (const s of seats) s.closeQuietly();
  if (spectator) spectator.closeQuietly();
  process.stdout.write(`${JSON.stringify(summary(code === 0))}\n`);
  // give stdout a moment to flush before leaving
  setTimeout(() => process.exit(code), 20);
}

class Fatal extends Error {}

function fatal(message) {
  if (!done) {
    errors.push(message);
    process.stderr.write(`bot: FAILED: ${message}\n`);
  }
  finish(1);
  throw new Fatal(message);
}

function check(condition, message) {
  if (!condition) fatal(message);
}

function onError(e) {
  if (e instanceof Fatal || done) return;
  fatal(`unexpected error: ${e && e.stack ? e.stack : e}`);
}

process.on("unhandledRejection", onError);
process.on("uncaughtException", onError);
setTimeout(() => {
  if (done) return;
  const state = seats.map((s) => `seat ${s.seat}: view ${s.lastViewVersion}` +
    ` (legal ${s.latest ? s.latest.legal.length : "-"}, to_act ${s.latest ? canonical(s.latest.to_act) : "-"})` +
    `, event ${s.lastEventVersion}, in flight ${s.inFlight ? `${s.inFlight.key} via ${s.inFlight.via}` : "none"}` +
    `, finished ${s.finished}${s.reconnecting ? ", reconnecting" : ""}`);
  fatal(`global timeout: no finished match after ${TIMEOUT_S}s; public view ${lastPublic.version}; ${state.join("; ")}`);
}, TIMEOUT_S * 1000);

// -- helpers -----------------------------------------------------------------------------------------
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** JSON with object keys sorted, to compare answers field by field regardless of key order. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value === undefined ? null : value);
}

/** sfc32, seeded through splitmix32: a small PRNG of our own so a run's choices reproduce. */
function makeRng(seed) {
  let s = seed >>> 0;
  const split = () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split(), b = split(), c = split(), d = split();
  const next = () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t >>> 0;
  };
  for (let i = 0; i < 12; i++) next();
  return {
    int: (n) => Math.floor((next() / 4294967296) * n),
    pick(list) {
      return list[this.int(list.length)];
    },
  };
}

const rng = makeRng(SEED);

/** Counts for a `counts` or `multiset` field: a total in range, then one at a time to keys with room. */
function randomCounts(spec, r) {
  const room = Object.entries(spec.max).filter(([, most]) => most > 0);
  const cap = Math.min(spec.max_total, room.reduce((sum, [, most]) => sum + most, 0));
  const total = spec.min_total + r.int(cap - spec.min_total + 1);
  const counts = {};
  for (let t = 0; t < total; t++) {
    const i = r.int(room.length);
    const [k, most] = room[i];
    counts[k] = (counts[k] || 0) + 1;
    if (most === 1) room.splice(i, 1);
    else room[i] = [k, most - 1];
  }
  return counts;
}

/** One command of a `legal` choice: its fixed body with each free field drawn at random
 * (the kinds of docs/gateway.md: int, one_of, counts, multiset, subset, order, text). */
function expand(choice, r) {
  const body = { ...(choice.body || {}) };
  for (const [name, spec] of Object.entries(choice.free || {})) {
    if (spec.kind === "int") body[name] = spec.min + r.int(spec.max - spec.min + 1);
    else if (spec.kind === "one_of") body[name] = r.pick(spec.values);
    else if (spec.kind === "order") {
      const items = [...spec.items];
      for (let i = items.length - 1; i > 0; i--) { const j = r.int(i + 1); [items[i], items[j]] = [items[j], items[i]]; }
      body[name] = items;
    } else if (spec.kind === "subset") {
      for (;;) {
        const picked = spec.items.filter(() => r.int(2) === 1);
        if (picked.length >= spec.min && picked.length <= spec.max) { body[name] = picked; break; }
      }
    } else if (spec.kind === "multiset") {
      const cards = Object.entries(randomCounts(spec, r)).flatMap(([k, n]) => Array(n).fill(k));
      for (let i = cards.length - 1; i > 0; i--) { const j = r.int(i + 1); [cards[i], cards[j]] = [cards[j], cards[i]]; }
      body[name] = cards; // any order names the same cards
    } else if (spec.kind === "counts") {
      body[name] = randomCounts(spec, r);
    } else if (spec.kind === "text") {
      if (spec.optional && r.int(4) === 0) continue; // an optional text may be left out
      const n = (spec.min_length ?? 0) + r.int(spec.max_length - (spec.min_length ?? 0) + 1);
      body[name] = Array.from({ length: n }, () => "abc xyz!é"[r.int(9)]).join("");
    } else fatal(`unknown free field kind ${spec.kind}`);
  }
  return { type: choice.type, body };
}

// -- the published schemas ---------------------------------------------------------------------------
// Every HTTP answer is validated against the response schema schemas/openapi.json declares for its path,
// method and status; every socket message, both ways, against schemas/json/ws/<client|server>-<kind>.json.
const SCHEMAS = args.schemas.endsWith("/") ? args.schemas : `${args.schemas}/`;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const openapi = JSON.parse(readFileSync(`${SCHEMAS}openapi.json`, "utf8"));
ajv.addSchema({ $id: "openapi.json", components: openapi.components });
const ROUTES = Object.keys(openapi.paths).map((template) => ({
  template,
  re: new RegExp(`^${template.replace(/[.]/g, "\\.").replace(/\{[^}]+\}/g, "[^/]+")}$`),
}));
const validators = new Map();

/** A validator for a schema of the OpenAPI document (its #/components refs pointed at the added copy). */
function openapiValidator(id, schema) {
  if (!validators.has(id)) {
    const rewritten = JSON.parse(JSON.stringify(schema), (k, v) =>
      k === "$ref" && typeof v === "string" && v.startsWith("#/") ? `openapi.json${v}` : v);
    validators.set(id, ajv.compile(rewritten));
  }
  return validators.get(id);
}

function wsValidator(direction, kind) {
  const id = `ws:${direction}-${kind}`;
  if (!validators.has(id)) {
    let schema = null;
    try {
      schema = JSON.parse(readFileSync(`${SCHEMAS}json/ws/${direction}-${kind}.json`, "utf8"));
    } catch {
      // no schema for that kind: reported by the caller
    }
    validators.set(id, schema === null ? null : ajv.compile(schema));
  }
  return validators.get(id);
}

function checkHttpAnswer(method, path, status, body) {
  const route = ROUTES.find((r) => r.re.test(path));
  check(route, `${method} ${path}: no such path in schemas/openapi.json`);
  const op = openapi.paths[route.template][method.toLowerCase()];
  check(op, `${method} ${route.template}: no such operation in schemas/openapi.json`);
  const declared = op.responses[String(status)];
  if (!declared) {
    contractNotes.add(`${method} ${route.template} answered ${status}, a status schemas/openapi.json does not declare`);
    return;
  }
  const schema = declared.content && declared.content["application/json"] && declared.content["application/json"].schema;
  if (!schema || status === 204) return;
  const validate = openapiValidator(`${method} ${route.template} ${status}`, schema);
  check(validate(body), `${method} ${path} ${status}: answer does not match schemas/openapi.json: ` +
    `${ajv.errorsText(validate.errors)}: ${canonical(body).slice(0, 300)}`);
  counters.http_answers_validated++;
}

function checkWsMessage(direction, msg, where) {
  const validate = wsValidator(direction, msg.kind);
  check(validate, `${where}: no schema schemas/json/ws/${direction}-${msg.kind}.json for ${canonical(msg).slice(0, 200)}`);
  check(validate(msg), `${where}: ${direction} message does not match schemas/json/ws/${direction}-${msg.kind}.json: ` +
    `${ajv.errorsText(validate.errors)}: ${canonical(msg).slice(0, 300)}`);
  counters.ws_messages_validated++;
}

// -- HTTP --------------------------------------------------------------------------------------------
/**
 * One HTTP exchange. 429 (Retry-After) and 503 are waited out and retried (the same request: commands
 * carry their idempotency key, so a retry never applies one twice). Returns {status, body}.
 */
async function http(method, path, { token, body, query } = {}) {
  const url = new URL(BASE + path);
  for (const [k, v] of Object.entries(query || {})) url.searchParams.set(k, String(v));
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  for (let attempt = 0; ; attempt++) {
    let res;
    try {
      res = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(45_000),
      });
    } catch (e) {
      if (attempt < 5 && !done) {
        counters.retries_unavailable++;
        await sleep(200 * (attempt + 1));
        continue;
      }
      fatal(`${method} ${path}: ${e}${e && e.cause ? ` (${e.cause.code || e.cause.message})` : ""}`);
    }
    const text = await res.text();
    let parsed = null;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        fatal(`${method} ${path}: answer ${res.status} is not JSON: ${text.slice(0, 200)}`);
      }
    }
    if (res.status === 429) {
      counters.rate_limited++;
      const after = Number(res.headers.get("retry-after"));
      check(Number.isFinite(after) && after >= 0, `${method} ${path}: 429 without a usable Retry-After`);
      check(attempt < 50, `${method} ${path}: still rate limited after ${attempt} retries`);
      await sleep(Math.max(50, after * 1000));
      continue;
    }
    if (res.status === 503 && attempt < 10) {
      counters.retries_unavailable++;
      await sleep(300 * (attempt + 1));
      continue;
    }
    checkHttpAnswer(method, path, res.status, parsed);
    if (res.status >= 400) {
      const ctype = res.headers.get("content-type") || "";
      check(ctype.startsWith("application/problem+json"),
        `${method} ${path}: error ${res.status} is not application/problem+json (${ctype}): ${text.slice(0, 200)}`);
      check(parsed && parsed.status === res.status && typeof parsed.code === "string",
        `${method} ${path}: problem without status/code: ${text.slice(0, 200)}`);
    }
    return { status: res.status, body: parsed };
  }
}

function problem(r) {
  return r.body && r.body.code ? `${r.status} ${r.body.code}: ${r.body.detail}` : `${r.status} ${canonical(r.body)}`;
}

// -- results -----------------------------------------------------------------------------------------
const firstResults = new Map(); // `${seat}/${key}` -> first result seen for it
const pushedBeforeAnswer = new Map(); // `${seat}/${key}` -> result pushed before the HTTP answer came

function checkResult(result, seat, key, where) {
  check(result && typeof result === "object", `${where}: no result object`);
  check(result.status === "accepted" || result.status === "rejected", `${where}: bad status ${canonical(result)}`);
  check(result.command_id === key, `${where}: command_id ${result.command_id} is not the key ${key}`);
  check(result.match_id === matchId, `${where}: match_id ${result.match_id} is not ${matchId}`);
  check(result.seat === seat, `${where}: seat ${result.seat} is not ${seat}`);
  check(Number.isInteger(result.version), `${where}: no version`);
  if (result.status === "rejected") check(typeof result.code === "string", `${where}: rejection without code`);
  const id = `${seat}/${key}`;
  const first = firstResults.get(id);
  if (first === undefined) firstResults.set(id, result);
  else check(canonical(first) === canonical(result),
    `${where}: result for ${key} changed: first ${canonical(first)} now ${canonical(result)}`);
}

/** Poll the command's location until its result is there (202 pending -> 200). */
async function pollResult(seat, key, location) {
  const path = location || `/matches/${matchId}/commands/${encodeURIComponent(key)}`;
  check(path === `/matches/${matchId}/commands/${key}`, `pending answer with unexpected location ${path}`);
  for (;;) {
    counters.pending_polls++;
    const r = await http("GET", path, { token: seat.token, query: { wait_s: 5 } });
    if (r.status === 200) return r.body;
    check(r.status === 202 && r.body && r.body.status === "pending",
      `GET ${path}: expected 200 or 202 pending, got ${problem(r)}`);
  }
}

async function postCommand(seat, cmd, { waitS } = {}) {
  const query = waitS === undefined ? {} : { wait_s: waitS };
  const r = await http("POST", `/matches/${matchId}/commands`, {
    token: seat.token,
    query,
    body: { idempotency_key: cmd.key, type: cmd.type, body: cmd.body, expected_version: cmd.version },
  });
  if (r.status === 202) {
    counters.pending_answers++;
    check(r.body && r.body.status === "pending" && r.body.idempotency_key === cmd.key,
      `202 answer is not a pending record for ${cmd.key}: ${canonical(r.body)}`);
    return pollResult(seat, cmd.key, r.body.location);
  }
  check(r.status === 200, `POST /matches/${matchId}/commands (${cmd.key}): ${problem(r)}`);
  return r.body;
}

const notedCodes = new Set();
const DOCUMENTED_CODES = ["not_your_turn", "illegal_move", "bad_command", "game_over", "conflict", "future_version",
  "failed"];

// -- sockets -----------------------------------------------------------------------------------------
const WS_URL = `${BASE.replace(/^http/, "ws")}/ws`;
let cidCounter = 0;

/** One WebSocket with cid-correlated requests; `onMessage` gets every uncorrelated message. */
class Socket {
  constructor(name, onMessage, onClose) {
    this.name = name;
    this.onMessage = onMessage;
    this.onClose = onClose;
    this.waiters = new Map(); // cid -> {resolve, timer}, of the current connection
    this.ws = null;
    this.killed = false;
  }

  open() {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(WS_URL);
      const waiters = new Map(); // this connection's requests waiting for their answer
      this.ws = ws;
      this.waiters = waiters;
      this.killed = false;
      ws.on("open", () => resolve());
      ws.on("error", (e) => {
        counters.ws_errors++;
        log(`${this.name}: socket error ${e.message}`);
        reject(e);
      });
      ws.on("message", (data, isBinary) => {
        check(!isBinary, `${this.name}: binary frame though we only send text`);
        let msg;
        try {
          msg = JSON.parse(data.toString("utf8"));
        } catch {
          fatal(`${this.name}: message is not JSON: ${data.toString("utf8").slice(0, 200)}`);
        }
        check(msg && typeof msg.kind === "string", `${this.name}: message without kind: ${canonical(msg)}`);
        checkWsMessage("server", msg, this.name);
        if (msg.cid != null && waiters.has(msg.cid)) {
          const w = waiters.get(msg.cid);
          waiters.delete(msg.cid);
          clearTimeout(w.timer);
          w.resolve(msg);
          return;
        }
        this.onMessage(msg);
      });
      ws.on("close", (code, reason) => {
        for (const w of waiters.values()) {
          clearTimeout(w.timer);
          w.resolve(null); // the answer is lost with the socket
        }
        waiters.clear();
        if (ws === this.ws && !this.killed && !done) this.onClose(code, reason.toString());
      });
    });
  }

  get isOpen() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  /** Send a message with a fresh cid and wait for the message echoing it (null if the socket dies). */
  request(msg, timeoutMs = 30_000) {
    const cid = `c${++cidCounter}`;
    const waiters = this.waiters;
    return new Promise((resolve) => {
      if (!this.isOpen) {
        resolve(null); // as if the answer were lost with the socket
        return;
      }
      const timer = setTimeout(() => {
        waiters.delete(cid);
        fatal(`${this.name}: no answer to ${msg.kind} (cid ${cid}) within ${timeoutMs} ms`);
      }, timeoutMs);
      waiters.set(cid, { resolve, timer });
      const full = { ...msg, cid };
      checkWsMessage("client", full, this.name);
      this.ws.send(JSON.stringify(full));
    });
  }

  /** Drop the connection without a close frame (as a crashed client or a cut network would). */
  kill() {
    this.killed = true;
    this.ws.terminate();
  }

  closeQuietly() {
    if (this.ws) {
      this.killed = true;
      try {
        this.ws.terminate();
      } catch {
        // already gone
      }
    }
  }
}

// -- seats -------------------------------------------------------------------------------------------
class Seat {
  constructor(seat, token) {
    this.seat = seat;
    this.key = String(seat);
    this.token = token;
    this.rng = makeRng((SEED * 1000003 + seat * 7919 + 1) >>> 0);
    this.socket = new Socket(`seat ${seat}`, (m) => this.onMessage(m), (c, r) => this.onUnexpectedClose(c, r));
    this.latest = null; // the newest own view message
    this.lastViewVersion = 0;
    this.lastEventVersion = 0;
    this.finished = false;
    this.inFlight = null;
    this.minVersion = 0; // act only on a view at least this new (after a result)
    this.actedOn = -1; // the view version the last choice was made on
    this.excluded = new Set(); // commands rejected at `actedOn` (at that very version)
    this.n = 0;
    this.killAfterNextWsSend = false;
    this.reconnecting = null;
  }

  closeQuietly() {
    this.socket.closeQuietly();
  }

  async connect(afterVersion, eventsAfterVersion = afterVersion) {
    await this.socket.open();
    const answer = await this.socket.request({
      kind: "subscribe", match_id: matchId, token: this.token, after_version: afterVersion, events: true,
      events_after_version: eventsAfterVersion,
    });
    check(answer !== null, `seat ${this.seat}: socket closed before subscribed`);
    check(answer.kind === "subscribed", `seat ${this.seat}: subscribe answered ${canonical(answer)}`);
    check(answer.match_id === matchId && answer.seat === this.seat,
      `seat ${this.seat}: subscribed as ${canonical(answer)}`);
    check(answer.version >= afterVersion, `seat ${this.seat}: subscribed at version ${answer.version} < ${afterVersion}`);
  }

  onMessage(msg) {
    if (done) return;
    switch (msg.kind) {
      case "view":
        return this.onView(msg);
      case "event":
        return this.onEvent(msg);
      case "result":
        return this.onPushedResult(msg);
      case "error":
        return fatal(`seat ${this.seat}: error message ${canonical(msg)}`);
      default:
        return fatal(`seat ${this.seat}: unexpected message ${canonical(msg)}`);
    }
  }

  onView(msg) {
    check(msg.match_id === matchId, `seat ${this.seat}: view of another match ${msg.match_id}`);
    if (String(msg.key) === "public") return onPublicView(msg, `seat ${this.seat}'s socket`);
    check(String(msg.key) === this.key, `seat ${this.seat}: got the view of key ${msg.key}`);
    counters.views_received++;
    if (!(msg.version > this.lastViewVersion)) {
      counters.duplicate_or_backward_views++;
      fatal(`seat ${this.seat}: view version ${msg.version} after ${this.lastViewVersion} (repeat or going back)`);
    }
    check(msg.view && typeof msg.view === "object" && Array.isArray(msg.legal), `seat ${this.seat}: bad view message`);
    this.lastViewVersion = msg.version;
    this.latest = msg;
    const v = msg; // the record's declared fields: to_act, finished, outcome
    check(typeof v.finished === "boolean" && Array.isArray(v.to_act), `seat ${this.seat}: view without finished/to_act`);
    if (msg.legal.length > 0) check(v.to_act.includes(this.seat), `seat ${this.seat}: legal commands but not in to_act`);
    if (v.finished) {
      check(msg.legal.length === 0, `seat ${this.seat}: legal commands in a finished view`);
      if (!this.finished) log(`seat ${this.seat}: finished at version ${msg.version}`);
      this.finished = true;
      maybeDone();
      return;
    }
    this.maybeAct();
  }

  onEvent(msg) {
    check(msg.match_id === matchId && msg.event && Number.isInteger(msg.event.version),
      `seat ${this.seat}: bad event message ${canonical(msg).slice(0, 200)}`);
    const v = msg.event.version;
    check(v === this.lastEventVersion + 1,
      `seat ${this.seat}: event version ${v} after ${this.lastEventVersion} (gap or repeat)`);
    check(msg.event.match_id === matchId, `seat ${this.seat}: event of another match`);
    if (msg.event.command != null) check(msg.event.seat === this.seat, `seat ${this.seat}: sees another seat's command`);
    this.lastEventVersion = v;
    counters.events_received++;
  }

  onPushedResult(msg) {
    const result = msg.result;
    check(result && typeof result.command_id === "string", `seat ${this.seat}: result message without result: ${canonical(msg)}`);
    check(result.seat === this.seat, `seat ${this.seat}: pushed a result of seat ${result.seat}`);
    counters.pushed_results++;
    const id = `${this.seat}/${result.command_id}`;
    const first = firstResults.get(id);
    if (first !== undefined) {
      check(canonical(first) === canonical(result), `seat ${this.seat}: pushed result ${canonical(result)} differs from ${canonical(first)}`);
      counters.pushed_results_checked++;
    } else {
      pushedBeforeAnswer.set(id, result);
    }
  }

  onUnexpectedClose(code, reason) {
    counters.unexpected_closes++;
    errors.push(`seat ${this.seat}: socket closed by the server (${code} ${reason})`);
    this.reconnect("server closed").catch(onError);
  }

  /** Choose a legal command of the newest view and send it, unless one is in flight or nothing changed. */
  maybeAct() {
    if (done || this.finished || this.inFlight || this.reconnecting || !this.latest) return;
    const view = this.latest;
    if (view.version < this.minVersion || view.version === this.actedOn) return;
    if (view.version !== this.actedOn) this.excluded.clear();
    const legal = view.legal.filter((c) => !this.excluded.has(canonical(c)));
    if (legal.length === 0) return;
    const picked = this.rng.pick(legal);
    const choice = expand(picked, this.rng);
    check(covers(picked, choice.type, choice.body),
      `seat ${this.seat}: expanded ${canonical(choice)} is not covered by its choice ${canonical(picked)}`);
    counters.covers_checked++;
    this.actedOn = view.version;
    this.n++;
    const cmd = {
      key: `s${this.seat}.n${this.n}`,
      type: choice.type,
      body: choice.body || {},
      version: view.version,
      via: this.n % 2 === 0 && this.socket.isOpen ? "ws" : "http",
    };
    this.inFlight = cmd;
    counters.commands_sent++;
    this.send(cmd).then((result) => this.onResult(cmd, result)).catch(onError);
  }

  async send(cmd) {
    if (cmd.via === "ws") {
      counters.ws_commands++;
      return this.sendWs(cmd);
    }
    counters.http_commands++;
    // one HTTP command in ten asks for no wait at all, to meet 202 pending and its polling
    const result = await postCommand(this, cmd, counters.http_commands % 10 === 3 ? { waitS: 0 } : {});
    checkResult(result, this.seat, cmd.key, `POST ${cmd.key}`);
    const pushed = pushedBeforeAnswer.get(`${this.seat}/${cmd.key}`);
    if (pushed !== undefined) {
      check(canonical(pushed) === canonical(result), `seat ${this.seat}: pushed result differs from the HTTP answer`);
      counters.pushed_results_checked++;
      pushedBeforeAnswer.delete(`${this.seat}/${cmd.key}`);
    }
    return result;
  }

  wsCommandMessage(cmd) {
    return {
      kind: "command", match_id: matchId, idempotency_key: cmd.key, type: cmd.type, body: cmd.body,
      expected_version: cmd.version,
    };
  }

  /** Send over the socket; if the socket dies first, reconnect and send the same key again. */
  async sendWs(cmd) {
    for (let attempt = 0; ; attempt++) {
      check(attempt < 20, `seat ${this.seat}: ${cmd.key} got no answer after ${attempt} sends over the socket`);
      if (this.reconnecting) await this.reconnecting;
      const pending = this.socket.request(this.wsCommandMessage(cmd));
      if (this.killAfterNextWsSend) {
        // the reconnect demonstration: the connection dies with this command's answer in flight
        this.killAfterNextWsSend = false;
        this.reconnect("planned").catch(onError);
      }
      const answer = await pending;
      if (answer === null) {
        // the socket went away with the answer: its fate is learnt by sending the same key again
        counters.resent_after_reconnect++;
        continue;
      }
      if (answer.kind === "error" && answer.code === "rate_limited") {
        counters.rate_limited++;
        await sleep(250);
        continue;
      }
      check(answer.kind === "result", `seat ${this.seat}: command ${cmd.key} answered ${canonical(answer)}`);
      if (answer.result == null && answer.pending != null) {
        contractNotes.add("a socket `command` may be answered by a `result` with `pending` (and no `result`), " +
          "as schemas/json/ws/server-result.json allows; docs/gateway.md does not say so");
        counters.pending_answers++;
        const result = await pollResult(this, cmd.key, answer.pending.location);
        checkResult(result, this.seat, cmd.key, `WS ${cmd.key} (polled)`);
        return result;
      }
      checkResult(answer.result, this.seat, cmd.key, `WS ${cmd.key}`);
      return answer.result;
    }
  }

  async onResult(cmd, result) {
    if (done) return;
    if (result.status === "accepted") {
      counters.accepted++;
      this.minVersion = Math.max(this.minVersion, result.version);
      check(result.version > cmd.version, `seat ${this.seat}: ${cmd.key} accepted at version ${result.version} <= ${cmd.version}`);
      check(result.events >= 1, `seat ${this.seat}: ${cmd.key} accepted with no events`);
    } else {
      counters.rejected++;
      counters.rejections[result.code] = (counters.rejections[result.code] || 0) + 1;
      if (!DOCUMENTED_CODES.includes(result.code) && !notedCodes.has(result.code)) {
        notedCodes.add(result.code);
        contractNotes.add(`rejection code '${result.code}' is not among the documented ${DOCUMENTED_CODES.join(", ")}` +
          ` (e.g. ${cmd.type} chosen on ${cmd.version}, judged at ${result.version}: ${result.reason})`);
      }
      log(`seat ${this.seat}: ${cmd.key} ${cmd.type} rejected at ${result.version} (chosen on ${cmd.version}): ${result.code} ${result.reason}`);
      if (result.version > cmd.version || ["conflict", "not_your_turn", "game_over"].includes(result.code)) {
        // the match moved on: choose again on a newer view
        this.minVersion = Math.max(this.minVersion, cmd.version + 1, result.version);
      } else {
        // rejected at the version it was chosen on: `legal` offered a command the game refuses
        counters.rejected_same_version++;
        this.excluded.add(canonical({ type: cmd.type, body: cmd.body }));
        this.actedOn = -1;
      }
    }
    await this.idempotencyChecks(cmd, result);
    this.inFlight = null;
    onAccepted(this, result);
    this.maybeAct();
  }

  /** Sometimes: send the same key again over HTTP and over the socket; GET its result. */
  async idempotencyChecks(cmd, result) {
    const due = this.n === 3 || this.n === 4 || (result.status === "rejected" && counters.rejected <= 2);
    if (!due) return;
    const again = await postCommand(this, cmd);
    check(canonical(again) === canonical(result),
      `seat ${this.seat}: re-posting ${cmd.key} answered ${canonical(again)}, first was ${canonical(result)}`);
    counters.idempotent_resend_checked++;
    if (this.socket.isOpen && !this.reconnecting) {
      const answer = await this.socket.request(this.wsCommandMessage(cmd));
      if (answer !== null && answer.kind === "result" && answer.result) {
        check(canonical(answer.result) === canonical(result),
          `seat ${this.seat}: re-sending ${cmd.key} over the socket answered ${canonical(answer.result)}`);
        counters.idempotent_resend_checked++;
      }
    }
    const got = await http("GET", `/matches/${matchId}/commands/${cmd.key}`, { token: this.token });
    check(got.status === 200 && canonical(got.body) === canonical(result),
      `seat ${this.seat}: GET command ${cmd.key}: ${problem(got)}`);
    counters.result_get_checked++;
  }

  /** Kill the socket (no close frame), wait a little while the match goes on, subscribe again. */
  reconnect(why) {
    if (this.reconnecting) return this.reconnecting;
    log(`seat ${this.seat}: reconnect (${why}) after view ${this.lastViewVersion}, event ${this.lastEventVersion}`);
    this.socket.kill();
    this.reconnecting = (async () => {
      await sleep(150);
      // each stream resumes from its own last version: a command's events come before its view, and the
      // socket may have died between them (docs/gateway.md, "Resuming")
      const afterVersion = this.lastViewVersion;
      const eventsAfter = this.lastEventVersion;
      await this.connect(afterVersion, eventsAfter);
      counters.reconnects++;
      this.reconnecting = null;
      log(`seat ${this.seat}: resubscribed after_version=${afterVersion} events_after_version=${eventsAfter}`);
    })();
    this.reconnecting.then(() => this.maybeAct()).catch(onError);
    return this.reconnecting;
  }
}

let reconnectsPlanned = 0;
function onAccepted(seat, result) {
  if (result.status !== "accepted") return;
  const due = counters.accepted === RECONNECT_AFTER ||
    (counters.accepted > RECONNECT_AFTER && (counters.accepted - RECONNECT_AFTER) % RECONNECT_EVERY === 0);
  if (!due) return;
  reconnectsPlanned++;
  const victim = seats[rng.int(seats.length)];
  log(`planning a reconnect of seat ${victim.seat}`);
  // kill its socket right after it sends its next command over the socket; if it sends none soon
  // (not its turn, or its next command goes over HTTP), kill it anyway
  victim.killAfterNextWsSend = true;
  setTimeout(() => {
    if (victim.killAfterNextWsSend && !done && !victim.finished) {
      victim.killAfterNextWsSend = false;
      victim.reconnect("planned, idle").catch(onError);
    }
  }, 400);
}

// -- the spectator -----------------------------------------------------------------------------------
let spectator = null;
let lastPublic = { version: 0, finished: false, fromSocket: {} };

function onPublicView(msg, where) {
  counters.public_views_received++;
  const last = lastPublic.fromSocket[where] || 0;
  if (!(msg.version > last)) {
    counters.duplicate_or_backward_views++;
    fatal(`${where}: public view version ${msg.version} after ${last} (repeat or going back)`);
  }
  lastPublic.fromSocket[where] = msg.version;
  check(msg.view && typeof msg.finished === "boolean", `${where}: public view without finished`);
  check(!msg.legal || msg.legal.length === 0, `${where}: public view with legal commands`);
  if (msg.version >= lastPublic.version) {
    lastPublic.version = msg.version;
    if (msg.finished) {
      lastPublic.finished = true;
      outcome = msg.outcome;
      maybeDone();
    }
  }
}

async function openSpectator() {
  spectator = new Socket("spectator", (msg) => {
    if (msg.kind === "view") {
      check(String(msg.key) === "public", `spectator: got view of key ${msg.key}`);
      onPublicView(msg, "spectator");
    } else fatal(`spectator: unexpected message ${canonical(msg)}`);
  }, (code, reason) => {
    counters.unexpected_closes++;
    fatal(`spectator: socket closed by the server (${code} ${reason})`);
  });
  await spectator.open();
  const pong = await spectator.request({ kind: "ping" });
  check(pong && pong.kind === "pong", `spectator: ping answered ${canonical(pong)}`);
  const answer = await spectator.request({ kind: "subscribe", match_id: matchId, after_version: 0 });
  check(answer && answer.kind === "subscribed" && answer.match_id === matchId && answer.seat == null,
    `spectator: subscribe answered ${canonical(answer)}`);
}

// -- the end -----------------------------------------------------------------------------------------
let ending = false;
function maybeDone() {
  if (ending || !seats.length || !seats.every((s) => s.finished) || !lastPublic.finished) return;
  ending = true;
  finalChecks().then(() => finish(errors.length ? 1 : 0), onError);
}

async function finalChecks() {
  finished = true;
  finalVersion = Math.max(...seats.map((s) => s.lastViewVersion));
  check(seats.every((s) => s.lastViewVersion === finalVersion), `seats ended on different view versions`);
  check(lastPublic.version === finalVersion, `public view ended at ${lastPublic.version}, seats at ${finalVersion}`);
  check(counters.reconnects >= 1, "no reconnect happened (the match ended too early?)");
  check(counters.idempotent_resend_checked >= 1, "no idempotent resend was checked");

  const summaryAnswer = await http("GET", `/matches/${matchId}`);
  check(summaryAnswer.status === 200, `GET /matches/${matchId}: ${problem(summaryAnswer)}`);
  check(summaryAnswer.body.status === "finished", `match summary status ${summaryAnswer.body.status}, not finished`);
  check(summaryAnswer.body.version === finalVersion, `match summary version ${summaryAnswer.body.version} != ${finalVersion}`);

  const pub = await http("GET", `/matches/${matchId}/views/public`);
  check(pub.status === 200 && pub.body.finished === true && pub.body.version === finalVersion,
    `GET public view at the end: ${problem(pub)}`);
  const none = await http("GET", `/matches/${matchId}/views/public`, { query: { after_version: finalVersion, wait_s: 0 } });
  check(none.status === 204, `GET public view after the last version answered ${none.status}, not 204`);

  const logAnswer = await http("GET", `/matches/${matchId}/log`);
  check(logAnswer.status === 200, `GET log: ${problem(logAnswer)}`);
  check(logAnswer.body.perspective === "full", `finished match's log perspective ${logAnswer.body.perspective}, not full`);
  const versions = logAnswer.body.events.map((e) => e.version);
  check(versions.length === finalVersion && versions.every((v, i) => v === i + 1),
    `finished match's log has versions ${versions.slice(0, 5)}... (${versions.length}), expected 1..${finalVersion}`);
  for (const s of seats) {
    check(s.lastEventVersion === finalVersion, `seat ${s.seat} saw events up to ${s.lastEventVersion}, not ${finalVersion}`);
  }
  const late = await http("POST", `/matches/${matchId}/commands`, {
    token: seats[0].token, body: { idempotency_key: "after.the.end", type: "noop", body: {} },
  });
  check(late.status === 200 && late.body.status === "rejected",
    `a command after the end answered ${problem(late)}`);
  log(`after the end: ${late.body.code}`);
}

// -- main --------------------------------------------------------------------------------------------
const seats = [];

async function main() {
  const games = await http("GET", "/games");
  check(games.status === 200, `GET /games: ${problem(games)}`);
  const list = Array.isArray(games.body) ? games.body : games.body.games;
  check(Array.isArray(list), `GET /games: no list of games in ${canonical(games.body).slice(0, 200)}`);
  const info = list.find((g) => g.name === GAME);
  check(info, `GET /games: no game ${GAME} among ${list.map((g) => g.name)}`);
  if (info.min_seats !== undefined) {
    check(info.min_seats <= SEATS && SEATS <= info.max_seats,
      `${GAME} takes ${info.min_seats}..${info.max_seats} seats, not ${SEATS}`);
  }

  const created = await http("POST", "/matches", { body: { game: GAME, seats: SEATS, options: {}, reveal_log: true } });
  check(created.status === 201, `POST /matches: ${problem(created)}`);
  matchId = created.body.match_id;
  check(typeof matchId === "string" && matchId.length > 0, `POST /matches: no match_id in ${canonical(created.body)}`);
  check(created.body.game === GAME && created.body.seats === SEATS, `POST /matches: summary ${canonical(created.body)}`);
  log(`match ${matchId} created`);

  // a seat token is needed for commands: without one, 401
  const anon = await http("POST", `/matches/${matchId}/commands`, { body: { idempotency_key: "anon", type: "x", body: {} } });
  check(anon.status === 401 && anon.body.code === "unauthorized", `a command without a token answered ${problem(anon)}`);
  const unknown = await http("GET", `/matches/no-such-match-${SEED}`);
  check(unknown.status === 404 && unknown.body.code === "not_found", `an unknown match answered ${problem(unknown)}`);

  // take the seats: by number, the last one as "the first free one"
  for (let s = 0; s < SEATS; s++) {
    const body = s === SEATS - 1 ? {} : { seat: s };
    const joined = await http("POST", `/matches/${matchId}/seats`, { body });
    check(joined.status === 201, `POST /matches/${matchId}/seats ${canonical(body)}: ${problem(joined)}`);
    check(joined.body.match_id === matchId && joined.body.seat === s, `joined ${canonical(joined.body)} for seat ${s}`);
    check(new RegExp(`^${s}\\.[0-9a-f]{48}$`).test(joined.body.token), `seat ${s}: token not <seat>.<48 hex>`);
    seats.push(new Seat(s, joined.body.token));
  }
  const full = await http("POST", `/matches/${matchId}/seats`, { body: {} });
  check(full.status === 409 && full.body.code === "conflict", `joining a full match answered ${problem(full)}`);
  const never = await http("GET", `/matches/${matchId}/commands/never.sent`, { token: seats[0].token });
  check(never.status === 404 && never.body.code === "not_found", `GET of a never sent command answered ${problem(never)}`);

  // the seat's own view over HTTP (long-polled until the match has one)
  const me = await http("GET", `/matches/${matchId}/views/me`, { token: seats[0].token, query: { after_version: 0, wait_s: 10 } });
  check(me.status === 200 && String(me.body.key) === "0" && Array.isArray(me.body.legal) && me.body.version >= 1,
    `GET views/me: ${problem(me)}`);

  await openSpectator();
  await Promise.all(seats.map((s) => s.connect(0)));
  log("all seats subscribed");
}

main().catch(onError);
