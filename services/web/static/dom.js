// Building the page from data without ever parsing data as HTML: elements from tags, attributes and text.
const SVG_NS = 'http://www.w3.org/2000/svg';

function fill(node, attrs, children) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') node.addEventListener(name.slice(2), value);
    else if (name === 'text') node.textContent = String(value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export const el = (tag, attrs, ...children) => fill(document.createElement(tag), attrs, children);
export const svg = (tag, attrs, ...children) => fill(document.createElementNS(SVG_NS, tag), attrs, children);

export function clear(node, ...children) {
  node.replaceChildren();
  return fill(node, {}, children);
}

// Seat colours (16 seats at most)
export const SEAT_COLOURS = ['#e8590c', '#1c7ed6', '#2b8a3e', '#ae3ec9', '#f59f00', '#0c8599', '#c2255c', '#5c940d',
  '#364fc7', '#862e9c', '#d9480f', '#087f5b', '#a61e4d', '#495057', '#74b816', '#1864ab'];
export const seatColour = (seat) => (seat === null || seat === undefined ? '#adb5bd' : SEAT_COLOURS[seat % SEAT_COLOURS.length]);

// "strange_materials" -> "strange materials"; "BidPlaced" -> "bid placed"
export function words(name) {
  return String(name).replace(/_/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

export function valueText(value) {
  if (value === null || value === undefined) return '–';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.length ? value.map(valueText).join(', ') : 'none';
  if (typeof value === 'object') {
    const parts = Object.entries(value).map(([k, v]) => `${words(k)} ${valueText(v)}`);
    return parts.length ? parts.join(', ') : 'nothing';
  }
  return typeof value === 'string' ? words(value) : String(value);
}

export function bodyText(body) {
  return Object.entries(body || {}).map(([k, v]) => `${words(k)} ${valueText(v)}`).join('; ');
}

// A seat as a reader calls it: "you", or "seat 2"
export const seatName = (seat, reader) => (seat === reader && reader !== null && reader !== undefined ? 'you' : `seat ${seat}`);

// A seat's name starting a sentence: "You", "Seat 2"; a player's name as it is ("alice (seat 0)")
export const sentenceStart = (who) => (/^(you|seat |the )/.test(who) ? who.charAt(0).toUpperCase() + who.slice(1) : who);

// An event as the reader saw it, for people, actor first: "seat 1: bid placed — amount 5" ("You: …" for the
// reader's own; "The game begins: …" for the set-up, "The service: …" for what no seat did; "Seat 0 (the
// service's bot, as time ran out): …" for a move the service made for a seat whose clock ran out, #29). The
// version is kept in the element's data, not in the words. name(seat): how the reader calls a seat.
export function eventText(event, reader, name = (s) => seatName(s, reader)) {
  const hidden = event.visible_to !== null && event.visible_to !== undefined && (reader === null || !event.visible_to.includes(reader));
  const by = event.seat === null || event.seat === undefined ? (event.command_id ? 'The service' : 'The game begins') : name(event.seat);
  const standIn = String(event.command_id || '').startsWith('timeout-') ? ', by the service\'s bot as time ran out' : '';
  const who = sentenceStart(by) + standIn;
  const body = bodyText(event.body);
  return { text: `${who}: ${words(event.type)}${hidden ? ' (hidden from you)' : ''}${body ? ' — ' + body : ''}`, hidden };
}

// The game's own sentence for an event (the gateway's `text`, for a subscription with texts: the words its chat
// tables are told, "seat 2 throws Coal overboard (pays 2 gold)."), with each seat said by its player's name:
// "alice (seat 2) throws …", the reader's own "seat 2 (you) throws …" (a name, not "you", so the verb agrees).
// A move the service's bot made for a seat whose time ran out says so. Null when there is no sentence: '' means
// the game tells nothing of the event (bookkeeping), undefined that the gateway gave none (eventText words it).
export function gameEventText(event, text, reader, names = {}) {
  if (typeof text !== 'string') return null;
  if (text === '') return '';
  // (the sentence starts with a capital before the names go in: a player's name stays as its player wrote it)
  // (chat says the ids a player types, "high_rise"; a page says them as words)
  const plain = text.replace(/([a-z])_(?=[a-z])/g, '$1 ');
  const sentence = (plain.charAt(0).toUpperCase() + plain.slice(1)).replace(/\b(seat) (\d+)\b/gi, (_, word, n) => {
    const s = Number(n);
    const name = names[String(s)];
    if (!name) return s === reader ? `${word} ${s} (you)` : `${word} ${s}`;
    return s === reader ? `${name} (seat ${s}, you)` : `${name} (seat ${s})`;
  });
  if (!String(event.command_id || '').startsWith('timeout-')) return sentence;
  const end = sentence.endsWith('.') ? '.' : '';
  return `${sentence.slice(0, sentence.length - end.length)} (the service's bot moved, as time ran out)${end}`;
}

// Places by score, ties sharing a place: [{seat, score, place}] best first
export function placings(outcome) {
  const rows = (outcome.scores || []).map((score, seat) => ({ seat, score }));
  rows.sort((a, b) => b.score - a.score || a.seat - b.seat);
  rows.forEach((row, i) => { row.place = i > 0 && rows[i - 1].score === row.score ? rows[i - 1].place : i + 1; });
  return rows;
}

export const ordinal = (n) => `${n}${n % 10 === 1 && n % 100 !== 11 ? 'st' : n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th'}`;

export function outcomeText(outcome) {
  if (!outcome) return '';
  if (outcome.detail && outcome.detail.abandoned === true) {
    // detail.rule: how it ended (the MatchAbandoned event's rule); 'expired': nobody moved for the service's idle time
    if (outcome.detail.rule === 'expired') return 'ended by the service as nobody moved for too long, without a winner';
    return 'abandoned by its players, without a winner';
  }
  const winners = (outcome.winners || []).map((s) => `seat ${s}`).join(' and ');
  const forfeited = outcome.detail && Array.isArray(outcome.detail.forfeited) ? outcome.detail.forfeited : [];
  if (forfeited.length) {  // a seat's clock ran out (#29): it places last, the others share the win
    return `${forfeited.map((s) => `seat ${s}`).join(' and ')} forfeited (ran out of time); ${winners || 'nobody'} won`;
  }
  const scores = (outcome.scores || []).map((s, i) => `seat ${i}: ${s}`).join(', ');
  return `${winners || 'nobody'} won (${scores})`;
}
