// Reads {"legals": [[choice, ...], ...], "cases": [[legal index, type, body], ...]} (JSON) on stdin and writes
// [[covered, sent], ...]: whether services/web/static/legal.js says a choice of that legal list covers the
// command, and the body as this client would send it (JSON.stringify). tests/web/test_legal_js.py compares both
// with schemas/legal.py and with the game's decide.
import { covered } from "../../services/web/static/legal.js";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const { legals, cases } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const out = cases.map(([index, type, body]) => [covered(legals[index], type, body), JSON.stringify(body)]);
process.stdout.write(JSON.stringify(out));
