// Reads [[event, text, reader, names], ...] (JSON) on stdin and writes what gameEventText of
// services/web/static/dom.js says of each: tests/web/test_event_words.py checks them.
import { gameEventText } from "../../services/web/static/dom.js";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
process.stdout.write(JSON.stringify(input.map(([event, text, reader, names]) => gameEventText(event, text, reader, names))));
