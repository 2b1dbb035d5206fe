// A seat's `legal` choices (its view record's `legal`; docs/gateway.md, schemas/json/legal_choice.json): whether
// a command is one of them. The JavaScript twin of `Choice.covers` in schemas/legal.py, and as exact: the service
// reads a body strictly (no coercion), so a value must be of the JSON type of what the choice gives, all the way
// down. `true` is not `1`, `"1"` is not `1`, `[1]` is not `1`; a whole-number field takes a whole number
// (`Number.isInteger`: JSON.stringify writes it without a point, as the service expects), never 1.5.
// Pure (no DOM): the page, a bot in Node.js or any other client may import it (the gateway serves it at
// /web/legal.js).

/** The JSON type of a value: 'null', 'boolean', 'number', 'string', 'array', 'object' (a plain object), or
 * something no JSON value is ('undefined', 'function', 'other' for a Map, a Date...). */
export function jsonType(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  if (type !== 'object') return type === 'number' && !Number.isFinite(value) ? 'other' : type;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null ? 'object' : 'other';
}

/** Whether `value` (what a client sends) is the value `given` by a choice: equal, of the same JSON type at
 * every depth (objects compared key by key, in any key order). */
export function same(value, given) {
  const type = jsonType(given);
  if (jsonType(value) !== type) return false;
  if (type === 'array') return value.length === given.length && given.every((g, i) => same(value[i], g));
  if (type === 'object') {
    const keys = Object.keys(given);
    return Object.keys(value).length === keys.length && keys.every((k) => Object.hasOwn(value, k) && same(value[k], given[k]));
  }
  return value === given;
}

const whole = (n) => typeof n === 'number' && Number.isInteger(n);

function tally(value, max) {  // a multiset's names counted; null when one is not a key of `max`
  const counts = new Map();
  for (const name of value) {
    if (typeof name !== 'string' || !Object.hasOwn(max, name)) return null;
    counts.set(name, (counts.get(name) || 0) + 1);
  }
  return counts;
}

/** Whether `value` is one of the values a free field `spec` describes (the kinds of docs/gateway.md). */
export function contains(spec, value) {
  switch (spec.kind) {
    case 'int':
      return whole(value) && spec.min <= value && value <= spec.max;
    case 'one_of':
      return spec.values.some((v) => same(value, v));
    case 'counts': {
      if (jsonType(value) !== 'object') return false;
      let total = 0;
      for (const [k, n] of Object.entries(value)) {
        if (!Object.hasOwn(spec.max, k) || !whole(n) || n <= 0 || n > spec.max[k]) return false;
        total += n;
      }
      return (spec.min_total ?? 0) <= total && total <= spec.max_total;
    }
    case 'multiset': {
      if (!Array.isArray(value)) return false;
      const counts = tally(value, spec.max);
      if (counts === null) return false;
      for (const [k, n] of counts) if (n > spec.max[k]) return false;
      return (spec.min_total ?? 0) <= value.length && value.length <= spec.max_total;
    }
    case 'subset': {
      if (!Array.isArray(value) || value.length < (spec.min ?? 0) || value.length > spec.max) return false;
      let at = 0;  // in listed order, each listed item used at most once
      for (const v of value) {
        while (at < spec.items.length && !same(v, spec.items[at])) at++;
        if (at === spec.items.length) return false;
        at++;
      }
      return true;
    }
    case 'text': {  // lengths in code points, as the service counts them
      if (typeof value !== 'string') return false;
      const n = [...value].length;
      return (spec.min_length ?? 0) <= n && n <= spec.max_length;
    }
    case 'order': {
      if (!Array.isArray(value) || value.length !== spec.items.length) return false;
      const left = [...spec.items];  // every item once: each value takes one item it is the same as
      for (const v of value) {
        const i = left.findIndex((item) => same(v, item));
        if (i < 0) return false;
        left.splice(i, 1);
      }
      return true;
    }
    default:
      return false;  // a kind this client does not know covers nothing
  }
}

/** Whether the command (`type`, `body`) is one of the choice's commands. */
export function covers(choice, type, body) {
  if (type !== choice.type || jsonType(body) !== 'object') return false;
  const fixed = choice.body || {};
  const free = choice.free || {};
  const names = new Set([...Object.keys(fixed), ...Object.keys(free)]);
  const keys = Object.keys(body);
  if (!keys.every((k) => names.has(k))) return false;
  const optional = (spec) => spec.kind === 'text' && spec.optional === true;  // may be left out
  if (!Object.keys(fixed).every((k) => Object.hasOwn(body, k))) return false;
  if (!Object.entries(free).every(([k, spec]) => Object.hasOwn(body, k) || optional(spec))) return false;
  return Object.entries(fixed).every(([k, v]) => same(body[k], v)) &&
    Object.entries(free).every(([k, spec]) => !Object.hasOwn(body, k) || contains(spec, body[k]));
}

/** Whether some choice of `legal` covers the command. */
export function covered(legal, type, body) {
  return legal.some((choice) => covers(choice, type, body));
}
