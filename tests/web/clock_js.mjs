// Reads {"remaining": [[record, seat, receivedAt, now], ...], "controls": [control, ...], "countdowns": [ms, ...],
// "events": [[event, reader, names, control], ...]} (JSON) on stdin and writes what services/web/static/api.js
// remainingMs and services/web/static/clock.js say of each: tests/web/test_clock_js.py checks them.
import { remainingMs } from "../../services/web/static/api.js";
import { clockEventText, controlRules, controlText, countdownText, warnMs } from "../../services/web/static/clock.js";
import { eventText, outcomeText } from "../../services/web/static/dom.js";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const named = (names, reader) => (s) => (s === reader ? "you" : names[String(s)] ? `${names[String(s)]} (seat ${s})` : `seat ${s}`);
const out = {
  remaining: input.remaining.map(([record, seat, receivedAt, now]) => remainingMs(record, seat, receivedAt, now)),
  controls: input.controls.map((c) => [controlText(c), controlRules(c), c.kind === "none" ? null : warnMs(c)]),
  countdowns: input.countdowns.map(countdownText),
  events: input.events.map(([event, reader, names, control]) => {
    const said = clockEventText(event, named(names, reader), control);
    return said === null ? eventText(event, reader, named(names, reader)).text : said;
  }),
  outcomes: input.outcomes.map(outcomeText),
};
process.stdout.write(JSON.stringify(out));
