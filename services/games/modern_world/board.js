// Modern World: the tableau of resource cards with their prices and production, the market row with each card's
// reward, the event and what it does, the auction, and each player's tokens (against their capacity), the cards
// in play and lasting events (each explained: /web/explain.js) and in hand (as a count: only the own hand is shown,
// below the board). texts: the game's pieces in words (services/games/modern_world/texts.py).
import { el, svg, seatColour, words, valueText } from '/web/dom.js';
import { t, frame, seatTag, short, explained, said } from '/web/boards/common.js';

const W = 960;
const TOKENS = ['victory', 'influence', 'money', 'materials', 'labor', 'research', 'action'];
const TOKEN_COLOURS = { victory: '#a16207', influence: '#7c3aed', money: '#15803d', materials: '#92400e', labor: '#be123c', research: '#0369a1', action: '#475569' };

const fit = (text, n = 138) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);  // one line of the board

function card(x, y, w, h, title, lines, attrs = {}) {
  return svg('g', attrs, svg('rect', { x, y, width: w, height: h, rx: 6, fill: '#fffbeb', stroke: '#b45309' }),
    t(x + 6, y + 17, short(title, 12), { 'font-weight': 600 }),
    lines.map((line, i) => (line ? t(x + 6, y + 33 + i * 15, line, { 'font-size': 12, fill: i === lines.length - 1 ? '#111827' : '#334155' }) : null)));
}

// A row of names, each a piece with its words: "in play: Culture, Media" as tspans
function namedRow(x, y, label, names, kind, texts) {
  const parts = [`${label}: `];
  names.forEach((name, i) => {
    parts.push(explained(svg('tspan', { 'data-card': name }, name), name, said(texts, kind, name)));
    if (i < names.length - 1) parts.push(', ');
  });
  return t(x, y, parts, { 'font-size': 12 });
}

export function board(view, seat, texts = {}) {
  const parts = [];
  let y = 22;
  parts.push(t(10, y, `Turn ${view.turn ?? 0} · ${words(view.phase || '')} · leader seat ${view.leader ?? '–'}`, { 'font-weight': 700 }),
    t(520, y, `decks: resources ${view.resource_deck_count ?? 0}, market ${view.market_deck_count ?? 0}, events ${view.event_deck_count ?? 0}`));
  y += 14;
  parts.push(t(10, y + 14, 'Tableau (price in action and research)', { 'font-weight': 600 }));
  (view.tableau || []).forEach((slot, i) => {
    const gains = (said(texts, 'resource_short', slot.card) || '').split(' +').map((g) => g.replace(/^\+/, ''));
    parts.push(explained(card(10 + i * 94, y + 22, 88, 82, slot.card, [...gains.slice(0, 2).map((g) => (g ? `+${g}` : '')), `price ${slot.price}`],
      { 'data-tableau': i, 'data-card': slot.card }), slot.card, said(texts, 'resource', slot.card)));
  });
  y += 118;
  const row = (view.market_row || []).map((m) => (typeof m === 'string' ? m : m.card ?? valueText(m)));
  parts.push(t(10, y, row.length ? 'Market (auctioned one by one; the reward goes to the winner)' : 'Market: empty', { 'font-weight': 600 }));
  y += 8;
  if (row.length) {
    row.forEach((name, i) => parts.push(explained(card(10 + i * 134, y, 128, 52, name, [`reward ${said(texts, 'market_short', name) || '?'}`],
      { 'data-market': i, 'data-card': name }), name, said(texts, 'market', name))));
    y += 60;
  }
  y += 14;
  if (view.current_event) {
    const effect = said(texts, 'event', view.current_event);
    parts.push(explained(svg('g', { 'data-event': view.current_event }, t(10, y, fit(`Event: ${view.current_event}${effect ? ' — ' + effect : ''}`), { 'font-weight': 600 })),
      view.current_event, effect));
    y += 18;
  }
  const a = view.auction;
  if (a) {
    const high = a.high_bidder === null || a.high_bidder === undefined ? 'no bid yet' : `high bid ${a.high_bid} by seat ${a.high_bidder}`;
    const item = a.item === 'leader' ? 'the Leader Marker' : a.item;
    parts.push(explained(svg('g', { 'data-auction': a.item }, t(10, y, `Auction for ${item}: ${high}; seat ${a.to_bid} to bid (in influence)`, { 'font-weight': 600 })),
      item, said(texts, a.item === 'leader' ? 'board' : 'market', a.item)));
    y += 18;
  }
  if ((view.trades || []).length) { parts.push(t(10, y, `Trades offered: ${view.trades.length}`)); y += 18; }
  y += 10;
  for (const p of view.players || []) {
    const top = y;
    parts.push(seatTag(10, y + 12, p.seat, `seat ${p.seat}${(view.to_act || []).includes(p.seat) ? ' ◀' : ''}`),
      t(10, y + 30, `${p.hand_count} in hand`, { 'font-size': 12 }));
    if (p.nation) parts.push(explained(svg('g', { 'data-nation': p.nation }, t(10, y + 46, p.nation, { 'font-size': 12 })), p.nation, said(texts, 'nation', p.nation)));
    TOKENS.forEach((tok, i) => {
      const x = 130 + i * 118;
      const have = (p.tokens || {})[tok] ?? 0;
      const cap = (p.capacity || {})[tok];
      parts.push(explained(svg('g', { 'data-token': tok, 'data-seat': p.seat },
        svg('rect', { x, y, width: 110, height: 40, rx: 5, fill: '#fff', stroke: TOKEN_COLOURS[tok] }),
        t(x + 6, y + 15, words(tok), { fill: TOKEN_COLOURS[tok] }),
        t(x + 6, y + 33, `${have}`, { 'font-size': 14, 'font-weight': 700 }),
        cap !== undefined ? t(x + 36, y + 33, `+${cap}/turn`, { fill: '#475569' }) : null), words(tok), said(texts, 'token', tok)));
    });
    y += 60;
    parts.push(namedRow(130, y - 2, 'in play', p.in_play || [], 'resource', texts));
    if ((p.permanent_events || []).length) { y += 16; parts.push(namedRow(130, y - 2, 'lasting events', p.permanent_events, 'event', texts)); }
    parts.push(svg('line', { x1: 10, x2: W - 10, y1: y + 4, y2: y + 4, stroke: '#e2e8f0' }));
    parts.push(svg('rect', { x: 4, y: top - 4, width: 4, height: y - top + 6, fill: seatColour(p.seat) }));
    y += 14;
  }
  return frame(W, y + 6, 'Modern World board', ...parts);
}

export function hand(view, texts = {}) {
  const me = (view.players || []).find((p) => p.seat === view.seat);
  if (!me || !Array.isArray(me.hand)) return null;
  return el('div', { class: 'cards' }, me.hand.length ? me.hand.map((c, i) => explained(el('span', { class: 'card', 'data-card': c, 'data-i': i },
    el('b', {}, valueText(c)), el('small', {}, said(texts, 'resource_short', c) || '')), c, said(texts, 'resource', c)))
    : el('span', { class: 'muted' }, 'no cards'));
}
